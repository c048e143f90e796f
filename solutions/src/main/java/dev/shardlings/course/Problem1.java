package dev.shardlings.course;

import dev.shardlings.array.KeepDims;
import dev.shardlings.jit.Jit;
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

    /**
     * Part 1.1b: the same, compiled with jit (seed 002's {@code average}): [S_X, D_Y] → [X, S/X, Y, D/Y] keeps X on
     * dimension 0 and Y on dimension 2, so the mean over dimensions 1 and 3 stays on each device.
     */
    public static ShardedArray perShardMeanGlobal(ShardedArray a) {
        int x = a.mesh().axisSize("X");
        int y = a.mesh().axisSize("Y");
        int s = a.shape()[0];
        int d = a.shape()[1];
        return Jit.jit(v -> v.reshape(x, s / x, y, d / y).mean(1, 3)).named("average").outShardings(P("X", "Y"))
                .call(a).get(0);
    }

    /** Part 1.2a: roll(block, shift, axis 0) − block on every device. */
    public static ShardedArray rollWithinShards(ShardedArray a, int shift) {
        return shardMap(block -> block.roll(shift, 0).sub(block), a.mesh(), P("X", "Y"), P("X", "Y")).apply(a);
    }

    /**
     * Part 1.2b: compiled with jit (seed 002's {@code shift_jit}): [S_X, D_Y] → [X, S/X, D] puts the shards on their
     * own dimension, the roll along dimension 1 never leaves a device, and reshaping back restores the layout.
     */
    public static ShardedArray rollWithinShardsGlobal(ShardedArray a, int shift) {
        int x = a.mesh().axisSize("X");
        int s = a.shape()[0];
        int d = a.shape()[1];
        return Jit.jit(v -> v.reshape(x, s / x, d).roll(shift, 1).reshape(s, d).sub(v)).named("shift_jit")
                .outShardings(P("X", "Y")).call(a).get(0);
    }
}
