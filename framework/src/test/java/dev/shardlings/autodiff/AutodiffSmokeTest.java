package dev.shardlings.autodiff;

import dev.shardlings.TestArrays;
import dev.shardlings.array.NDArray;
import dev.shardlings.jit.Jit;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.NamedSharding;
import dev.shardlings.spmd.ShardedArray;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.function.UnaryOperator;

import static dev.shardlings.sharding.PartitionSpec.P;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class AutodiffSmokeTest {
    private static NDArray data(int... shape) {
        return TestArrays.cyclic(7, 13, shape).mul(0.25f);
    }

    @Test
    void squaredMatmulGradientOnABatchShardedMesh() {
        Mesh m = Mesh.makeMesh(new int[]{8}, "batch");
        NDArray x = data(16, 4);
        NDArray w = data(4, 3);
        ShardedArray xs = ShardedArray.devicePut(x, new NamedSharding(m, P("batch")));
        ShardedArray ws = ShardedArray.devicePut(w, new NamedSharding(m, P()));
        var g = Jit.jitList(a -> List.of(Autodiff.<ShardedArray>grad((ShardedArray ww, ShardedArray xx) ->
                xx.matmul(ww).square().sum()).apply(a.get(1), a.get(0))));
        ShardedArray dw = g.call(xs, ws).get(0);
        NDArray expected = x.transpose().matmul(x.matmul(w)).mul(2f);
        System.out.println(g.lower(xs, ws).asText());
        assertTrue(dw.gather().allclose(expected, 1e-5, 1e-4), () -> "got " + dw.gather() + " expected " + expected);
        // makeMesh's axes are Explicit: JAX 0.10.2 prints the gradient's spec with one None per dimension
        // (jit/JitOutSpecsTest; jax-checks/jit_out_specs.py: "Explicit grad of a P() weight ... P(None, None)")
        assertEquals(P(null, null), dw.sharding().spec());
        // eager
        UnaryOperator<ShardedArray> eager = Autodiff.grad(ww -> xs.matmul(ww).square().sum());
        assertTrue(eager.apply(ws).gather().allclose(expected, 1e-5, 1e-4));
    }
}
