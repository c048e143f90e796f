package dev.shardlings.grader.chapter5;

import dev.shardlings.array.NDArray;
import dev.shardlings.grader.checks.Generators;
import dev.shardlings.sharding.AxisType;
import dev.shardlings.sharding.Mesh;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

/**
 * One Chapter 5 test case: A f32[I, J] and B f32[J, K] on an (X, Y) mesh, with I = X·rows, J = X·Y·inner and
 * K = Y·cols, so every layout the parts use divides its dimension. In 5.3 and 5.4 A is In[B, D] and B is W[D, F].
 *
 * @param x         the size of axis X
 * @param y         the size of axis Y
 * @param rows      I / X
 * @param inner     J / (X·Y)
 * @param cols      K / Y
 * @param valueSeed the seed of the values
 */
public record Chapter5Case(int x, int y, int rows, int inner, int cols, long valueSeed) {

    /** I (B in 5.3 and 5.4). */
    public int i() {
        return x * rows;
    }

    /** J (D in 5.3 and 5.4). */
    public int j() {
        return x * y * inner;
    }

    /** K (F in 5.3 and 5.4). */
    public int k() {
        return y * cols;
    }

    /** The mesh (X, Y) with both axes of the given type. */
    public Mesh mesh(AxisType type) {
        return Mesh.makeMesh(new int[]{x, y}, new String[]{"X", "Y"}, type, type);
    }

    /** The whole A f32[I, J]. */
    public NDArray a() {
        return NDArray.fromFloats(Generators.values(valueSeed, i() * j(), dev.shardlings.array.DType.FLOAT32), i(), j());
    }

    /** The whole B f32[J, K]. */
    public NDArray b() {
        return NDArray.fromFloats(Generators.values(valueSeed ^ 0x5DEECE66DL, j() * k(),
                dev.shardlings.array.DType.FLOAT32), j(), k());
    }

    /** The case in words, for reports. */
    public String describe(String aName, String aLayout, String bName, String bLayout, String axisTypes) {
        return "Case: mesh (X=" + x + ", Y=" + y + ") = " + (x * y) + " device(s), " + axisTypes + " axes; " + aName
                + " f32[" + i() + ", " + j() + "]" + aLayout + ", " + bName + " f32[" + j() + ", " + k() + "]" + bLayout
                + " (value seed " + valueSeed + ")";
    }

    /**
     * Chapter 5 cases: {@link Generators#meshXY()} (1–16 devices, X = 1 and Y = 1 included); I/X, J/(X·Y) and K/Y from 1–3;
     * any value seed.
     */
    public static Arbitrary<Chapter5Case> cases() {
        Arbitrary<Integer> mult = Arbitraries.integers().between(1, 3);
        return Combinators.combine(Generators.meshXY(), mult, mult, mult, Arbitraries.longs())
                .as((xy, rows, inner, cols, seed) -> new Chapter5Case(xy[0], xy[1],
                        rows, inner, cols, seed));
    }
}
