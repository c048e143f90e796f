package dev.shardlings.array;

import dev.shardlings.autodiff.Autodiff;
import dev.shardlings.sharding.AxisType;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.NamedSharding;
import dev.shardlings.spmd.Collectives;
import dev.shardlings.spmd.ShardMap;
import dev.shardlings.spmd.ShardedArray;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.function.UnaryOperator;

import static dev.shardlings.sharding.PartitionSpec.P;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * softmax, log_softmax, logsumexp and tril/triu against JAX 0.10.2 on CPU: every expected array below is what
 * framework/src/test/resources/jax-checks/softmax_adam.py printed (float32, eager).
 */
class SoftmaxTest {
    private static final NDArray X = NDArray.of(new float[][] {{1, 2, 3}, {-1, 0.5f, 100}});
    private static final float NEG_INF = Float.NEGATIVE_INFINITY;
    private static final float NAN = Float.NaN;

    /**
     * Within 2 ulps of JAX's float (exp and log are not correctly rounded on either side). XLA's CPU runtime
     * flushes subnormal results to zero (FTZ, see random.XlaCpuFloat32) and the framework's elementwise kernels do
     * not: exp(−101) is 1.4e−44 here and 0 in JAX, so a JAX zero accepts a subnormal.
     */
    private static void assertClose(float[] expected, NDArray actual, int... shape) {
        assertArrayEquals(shape, actual.shape(), "shape");
        assertEquals(DType.FLOAT32, actual.dtype());
        float[] got = actual.toFloatArray();
        assertEquals(expected.length, got.length);
        for (int i = 0; i < got.length; i++) {
            float e = expected[i];
            boolean same = Float.isNaN(e) ? Float.isNaN(got[i])
                    : e == got[i] || Math.abs(e - got[i]) <= 2 * Math.ulp(e)
                    || e == 0 && Math.abs(got[i]) < Float.MIN_NORMAL;
            if (!same) {
                throw new AssertionError("element " + i + ": expected " + e + ", got " + got[i] + " in " + actual);
            }
        }
    }

    @Test
    void softmaxAlongEitherAxisSubtractsTheMax() {
        assertClose(new float[] {0.09003057330846786f, 0.2447284758090973f, 0.6652409434318542f, 0f, 0f, 1f},
                X.softmax(1), 2, 3);
        assertClose(new float[] {0.09003057330846786f, 0.2447284758090973f, 0.6652409434318542f, 0f, 0f, 1f},
                X.softmax(-1), 2, 3);
        assertClose(new float[] {0.8807970285415649f, 0.8175744414329529f, 0f, 0.11920291185379028f,
                0.18242551386356354f, 1f}, X.softmax(0), 2, 3);
        // exp(1000) overflows float32: only the max subtraction keeps these finite
        NDArray big = NDArray.of(1000f, 999f, -1000f);
        assertClose(new float[] {0.7310585975646973f, 0.2689414322376251f, 0f}, big.softmax(-1), 3);
        assertClose(new float[] {1000.313232421875f}, big.logsumexp());
        assertClose(new float[] {0.09003057330846786f, 0.2447284758090973f, 0.6652409434318542f},
                NDArray.of(1, 2, 3).softmax(0), 3);
    }

    @Test
    void logSoftmaxAndLogsumexpWithKeepdims() {
        assertClose(new float[] {-2.4076058864593506f, -1.4076058864593506f, -0.40760594606399536f, -101f, -99.5f, 0f},
                X.logSoftmax(1), 2, 3);
        assertClose(new float[] {3.4076058864593506f, 100f}, X.logsumexp(1), 2);
        assertClose(new float[] {3.4076058864593506f, 100f}, X.logsumexp(KeepDims.KEEP, 1), 2, 1);
        assertClose(new float[] {100f}, X.logsumexp());
        assertClose(new float[] {3.4076058864593506f}, NDArray.of(1, 2, 3).logsumexp());
    }

