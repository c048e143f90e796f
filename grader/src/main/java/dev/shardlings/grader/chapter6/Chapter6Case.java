package dev.shardlings.grader.chapter6;

import dev.shardlings.array.NDArray;
import dev.shardlings.grader.checks.Generators;
import dev.shardlings.sharding.AxisType;
import dev.shardlings.sharding.Mesh;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

import java.util.ArrayList;
import java.util.List;

/**
 * One Chapter 6 case: seed 001's MLP of layer sizes {@code sizes} (five sizes, four layers), a batch of
 * {@code data · rowsPerDevice} rows, and a mesh with axis 'batch' of size {@code data} and, for the tensor-parallel
 * parts, axis 'model' of size {@code model} (1 for a mesh without it). Part 6.5 reads sizes as B, D, F.
 *
 * @param data          devices along 'batch' (6.1–6.4)
 * @param model         devices along 'model' (6.2, 6.5); 0 for a mesh without that axis
 * @param sizes         the layer sizes n0 … n4 (6.1–6.4), or [B, D, F] (6.5)
 * @param rowsPerDevice rows of the batch each 'batch' device holds
 * @param steps         SGD steps (6.1, 6.2)
 * @param seed          the seed of the values
 */
public record Chapter6Case(int data, int model, List<Integer> sizes, int rowsPerDevice, int steps, long seed) {

    /** The learning rate of every case: large enough that a wrong gradient moves the parameters visibly. */
    public static final float LR = 0.05f;

    /** @throws NullPointerException if sizes is null */
    public Chapter6Case {
        sizes = List.copyOf(sizes);
    }

    /** The batch size. */
    public int batch() {
        return data * rowsPerDevice;
    }

    /** The mesh: ('batch') of size data, or ('batch', 'model'), or ('model') when data is 0; Auto axes. */
    public Mesh mesh() {
        if (data == 0) {
            return Mesh.makeMesh(new int[]{model}, new String[]{"model"}, AxisType.AUTO);
        }
        if (model == 0) {
            return Mesh.makeMesh(new int[]{data}, new String[]{"batch"}, AxisType.AUTO);
        }
        return Mesh.makeMesh(new int[]{data, model}, new String[]{"batch", "model"}, AxisType.AUTO, AxisType.AUTO);
    }

    /** [W1, b1, …, W4, b4]: W_l f32[n_{l-1}, n_l] scaled by 2/√n_{l−1}, b_l f32[n_l]. */
    public List<NDArray> params() {
        List<NDArray> p = new ArrayList<>();
        for (int l = 0; l + 1 < sizes.size(); l++) {
            int in = sizes.get(l);
            int out = sizes.get(l + 1);
            p.add(Generators.sixteenths(seed + 2L * l, (float) (2 / Math.sqrt(in)), in, out));
            p.add(Generators.sixteenths(seed + 2L * l + 1, 1f, out));
        }
        return p;
    }

    /** The inputs f32[batch, n0]. */
    public NDArray inputs() {
        return Generators.sixteenths(seed ^ 0x1234_5678L, 2f, batch(), sizes.get(0));
    }

    /** The targets f32[batch, n4]. */
    public NDArray targets() {
        return Generators.sixteenths(seed ^ 0x0765_4321L, 2f, batch(), sizes.get(sizes.size() - 1));
    }

    /** The case in words, for reports. */
    public String describe(String layouts) {
        String mesh = data == 0 ? "('model': " + model + ")" : model == 0 ? "('batch': " + data + ")"
                : "('batch': " + data + ", 'model': " + model + ")";
        return "Case: mesh " + mesh + ", Auto axes; MLP layer sizes " + sizes + ", batch " + batch() + ", "
                + (steps > 0 ? steps + " step(s) of " : "learning rate ") + LR + "; " + layouts + " (value seed "
                + seed + ")";
    }

    /**
     * Chapter 6 cases: 'batch' of 1–16 devices (6.1, 6.3); 'batch' of 1–4 × 'model' of 1, 2 or 4 dividing n2
     * (6.2); 'batch' of 1–8 dividing every layer size (6.4); 'model' of 1–8 dividing F (6.5). Layer sizes 2–8
     * (multiples of the axis where they must divide), 1–3 rows per device, 1–3 steps (6.1, 6.2), any value seed.
     */
    public static Arbitrary<Chapter6Case> cases(Chapter6Kind kind) {
        Arbitrary<Integer> small = Arbitraries.integers().between(2, 8);
        Arbitrary<Integer> rows = Arbitraries.integers().between(1, 3);
        Arbitrary<Integer> steps = Arbitraries.integers().between(1, 3);
        Arbitrary<List<Integer>> sizes = small.list().ofSize(5);
        return switch (kind) {
            case DATA_PARALLEL, MANUAL_DATA_PARALLEL -> Combinators.combine(Arbitraries.integers().between(1,
                    Generators.MAX_DEVICES), sizes, rows, kind == Chapter6Kind.DATA_PARALLEL ? steps : Arbitraries.just(0),
                    Arbitraries.longs()).as((n, s, r, st, seed) -> new Chapter6Case(n, 0,
                    s, r, st, seed));
            case DATA_TENSOR_PARALLEL -> Combinators.combine(Arbitraries.integers().between(1, 4),
                    Arbitraries.of(1, 2, 4), sizes, Arbitraries.integers().between(1, 2), rows, steps,
                    Arbitraries.longs()).as((d, m, s, k, r, st, seed) -> {
                        List<Integer> ls = new ArrayList<>(s);
                        ls.set(2, m * k);
                        return new Chapter6Case(d, m, ls, r, st, seed);
                    });
            case FSDP -> Combinators.combine(Arbitraries.integers().between(1, 8),
                    Arbitraries.integers().between(1, 2).list().ofSize(5), rows, Arbitraries.longs())
                    .as((n, ks, r, seed) -> new Chapter6Case(n, 0,
                            ks.stream().map(k -> k * n).toList(), r, 0, seed));
            case MEGATRON -> Combinators.combine(Arbitraries.integers().between(1, 8),
                    Arbitraries.integers().between(1, 6), small, Arbitraries.integers().between(1, 2),
                    Arbitraries.longs()).as((m, b, d, k, seed) -> new Chapter6Case(0, m,
                    List.of(b, d, m * k), 1, 0, seed));
        };
    }
}
