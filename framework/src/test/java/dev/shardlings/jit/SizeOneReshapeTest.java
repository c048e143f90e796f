package dev.shardlings.jit;

import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.NamedSharding;
import dev.shardlings.spmd.ShardedArray;
import org.junit.jupiter.api.Test;

import static dev.shardlings.sharding.PartitionSpec.P;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A reshape through dimensions of size 1 on a mesh with an axis of size 1 moves no data: part 1.2b's alternative
 * (roll in the [X, S/X, D] view, subtract there, reshape back) on mesh X=1, Y=2 with A f32[1, 2] once all-gathered
 * f32[1,1,1] over Y, because the layout asked for, P('X', 'Y'), differed from the reshape's only by the axis X of
 * size 1. XLA has no collective there ({@code src/test/resources/jax-checks/size_one_reshape.py}, JAX 0.10.2:
 * "X=1 Y=2 A f32[1,2]: collectives []", likewise f32[1,4] and f32[2,4]).
 */
class SizeOneReshapeTest {

    @Test
    void rollingInTheBlockViewThenReshapingBackCommunicatesNothing() {
        Mesh m = Mesh.ofDeviceIds(new int[] {0, 1}, new int[] {1, 2}, "X", "Y");
        for (int[] sd : new int[][] {{1, 2}, {1, 4}, {2, 4}}) {
            int s = sd[0];
            int d = sd[1];
            NDArray a = NDArray.arange(s * d).reshape(s, d).astype(DType.FLOAT32);
            ShardedArray placed = ShardedArray.devicePut(a, new NamedSharding(m, P("X", "Y")));
            Jitted f = Jit.jit(v -> {
                ShardedArray v3 = v.reshape(1, s, d);
                return v3.roll(1, 1).sub(v3).reshape(s, d);
            }).outShardings(P("X", "Y"));
            Compiled c = f.lower(placed);
            assertEquals(0, c.costAnalysis().bytesReceivedPerDevice(), c.asText());
            ShardedArray got = f.call(placed).get(0);
            NDArray expected = a.reshape(1, s, d).roll(1, 1).sub(a.reshape(1, s, d)).reshape(s, d);
            assertTrue(got.gather().allclose(expected, 0, 0), () -> "expected " + expected + " got " + got.gather());
        }
    }
}
