package dev.shardlings.spmd;

import dev.shardlings.array.KeepDims;
import dev.shardlings.array.NDArray;
import dev.shardlings.autodiff.Autodiff;
import dev.shardlings.jit.Jit;
import dev.shardlings.sharding.AxisType;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.NamedSharding;
import dev.shardlings.sharding.PartitionSpec;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.function.UnaryOperator;

import static dev.shardlings.sharding.PartitionSpec.P;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ShardedArray's softmax, log_softmax and logsumexp: the same floats as NDArray's (pinned against JAX in
 * array.SoftmaxTest) whichever dimension is split, the gradient JAX gives (the max held constant by a
 * stop_gradient in the program), and communication only where the reduced dimension is split.
 */
class ShardedSoftmaxTest {
    private static final Mesh AUTO = Mesh.makeMesh(new int[] {2, 2}, new String[] {"x", "y"}, AxisType.AUTO,
            AxisType.AUTO);
    /** makeMesh's axes are Explicit, as in JAX: the results are typed by the primitives' sharding rules. */
    private static final Mesh EXPLICIT = Mesh.makeMesh(new int[] {2, 2}, "x", "y");

    private static final NDArray X = NDArray.of(new float[][] {
            {1, 2, 3, 4}, {-1, 0.5f, 100, -3}, {Float.NEGATIVE_INFINITY, 0, 2, 2}, {7, -7, 0.25f, 1}});

    private static ShardedArray put(NDArray a, PartitionSpec spec) {
        return ShardedArray.devicePut(a, new NamedSharding(AUTO, spec));
    }

    /**
     * The same value, or within 4 ulps where a split reduced dimension adds per-device partial sums (in
     * float32, as XLA's all-reduce does) instead of one pass.
     */
    private static void assertClose(NDArray expected, ShardedArray actual, String what) {
        float[] e = expected.toFloatArray();
        float[] a = actual.gather().toFloatArray();
        assertEquals(e.length, a.length, what);
        for (int i = 0; i < e.length; i++) {
            boolean same = Float.compare(e[i], a[i]) == 0 || Math.abs(e[i] - a[i]) <= 4 * Math.ulp(e[i]);
            assertTrue(same, what + ": element " + i + " expected " + e[i] + ", got " + a[i]);
        }
    }

    @Test
    void valuesEqualTheLocalOnesOnEveryLayout() {
        for (Mesh mesh : List.of(AUTO, EXPLICIT))
        for (PartitionSpec spec : List.of(P(), P("x"), P(null, "y"), P("x", "y"), P("y", "x"))) {
            ShardedArray x = ShardedArray.devicePut(X, new NamedSharding(mesh, spec));
            for (int axis : new int[] {0, 1, -1}) {
                String where = mesh.axisTypes() + " " + spec + " axis " + axis;
                assertClose(X.softmax(axis), x.softmax(axis), "softmax " + where);
                assertClose(X.logSoftmax(axis), x.logSoftmax(axis), "log_softmax " + where);
                assertClose(X.logsumexp(axis), x.logsumexp(axis), "logsumexp " + where);
            }
            ShardedArray kept = x.logsumexp(KeepDims.KEEP, 1);
            assertArrayEquals(new int[] {4, 1}, kept.shape());
            assertClose(X.logsumexp(KeepDims.KEEP, 1), kept, "logsumexp keepdims " + spec);
            assertClose(X.logsumexp(), x.logsumexp(), "logsumexp over all " + spec);
        }
    }

    @Test
    void theGradientHoldsTheMaxConstantAsJaxDoes() {
        // the values jax-checks/softmax_adam.py printed for X[:2, :3] (grad_softmax, grad_logsumexp)
        NDArray x = X.slice(0, 0, 2).slice(1, 0, 3);
        NDArray w = NDArray.of(new float[][] {{0.5f, -1, 2}, {3, 0, -2}});
        Mesh mesh = Mesh.makeMesh(new int[] {2}, new String[] {"x"}, AxisType.AUTO);
        ShardedArray xs = ShardedArray.devicePut(x, new NamedSharding(mesh, P("x")));
        ShardedArray ws = ShardedArray.devicePut(w, new NamedSharding(mesh, P("x")));
        UnaryOperator<ShardedArray> softmax = Autodiff.grad(a -> a.softmax(1).mul(ws).sum());
        float[] g = softmax.apply(xs).gather().toFloatArray();
        float[] jax = {-0.05678847059607506f, -0.5214597582817078f, 0.5782482028007507f, 0f, 0f, 0f};
        for (int i = 0; i < jax.length; i++) {
            assertEquals(jax[i], g[i], 2 * Math.ulp(jax[i]) + Float.MIN_NORMAL, "element " + i);
        }
        String text = Jit.jit(a -> Autodiff.<ShardedArray>grad(b -> b.softmax(1).mul(ws).sum()).apply(a))
                .lower(xs).asText();
        assertTrue(text.contains("stop_gradient"), text);
    }

    @Test
    void onlyASplitReducedDimensionCommunicates() {
        String local = Jit.jit(a -> a.softmax(1)).lower(put(X, P("x"))).asText();
        String split = Jit.jit(a -> a.softmax(1)).lower(put(X, P(null, "y"))).asText();
        assertTrue(!local.contains("all-reduce") && !local.contains("psum"), local);
        assertTrue(split.contains("all-reduce") || split.contains("psum") || split.contains("pmax"), split);
    }
}
