package dev.shardlings;

import dev.shardlings.array.NDArray;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.NamedSharding;
import dev.shardlings.spmd.ShardedArray;

import static dev.shardlings.sharding.PartitionSpec.P;

/** Arrays the framework's tests build again and again: small integer-valued data, and placing it on a mesh. */
public final class TestArrays {

    private TestArrays() {
    }

    /**
     * float32 data of {@code shape} whose element i (row-major) is (i · step mod modulus) − modulus / 2: small
     * integers, so sums in any order are exact, and a pattern that differs between neighbouring blocks.
     */
    public static NDArray cyclic(int step, int modulus, int... shape) {
        int n = 1;
        for (int s : shape) {
            n *= s;
        }
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = (float) (((long) i * step) % modulus - modulus / 2);
        }
        return NDArray.fromFloats(v, shape);
    }

    /** {@code x} placed on {@code mesh} with the spec P(spec…) ({@code jax.device_put} with a NamedSharding). */
    public static ShardedArray put(Mesh mesh, NDArray x, Object... spec) {
        return ShardedArray.devicePut(x, new NamedSharding(mesh, P(spec)));
    }
}
