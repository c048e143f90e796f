package dev.shardlings.course;

// What the tasks below use; an import left unused is harmless.
import dev.shardlings.ExerciseNotDone;
import dev.shardlings.array.NDArray;
import dev.shardlings.spmd.ShardMap;
import dev.shardlings.spmd.ShardedArray;

import java.util.ArrayList;
import java.util.List;

import static dev.shardlings.sharding.PartitionSpec.P;
import static dev.shardlings.spmd.Collectives.*;
import static dev.shardlings.spmd.ShardMap.shardMap;
import static dev.shardlings.spmd.Tiling.TILED;

/**
 * Problem 3 — collective matmuls (worked problem 3 of "How To Scale Your Model", part 10, and its collective
 * matmul example). A mesh with axes "X" and "Y"; n = the size of Y. Instead of gathering or reducing a whole array
 * and then computing, these programs pass pieces around the ring of devices along Y with {@code ppermute} and
 * compute on each piece as it arrives — on real hardware the transfers then overlap the matmuls.
 *
 * <p>Tip: write the per-device steps of 3.0 and 3.2 as private static methods on blocks, so that 3.3 can call them.
 * Read {@code docs/problem-3.md} first; grade with {@code mvn test -Pgrade}.
 *
 * <p>This file stands alone: use the framework, the JDK and this class only, never another course file (copy a
 * helper you need into this file). Each course file is graded on its own, and one that does not compile is
 * graded as its stub, so a helper taken from it would break this file too.
 */
public final class Problem3 {

    private Problem3() {
    }

    /**
     * Part 3.0 — the all-gather collective matmul: A[B_X, D_Y] ·_D W[D, F_Y] → Out[B_X, F_Y] without gathering A.
     *
     * <p>Inputs: {@code a} f32[B, D] laid out {@code P("X", "Y")}, {@code w} f32[D, F] laid out {@code P(null, "Y")}.
     * Output: f32[B, F] laid out {@code P("X", "Y")}. On each device: multiply the A chunk it holds by the rows of its
     * W block that match that chunk, pass the A chunk one step along Y with ppermute, and repeat until every chunk
     * has been used (n − 1 passes).
     *
     * <p>Graded: values; only ppermutes over Y (no all-gather), exactly n − 1 per device, each of one A block
     * [B/X, D/Y] and one step round the ring; every matmul multiplies one A chunk (contracts at most D/Y), so each
     * can start as soon as its chunk arrives; 2·(B/X)·D·(F/Y) matmul FLOPs per device.
     * Docs: docs/problem-3.md#part-30-the-all-gather-collective-matmul
     */
    public static ShardedArray allGatherMatmul(ShardedArray a, ShardedArray w) {
        // TODO(3.0): After s passes, which chunk of D does a device hold, and which rows of its W block match it?
        //  In which direction must the chunks travel for that?
        throw new ExerciseNotDone("3.0");
    }

    /**
     * Part 3.0, baseline — the same product by gathering A first: AllGather_Y A[B_X, D_Y] → A[B_X, D], then a local
     * matmul. Part 3.0 passes when both methods do.
     *
     * <p>Graded: values; exactly one all-gather per device, over Y, of the A block; 2·(B/X)·D·(F/Y) matmul FLOPs per
     * device.
     * Docs: docs/problem-3.md#part-30-the-all-gather-collective-matmul
     */
    public static ShardedArray allGatherMatmulNaive(ShardedArray a, ShardedArray w) {
        // TODO(3.0): Along which dimension of A does the gather run, and which block of Out does each device then
        //  compute?
        throw new ExerciseNotDone("3.0");
    }

