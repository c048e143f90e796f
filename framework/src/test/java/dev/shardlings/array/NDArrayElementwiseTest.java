package dev.shardlings.array;

import static dev.shardlings.array.TestSupport.assertF32;
import static dev.shardlings.array.TestSupport.assertI32;
import static dev.shardlings.array.TestSupport.assertIae;
import static dev.shardlings.array.TestSupport.assertNpe;
import static dev.shardlings.array.TestSupport.shape;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class NDArrayElementwiseTest {
    private final NDArray i23 = NDArray.arange(6).reshape(2, 3);
    private final NDArray f23 = NDArray.arange(6, DType.FLOAT32).reshape(2, 3);

    @Test
    void intOpsStayInt32AndWrap() {
        assertI32(i23.add(i23), shape(2, 3), 0, 2, 4, 6, 8, 10);
        assertI32(i23.sub(NDArray.of(1, 1, 1)), shape(2, 3), -1, 0, 1, 2, 3, 4);
        assertI32(i23.mul(i23), shape(2, 3), 0, 1, 4, 9, 16, 25);
        assertI32(NDArray.of(3, -5).maximum(NDArray.of(1, -2)), shape(2), 3, -2);
        assertI32(NDArray.of(3, -5).minimum(NDArray.of(1, -2)), shape(2), 1, -5);
        // jnp.int32(2**31-1) + 1 = -2147483648
        assertI32(NDArray.of(Integer.MAX_VALUE).add(1), shape(1), Integer.MIN_VALUE);
        assertI32(NDArray.of(65536).mul(NDArray.of(65536)), shape(1), 0);
        assertI32(NDArray.of(Integer.MIN_VALUE).sub(1), shape(1), Integer.MAX_VALUE);
    }

    @Test
    void trueDivisionOfIntsIsFloat32() {
        assertF32(NDArray.of(3, -3, 1).div(NDArray.of(2, 2, 0)), shape(3), 1.5f, -1.5f, Float.POSITIVE_INFINITY);
        assertF32(NDArray.of(3).div(2), shape(1), 1.5f);
        assertF32(NDArray.of(0, 1, -1).div(0.0), shape(3), Float.NaN, Float.POSITIVE_INFINITY,
                Float.NEGATIVE_INFINITY);
    }

    @Test
    void floorDivOfIntsRoundsDown() {
        // -3 // 2 = -2 (JAX and numpy), not Java's -1
        assertI32(NDArray.of(-3, 3, 7, -7, 0).floorDiv(NDArray.of(2, 2, -2, -2, 5)), shape(5), -2, 1, -4, 3, 0);
        assertI32(NDArray.of(-3).floorDiv(2), shape(1), -2);
        assertI32(NDArray.of(Integer.MIN_VALUE).floorDiv(-1), shape(1), Integer.MIN_VALUE);
        ArithmeticException e = assertThrows(ArithmeticException.class,
                () -> NDArray.of(1, 2).floorDiv(NDArray.of(1, 0)));
        assertTrue(e.getMessage().startsWith("integer division by zero in floorDiv"), e.getMessage());
        assertThrows(ArithmeticException.class, () -> NDArray.of(1).floorDiv(0));
    }

    @Test
    void floorDivOfFloatsFollowsJax() {
        assertF32(NDArray.of(-3f, 7.5f, 7.5f, -7.5f, 6f, 0.5f).floorDiv(NDArray.of(2f, 2f, -2f, -2f, 3f, 0.1f)),
                shape(6), -2, 3, -4, 3, 2, 4);
        assertF32(NDArray.of(-3).floorDiv(2f), shape(1), -2f);
        assertF32(NDArray.of(-3f).floorDiv(2), shape(1), -2f);
        assertF32(NDArray.of(5.5f).floorDiv(2.0), shape(1), 2f);
        assertTrue(Float.isNaN(NDArray.of(1f).floorDiv(0f).floatAt(0)), "JAX: 1.0 // 0.0 = nan");
        assertEquals(-1f, ElementwiseKernels.floorDivFloat(-1e-8f, 1f));
    }

    @Test
    void floatOpsFollowIeee() {
        assertF32(f23.add(f23), shape(2, 3), 0, 2, 4, 6, 8, 10);
        assertF32(f23.sub(f23.mul(2)), shape(2, 3), 0, -1, -2, -3, -4, -5);
        assertF32(f23.div(NDArray.of(2f, 4f, 0f)), shape(2, 3), 0, 0.25f, Float.POSITIVE_INFINITY, 1.5f, 1f,
                Float.POSITIVE_INFINITY);
        assertF32(NDArray.of(0f).div(NDArray.of(0f)), shape(1), Float.NaN);
        assertF32(NDArray.of(0.1f).add(NDArray.of(0.2f)), shape(1), 0.1f + 0.2f);
    }

    @Test
    void maximumAndMinimumPropagateNan() {
        NDArray a = NDArray.of(Float.NaN, 1f, -0f);
        NDArray b = NDArray.of(1f, Float.NaN, 0f);
        assertF32(a.maximum(b), shape(3), Float.NaN, Float.NaN, 0f);
        assertF32(a.minimum(b), shape(3), Float.NaN, Float.NaN, -0f);
        assertF32(NDArray.of(1, 5).maximum(2.5), shape(2), 2.5f, 5f);
        assertI32(NDArray.of(1, 5).maximum(2), shape(2), 2, 5);
        assertI32(NDArray.of(1, 5).minimum(2), shape(2), 1, 2);
        assertF32(NDArray.of(1, 5).minimum(2.5f), shape(2), 1f, 2.5f);
        assertF32(NDArray.of(1f, 5f).minimum(2), shape(2), 1f, 2f);
        assertF32(NDArray.of(1f, 5f).maximum(2f), shape(2), 2f, 5f);
    }

    @Test
    void promotionFollowsJaxWeakTypes() {
        // int32 with an int scalar stays int32; with a float scalar it becomes float32
        assertI32(i23.add(1), shape(2, 3), 1, 2, 3, 4, 5, 6);
        assertF32(NDArray.of(2).mul(2.5), shape(1), 5f);
        assertF32(NDArray.of(2).mul(2.5f), shape(1), 5f);
        assertF32(NDArray.of(2).add(0.5f), shape(1), 2.5f);
        assertF32(NDArray.of(2).add(0.5), shape(1), 2.5f);
        assertF32(NDArray.of(2).sub(0.5f), shape(1), 1.5f);
        assertF32(NDArray.of(2).sub(0.5), shape(1), 1.5f);
        assertI32(NDArray.of(2).sub(5), shape(1), -3);
        assertI32(NDArray.of(2).mul(-4), shape(1), -8);
        assertF32(NDArray.of(2f).add(1), shape(1), 3f);
        assertF32(NDArray.of(2f).sub(1), shape(1), 1f);
        assertF32(NDArray.of(2f).mul(3), shape(1), 6f);
        assertF32(NDArray.of(3f).div(2f), shape(1), 1.5f);
        assertF32(NDArray.of(3f).div(2.0), shape(1), 1.5f);
        assertF32(NDArray.of(1f).add(0.1), shape(1), 1f + 0.1f);
        // int32 with float32 array → float32
        assertF32(NDArray.of(1, 2).add(NDArray.of(0.5f, 0.5f)), shape(2), 1.5f, 2.5f);
        assertF32(NDArray.of(0.5f, 0.5f).mul(NDArray.of(2, 4)), shape(2), 1f, 2f);
        assertF32(NDArray.of(16777217).add(0f), shape(1), 16777216f);
    }

    @Test
    void broadcastingLikeNumpy() {
        assertI32(i23.add(NDArray.of(10, 20, 30)), shape(2, 3), 10, 21, 32, 13, 24, 35);
        assertI32(i23.add(NDArray.of(100, 200).reshape(2, 1)), shape(2, 3), 100, 101, 102, 203, 204, 205);
        assertI32(NDArray.of(1, 2).reshape(2, 1).mul(NDArray.of(1, 10, 100)), shape(2, 3), 1, 10, 100, 2, 20, 200);
        assertF32(f23.mul(NDArray.scalar(2f)), shape(2, 3), 0, 2, 4, 6, 8, 10);
        assertI32(NDArray.scalar(2).sub(i23), shape(2, 3), 2, 1, 0, -1, -2, -3);
        assertI32(i23.add(NDArray.zeros(DType.INT32, 0, 1, 3)), shape(0, 2, 3));
        assertIae("operands could not be broadcast together with shapes (2,3) (4,)",
                () -> i23.add(NDArray.arange(4)));
        assertIae("operands could not be broadcast together with shapes (2,3) (3,2)",
                () -> f23.mul(f23.transpose()));
        assertIae("operands could not be broadcast together with shapes (2,3) (2,)",
                () -> f23.maximum(NDArray.of(1f, 2f)));
        assertNpe("other must not be null", () -> f23.sub(null));
    }

    @Test
    void unaryOps() {
        NDArray x = NDArray.of(-2, 0, 3);
        assertI32(x.neg(), shape(3), 2, 0, -3);
        assertI32(x.abs(), shape(3), 2, 0, 3);
        assertI32(x.relu(), shape(3), 0, 0, 3);
        assertI32(x.square(), shape(3), 4, 0, 9);
        assertI32(NDArray.of(Integer.MIN_VALUE).neg(), shape(1), Integer.MIN_VALUE);
        assertI32(NDArray.of(Integer.MIN_VALUE).abs(), shape(1), Integer.MIN_VALUE);
        assertI32(NDArray.of(65536).square(), shape(1), 0);
        NDArray f = NDArray.of(-2f, -0f, 3f, Float.NaN);
        assertF32(f.neg(), shape(4), 2f, 0f, -3f, Float.NaN);
        assertF32(f.abs(), shape(4), 2f, 0f, 3f, Float.NaN);
        assertF32(f.relu(), shape(4), 0f, 0f, 3f, Float.NaN);
        assertF32(f.square(), shape(4), 4f, 0f, 9f, Float.NaN);
    }

    @Test
    void transcendentalOpsGiveFloat32() {
        NDArray x = NDArray.of(0, 1, 4);
        assertF32(x.exp(), shape(3), 1f, (float) Math.E, (float) StrictMath.exp(4));
        assertF32(x.log(), shape(3), Float.NEGATIVE_INFINITY, 0f, (float) StrictMath.log(4));
        assertF32(x.sqrt(), shape(3), 0f, 1f, 2f);
        assertF32(x.sin(), shape(3), 0f, (float) StrictMath.sin(1), (float) StrictMath.sin(4));
        assertF32(x.cos(), shape(3), 1f, (float) StrictMath.cos(1), (float) StrictMath.cos(4));
        assertF32(x.tanh(), shape(3), 0f, (float) StrictMath.tanh(1), (float) StrictMath.tanh(4));
        assertF32(NDArray.of(-1f).sqrt(), shape(1), Float.NaN);
        assertF32(NDArray.of(-1f).log(), shape(1), Float.NaN);
        assertF32(NDArray.of(2f).sqrt(), shape(1), (float) Math.sqrt(2));
        assertF32(NDArray.of(100f).exp(), shape(1), Float.POSITIVE_INFINITY);
        assertF32(NDArray.of(-100f, 100f).tanh(), shape(2), -1f, 1f);
    }

    @Test
    void opsUnionVaryingAxes() {
        NDArray a = f23.pvary("x");
        NDArray b = f23.pvary("y", "x");
        assertEquals(List.of("x", "y"), List.copyOf(a.add(b).varyingAxes()));
        assertEquals(List.of("y", "x"), List.copyOf(b.mul(a).varyingAxes()));
        assertEquals(Set.of("x"), a.mul(2).varyingAxes());
        assertEquals(Set.of("x"), f23.sub(a).varyingAxes());
        assertEquals(Set.of("x"), a.exp().varyingAxes());
        assertEquals(Set.of("x"), a.relu().varyingAxes());
        assertEquals(Set.of(), f23.add(f23).varyingAxes());
        assertEquals(Set.of("x"), a.floorDiv(b.withVaryingAxes(Set.of())).varyingAxes());
    }

    @Test
    void allcloseFollowsNumpy() {
        NDArray a = NDArray.of(1f, 2f, Float.POSITIVE_INFINITY);
        assertTrue(a.allclose(NDArray.of(1f, 2.00001f, Float.POSITIVE_INFINITY)));
        assertFalse(a.allclose(NDArray.of(1f, 2.001f, Float.POSITIVE_INFINITY)));
        assertTrue(a.allclose(NDArray.of(1f, 2.001f, Float.POSITIVE_INFINITY), 1e-3, 0));
        assertTrue(a.allclose(NDArray.of(1.05f, 2f, Float.POSITIVE_INFINITY), 0, 0.051));
        assertFalse(a.allclose(NDArray.of(1f, 2f, Float.NEGATIVE_INFINITY)));
        assertFalse(NDArray.of(Float.NaN).allclose(NDArray.of(Float.NaN)));
        assertFalse(NDArray.of(1f, 2f).allclose(NDArray.of(1f, 2f).reshape(2, 1)));
        assertTrue(NDArray.of(1, 2).allclose(NDArray.of(1f, 2f)));
        assertFalse(NDArray.of(0f).allclose(NDArray.of(1e-7f)));
        assertTrue(NDArray.of(0f).allclose(NDArray.of(1e-9f)));
        assertIae("allclose tolerances must be >= 0, got rtol=-1.0, atol=0.0", () -> a.allclose(a, -1, 0));
        assertIae("allclose tolerances must be >= 0, got rtol=0.0, atol=NaN", () -> a.allclose(a, 0, Double.NaN));
        assertNpe("other must not be null", () -> a.allclose(null));
    }

    @Test
    void geluIsJaxsTanhApproximation() {
        // jax.nn.gelu(approximate=True): gelu(0) = 0, gelu(1) = 0.8411920, gelu(-1) = -0.1588080, gelu(3) = 2.9963627
        float[] g = NDArray.of(0f, 1f, -1f, 3f).gelu().toFloatArray();
        assertArrayEquals(new float[]{0f, 0.841192f, -0.158808f, 2.9963627f}, g, 1e-6f);
        assertEquals(DType.FLOAT32, NDArray.of(1, 2).gelu().dtype());
    }

    @Test
    void addNIsChainedAddInOnePass() {
        // float32 rounding after every add: 1e8 + 1 - 1e8 loses the 1, exactly as chained adds do.
        NDArray a = NDArray.of(1e8f, 1f, 0.1f);
        NDArray b = NDArray.of(1f, 1e-8f, 0.2f);
        NDArray c = NDArray.of(-1e8f, -1f, 0.3f);
        NDArray chained = a.add(b).add(c);
        NDArray once = NDArray.addN(List.of(a, b, c));
        assertArrayEquals(chained.toFloatArray(), once.toFloatArray());
        assertEquals(0f, once.floatAt(0));
        NDArray ints = NDArray.addN(List.of(NDArray.of(Integer.MAX_VALUE, 2), NDArray.of(1, 3)));
        assertI32(ints, shape(2), Integer.MIN_VALUE, 5); // wraps like add
        assertEquals(DType.FLOAT32, NDArray.addN(List.of(NDArray.of(1, 2), NDArray.of(0.5f, 0.5f))).dtype());
        NDArray single = NDArray.addN(List.of(f23));
        assertArrayEquals(f23.toFloatArray(), single.toFloatArray());
        assertEquals(Set.of("x", "y"),
                NDArray.addN(List.of(f23.pvary("x"), f23.pvary("y"))).varyingAxes());
    }

    @Test
    void addNNeedsOneShape() {
        assertIae("addN needs operands of one shape, but the array at index 0 has shape (2,3) and the array at"
                + " index 1 has shape (3,); chain add(...) to broadcast",
                () -> NDArray.addN(List.of(f23, NDArray.arange(3, DType.FLOAT32))));
        assertIae("need at least one array to addN", () -> NDArray.addN(List.of()));
    }
}
