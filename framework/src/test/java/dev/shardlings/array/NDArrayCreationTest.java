package dev.shardlings.array;

import static dev.shardlings.array.TestSupport.assertF32;
import static dev.shardlings.array.TestSupport.assertI32;
import static dev.shardlings.array.TestSupport.assertIae;
import static dev.shardlings.array.TestSupport.assertNpe;
import static dev.shardlings.array.TestSupport.assertIaeContains;
import static dev.shardlings.array.TestSupport.shape;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class NDArrayCreationTest {
    @Test
    void zerosOnesFull() {
        assertF32(NDArray.zeros(DType.FLOAT32, 2, 2), shape(2, 2), 0, 0, 0, 0);
        assertI32(NDArray.ones(DType.INT32, 3), shape(3), 1, 1, 1);
        assertF32(NDArray.ones(DType.FLOAT32, 1, 2), shape(1, 2), 1, 1);
        assertI32(NDArray.zeros(DType.INT32), shape(), 0);
        assertF32(NDArray.full(2.5f, 2), shape(2), 2.5f, 2.5f);
        assertI32(NDArray.full(7, 1, 2), shape(1, 2), 7, 7);
        assertF32(NDArray.zeros(DType.FLOAT32, 0, 3), shape(0, 3));
    }

    @Test
    void arangeDefaultsToInt32() {
        assertI32(NDArray.arange(4), shape(4), 0, 1, 2, 3);
        assertF32(NDArray.arange(3, DType.FLOAT32), shape(3), 0, 1, 2);
        assertI32(NDArray.arange(0), shape(0));
        assertIae("arange(-1): n must be >= 0 (the result has n elements)", () -> NDArray.arange(-1));
        assertNpe("dtype must not be null", () -> NDArray.arange(2, null));
    }

    @Test
    void fromDataCopiesItsInput() {
        float[] data = {1, 2, 3, 4, 5, 6};
        NDArray x = NDArray.fromFloats(data, 2, 3);
        data[0] = 99;
        assertF32(x, shape(2, 3), 1, 2, 3, 4, 5, 6);
        int[] ints = {1, 2};
        NDArray y = NDArray.fromInts(ints, 2, 1);
        ints[1] = 99;
        assertI32(y, shape(2, 1), 1, 2);
        assertI32(NDArray.fromInts(new int[] {5}), shape(), 5);
    }

    @Test
    void fromDataRejectsWrongShapes() {
        assertIae("fromFloats: shape (4,2) needs 8 elements but data.length is 6; pass a shape whose product is 6",
                () -> NDArray.fromFloats(new float[6], 4, 2));
        assertIae("fromInts: shape () needs 1 elements but data.length is 3; pass a shape whose product is 3",
                () -> NDArray.fromInts(new int[3]));
        assertIae("negative dimensions are not allowed: shape (2,-3)", () -> NDArray.fromInts(new int[6], 2, -3));
        assertNpe("data must not be null", () -> NDArray.fromFloats(null, 2));
        assertNpe("shape must not be null: pass the dimensions, e.g. (2, 3)",
                () -> NDArray.zeros(DType.FLOAT32, (int[]) null));
        assertNpe("dtype must not be null", () -> NDArray.ones(null, 2));
        assertIae("shape (65536,65536) has more elements than one array can hold: at most 2147483639"
                + " (Integer.MAX_VALUE - 8, the largest Java array)", () -> NDArray.zeros(DType.INT32, 65536, 65536));
    }

    @Test
    void ofVectorsAndMatrices() {
        assertF32(NDArray.of(1f, 2f), shape(2), 1, 2);
        assertI32(NDArray.of(3, 1, 4), shape(3), 3, 1, 4);
        assertF32(NDArray.of(new float[][] {{1, 2}, {3, 4}, {5, 6}}), shape(3, 2), 1, 2, 3, 4, 5, 6);
        assertI32(NDArray.of(new int[][] {{1, 2, 3}}), shape(1, 3), 1, 2, 3);
        assertI32(NDArray.of(new int[0][]), shape(0, 0));
        assertIae("of(rows): ragged rows: row 0 has 2 elements but row 1 has 1 (numpy: the requested array has an "
                        + "inhomogeneous shape after 1 dimensions); give every row the same length",
                () -> NDArray.of(new float[][] {{1, 2}, {3}}));
        assertIaeContains("ragged rows: row 0 has 1 elements but row 2 has 3",
                () -> NDArray.of(new int[][] {{1}, {2}, {3, 4, 5}}));
        assertNpe("of(rows): row 1 is null; every row must be an array",
                () -> NDArray.of(new int[][] {{1}, null}));
        assertNpe("values must not be null", () -> NDArray.of((float[]) null));
        assertNpe("rows must not be null", () -> NDArray.of((int[][]) null));
    }

    @Test
    void scalarsAreRankZero() {
        NDArray s = NDArray.scalar(5.5f);
        assertEquals(0, s.rank());
        assertEquals(1, s.size());
        assertArrayEquals(new int[0], s.shape());
        assertEquals(5.5f, s.item());
        assertEquals(5.5f, s.floatAt());
        assertI32(NDArray.scalar(22), shape(), 22);
    }

    @Test
    void accessors() {
        NDArray x = NDArray.arange(24).reshape(2, 3, 4);
        assertEquals(DType.INT32, x.dtype());
        assertEquals(3, x.rank());
        assertEquals(24, x.size());
        assertEquals(96, x.nbytes());
        assertEquals(4, x.shape(-1));
        assertEquals(2, x.shape(0));
        assertIae("axis 3 is out of bounds for array of dimension 3", () -> x.shape(3));
        assertIae("axis -4 is out of bounds for array of dimension 3", () -> x.shape(-4));
        assertEquals(23, x.intAt(1, 2, 3));
        assertEquals(23, x.intAt(-1, -1, -1));
        assertEquals(17f, x.floatAt(1, 1, 1));
        assertIae("intAt needs 3 indices for an array of shape (2,3,4), got 2", () -> x.intAt(1, 2));
        assertIae("index 3 is out of bounds for axis 1 with size 3", () -> x.floatAt(0, 3, 0));
        assertIae("index -3 is out of bounds for axis 0 with size 2", () -> x.floatAt(-3, 0, 0));
        int[] s = x.shape();
        s[0] = 100;
        assertEquals(2, x.shape(0));
    }

    @Test
    void intAtOnFloatsTruncatesTowardZero() {
        NDArray x = NDArray.of(2.7f, -2.7f, Float.NaN, 1e20f);
        assertEquals(2, x.intAt(0));
        assertEquals(-2, x.intAt(1));
        assertEquals(0, x.intAt(2));
        assertEquals(Integer.MAX_VALUE, x.intAt(3));
    }

    @Test
    void dataAccessorsCopy() {
        NDArray x = NDArray.of(1f, 2f);
        float[] d = x.toFloatArray();
        d[0] = 42;
        assertEquals(1f, x.floatAt(0));
        assertNotSame(x.toFloatArray(), x.toFloatArray());
        NDArray y = NDArray.of(1, 2);
        int[] e = y.toIntArray();
        e[0] = 42;
        assertEquals(1, y.intAt(0));
        assertArrayEquals(new float[] {1, 2}, y.toFloatArray());
        IllegalStateException ex = assertThrows(IllegalStateException.class, x::toIntArray);
        assertEquals("toIntArray() needs an int32 array but this is f32[2]: use toFloatArray(), or "
                + "astype(DType.INT32) first to truncate toward zero", ex.getMessage());
    }

    @Test
    void itemNeedsExactlyOneElement() {
        assertEquals(3f, NDArray.of(3).item());
        assertEquals(4f, NDArray.full(4f, 1, 1).item());
        assertIae("item() needs an array of size 1 but shape (2,3) has 6 elements (numpy: can only convert an "
                + "array of size 1 to a Python scalar); index or reduce first", () -> NDArray.arange(6)
                .reshape(2, 3).item());
    }

    @Test
    void varyingAxesAreAnImmutableOrderedSet() {
        NDArray x = NDArray.arange(4);
        assertEquals(Set.of(), x.varyingAxes());
        LinkedHashSet<String> axes = new LinkedHashSet<>(List.of("y", "x"));
        NDArray v = x.withVaryingAxes(axes);
        axes.add("z");
        assertEquals(List.of("y", "x"), List.copyOf(v.varyingAxes()));
        assertThrows(UnsupportedOperationException.class, () -> v.varyingAxes().add("q"));
        assertEquals(Set.of(), x.varyingAxes());
        assertEquals(List.of("y", "x", "i"), List.copyOf(v.pvary("x", "i").varyingAxes()));
        assertEquals(Set.of("i"), x.pvary("i").varyingAxes());
        assertEquals(Set.of(), v.withVaryingAxes(Set.of()).varyingAxes());
        assertEquals(x, v);
        assertEquals(x.hashCode(), v.hashCode());
        assertNpe("axes must not be null", () -> x.withVaryingAxes(null));
        assertIae("axes: mesh axis names must be non-empty strings, got \"\" in [i, ]", () -> x.pvary("i", ""));
        assertNpe("axes: mesh axis names must be non-empty strings, got null in [i, null]",
                () -> x.pvary("i", null));
    }

    @Test
    void equalityIsDtypeShapeAndBits() {
        NDArray a = NDArray.of(1f, Float.NaN);
        assertEquals(a, NDArray.of(1f, Float.NaN));
        assertEquals(a.hashCode(), NDArray.of(1f, Float.NaN).hashCode());
        assertNotEquals(NDArray.of(0f), NDArray.of(-0f));
        assertNotEquals(NDArray.of(1f, 2f), NDArray.of(1, 2));
        assertNotEquals(NDArray.of(1, 2), NDArray.of(1, 2).reshape(2, 1));
        assertNotEquals(NDArray.of(1, 2), NDArray.of(1, 3));
        assertNotEquals(NDArray.of(1, 2), "[1 2]");
        assertEquals(NDArray.of(1, 2).reshape(1, 2), NDArray.of(new int[][] {{1, 2}}));
        assertTrue(NDArray.of(1, 2).equals(NDArray.of(1, 2)));
    }
}
