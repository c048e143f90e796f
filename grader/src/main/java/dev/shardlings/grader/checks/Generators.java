package dev.shardlings.grader.checks;

import dev.shardlings.array.DType;
import dev.shardlings.grader.checks.MeshSpec;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Tuple;

import dev.shardlings.array.NDArray;
import dev.shardlings.sharding.AxisType;
import dev.shardlings.sharding.Mesh;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * The generic generators every chapter builds its cases from: meshes and values. Each chapter's case builder lives
 * beside its case record ({@code Chapter0Case.cases}, {@code MoeCase.cases}, …). Cases carry a value seed rather
 * than the values, so a shrunk case is small, printable and reproducible.
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

    /**
     * Float32 values for a case: multiples of 1/16 in [−1/2, 1/2], times {@code scale}, drawn from
     * {@code new Random(seed)} in row-major order (a few layers of products of them stay exact in float32 when
     * {@code scale} is a power of two).
     */
    public static NDArray sixteenths(long seed, float scale, int... shape) {
        int n = 1;
        for (int d : shape) {
            n *= d;
        }
        Random r = new Random(seed);
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = (r.nextInt(17) - 8) / 16f * scale;
        }
        return NDArray.fromFloats(v, shape);
    }

    /** A mesh of one Auto axis {@code name} of {@code devices} devices. */
    public static Mesh oneAxisMesh(String name, int devices) {
        return Mesh.makeMesh(new int[]{devices}, new String[]{name}, AxisType.AUTO);
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
