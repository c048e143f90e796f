package dev.shardlings.grader.chapter7;

import dev.shardlings.array.NDArray;
import dev.shardlings.grader.checks.Generators;
import dev.shardlings.sharding.AxisType;
import dev.shardlings.sharding.Mesh;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

import java.util.Random;

/**
 * One case of part 7.4a: W f32[D, F] P(), X f32[B_data, D] and T f32[B_data, F] with B = devices · M · r on a mesh
 * ('data': devices).
 *
 * @param devices      devices along 'data' (1–16)
 * @param microbatches microbatches M each device splits its rows into
 * @param rows         rows r of one microbatch, B/(data·M)
 * @param d            the input width D
 * @param f            the output width F
 * @param seed         the seed of the values
 */
public record AccumulationCase(int devices, int microbatches, int rows, int d, int f, long seed) {

    /** The batch B. */
    public int batch() {
        return devices * microbatches * rows;
    }

    /** The mesh ('data': devices), an Auto axis. */
    public Mesh mesh() {
        return Mesh.makeMesh(new int[]{devices}, new String[]{"data"}, AxisType.AUTO);
    }

    /** W f32[D, F]. */
    public NDArray w() {
        return values(seed, d, f);
    }

    /** X f32[B, D]. */
    public NDArray x() {
        return values(seed + 1, batch(), d);
    }

    /** T f32[B, F]. */
    public NDArray t() {
        return values(seed + 2, batch(), f);
    }

    /** Multiples of 1/16 in [−1/2, 1/2]: products and sums of a few of them are exact in float32. */
    private static NDArray values(long s, int rows, int cols) {
        Random r = new Random(s);
        float[] v = new float[rows * cols];
        for (int i = 0; i < v.length; i++) {
            v[i] = (r.nextInt(17) - 8) / 16f;
        }
        return NDArray.fromFloats(v, rows, cols);
    }

    /** The case in words, for reports. */
    public String describe() {
        return "Case: mesh ('data': " + devices + "), Auto axes; W f32[" + d + ", " + f + "] P(), X f32[" + batch()
                + ", " + d + "] and T f32[" + batch() + ", " + f + "] P('data'); M = " + microbatches
                + " microbatches of " + rows + " row(s) per device (value seed " + seed + ")";
    }

    /** 'data' of 1–16 devices, 1–4 microbatches of 1–3 rows, D and F of 1–6, any value seed. */
    public static Arbitrary<AccumulationCase> cases() {
        return Combinators.combine(Arbitraries.integers().between(1, Generators.MAX_DEVICES),
                Arbitraries.integers().between(1, 4), Arbitraries.integers().between(1, 3),
                Arbitraries.integers().between(1, 6), Arbitraries.integers().between(1, 6), Arbitraries.longs())
                .as(AccumulationCase::new);
    }
}
