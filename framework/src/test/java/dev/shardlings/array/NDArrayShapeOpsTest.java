package dev.shardlings.array;

import static dev.shardlings.array.TestSupport.assertF32;
import static dev.shardlings.array.TestSupport.assertI32;
import static dev.shardlings.array.TestSupport.assertIae;
import static dev.shardlings.array.TestSupport.assertNpe;
import static dev.shardlings.array.TestSupport.shape;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class NDArrayShapeOpsTest {
    private final NDArray x23 = NDArray.arange(6).reshape(2, 3);

    @Test
    void reshapeInfersOneDimension() {
        assertI32(x23.reshape(3, 2), shape(3, 2), 0, 1, 2, 3, 4, 5);
        assertI32(x23.reshape(-1), shape(6), 0, 1, 2, 3, 4, 5);
        assertI32(x23.reshape(3, -1), shape(3, 2), 0, 1, 2, 3, 4, 5);
        assertI32(NDArray.of(7).reshape(), shape(), 7);
        assertI32(NDArray.zeros(DType.INT32, 0, 4).reshape(4, 0), shape(4, 0));
    }

    @Test
    void reshapeErrorsUseNumpyTexts() {
        assertIae("cannot reshape array of size 6 into shape (4,2)", () -> x23.reshape(4, 2));
        assertIae("cannot reshape array of size 6 into shape (4,newaxis)", () -> x23.reshape(4, -1));
        assertIae("cannot reshape array of size 6 into shape (5,)", () -> x23.reshape(5));
        assertIae("can only specify one unknown dimension: (-1,-1)", () -> x23.reshape(-1, -1));
        assertIae("negative dimensions not allowed: (-2,-3) (only -1, meaning 'infer', may be negative)",
                () -> x23.reshape(-2, -3));
        assertIae("cannot reshape array of size 0 into shape (0,newaxis)",
                () -> NDArray.zeros(DType.INT32, 0).reshape(0, -1));
    }

    @Test
    void transposeAndSwapAxes() {
        assertI32(x23.transpose(), shape(3, 2), 0, 3, 1, 4, 2, 5);
        assertI32(x23.transpose(1, 0), shape(3, 2), 0, 3, 1, 4, 2, 5);
        assertI32(x23.transpose(0, 1), shape(2, 3), 0, 1, 2, 3, 4, 5);
        NDArray x = NDArray.arange(24).reshape(2, 3, 4);
        NDArray t = x.transpose(2, 0, -2);
        assertEquals(List.of(4, 2, 3), List.of(t.shape(0), t.shape(1), t.shape(2)));
        assertEquals(x.intAt(1, 2, 3), t.intAt(3, 1, 2));
        assertEquals(x.intAt(0, 1, 2), t.intAt(2, 0, 1));
        assertI32(x23.swapAxes(0, -1), shape(3, 2), 0, 3, 1, 4, 2, 5);
        assertI32(NDArray.scalar(3).transpose(), shape(), 3);
        assertIae("axes don't match array: transpose of an array of dimension 2 needs 2 axes, got [0]",
                () -> x23.transpose(0));
        assertIae("repeated axis in transpose: [1, -1]", () -> x23.transpose(1, -1));
        assertIae("axis 2 is out of bounds for array of dimension 2", () -> x23.transpose(0, 2));
        assertIae("axis 2 is out of bounds for array of dimension 2", () -> x23.swapAxes(2, 0));
    }

    @Test
    void sliceIsHalfOpenAndStrict() {
        assertI32(x23.slice(1, 1, 3), shape(2, 2), 1, 2, 4, 5);
        assertI32(x23.slice(0, 1, 2), shape(1, 3), 3, 4, 5);
        assertI32(x23.slice(-1, 2, 2), shape(2, 0));
        assertIae("slice(axis=1, start=2, stop=5) is out of bounds for axis 1 of size 3: need 0 <= start <= stop "
                + "<= 3 (bounds are checked strictly, not clipped as in numpy)", () -> x23.slice(1, 2, 5));
        assertIae("slice(axis=-1, start=-1, stop=2) is out of bounds for axis 1 of size 3: need 0 <= start <= "
                + "stop <= 3 (bounds are checked strictly, not clipped as in numpy)", () -> x23.slice(-1, -1, 2));
        assertIae("slice(axis=0, start=2, stop=1) is out of bounds for axis 0 of size 2: need 0 <= start <= stop "
                + "<= 2 (bounds are checked strictly, not clipped as in numpy)", () -> x23.slice(0, 2, 1));
        assertIae("axis 2 is out of bounds for array of dimension 2", () -> x23.slice(2, 0, 1));
    }

    @Test
    void dynamicSliceClampsTheStartLikeJax() {
        NDArray x = NDArray.arange(5);
        assertI32(x.dynamicSlice(0, 1, 3), shape(3), 1, 2, 3);
        // the JAX docs example: dynamic_slice_in_dim(arange(5), 4, 3) = [2, 3, 4]
        assertI32(x.dynamicSlice(0, 4, 3), shape(3), 2, 3, 4);
        assertI32(x.dynamicSlice(0, 100, 2), shape(2), 3, 4);
        assertI32(x.dynamicSlice(0, -1, 1), shape(1), 4);
        assertI32(x.dynamicSlice(0, -2, 2), shape(2), 3, 4);
        assertI32(x.dynamicSlice(0, -100, 2), shape(2), 0, 1);
        assertI32(x.dynamicSlice(0, Integer.MIN_VALUE, 2), shape(2), 0, 1);
        assertI32(x.dynamicSlice(0, 3, 0), shape(0));
        assertI32(x23.dynamicSlice(1, 2, 2), shape(2, 2), 1, 2, 4, 5);
        assertIae("dynamicSlice size 6 does not fit axis 0 of size 5: need 0 <= size <= 5 (the start is clamped, "
                + "the size is not)", () -> x.dynamicSlice(0, 0, 6));
        assertIae("dynamicSlice size -1 does not fit axis 0 of size 5: need 0 <= size <= 5 (the start is "
                + "clamped, the size is not)", () -> x.dynamicSlice(0, 0, -1));
    }

    @Test
    void indexAndTakeDropTheAxis() {
        assertI32(x23.index(1), shape(3), 3, 4, 5);
        assertI32(x23.index(-2), shape(3), 0, 1, 2);
        assertI32(x23.index(1).index(2), shape(), 5);
        assertI32(x23.take(1, 2), shape(2), 2, 5);
        assertI32(x23.take(-1, -3), shape(2), 0, 3);
        assertIae("index 2 is out of bounds for axis 0 with size 2", () -> x23.index(2));
        assertIae("index -4 is out of bounds for axis 1 with size 3", () -> x23.take(1, -4));
        assertIae("too many indices for array: array is 0-dimensional, but 1 were indexed",
                () -> NDArray.scalar(1).index(0));
    }

    @Test
    void expandDimsAndSqueeze() {
        assertI32(x23.expandDims(0), shape(1, 2, 3), 0, 1, 2, 3, 4, 5);
        assertI32(x23.expandDims(2), shape(2, 3, 1), 0, 1, 2, 3, 4, 5);
        assertI32(x23.expandDims(-1), shape(2, 3, 1), 0, 1, 2, 3, 4, 5);
        assertI32(x23.expandDims(-3), shape(1, 2, 3), 0, 1, 2, 3, 4, 5);
        assertIae("axis 3 is out of bounds for array of dimension 3", () -> x23.expandDims(3));
        NDArray y = NDArray.arange(3).reshape(1, 3, 1);
        assertI32(y.squeeze(0), shape(3, 1), 0, 1, 2);
        assertI32(y.squeeze(-1), shape(1, 3), 0, 1, 2);
        assertI32(y.squeeze(), shape(3), 0, 1, 2);
        assertI32(NDArray.of(4).reshape(1, 1).squeeze(), shape(), 4);
        assertIae("cannot select an axis to squeeze out which has size not equal to one: axis 1 of shape (1,3,1) "
                + "has size 3", () -> y.squeeze(1));
    }

    @Test
    void concatJoinsAlongAnExistingAxisAndPromotes() {
        NDArray a = NDArray.arange(4).reshape(2, 2);
        NDArray b = NDArray.of(new int[][] {{9, 8}});
        assertI32(NDArray.concat(0, a, b), shape(3, 2), 0, 1, 2, 3, 9, 8);
        assertI32(NDArray.concat(1, a, a), shape(2, 4), 0, 1, 0, 1, 2, 3, 2, 3);
        assertI32(NDArray.concat(-1, List.of(a, a.slice(1, 0, 1))), shape(2, 3), 0, 1, 0, 2, 3, 2);
        assertF32(NDArray.concat(0, NDArray.of(1), NDArray.of(2.5f)), shape(2), 1, 2.5f);
        assertI32(NDArray.concat(0, NDArray.of(1)), shape(1), 1);
    }

    @Test
    void concatErrorsUseNumpyTexts() {
        NDArray a = NDArray.arange(4).reshape(2, 2);
        assertIae("need at least one array to concatenate", () -> NDArray.concat(0));
        assertIae("need at least one array to concatenate", () -> NDArray.concat(0, List.of()));
        assertIae("zero-dimensional arrays cannot be concatenated; use stack, or expandDims(0) first",
                () -> NDArray.concat(0, NDArray.scalar(1), NDArray.scalar(2)));
        assertIae("all the input arrays must have same number of dimensions, but the array at index 0 has 2 "
                + "dimension(s) and the array at index 1 has 1 dimension(s)", () -> NDArray.concat(0, a,
                NDArray.of(1, 2)));
        assertIae("all the input array dimensions except for the concatenation axis must match exactly, but along "
                + "dimension 1, the array at index 0 has size 2 and the array at index 1 has size 3",
                () -> NDArray.concat(0, a, NDArray.zeros(DType.INT32, 1, 3)));
        assertIae("axis 2 is out of bounds for array of dimension 2", () -> NDArray.concat(2, a, a));
        assertNpe("concatenate: arrays[1] is null", () -> NDArray.concat(0, a, null));
        assertNpe("arrays must not be null", () -> NDArray.concat(0, (NDArray[]) null));
    }

    @Test
    void stackAddsANewAxis() {
        NDArray a = NDArray.of(1, 2);
        NDArray b = NDArray.of(3, 4);
        assertI32(NDArray.stack(0, a, b), shape(2, 2), 1, 2, 3, 4);
        assertI32(NDArray.stack(1, a, b), shape(2, 2), 1, 3, 2, 4);
        assertI32(NDArray.stack(-1, List.of(a, b, a)), shape(2, 3), 1, 3, 1, 2, 4, 2);
        assertI32(NDArray.stack(0, NDArray.scalar(1), NDArray.scalar(2)), shape(2), 1, 2);
        assertIae("axis 2 is out of bounds for array of dimension 2", () -> NDArray.stack(2, a, b));
        assertIae("axis -3 is out of bounds for array of dimension 2", () -> NDArray.stack(-3, a, b));
        assertIae("all input arrays must have the same shape, but the array at index 0 has shape (2,) and the "
                + "array at index 1 has shape (3,)", () -> NDArray.stack(0, a, NDArray.of(1, 2, 3)));
        assertIae("need at least one array to stack", () -> NDArray.stack(0));
    }

    @Test
    void splitIntoEqualSections() {
        NDArray x = NDArray.arange(12).reshape(2, 6);
        List<NDArray> parts = x.split(1, 3);
        assertEquals(3, parts.size());
        assertI32(parts.get(0), shape(2, 2), 0, 1, 6, 7);
        assertI32(parts.get(2), shape(2, 2), 4, 5, 10, 11);
        assertI32(x.split(0, 2).get(1), shape(1, 6), 6, 7, 8, 9, 10, 11);
        assertIae("array split does not result in an equal division: dimension 7 into 2 sections",
                () -> NDArray.arange(7).split(0, 2));
        assertIae("number sections must be larger than 0, got 0", () -> x.split(0, 0));
    }

    @Test
    void rollWrapsWithAnyShift() {
        NDArray x = NDArray.arange(5);
        assertI32(x.roll(2), shape(5), 3, 4, 0, 1, 2);
        assertI32(x.roll(-1), shape(5), 1, 2, 3, 4, 0);
        assertI32(x.roll(12), shape(5), 3, 4, 0, 1, 2);
        assertI32(x.roll(-13), shape(5), 3, 4, 0, 1, 2);
        assertI32(x.roll(0, 0), shape(5), 0, 1, 2, 3, 4);
        assertI32(x.roll(Integer.MIN_VALUE, 0), shape(5), x.roll(Math.floorMod(Integer.MIN_VALUE, 5)).toIntArray());
        // np.roll(np.arange(6).reshape(2,3), 1, axis=1) = [[2 0 1] [5 3 4]]
        assertI32(x23.roll(1, 1), shape(2, 3), 2, 0, 1, 5, 3, 4);
        assertI32(x23.roll(1, 0), shape(2, 3), 3, 4, 5, 0, 1, 2);
        // np.roll(np.arange(6).reshape(2,3), 1) = [[5 0 1] [2 3 4]]
        assertI32(x23.roll(1), shape(2, 3), 5, 0, 1, 2, 3, 4);
        assertI32(NDArray.zeros(DType.INT32, 0).roll(3), shape(0));
        assertI32(NDArray.zeros(DType.INT32, 2, 0).roll(3, 1), shape(2, 0));
        assertIae("axis 2 is out of bounds for array of dimension 2", () -> x23.roll(1, 2));
    }

    @Test
    void astypeConverts() {
        assertF32(x23.astype(DType.FLOAT32), shape(2, 3), 0, 1, 2, 3, 4, 5);
        assertI32(NDArray.of(2.9f, -2.9f, -0.5f, Float.NaN, -1e30f).astype(DType.INT32), shape(5), 2, -2, 0, 0,
                Integer.MIN_VALUE);
        assertI32(x23.astype(DType.INT32), shape(2, 3), 0, 1, 2, 3, 4, 5);
        assertNpe("dtype must not be null", () -> x23.astype(null));
    }

    @Test
    void broadcastToFollowsNumpyRules() {
        assertI32(NDArray.of(1, 2, 3).broadcastTo(2, 3), shape(2, 3), 1, 2, 3, 1, 2, 3);
        assertI32(NDArray.of(1, 2).reshape(2, 1).broadcastTo(2, 3), shape(2, 3), 1, 1, 1, 2, 2, 2);
        assertI32(NDArray.scalar(7).broadcastTo(2, 2), shape(2, 2), 7, 7, 7, 7);
        assertI32(NDArray.of(1).broadcastTo(0), shape(0));
        assertIae("Incompatible shapes for broadcasting: (3,) and requested shape (4,)",
                () -> NDArray.of(1, 2, 3).broadcastTo(4));
        assertIae("Incompatible shapes for broadcasting: (2,3) and requested shape (3,)",
                () -> x23.broadcastTo(3));
        assertIae("negative dimensions are not allowed: shape (-1,)", () -> x23.broadcastTo(-1));
    }

    @Test
    void shapeOpsKeepVaryingAxes() {
        NDArray v = x23.pvary("i");
        Set<String> i = Set.of("i");
        assertEquals(i, v.reshape(3, 2).varyingAxes());
        assertEquals(i, v.transpose().varyingAxes());
        assertEquals(i, v.slice(0, 0, 1).varyingAxes());
        assertEquals(i, v.dynamicSlice(0, 0, 1).varyingAxes());
        assertEquals(i, v.index(0).varyingAxes());
        assertEquals(i, v.take(1, 0).varyingAxes());
        assertEquals(i, v.expandDims(0).squeeze().varyingAxes());
        assertEquals(i, v.split(0, 2).get(1).varyingAxes());
        assertEquals(i, v.roll(1).roll(1, 0).varyingAxes());
        assertEquals(i, v.astype(DType.FLOAT32).varyingAxes());
        assertEquals(i, v.broadcastTo(2, 2, 3).varyingAxes());
        assertEquals(List.of("i", "j"), List.copyOf(NDArray.concat(0, v, x23.pvary("j")).varyingAxes()));
        assertEquals(List.of("j", "i"), List.copyOf(NDArray.stack(0, x23.pvary("j"), x23, v).varyingAxes()));
    }
}
