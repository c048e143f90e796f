package dev.shardlings.grader.chapter7;

import dev.shardlings.array.NDArray;
import dev.shardlings.grader.checks.Generators;
import dev.shardlings.sharding.Mesh;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

import java.util.Random;

/**
 * One case of part 7.4b: W f32[D, F] P(), Adam's mu and nu f32[D_data, F] P('data'), X f32[B_data, D] and T
 * f32[B_data, F] with D = devices · dRows and B = devices · rows, on a mesh ('data': devices).
 *
 * @param devices devices along 'data' (1–16)
 * @param rows    rows of the batch per device
 * @param dRows   rows of W (and of its optimizer state) each device owns, D/data
 * @param f       the output width F
 * @param step    Adam's step number t ≥ 1 (the count after this update)
 * @param seed    the seed of the values
 */
public record ZeroCase(int devices, int rows, int dRows, int f, int step, long seed) {

    /** Adam's learning rate in every case. */
    public static final float LEARNING_RATE = 0.01f;

    /** The input width D. */
    public int d() {
        return devices * dRows;
    }

    /** The mesh ('data': devices), an Auto axis. */
    public Mesh mesh() {
        return Generators.oneAxisMesh("data", devices);
    }

    /** W f32[D, F]. */
    public NDArray w() {
        return values(seed, d(), f, false);
    }

    /** mu f32[D, F]: zero at step 1, as optax's init leaves it. */
    public NDArray mu() {
        return step == 1 ? NDArray.fromFloats(new float[d() * f], d(), f) : values(seed + 3, d(), f, false);
    }

    /** nu f32[D, F], non-negative: zero at step 1. */
    public NDArray nu() {
        return step == 1 ? NDArray.fromFloats(new float[d() * f], d(), f) : values(seed + 4, d(), f, true);
    }

    /** X f32[B, D]. */
    public NDArray x() {
        return values(seed + 1, devices * rows, d(), false);
    }

    /** T f32[B, F]. */
    public NDArray t() {
        return values(seed + 2, devices * rows, f, false);
    }

    /** Multiples of 1/16 in [−1/2, 1/2] (their squares / 16 when {@code square}). */
    private static NDArray values(long s, int rows, int cols, boolean square) {
        Random r = new Random(s);
        float[] v = new float[rows * cols];
        for (int i = 0; i < v.length; i++) {
            float a = (r.nextInt(17) - 8) / 16f;
            v[i] = square ? a * a / 16 : a;
        }
        return NDArray.fromFloats(v, rows, cols);
    }

    /** The case in words, for reports. */
    public String describe() {
        return "Case: mesh ('data': " + devices + "), Auto axes; W f32[" + d() + ", " + f + "] P(), mu and nu f32["
                + d() + ", " + f + "] P('data'), X f32[" + devices * rows + ", " + d() + "] and T f32["
                + devices * rows + ", " + f + "] P('data'); Adam step " + step + ", learning rate " + LEARNING_RATE
                + " (value seed " + seed + ")";
    }

    /** 'data' of 1–16 devices, 1–3 rows and 1–2 rows of W per device, F of 1–4, steps 1–3, any value seed. */
    public static Arbitrary<ZeroCase> cases() {
        return Combinators.combine(Arbitraries.integers().between(1, Generators.MAX_DEVICES),
                Arbitraries.integers().between(1, 3), Arbitraries.integers().between(1, 2),
                Arbitraries.integers().between(1, 4), Arbitraries.integers().between(1, 3), Arbitraries.longs())
                .as(ZeroCase::new);
    }
}
