package dev.shardlings.grader;

import dev.shardlings.array.DType;
import dev.shardlings.grader.chapter0.Chapter0Case;
import dev.shardlings.grader.checks.MeshSpec;
import dev.shardlings.grader.problem1.Problem1Case;
import dev.shardlings.grader.problem2.MoeCase;
import dev.shardlings.grader.problem3.MatmulCase;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;

import dev.shardlings.array.NDArray;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Every generator of test cases, in one place: meshes, shapes, values and parameters. Cases carry a value seed
 * rather than the values, so a shrunk case is small, printable and reproducible.
 */
public final class Generators {

    /** Largest number of devices a generated mesh has. */
    public static final int MAX_DEVICES = 16;

    private Generators() {
    }

    /** Sizes (X, Y) of a two-axis mesh with 1 ≤ X·Y ≤ 16, X = 1 and Y = 1 included. */
    public static Arbitrary<int[]> meshXY() {
        return Arbitraries.integers().between(1, MAX_DEVICES)
                .flatMap(x -> Arbitraries.integers().between(1, MAX_DEVICES / x).map(y -> new int[]{x, y}));
    }

    /**
     * Meshes that have the {@code required} axes plus up to {@code 3 − required} extra axes ("Z", "W") the arrays
     * are replicated over, 1–16 devices in all, axes in any order.
     */
    public static Arbitrary<MeshSpec> meshWith(String... required) {
        List<String> extraNames = List.of("Z", "W");
        int maxExtra = Math.max(0, 3 - required.length);
        return Arbitraries.integers().between(0, maxExtra).flatMap(extra -> {
            List<String> names = new ArrayList<>(List.of(required));
            names.addAll(extraNames.subList(0, extra));
            return sizes(names.size(), MAX_DEVICES).flatMap(sz -> inAnyOrder(names, sz));
        });
    }

    /** The axes with these names and sizes, in any order. */
    private static Arbitrary<MeshSpec> inAnyOrder(List<String> names, List<Integer> sizes) {
        return Arbitraries.of(permutations(names.size())).map(perm -> {
            List<String> n = new ArrayList<>();
            List<Integer> s = new ArrayList<>();
            for (int p : perm) {
                n.add(names.get(p));
                s.add(sizes.get(p));
            }
            return new MeshSpec(n, s);
        });
    }

    /**
     * Meshes for the ring problems (3 and 4): a ring axis "Y" of 1–16 devices, weighted towards rings of 2–8 with
     * odd lengths included (a plain product of uniform sizes would make most rings length 1), an axis "X" that
     * fills up to 16 devices, and half of the time an extra axis "Z" the arrays are replicated over; axes in any
     * order. Shrinking goes towards Y = 1.
     */
    public static Arbitrary<MeshSpec> ringMeshes() {
        Arbitrary<Integer> ring = Arbitraries.frequency(Tuple.of(1, 1), Tuple.of(3, 2), Tuple.of(3, 3),
                Tuple.of(3, 4), Tuple.of(1, 5), Tuple.of(1, 6), Tuple.of(2, 8), Tuple.of(1, 16));
        return ring.flatMap(y -> Arbitraries.integers().between(1, MAX_DEVICES / y).flatMap(x -> Arbitraries
                .integers().between(0, MAX_DEVICES / (x * y)).flatMap(z -> z == 0
                        ? inAnyOrder(List.of("X", "Y"), List.of(x, y))
                        : inAnyOrder(List.of("X", "Y", "Z"), List.of(x, y, z)))));
    }

    /** {@code count} axis sizes ≥ 1 whose product is at most {@code budget}. */
    private static Arbitrary<List<Integer>> sizes(int count, int budget) {
        if (count == 0) {
            return Arbitraries.just(List.of());
        }
        return Arbitraries.integers().between(1, budget).flatMap(first -> sizes(count - 1, budget / first).map(rest -> {
            List<Integer> l = new ArrayList<>();
            l.add(first);
            l.addAll(rest);
            return l;
        }));
    }

