package dev.shardlings.grader.chapter7;

import dev.shardlings.array.NDArray;
import dev.shardlings.grader.checks.Generators;
import dev.shardlings.sharding.Mesh;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

import java.util.Random;

/**
 * One case of part 7.5: master weights W1 f32[D_data, H] and W2 f32[H_data, F], X f32[B_data, D] and T
 * f32[B_data, F] with D = devices · dRows, H = devices · hRows and B = devices · rows, on a mesh ('data': devices).
 *
 * <p>The values are chosen so that the first layer is exact in float32 and in double: X and T are multiples of
 * 1/16 in [−1/2, 1/2] (exact in bfloat16), the masters multiples of 2^−13 in (−1, 1) (most of them not exact in
 * bfloat16, so the casts matter). X·bf16(W1) then needs at most 22 significant bits, and an oracle in double rounds
 * the hidden activations to bfloat16 exactly as the device does.
 *
 * @param devices devices along 'data' (1–16)
 * @param rows    rows of the batch per device
 * @param dRows   rows of W1 each device keeps, D/data
 * @param hRows   rows of W2 each device keeps, H/data
 * @param f       the output width F
 * @param seed    the seed of the values
 */
public record MixedCase(int devices, int rows, int dRows, int hRows, int f, long seed) {

    /**
     * The learning rate of every case: large enough that the update moves the masters by many bfloat16 steps of
     * the gradient, small enough that a master rounded to bfloat16 is further off than that.
     */
    public static final float LEARNING_RATE = 0.0625f;

    /** The input width D. */
    public int d() {
        return devices * dRows;
    }

    /** The hidden width H. */
    public int h() {
        return devices * hRows;
    }

    /** The batch B. */
    public int batch() {
        return devices * rows;
    }

    /** The mesh ('data': devices), an Auto axis. */
    public Mesh mesh() {
        return Generators.oneAxisMesh("data", devices);
    }

    /** W1 f32[D, H]. */
    public NDArray w1() {
        return masters(seed, d(), h());
    }

    /** W2 f32[H, F]. */
    public NDArray w2() {
        return masters(seed + 1, h(), f);
    }

    /** X f32[B, D]. */
    public NDArray x() {
        return Generators.sixteenths(seed + 2, 1f, batch(), d());
    }

    /** T f32[B, F]. */
    public NDArray t() {
        return Generators.sixteenths(seed + 3, 1f, batch(), f);
    }
    private static NDArray masters(long s, int rows, int cols) {
        Random r = new Random(s);
        float[] v = new float[rows * cols];
        for (int i = 0; i < v.length; i++) {
            v[i] = (r.nextInt(16383) - 8191) / 8192f;
        }
        return NDArray.fromFloats(v, rows, cols);
    }

    /** The case in words, for reports. */
    public String describe() {
        return "Case: mesh ('data': " + devices + "), Auto axes; W1 f32[" + d() + ", " + h() + "] and W2 f32[" + h()
                + ", " + f + "] P('data'), X f32[" + batch() + ", " + d() + "] and T f32[" + batch() + ", " + f
                + "] P('data'); learning rate " + LEARNING_RATE + " (value seed " + seed + ")";
    }

    /** 'data' of 1–16 devices, 1–2 rows of the batch, of W1 and of W2 per device, F of 1–3, any value seed. */
    public static Arbitrary<MixedCase> cases() {
        return Combinators.combine(Arbitraries.integers().between(1, Generators.MAX_DEVICES),
                Arbitraries.integers().between(1, 2), Arbitraries.integers().between(1, 2),
                Arbitraries.integers().between(1, 2), Arbitraries.integers().between(1, 3), Arbitraries.longs())
                .as(MixedCase::new);
    }
}
