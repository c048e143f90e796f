package dev.shardlings.array;

import static dev.shardlings.array.TestSupport.assertF32;
import static dev.shardlings.array.TestSupport.assertI32;
import static dev.shardlings.array.TestSupport.assertIae;
import static dev.shardlings.array.TestSupport.assertNpe;
import static dev.shardlings.array.TestSupport.shape;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class NDArrayMatmulTest {
    @Test
    void smallProducts() {
        NDArray a = NDArray.of(new int[][] {{1, 2, 3}, {4, 5, 6}});
        NDArray b = NDArray.of(new int[][] {{7, 8}, {9, 10}, {11, 12}});
        assertI32(a.matmul(b), shape(2, 2), 58, 64, 139, 154);
        assertF32(a.astype(DType.FLOAT32).matmul(b.astype(DType.FLOAT32)), shape(2, 2), 58, 64, 139, 154);
        assertF32(a.matmul(b.astype(DType.FLOAT32)), shape(2, 2), 58, 64, 139, 154);
        assertF32(a.astype(DType.FLOAT32).matmul(b), shape(2, 2), 58, 64, 139, 154);
    }

    @Test
    void transposedOperandsGiveTheBitsOfTransposingFirst() {
        java.util.Random rnd = new java.util.Random(7);
        float[] av = new float[70 * 130];
        float[] bv = new float[130 * 90];
        for (float[] x : new float[][] {av, bv}) {
            for (int t = 0; t < x.length; t++) {
                x[t] = rnd.nextFloat() * 2 - 1;
            }
        }
        NDArray a = NDArray.fromFloats(av, 70, 130);
        NDArray b = NDArray.fromFloats(bv, 130, 90);
        NDArray at = a.transpose();
        NDArray bt = b.transpose();
        NDArray ref = a.matmul(b);
        for (NDArray c : List.of(a.matmul(false, b, false), at.matmul(true, b, false), a.matmul(false, bt, true),
                at.matmul(true, bt, true))) {
            assertEquals(List.of(70, 90), List.of(c.shape()[0], c.shape()[1]));
            org.junit.jupiter.api.Assertions.assertArrayEquals(ref.toFloatArray(), c.toFloatArray());
        }
        NDArray ints = NDArray.of(new int[][] {{1, 2, 3}, {4, 5, 6}});
        assertI32(ints.matmul(true, ints, false), shape(3, 3), 17, 22, 27, 22, 29, 36, 27, 36, 45);
        assertIae("matmul: contracting dimensions differ: (70,130)ᵀ · (130,90) (70 != 130)",
                () -> a.matmul(true, b, false));
    }

    @Test
    void intMatmulWraps() {
        NDArray a = NDArray.of(new int[][] {{65536, 65536}});
        NDArray b = NDArray.of(new int[][] {{65536}, {1}});
        assertI32(a.matmul(b), shape(1, 1), 65536);
    }

    @Test
    void emptyDimensions() {
        assertF32(NDArray.zeros(DType.FLOAT32, 2, 0).matmul(NDArray.zeros(DType.FLOAT32, 0, 3)), shape(2, 3),
                0, 0, 0, 0, 0, 0);
        assertI32(NDArray.zeros(DType.INT32, 0, 4).matmul(NDArray.zeros(DType.INT32, 4, 3)), shape(0, 3));
    }

    @Test
    void nanAndInfPropagate() {
        NDArray a = NDArray.of(new float[][] {{0f, 1f}});
        NDArray b = NDArray.of(new float[][] {{Float.POSITIVE_INFINITY}, {1f}});
        assertF32(a.matmul(b), shape(1, 1), Float.NaN); // 0 * inf = nan, as in IEEE
    }

    @Test
    void errorsUseTheContractTexts() {
        assertIae("matmul requires 2-D operands, got shapes (3,) and (3,4)",
                () -> NDArray.arange(3).matmul(NDArray.zeros(DType.INT32, 3, 4)));
        assertIae("matmul requires 2-D operands, got shapes (2,3) and ()",
                () -> NDArray.zeros(DType.INT32, 2, 3).matmul(NDArray.scalar(1)));
        assertIae("matmul: contracting dimensions differ: (2,3) · (4,5) (3 != 4)",
                () -> NDArray.zeros(DType.FLOAT32, 2, 3).matmul(NDArray.zeros(DType.FLOAT32, 4, 5)));
        assertNpe("other must not be null", () -> NDArray.zeros(DType.FLOAT32, 2, 3).matmul(null));
    }

    @Test
    void resultVariesOverBothOperandsAxes() {
        NDArray a = NDArray.ones(DType.FLOAT32, 2, 2).pvary("x");
        NDArray b = NDArray.ones(DType.FLOAT32, 2, 2).pvary("y");
        assertEquals(List.of("x", "y"), List.copyOf(a.matmul(b).varyingAxes()));
    }
}
