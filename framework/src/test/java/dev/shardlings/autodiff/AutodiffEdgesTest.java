package dev.shardlings.autodiff;

import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.jit.Jit;
import dev.shardlings.sharding.AxisType;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.NamedSharding;
import dev.shardlings.spmd.ShardedArray;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.function.UnaryOperator;

import static dev.shardlings.sharding.PartitionSpec.P;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The edges of differentiation against what JAX 0.10.2 printed: its error texts for a non-scalar or integer output
 * and an integer input, and the values of gradients at kinks, ties and non-differentiable operations.
 */
class AutodiffEdgesTest {
    private static NDArray f32(float... v) {
        return NDArray.fromFloats(v, v.length);
    }

    private static float[] grad(UnaryOperator<NDArray> f, NDArray x) {
        return Autodiff.grad(f).apply(x).toFloatArray();
    }

    @Test
    void aNonScalarOutputIsJaxsError() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Autodiff.<NDArray>grad(x -> x.mul(2f)).apply(NDArray.ones(DType.FLOAT32, 3)));
        assertEquals("Gradient only defined for scalar-output functions. Output had shape: (3,).", e.getMessage());
        IllegalArgumentException e2 = assertThrows(IllegalArgumentException.class,
                () -> Autodiff.<NDArray>grad(x -> x).apply(NDArray.ones(DType.FLOAT32, 2, 3)));
        assertEquals("Gradient only defined for scalar-output functions. Output had shape: (2, 3).", e2.getMessage());
    }

    @Test
    void anIntegerInputIsJaxsError() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Autodiff.<NDArray>grad(x -> x.mul(2).sum()).apply(NDArray.arange(3)));
        assertEquals("grad requires real- or complex-valued inputs (input dtype that is a sub-dtype of np.inexact),"
                + " but got int32. If you want to use Boolean- or integer-valued inputs, use vjp or set allow_int to"
                + " True.", e.getMessage());
    }

    @Test
    void anIntegerOutputIsJaxsError() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Autodiff.<NDArray>grad(x -> x.mul(2f).astype(DType.INT32).sum()).apply(NDArray.ones(DType.FLOAT32, 3)));
        assertEquals("grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got"
                + " int32. For differentiation of functions with integer outputs, use jax.vjp directly.", e.getMessage());
    }

    @Test
    void argnumsOutOfRangeIsJaxsError() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Autodiff.<NDArray>gradList(xs -> xs.get(0).sum(), 5).apply(List.of(NDArray.ones(DType.FLOAT32, 2), NDArray.ones(DType.FLOAT32, 2))));
        assertEquals("differentiating with respect to argnums=(5,) requires at least 6 positional arguments to be"
                + " passed by the caller, but got only 2 positional arguments.", e.getMessage());
    }

    @Test
    void nonDifferentiableOperationsHaveZeroGradientAsInJax() {
        // jax.grad(lambda x: (jnp.argsort(x) * x).sum())([3., 1., 2.]) = [1., 2., 0.]
        assertArrayEquals(new float[]{1, 2, 0}, grad(x -> x.argsort().astype(DType.FLOAT32).mul(x).sum(), f32(3, 1, 2)));
        // jnp.take(x, [0, 0, 2]).sum(): repeated indices add up, the indices get none
        assertArrayEquals(new float[]{2, 0, 1}, grad(x -> x.take(NDArray.fromInts(new int[]{0, 0, 2}, 3), 0).sum(),
                f32(3, 1, 2)));
        // jnp.where(x > 1, x, 0.).sum(): the comparison has none
        assertArrayEquals(new float[]{1, 0, 1}, grad(x -> NDArray.where(x.greater(1), x, 0.0).sum(), f32(3, 1, 2)));
    }

    @Test
    void kinksAndTiesFollowJaxsRules() {
        // jnp.maximum(x, 1.) at [3, 1, 0]: a tie shares the cotangent, [1, 0.5, 0]
        assertArrayEquals(new float[]{1, 0.5f, 0}, grad(x -> x.maximum(1f).sum(), f32(3, 1, 0)));
        // jnp.max(x) at [3, 3, 0]: [0.5, 0.5, 0]
        assertArrayEquals(new float[]{0.5f, 0.5f, 0}, grad(NDArray::max, f32(3, 3, 0)));
        // jax.nn.relu at [0, 1, -1]: [0, 1, 0]
        assertArrayEquals(new float[]{0, 1, 0}, grad(x -> x.relu().sum(), f32(0, 1, -1)));
        // jnp.abs at [0, 1, -1]: [1, 1, -1]
        assertArrayEquals(new float[]{1, 1, -1}, grad(x -> x.abs().sum(), f32(0, 1, -1)));
        // jnp.sqrt at [0, 1]: [inf, 0.5]
        assertArrayEquals(new float[]{Float.POSITIVE_INFINITY, 0.5f}, grad(x -> x.sqrt().sum(), f32(0, 1)));
    }

    @Test
    void vjpGivesZerosOfTheirDtypeToIntegerInputs() {
        // JAX gives float0 zeros; Java has no float0, so int32 zeros
        VjpResult<NDArray> r = Autodiff.vjp(a -> List.of(a.get(0).mul(a.get(1))), List.of(NDArray.ones(DType.FLOAT32, 3),
                NDArray.fromInts(new int[]{1, 2, 3}, 3)));
        List<NDArray> cts = r.pullback().apply(List.of(NDArray.ones(DType.FLOAT32, 3)));
        assertArrayEquals(new float[]{1, 2, 3}, cts.get(0).toFloatArray());
        assertEquals(DType.INT32, cts.get(1).dtype());
        assertArrayEquals(new int[]{0, 0, 0}, cts.get(1).toIntArray());
    }

    @Test
    void theGlobalEngineRaisesTheSameErrorsInsideJit() {
        Mesh m = Mesh.makeMesh(new int[]{2}, new String[]{"x"}, AxisType.AUTO);
        ShardedArray x = ShardedArray.devicePut(NDArray.ones(DType.FLOAT32, 4), new NamedSharding(m, P("x")));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Jit.jit(
                (ShardedArray a) -> Autodiff.<ShardedArray>grad(v -> v.mul(2f)).apply(a)).call(x));
        assertEquals("Gradient only defined for scalar-output functions. Output had shape: (4,).", e.getMessage());
    }

    @Test
    void gradOfAJittedFunctionInlinesIt() {
        Mesh m = Mesh.makeMesh(new int[]{2}, new String[]{"x"}, AxisType.AUTO);
        ShardedArray x = ShardedArray.devicePut(f32(1, 2, 3, 4), new NamedSharding(m, P("x")));
        var inner = Jit.jit((ShardedArray a) -> a.square().sum());
        ShardedArray g = Autodiff.<ShardedArray>grad(a -> inner.call(a).get(0)).apply(x);
        assertArrayEquals(new float[]{2, 4, 6, 8}, g.gather().toFloatArray());
        assertEquals(P("x"), g.sharding().spec());
    }
}
