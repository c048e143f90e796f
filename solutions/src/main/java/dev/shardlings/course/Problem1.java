package dev.shardlings.course;

import dev.shardlings.array.KeepDims;
import dev.shardlings.array.NDArray;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.spmd.ShardedArray;

import static dev.shardlings.sharding.PartitionSpec.P;
import static dev.shardlings.spmd.ShardMap.shardMap;

/**
 * Problem 1 — reference solutions. Shapes: A f32[S_X, D_Y] on a mesh with axes "X" and "Y".
 * See exercises/ for the task texts and docs/problem-1.md for the discussion.
 */
public final class Problem1 {

    private Problem1() {
    }

    /** Part 1.1a: f32[S_X, D_Y] → f32[X, Y], the mean of every block, with no communication. */
    public static ShardedArray perShardMean(ShardedArray a) {
        return shardMap(block -> block.mean(KeepDims.KEEP), a.mesh(), P("X", "Y"), P("X", "Y")).apply(a);
    }

    /** Part 1.1b: the same in global view: [S, D] → [X, S/X, Y, D/Y] → mean over axes 1 and 3 → [X, Y]. */
    public static NDArray perShardMeanGlobal(NDArray a, Mesh mesh) {
        int x = mesh.axisSize("X");
        int y = mesh.axisSize("Y");
        int s = a.shape(0);
        int d = a.shape(1);
        return a.reshape(x, s / x, y, d / y).mean(1, 3);
    }

    /** Part 1.2a: roll(block, shift, axis 0) − block on every device. */
    public static ShardedArray rollWithinShards(ShardedArray a, int shift) {
        return shardMap(block -> block.roll(shift, 0).sub(block), a.mesh(), P("X", "Y"), P("X", "Y")).apply(a);
    }

    /** Part 1.2b: [S, D] → [X, S/X, D], roll along axis 1 so rows never leave their shard, back to [S, D]. */
    public static NDArray rollWithinShardsGlobal(NDArray a, Mesh mesh, int shift) {
        int x = mesh.axisSize("X");
        int s = a.shape(0);
        int d = a.shape(1);
        NDArray rolled = a.reshape(x, s / x, d).roll(shift, 1).reshape(s, d);
        return rolled.sub(a);
    }
}
