package dev.shardlings.array;

import static dev.shardlings.array.TestSupport.assertF32;
import static dev.shardlings.array.TestSupport.assertI32;
import static dev.shardlings.array.TestSupport.assertIae;
import static dev.shardlings.array.TestSupport.assertNpe;
import static dev.shardlings.array.TestSupport.shape;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Set;
import org.junit.jupiter.api.Test;

class NDArrayReductionTest {
    private final NDArray i23 = NDArray.of(new int[][] {{3, 1, 4}, {1, 5, 9}});
    private final NDArray f23 = NDArray.of(new float[][] {{3, 1, 4}, {1, 5, 9}});

    @Test
    void sumOverAllOrSomeAxes() {
        assertI32(i23.sum(), shape(), 23);
        assertI32(i23.sum(0), shape(3), 4, 6, 13);
        assertI32(i23.sum(1), shape(2), 8, 15);
        assertI32(i23.sum(-1), shape(2), 8, 15);
        assertI32(i23.sum(0, 1), shape(), 23);
        assertF32(f23.sum(), shape(), 23f);
        assertF32(f23.sum(1), shape(2), 8f, 15f);
        assertI32(NDArray.scalar(5).sum(), shape(), 5);
        assertI32(NDArray.zeros(DType.INT32, 0, 3).sum(0), shape(3), 0, 0, 0);
        assertF32(NDArray.zeros(DType.FLOAT32, 2, 0).sum(1), shape(2), 0f, 0f);
    }

    @Test
    void keepdimsKeepsReducedAxesAsOnes() {
        assertI32(i23.sum(KeepDims.KEEP), shape(1, 1), 23);
        assertI32(i23.sum(KeepDims.KEEP, 1), shape(2, 1), 8, 15);
        assertI32(i23.max(KeepDims.KEEP, 0), shape(1, 3), 3, 5, 9);
        assertI32(i23.min(KeepDims.KEEP), shape(1, 1), 1);
        assertF32(i23.mean(KeepDims.KEEP, 0), shape(1, 3), 2f, 3f, 6.5f);
        assertI32(i23.sum(0), shape(3), 4, 6, 13);
        NDArray x = NDArray.arange(24).reshape(2, 3, 4);
        assertI32(x.sum(KeepDims.KEEP, 0, 2), shape(1, 3, 1), 6 + 54, 22 + 70, 38 + 86);
    }

    @Test
    void intSumWraps() {
        assertI32(NDArray.of(Integer.MAX_VALUE, 1).sum(), shape(), Integer.MIN_VALUE);
    }

    @Test
    void meanIsFloat32EvenForInts() {
        // jnp.mean(int32 [1, 2]) = float32 1.5
        assertF32(NDArray.of(1, 2).mean(), shape(), 1.5f);
        assertF32(i23.mean(0), shape(3), 2f, 3f, 6.5f);
        assertF32(f23.mean(1), shape(2), 8f / 3, 5f);
        // eager 7/3, not XLA's 7 * (1/3)
        assertF32(NDArray.of(1f, 2f, 4f).mean(), shape(), 2.3333333f);
        // the mean of int32 does not wrap: JAX converts to float32 before summing
        assertF32(NDArray.of(Integer.MAX_VALUE, Integer.MAX_VALUE).mean(), shape(), (float) Integer.MAX_VALUE);
        assertF32(NDArray.zeros(DType.FLOAT32, 0).mean(), shape(), Float.NaN);
        assertF32(NDArray.zeros(DType.INT32, 0).mean(), shape(), Float.NaN);
    }

    @Test
    void floatSumsAccumulateInDouble() {
        // 1e8 + 1 + 1 + ... in float32 would lose every 1; in double then rounded it does not
        float[] d = new float[17];
        d[0] = 1e8f;
        for (int k = 1; k < d.length; k++) {
            d[k] = 1f;
        }
        assertF32(NDArray.of(d).sum(), shape(), 100000016f);
        assertF32(NDArray.of(0.1f, 0.2f, 0.3f).sum(), shape(), (float) ((double) 0.1f + 0.2f + 0.3f));
    }

    @Test
    void maxMinKeepDtypeAndPropagateNan() {
        assertI32(i23.max(), shape(), 9);
        assertI32(i23.min(1), shape(2), 1, 1);
        assertF32(f23.max(0), shape(3), 3f, 5f, 9f);
        assertF32(f23.min(), shape(), 1f);
        assertF32(NDArray.of(1f, Float.NaN, 3f).max(), shape(), Float.NaN);
        assertF32(NDArray.of(1f, Float.NaN, 3f).min(), shape(), Float.NaN);
        assertF32(NDArray.of(-1f, Float.NEGATIVE_INFINITY).min(), shape(), Float.NEGATIVE_INFINITY);
        assertI32(NDArray.zeros(DType.INT32, 3, 0).max(0), shape(0));
    }

    @Test
    void reductionErrors() {
        assertIae("zero-size array to reduction operation maximum which has no identity: reducing shape (0,3) "
                + "over axes [0] includes a size-0 axis", () -> NDArray.zeros(DType.FLOAT32, 0, 3).max(0));
        assertIae("zero-size array to reduction operation minimum which has no identity: reducing shape (0,) "
                + "over axes [] includes a size-0 axis", () -> NDArray.zeros(DType.INT32, 0).min());
        assertIae("duplicate value in 'axis': axis 1 appears twice in [1, -1]", () -> i23.sum(1, -1));
        assertIae("duplicate value in 'axis': axis 0 appears twice in [0, 0]", () -> i23.mean(KeepDims.KEEP, 0, 0));
        assertIae("axis 2 is out of bounds for array of dimension 2", () -> i23.max(2));
        assertIae("axis -3 is out of bounds for array of dimension 2", () -> i23.min(-3));
        assertNpe("axes must not be null", () -> i23.sum((int[]) null));
    }

    @Test
    void argmaxReturnsTheFirstMaximum() {
        assertI32(i23.argmax(1), shape(2), 2, 2);
        assertI32(i23.argmax(0), shape(3), 0, 1, 1);
        assertI32(NDArray.of(1, 7, 7, 2).argmax(0), shape(), 1);
        assertI32(NDArray.of(1f, Float.NaN, 5f, Float.NaN).argmax(-1), shape(), 1);
        assertI32(NDArray.of(Float.NEGATIVE_INFINITY, -5f).argmax(0), shape(), 1);
        assertI32(NDArray.zeros(DType.FLOAT32, 0, 3).argmax(1), shape(0));
        assertIae("attempt to get argmax of an empty sequence: axis 0 of shape (0,3) has size 0",
                () -> NDArray.zeros(DType.FLOAT32, 0, 3).argmax(0));
        assertIae("axis 1 is out of bounds for array of dimension 1", () -> NDArray.of(1).argmax(1));
    }

    @Test
    void reductionsKeepVaryingAxes() {
        NDArray v = f23.pvary("i");
        assertEquals(Set.of("i"), v.sum().varyingAxes());
        assertEquals(Set.of("i"), v.mean(0).varyingAxes());
        assertEquals(Set.of("i"), v.max(KeepDims.KEEP, 1).varyingAxes());
        assertEquals(Set.of("i"), v.min().varyingAxes());
        assertEquals(Set.of("i"), v.argmax(0).varyingAxes());
    }
}
