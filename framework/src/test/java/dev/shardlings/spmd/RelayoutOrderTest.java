package dev.shardlings.spmd;

import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.jit.Compiled;
import dev.shardlings.jit.Jit;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.NamedSharding;
import dev.shardlings.sharding.PartitionSpec;
import org.junit.jupiter.api.Test;

import static dev.shardlings.sharding.PartitionSpec.P;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * How far {@link Relayout}'s plan is XLA's: an f32[8,8] array laid out P('x', 'y') on a 4×2 mesh (Auto axes),
 * jitted with another out sharding. The XLA lines are JAX 0.10.2's, printed by
 * src/test/resources/jax-checks/relayout_order.py (how to run it is at its top).
 */
class RelayoutOrderTest {
    private static final Mesh GRID = Mesh.ofDeviceIds(new int[] {0, 1, 2, 3, 4, 5, 6, 7}, new int[] {4, 2}, "x", "y");
    private static final NDArray X = NDArray.arange(64).astype(DType.FLOAT32).reshape(8, 8);

    private static Compiled moved(PartitionSpec out) {
        ShardedArray x = ShardedArray.devicePut(X, new NamedSharding(GRID, P("x", "y")));
        assertEquals(X, Jit.jit(v -> v.mul(1.0)).outShardings(out).call(x).get(0).gather());
        return Jit.jit(v -> v.mul(1.0)).outShardings(out).lower(x);
    }

    @Test
    void theAxisThatLeavesIsGatheredFirstThenTheOtherMovesByAllToAllAsXlaDoes() {
        // P(None, 'x'):
        //   %all-gather = f32[2,8]{0,1} all-gather(%wrapped_copy), channel_id=1, replica_groups=mesh['axis_0'=4,
        //       'axis_1'=2] {'axis_1'}, dimensions={1}, use_global_device_ids=true
        //   %all-to-all.1 = (f32[2,1,2]{2,1,0}, f32[2,1,2]{2,1,0}, f32[2,1,2]{2,1,0}, f32[2,1,2]{2,1,0})
        //       all-to-all(…)
        Compiled c = moved(P(null, "x"));
        String text = c.asText();
        assertTrue(text.contains("f32[2,8] all-gather(%0), dimensions={1}, replica_groups={{0,1},{2,3},{4,5},{6,7}}"),
                text);
        assertTrue(text.contains("f32[8,2] all-to-all(%2.0), split_dimension=1, concat_dimension=0,"
                + " replica_groups={{0,2,4,6},{1,3,5,7}}"), text);
        assertEquals(80, c.costAnalysis().bytesReceivedPerDevice());
    }

    @Test
    void aMinorAxisMovingToTheMajorDimensionIsNotXlasPlan() {
        // P('y', None): XLA regroups the devices, then gathers twice (32 + 32 + 64 = 128 bytes per device)
        //   %collective-permute = f32[2,4]{0,1} collective-permute(%wrapped_copy), channel_id=1,
        //       source_target_pairs={{0,0},{1,2},{2,4},{3,6},{4,1},{5,3},{6,5},{7,7}}
        //   %all-gather = f32[2,8]{0,1} all-gather(%collective-permute), channel_id=2,
        //       replica_groups=[4,2]<=[4,2]T(1,0), dimensions={1}, use_global_device_ids=true
        //   ROOT %all-gather.1 = f32[4,8]{1,0} all-gather(%wrapped_copy.1), channel_id=3,
        //       replica_groups=[4,2]<=[2,2,2]T(2,1,0), dimensions={0}, use_global_device_ids=true
        // The framework gathers x (which leaves the layout) first and moves y by one all-to-all: the same values,
        // 160 bytes per device (docs/automatic-parallelism.md and Relayout's Javadoc say so)
        Compiled c = moved(P("y", null));
        String text = c.asText();
        assertTrue(text.contains("f32[8,4] all-gather(%0), dimensions={0}, replica_groups={{0,2,4,6},{1,3,5,7}}"),
                text);
        assertTrue(text.contains("f32[4,8] all-to-all(%2.0), split_dimension=0, concat_dimension=1,"
                + " replica_groups={{0,1},{2,3},{4,5},{6,7}}"), text);
        assertEquals(160, c.costAnalysis().bytesReceivedPerDevice());
    }
}
