package dev.shardlings.course;

// What the tasks below use; an import left unused is harmless.
import dev.shardlings.ExerciseNotDone;
import dev.shardlings.array.NDArray;
import dev.shardlings.autodiff.Autodiff;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.spmd.Collectives;
import dev.shardlings.spmd.ShardMap;
import dev.shardlings.spmd.ShardedArray;

import java.util.List;

import static dev.shardlings.sharding.PartitionSpec.P;

/**
 * Chapter 7 — how real language models are trained across a mesh: the layouts of large-scale training, each built
 * from the collectives of chapters 0–6.
 *
 * <p>Read {@code docs/chapter-7.md} first. Grade your work with {@code mvn test -Pgrade}.
 *
 * <p>This file stands alone: use the framework, the JDK and this class only, never another course file (copy a
 * helper you need into this file). Each course file is graded on its own, and one that does not compile is
 * graded as its stub, so a helper taken from it would break this file too.
 */
public final class Chapter7 {

    private Chapter7() {
    }

    // ---- Part 7.1: 2-D FSDP × tensor parallelism ----


    // ---- Part 7.2: pipeline parallelism ----


    // ---- Part 7.3: ring attention ----

    /**
     * Part 7.3 — ring attention (context parallelism).
     *
     * <p>Input: one attention head's queries, keys and values Q, K, V f32[S_seq, D], each laid out
     * {@code P("seq")} on a mesh with axis 'seq' of n devices: device i holds rows i·S/n … (i + 1)·S/n − 1 of each.
     * Compute O[S_seq, D] = softmax(Q·Kᵀ/√D)·V, the softmax over the keys of each query row. Keep Q and O where
     * they are and send the K and V blocks round the ring instead: no device may gather the whole K or V. Return O
     * laid out {@code P("seq")}.
     *
     * <p>Graded: O (float tolerance) laid out P('seq'), on scores large enough to overflow exp; a hand-written
     * shardMap; per device only ppermutes over 'seq', each a one-step shift of its K and V blocks (f32[S/n, D]
     * each, or both in one array), n − 1 shifts of each in all; every matmul multiplies one block by one block
     * (scores [S/n, D]·[D, S/n], output [S/n, S/n]·[S/n, D]) and no program hands a device more than its blocks of
     * Q, K and V.
     * Docs: docs/chapter-7.md#part-73-ring-attention
     */
    public static ShardedArray ringAttention(ShardedArray q, ShardedArray k, ShardedArray v) {
        // TODO(7.3): softmax needs the max and the sum of a whole row, but a device sees one block of keys at a
        //  time. If you kept, per query row, the largest score so far, the sum of exp(score − that max) and the
        //  output weighted the same way, what must happen to the sum and the output when a new block raises the
        //  max? Why subtract a max at all: what is exp(100) in float32?
        throw new ExerciseNotDone("7.3");
    }

    /**
     * Part 7.3 — ring attention with the causal mask.
     *
     * <p>As {@link #ringAttention}, but query row i sees only the keys j ≤ i, positions counted in the whole
     * sequence (a language model's decoder: no token attends to a later one).
     *
     * <p>Graded: O (float tolerance) laid out P('seq'), query i seeing the keys j ≤ i, on scores large enough to
     * overflow exp; a hand-written shardMap; per device only ppermutes over 'seq', each a one-step shift of its K
     * and V blocks (f32[S/n, D] each, or both in one array), n − 1 shifts of each in all; every matmul multiplies
     * one block by one block (scores [S/n, D]·[D, S/n], output [S/n, S/n]·[S/n, D]) and no program hands a device
     * more than its blocks of Q, K and V.
     * Docs: docs/chapter-7.md#part-73-ring-attention
     */
    public static ShardedArray causalRingAttention(ShardedArray q, ShardedArray k, ShardedArray v) {
        // TODO(7.3): which device's K block does a device hold after t shifts, and so at which positions of the
        //  sequence do its keys sit? Which blocks does query row i see whole, which in part, which not at all — and
        //  must a device still pass on a block it does not use?
        throw new ExerciseNotDone("7.3");
    }

    // ---- end of the parts ----
}
