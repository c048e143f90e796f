package dev.shardlings.grader;

import dev.shardlings.array.DType;
import dev.shardlings.grader.problem1.Problem1Case;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

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

    /** Problem 1 cases: mesh (X, Y), 1–5 rows and 1–4 columns per shard, any value seed, float32 values. */
    public static Arbitrary<Problem1Case> problem1Cases() {
        return Combinators.combine(meshXY(), Arbitraries.integers().between(1, 5), Arbitraries.integers().between(1, 4),
                        Arbitraries.longs(), Arbitraries.integers().between(-11, 11))
                .as((xy, rows, cols, seed, shift) -> new Problem1Case(xy[0], xy[1], rows, cols, seed, shift,
                        DType.FLOAT32));
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
