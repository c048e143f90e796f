package dev.shardlings.grader.problem1;

import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.grader.checks.Generators;
import dev.shardlings.sharding.Mesh;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

/**
 * One Problem 1 test case: A f32[S_X, D_Y] on an (X, Y) mesh with S = X·rowsPerShard, D = Y·colsPerShard, values
 * from {@code valueSeed}, and a shift for part 1.2.
 */
public record Problem1Case(int x, int y, int rowsPerShard, int colsPerShard, long valueSeed, int shift, DType dtype,
                           boolean arange) {

    /** A case with values drawn from {@code valueSeed}. */
    public Problem1Case(int x, int y, int rowsPerShard, int colsPerShard, long valueSeed, int shift, DType dtype) {
        this(x, y, rowsPerShard, colsPerShard, valueSeed, shift, dtype, false);
    }

    /** The book's example: A = arange(S·D) as int32, reshaped to [S, D]. */
    public static Problem1Case arange(int x, int y, int rowsPerShard, int colsPerShard, int shift) {
        return new Problem1Case(x, y, rowsPerShard, colsPerShard, 0, shift, DType.INT32, true);
    }

    /** The mesh (X, Y) with axes named "X" and "Y". */
    public Mesh mesh() {
        return Mesh.makeMesh(new int[]{x, y}, "X", "Y");
    }

    /** S, the number of rows of A. */
    public int rows() {
        return x * rowsPerShard;
    }

    /** D, the number of columns of A. */
    public int cols() {
        return y * colsPerShard;
    }

    /** The whole array A. */
    public NDArray array() {
        if (arange) {
            return NDArray.arange(rows() * cols(), dtype).reshape(rows(), cols());
        }
        float[] v = Generators.values(valueSeed, rows() * cols(), dtype);
        if (dtype == DType.INT32) {
            int[] iv = new int[v.length];
            for (int i = 0; i < v.length; i++) {
                iv[i] = (int) v[i];
            }
            return NDArray.fromInts(iv, rows(), cols());
        }
        return NDArray.fromFloats(v, rows(), cols());
    }

    /** The case in words, for reports. */
    public String describe(boolean withShift) {
        return "Case: mesh (X=" + x + ", Y=" + y + ") = " + (x * y) + " device(s); A " + dtype.shortName() + "["
                + rows() + ", " + cols() + "] laid out P('X', 'Y'), blocks of " + rowsPerShard + " × " + colsPerShard
                + (withShift ? "; shift = " + shift : "")
                + (arange ? " (values arange(" + rows() * cols() + "))" : " (value seed " + valueSeed + ")");
    }

    /** Problem 1 cases: mesh (X, Y), 1–5 rows and 1–4 columns per shard, any value seed, float32 values. */
    public static Arbitrary<Problem1Case> cases() {
        return Combinators.combine(Generators.meshXY(), Arbitraries.integers().between(1, 5), Arbitraries.integers().between(1, 4),
                        Arbitraries.longs(), Arbitraries.integers().between(-11, 11))
                .as((xy, rows, cols, seed, shift) -> new Problem1Case(xy[0], xy[1], rows, cols, seed, shift,
                        DType.FLOAT32));
    }
}
