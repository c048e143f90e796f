package dev.shardlings.grader.chapter7;

import dev.shardlings.array.NDArray;
import dev.shardlings.grader.checks.Generators;
import dev.shardlings.sharding.Mesh;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

import java.util.ArrayList;
import java.util.List;

/**
 * One case of part 7.6: L layers W_l f32[D, D] P(), X f32[B_data, D] and T f32[B_data, D] with B = devices · r on a
 * mesh ('data': devices).
 *
 * @param devices devices along 'data' (1–16)
 * @param layers  the depth L (4–6: from four layers on, keeping every intermediate outgrows the bound)
 * @param rows    rows r per device, B/data
 * @param width   the width D
 * @param seed    the seed of the values
 */
public record RematCase(int devices, int layers, int rows, int width, long seed) {

    /** The batch B. */
    public int batch() {
        return devices * rows;
    }

    /** The mesh ('data': devices), an Auto axis. */
    public Mesh mesh() {
        return Generators.oneAxisMesh("data", devices);
    }

    /** W_1 … W_L, each f32[D, D]. */
    public List<NDArray> weights() {
        List<NDArray> ws = new ArrayList<>();
        for (int l = 0; l < layers; l++) {
            ws.add(Generators.sixteenths(seed + 3 + l, 1f, width, width));
        }
        return ws;
    }

    /** X f32[B, D]. */
    public NDArray x() {
        return Generators.sixteenths(seed, 1f, batch(), width);
    }

    /** T f32[B, D]. */
    public NDArray t() {
        return Generators.sixteenths(seed + 1, 1f, batch(), width);
    }

    /** The case in words, for reports. */
    public String describe() {
        return "Case: mesh ('data': " + devices + "), Auto axes; L = " + layers + " layers W_l f32[" + width + ", "
                + width + "] P(), X and T f32[" + batch() + ", " + width + "] P('data'), " + rows + " rows per device"
                + " (value seed " + seed + ")";
    }

    /**
     * 'data' of 1–16 devices, 4–6 layers, 2–3 rows per device, D of 5–8 (so one activation, 4·r·D bytes, is
     * larger than the loss's few scalars, and a matrix product written elementwise, r·D² multiplications, is
     * larger than the elementwise work a layer needs: RematChecks.ELEMENTWISE_PER_ACTIVATION), any value seed.
     */
    public static Arbitrary<RematCase> cases() {
        return Combinators.combine(Arbitraries.integers().between(1, Generators.MAX_DEVICES),
                Arbitraries.integers().between(4, 6), Arbitraries.integers().between(2, 3),
                Arbitraries.integers().between(5, 8), Arbitraries.longs()).as(RematCase::new);
    }
}