    private static List<List<Integer>> permutations(int n) {
        List<List<Integer>> out = new ArrayList<>();
        permute(new ArrayList<>(), n, out);
        return out;
    }

    private static void permute(List<Integer> prefix, int n, List<List<Integer>> out) {
        if (prefix.size() == n) {
            out.add(List.copyOf(prefix));
            return;
        }
        for (int i = 0; i < n; i++) {
            if (!prefix.contains(i)) {
                prefix.add(i);
                permute(prefix, n, out);
                prefix.remove(prefix.size() - 1);
            }
        }
    }

    /** Float32 values for a case: multiples of 1/4 in [−2, 2], so sums of their products are exact. */
    public static NDArray smallFloats(long seed, int... shape) {
        int n = 1;
        for (int d : shape) {
            n *= d;
        }
        Random r = new Random(seed);
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = (r.nextInt(17) - 8) / 4.0f;
        }
        return NDArray.fromFloats(v, shape);
    }

    /**
     * Chapter 0 cases on meshes with the given axes (plus extra replicated axes): size multipliers 1–3, any value
     * seed, a parameter in [−9, 9].
     */
    public static Arbitrary<Chapter0Case> chapter0Cases(String... axes) {
        Arbitrary<Integer> mult = Arbitraries.integers().between(1, 3);
        return Combinators.combine(meshWith(axes), mult, mult, mult, Arbitraries.longs(),
                Arbitraries.integers().between(-9, 9)).as(Chapter0Case::new);
    }

    /** Problem 1 cases: mesh (X, Y), 1–5 rows and 1–4 columns per shard, any value seed, float32 values. */
    public static Arbitrary<Problem1Case> problem1Cases() {
        return Combinators.combine(meshXY(), Arbitraries.integers().between(1, 5), Arbitraries.integers().between(1, 4),
                        Arbitraries.longs(), Arbitraries.integers().between(-11, 11))
                .as((xy, rows, cols, seed, shift) -> new Problem1Case(xy[0], xy[1], rows, cols, seed, shift,
                        DType.FLOAT32));
    }

    /**
     * Chapter 5 cases: {@link #meshXY()} (1–16 devices, X = 1 and Y = 1 included); I/X, J/(X·Y) and K/Y from 1–3;
     * any value seed.
     */
    public static Arbitrary<dev.shardlings.grader.chapter5.Chapter5Case> chapter5Cases() {
        Arbitrary<Integer> mult = Arbitraries.integers().between(1, 3);
        return Combinators.combine(meshXY(), mult, mult, mult, Arbitraries.longs())
                .as((xy, rows, inner, cols, seed) -> new dev.shardlings.grader.chapter5.Chapter5Case(xy[0], xy[1],
                        rows, inner, cols, seed));
    }

    /** Which part a Chapter 6 case is for: it decides the mesh and which sizes must divide. */
    public enum Chapter6Kind { DATA_PARALLEL, DATA_TENSOR_PARALLEL, MANUAL_DATA_PARALLEL, FSDP, MEGATRON }

    /**
     * Chapter 6 cases: 'batch' of 1–16 devices (6.1, 6.3); 'batch' of 1–4 × 'model' of 1, 2 or 4 dividing n2
     * (6.2); 'batch' of 1–8 dividing every layer size (6.4); 'model' of 1–8 dividing F (6.5). Layer sizes 2–8
     * (multiples of the axis where they must divide), 1–3 rows per device, 1–3 steps (6.1, 6.2), any value seed.
     */
    public static Arbitrary<dev.shardlings.grader.chapter6.Chapter6Case> chapter6Cases(Chapter6Kind kind) {
        Arbitrary<Integer> small = Arbitraries.integers().between(2, 8);
        Arbitrary<Integer> rows = Arbitraries.integers().between(1, 3);
        Arbitrary<Integer> steps = Arbitraries.integers().between(1, 3);
        Arbitrary<List<Integer>> sizes = small.list().ofSize(5);
        return switch (kind) {
            case DATA_PARALLEL, MANUAL_DATA_PARALLEL -> Combinators.combine(Arbitraries.integers().between(1,
                    MAX_DEVICES), sizes, rows, kind == Chapter6Kind.DATA_PARALLEL ? steps : Arbitraries.just(0),
                    Arbitraries.longs()).as((n, s, r, st, seed) -> new dev.shardlings.grader.chapter6.Chapter6Case(n, 0,
                    s, r, st, seed));
            case DATA_TENSOR_PARALLEL -> Combinators.combine(Arbitraries.integers().between(1, 4),
                    Arbitraries.of(1, 2, 4), sizes, Arbitraries.integers().between(1, 2), rows, steps,
                    Arbitraries.longs()).as((d, m, s, k, r, st, seed) -> {
                        List<Integer> ls = new java.util.ArrayList<>(s);
                        ls.set(2, m * k);
                        return new dev.shardlings.grader.chapter6.Chapter6Case(d, m, ls, r, st, seed);
                    });
            case FSDP -> Combinators.combine(Arbitraries.integers().between(1, 8),
                    Arbitraries.integers().between(1, 2).list().ofSize(5), rows, Arbitraries.longs())
                    .as((n, ks, r, seed) -> new dev.shardlings.grader.chapter6.Chapter6Case(n, 0,
                            ks.stream().map(k -> k * n).toList(), r, 0, seed));
            case MEGATRON -> Combinators.combine(Arbitraries.integers().between(1, 8),
                    Arbitraries.integers().between(1, 6), small, Arbitraries.integers().between(1, 2),
                    Arbitraries.longs()).as((m, b, d, k, seed) -> new dev.shardlings.grader.chapter6.Chapter6Case(0, m,
                    List.of(b, d, m * k), 1, 0, seed));
        };
    }

    /**
     * Problems 3 and 4 cases: {@link #ringMeshes()}; size multipliers 1–3 for B, D and F; any value seed; 2–4
     * tiles for part 3.1.
     */
    public static Arbitrary<MatmulCase> matmulCases() {
        Arbitrary<Integer> mult = Arbitraries.integers().between(1, 3);
        return Combinators.combine(ringMeshes(), mult, mult, mult, Arbitraries.longs(),
                Arbitraries.integers().between(2, 4)).as(MatmulCase::new);
    }

    /**
     * Problem 2 cases: meshes with axes X and Y plus up to one replicated axis (1–16 devices); 1–3 experts and 1–4
     * tokens per device along X; D and F multipliers 1–2; every routing; capacity 1–3; k = 1, or 2–3 for top-k.
     */
    public static Arbitrary<MoeCase> moeCases(boolean topK) {
        Arbitrary<Integer> ks = topK ? Arbitraries.integers().between(2, 3) : Arbitraries.just(1);
        Arbitrary<MoeCase.Routing> routing = topK ? Arbitraries.of(MoeCase.Routing.class)
                : Arbitraries.of(MoeCase.Routing.UNIFORM, MoeCase.Routing.ONE_EXPERT, MoeCase.Routing.SOME_EMPTY);
        return Combinators.combine(meshWith("X", "Y"), Arbitraries.integers().between(1, 3),
                Arbitraries.integers().between(1, 4), Arbitraries.integers().between(1, 2),
                Arbitraries.integers().between(1, 2), ks, routing, Arbitraries.integers().between(1, 3))
                .flatAs((m, e, s, d, f, k, r, cap) -> Arbitraries.longs().map(seed -> new MoeCase(m, e, s, d, f, k, r,
                        cap, seed)));
    }

    /**
     * Deterministic values for a case: float32 multiples of 1/4 in [−8, 8] (exact in float32 and easy to read), or
     * int32 in [−50, 50].
     */
    public static float[] values(long seed, int count, DType dtype) {
        Random r = new Random(seed);
        float[] v = new float[count];
        for (int i = 0; i < count; i++) {
            v[i] = dtype == DType.INT32 ? r.nextInt(101) - 50 : (r.nextInt(65) - 32) / 4.0f;
        }
        return v;
    }
}