    @Test
    void infinitiesAsJaxHandlesThem() {
        NDArray ninf = NDArray.of(new float[][] {{NEG_INF, NEG_INF}, {0, NEG_INF}});
        // softmax and log_softmax subtract an unguarded max: a row of -inf is nan; logsumexp guards it: -inf
        assertClose(new float[] {NAN, NAN, 1f, 0f}, ninf.softmax(1), 2, 2);
        assertClose(new float[] {NAN, NAN, 0f, NEG_INF}, ninf.logSoftmax(1), 2, 2);
        assertClose(new float[] {NEG_INF, 0f}, ninf.logsumexp(1), 2);
        NDArray pinf = NDArray.of(0f, Float.POSITIVE_INFINITY);
        assertClose(new float[] {NAN, NAN}, pinf.softmax(0), 2);
        assertClose(new float[] {Float.POSITIVE_INFINITY}, pinf.logsumexp());
    }

    @Test
    void gradientsHoldTheMaxConstant() {
        NDArray w = NDArray.of(new float[][] {{0.5f, -1, 2}, {3, 0, -2}});
        UnaryOperator<NDArray> softmax = Autodiff.grad(x -> x.softmax(1).mul(w).sum());
        assertClose(new float[] {-0.05678847059607506f, -0.5214597582817078f, 0.5782482028007507f, 0f, 0f, 0f},
                softmax.apply(X), 2, 3);
        UnaryOperator<NDArray> logSoftmax = Autodiff.grad(x -> x.logSoftmax(1).mul(w).sum());
        assertClose(new float[] {0.3649541437625885f, -1.3670927286148071f, 1.002138614654541f, 3f, 0f, -3f},
                logSoftmax.apply(X), 2, 3);
        NDArray w0 = w.take(1, 0);
        UnaryOperator<NDArray> lse = Autodiff.grad(x -> x.logsumexp(1).mul(w0).sum());
        assertClose(new float[] {0.04501528665423393f, 0.12236423790454865f, 0.3326204717159271f, 0f, 0f, 3f},
                lse.apply(X), 2, 3);
    }

    @Test
    void perDeviceSoftmaxInsideAShardMapGivesTheWholeArrayGradient() {
        // each of 2 devices holds one row of X[B_i, 3]: the per-device tape sees the same primitives
        Mesh mesh = Mesh.makeMesh(new int[] {2}, new String[] {"i"}, AxisType.AUTO);
        NDArray w = NDArray.of(new float[][] {{0.5f, -1, 2}, {3, 0, -2}});
        ShardedArray ws = ShardedArray.devicePut(w, new NamedSharding(mesh, P("i")));
        UnaryOperator<ShardedArray> grad = Autodiff.grad(x -> ShardMap.shardMap(
                bs -> List.of(Collectives.psum(bs.get(0).softmax(-1).mul(bs.get(1)).sum(), "i")),
                mesh, List.of(P("i"), P("i")), List.of(P())).call(List.of(x, ws)).get(0));
        ShardedArray x = ShardedArray.devicePut(X, new NamedSharding(mesh, P("i")));
        assertClose(new float[] {-0.05678847059607506f, -0.5214597582817078f, 0.5782482028007507f, 0f, 0f, 0f},
                grad.apply(x).gather(), 2, 3);
    }

    @Test
    void trilAndTriuKeepADiagonalBand() {
        NDArray m = NDArray.arange(12, DType.FLOAT32).reshape(3, 4);
        assertClose(new float[] {0, 0, 0, 0, 4, 5, 0, 0, 8, 9, 10, 0}, m.tril(), 3, 4);
        assertClose(new float[] {0, 1, 0, 0, 4, 5, 6, 0, 8, 9, 10, 11}, m.tril(1), 3, 4);
        assertClose(new float[] {0, 1, 2, 3, 0, 5, 6, 7, 0, 0, 10, 11}, m.triu(), 3, 4);
        assertClose(new float[] {0, 1, 2, 3, 4, 5, 6, 7, 0, 9, 10, 11}, m.triu(-1), 3, 4);
        assertEquals(DType.INT32, NDArray.arange(4).reshape(2, 2).tril().dtype());
        var e = assertThrows(IllegalArgumentException.class, () -> NDArray.arange(3).tril());
        assertEquals("Argument to jax.numpy.tril must be at least 2D", e.getMessage());
    }
}