    /**
     * Part 3.1 — the all-reduce collective matmul: A[B_X, D_Y] ·_D W[D_Y, F] → Out[B_X, F].
     *
     * <p>Inputs: {@code a} laid out {@code P("X", "Y")}, {@code w} f32[D, F] laid out {@code P("Y", null)}, and a
     * number of tiles (≥ 2, divides F). Output: f32[B, F] laid out {@code P("X", null)}. Cut the output dimension F
     * into {@code tiles} tiles; for each tile compute the partial product and psum it over Y, so that on hardware
     * the reduction of one tile overlaps the matmul of the next.
     *
     * <p>Graded: values; one psum over Y per tile (at least two), each of one output tile [B/X, F/tiles], so the
     * psums together reduce exactly one [B/X, F] array — no more; every matmul computes at most one tile; each psum
     * reduces products of its own tile only, so no reduction waits for every matmul; 2·(B/X)·(D/Y)·F matmul FLOPs
     * per device.
     * Docs: docs/problem-3.md#part-31-the-all-reduce-collective-matmul
     */
    public static ShardedArray allReduceMatmul(ShardedArray a, ShardedArray w, int tiles) {
        // TODO(3.1): Which dimension can you cut into tiles so that each tile's partial product can be finished on
        //  its own, while the next tile is multiplied? What shape is one tile's partial product?
        throw new ExerciseNotDone("3.1");
    }

    /**
     * Part 3.2 — the reduce-scatter collective matmul: Tmp[B_X, F_Y] ·_F W2[F_Y, D] → Out[B_X, D_Y].
     *
     * <p>Inputs: {@code tmp} f32[B, F] laid out {@code P("X", "Y")}, {@code w2} f32[F, D] laid out
     * {@code P("Y", null)}. Output: f32[B, D] laid out {@code P("X", "Y")}. Each device's product Tmp · W2 is only a
     * partial sum over its slice of F. Pass an accumulator for one D chunk around the ring along Y: every device adds
     * its partial product for that chunk and hands it on, so it arrives complete at the device that owns the chunk.
     *
     * <p>Graded: values; only ppermutes over Y, exactly n − 1 per device, each of one accumulator block [B/X, D/Y]
     * and one step round the ring (no psum or psumScatter); every matmul computes the partial product of at most one
     * D chunk [B/X, D/Y]; 2·(B/X)·(F/Y)·D matmul FLOPs per device.
     * Docs: docs/problem-3.md#part-32-the-reduce-scatter-collective-matmul
     */
    public static ShardedArray reduceScatterMatmul(ShardedArray tmp, ShardedArray w2) {
        // TODO(3.2): If the accumulator for chunk c must arrive complete at device c after n − 1 passes, which
        //  chunk must device y start with, and in which direction does it travel?
        throw new ExerciseNotDone("3.2");
    }

    /**
     * Part 3.3 — a transformer feed-forward block from 3.0 and 3.2:
     * In[B_X, D_Y] ·_D Win[D, F_Y] → gelu → ·_F Wout[F_Y, D] → Out[B_X, D_Y].
     *
     * <p>Inputs: {@code in} f32[B, D] laid out {@code P("X", "Y")}, {@code win} f32[D, F] laid out
     * {@code P(null, "Y")}, {@code wout} f32[F, D] laid out {@code P("Y", null)}. Output: f32[B, D] laid out
     * {@code P("X", "Y")}. Use {@code NDArray.gelu()} (jax.nn.gelu's tanh form).
     *
     * <p>Graded: values; the collectives of 3.0 then those of 3.2: 2(n − 1) one-step ppermutes over Y of [B/X, D/Y]
     * blocks, nothing else; every matmul is one chunk of 3.0 or of 3.2; 4·(B/X)·D·(F/Y) matmul FLOPs per device.
     * Docs: docs/problem-3.md#part-33-a-transformer-block
     */
    public static ShardedArray transformerBlock(ShardedArray in, ShardedArray win, ShardedArray wout) {
        // TODO(3.3): Which of your earlier per-device steps produces the hidden block [B/X, F/Y], and which one
        //  consumes it? Does that block ever need to leave its device?
        throw new ExerciseNotDone("3.3");
    }

    /**
     * Part 3.3, baseline — the same block the simple way: all-gather In over Y, matmul, gelu, matmul, and a
     * reduce-scatter (psumScatter) over Y. Part 3.3 passes when both methods do.
     *
     * <p>Graded: values; exactly one all-gather then one psumScatter over Y per device, of the In block and of the
     * [B/X, D] partial product; 4·(B/X)·D·(F/Y) matmul FLOPs per device.
     * Docs: docs/problem-3.md#part-33-a-transformer-block
     */
    public static ShardedArray transformerBlockNaive(ShardedArray in, ShardedArray win, ShardedArray wout) {
        // TODO(3.3): Which collective must come before the first product, and which one completes the second —
        //  along which dimension?
        throw new ExerciseNotDone("3.3");
    }
}
