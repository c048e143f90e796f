package dev.shardlings.array;

import org.junit.jupiter.api.Test;

import static dev.shardlings.array.TestSupport.assertIae;
import static dev.shardlings.array.TestSupport.assertNpe;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** jnp.take with an index array and jnp.argsort(stable=True), with numpy's results. */
class NDArrayGatherSortTest {

    private static final NDArray X = NDArray.arange(12).reshape(3, 4);

    @Test
    void takeGathersRowsAndColumnsWithRepeatsAndNegatives() {
        // np.take(np.arange(12).reshape(3, 4), [2, 0, 2], axis=0)
        NDArray rows = X.take(NDArray.of(2, 0, 2), 0);
        assertArrayEquals(new int[]{3, 4}, rows.shape());
        assertArrayEquals(new int[]{8, 9, 10, 11, 0, 1, 2, 3, 8, 9, 10, 11}, rows.toIntArray());
        // np.take(x, [[1], [-1]], axis=1).shape == (3, 2, 1)
        NDArray cols = X.take(NDArray.of(new int[][]{{1}, {-1}}), 1);
        assertArrayEquals(new int[]{3, 2, 1}, cols.shape());
        assertArrayEquals(new int[]{1, 3, 5, 7, 9, 11}, cols.toIntArray());
        NDArray none = X.take(NDArray.zeros(DType.INT32, 0), 0);
        assertArrayEquals(new int[]{0, 4}, none.shape());
        assertEquals(DType.FLOAT32, X.astype(DType.FLOAT32).take(NDArray.of(0), 1).dtype());
    }

    @Test
    void takeRejectsOutOfRangeAndNonIntegerIndices() {
        assertIae("take: index 3 is out of bounds for axis 0 with size 3; indices must be in [-3, 3)",
                () -> X.take(NDArray.of(0, 3), 0));
        assertIae("take: index -5 is out of bounds for axis 1 with size 4; indices must be in [-4, 4)",
                () -> X.take(NDArray.of(-5), 1));
        assertIae("take: indices must be int32, got float32; convert them with astype(DType.INT32)",
                () -> X.take(NDArray.of(1f), 0));
        assertIae("axis 2 is out of bounds for array of dimension 2", () -> X.take(NDArray.of(0), 2));
        assertNpe("indices must not be null", () -> X.take(null, 0));
    }

    @Test
    void argsortIsStableWithNaNsLast() {
        // np.argsort([3, 1, 2, 1], kind='stable') -> [1, 3, 2, 0]
        assertArrayEquals(new int[]{1, 3, 2, 0}, NDArray.of(3, 1, 2, 1).argsort().toIntArray());
        // np.argsort([2., nan, -1., 2., -0., 0.], kind='stable') -> [2, 4, 5, 0, 3, 1]
        assertArrayEquals(new int[]{2, 4, 5, 0, 3, 1},
                NDArray.of(2f, Float.NaN, -1f, 2f, -0f, 0f).argsort().toIntArray());
        assertEquals(DType.INT32, NDArray.of(1f).argsort().dtype());
        assertIae("argsort here sorts rank-1 arrays; got shape (3,4). Reshape to one dimension first, or sort each"
                + " row separately", X::argsort);
    }
}
