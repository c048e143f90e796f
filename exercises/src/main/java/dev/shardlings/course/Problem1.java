package dev.shardlings.course;

// What the tasks below use; an import left unused is harmless.
import dev.shardlings.ExerciseNotDone;
import dev.shardlings.array.KeepDims;
import dev.shardlings.array.NDArray;
import dev.shardlings.jit.Jit;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.spmd.ShardedArray;

import static dev.shardlings.sharding.PartitionSpec.P;
import static dev.shardlings.spmd.ShardMap.shardMap;

/**
 * Problem 1 — computing inside shards (worked problem 1 of "How To Scale Your Model", part 10).
 *
 * <p>Throughout, A is an array of activations A f32[S_X, D_Y] on a mesh with axes named {@code "X"} and
 * {@code "Y"} (X·Y devices). Device (i, j) holds the block A[i·S/X : (i+1)·S/X, j·D/Y : (j+1)·D/Y].
 * None of the four parts needs any communication: the grader checks the trace and rejects a collective.
 *
 * <p>Read {@code docs/problem-1.md} first. Grade your work with {@code mvn test -Pgrade}.
 *
 * <p>This file stands alone: use the framework, the JDK and this class only, never another course file (copy a
 * helper you need into this file). Each course file is graded on its own, and one that does not compile is
 * graded as its stub, so a helper taken from it would break this file too.
 */
public final class Problem1 {

    private Problem1() {
    }

    /**
     * Part 1.1a — the mean of every shard, with shardMap.
     *
     * <p>Input: A f32[S_X, D_Y] (a ShardedArray laid out with {@code P("X", "Y")}; get its mesh with
     * {@code a.mesh()}). Output: f32[X, Y] laid out {@code P("X", "Y")}, where out[i, j] is the mean of the block
     * on device (i, j). Each device must work on its own block only.
     *
     * <p>Graded: values against the mean of each block of the whole array (float tolerance), and layout; at least
     * one shardMap call; no collectives; no device holds an array as large as the whole input; the whole array is
     * never gathered on the host.
     * Docs: docs/problem-1.md#part-11a-per-shard-mean-with-shardmap
     */
    public static ShardedArray perShardMean(ShardedArray a) {
        // TODO(1.1a): The output f32[X, Y] is laid out P("X", "Y"): what shape is each device's block of it, and
        //  what does a device put there?
        throw new ExerciseNotDone("1.1a");
    }

    /**
     * Part 1.1b — the same per-shard means, compiled with jit.
     *
     * <p>Input: A f32[S_X, D_Y] laid out {@code P("X", "Y")} on a mesh whose axes are Auto (the compiler chooses the
     * layouts of intermediate values). Output: f32[X, Y] laid out {@code P("X", "Y")}, out[i, j] = the mean of the
     * block on device (i, j). Write the program on the whole array inside {@code Jit.jit(...)} and call it on A —
     * no shardMap here.
     *
     * <p>Graded: values (float tolerance) and layout; compiled by jit, with no hand-written shardMap; the compiled
     * program has no collective.
     * Docs: docs/problem-1.md#part-11b-per-shard-mean-with-jit
     */
    public static ShardedArray perShardMeanGlobal(ShardedArray a) {
        // TODO(1.1b): In the whole array, device (i, j)'s block is a range of rows and a range of columns. Which
        //  view of A gives the block index and the position inside a block dimensions of their own, so that a
        //  reduction leaves one value per block? How does jit learn the layout the result must have?
        throw new ExerciseNotDone("1.1b");
    }

    /**
     * Part 1.2a — roll within shards, with shardMap.
     *
     * <p>Input: A f32[S_X, D_Y] laid out {@code P("X", "Y")} and an integer shift (any sign, any size).
     * Output: f32[S_X, D_Y] laid out {@code P("X", "Y")}: on every device, roll(block, shift, axis 0) − block. Rows
     * wrap around inside the device's block, never across a shard boundary.
     *
     * <p>Graded: values against the definition applied to each block of the whole array, and layout; at least one
     * shardMap call; no collectives; no device holds an array as large as the whole input; the whole array is never
     * gathered on the host.
     * Docs: docs/problem-1.md#part-12a-roll-within-shards-with-shardmap
     */
    public static ShardedArray rollWithinShards(ShardedArray a, int shift) {
        // TODO(1.2a): Inside a shardMap, does roll see the whole array or the block? Does your shift work for any sign
        //  and for a size larger than the block?
        throw new ExerciseNotDone("1.2a");
    }

    /**
     * Part 1.2b — roll within shards, compiled with jit.
     *
     * <p>Input: A f32[S_X, D_Y] laid out {@code P("X", "Y")} on a mesh whose axes are Auto, and the shift. Output:
     * f32[S_X, D_Y] laid out {@code P("X", "Y")}, equal to 1.2a's: inside each group of S/X rows,
     * roll(rows, shift, axis 0) − rows. A roll of the whole array along axis 0 moves rows across shards, and the
     * compiler must communicate to do it.
     *
     * <p>Graded: values (exact) and layout; compiled by jit, with no hand-written shardMap; the compiled program has
     * no collective.
     * Docs: docs/problem-1.md#part-12b-roll-within-shards-with-jit
     */
    public static ShardedArray rollWithinShardsGlobal(ShardedArray a, int shift) {
        // TODO(1.2b): In which view of A are the rows of one shard a dimension of their own, one that no device
        //  splits? What must the result look like when it leaves the program?
        throw new ExerciseNotDone("1.2b");
    }
}
