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

    /**
     * Part 7.2a — pipeline parallelism, GPipe's schedule.
     *
     * <p>Input: W[L_stage, D, D], a stack of L layers split over 'stage' (stage s holds k = L / p of them, in
     * order; layer l maps x to relu(x · W[l])); X[M, b, D] and T[M, b, D], replicated: M microbatches of b rows and
     * their targets. Return dW[L_stage, D, D], the gradient of the mean over all M·b rows of ½‖y − t‖², laid out
     * {@code P("stage")}. In one shardMap, stage s works out from {@code axisIndex("stage")} what it does at each
     * step: the forward or the backward of one microbatch through its k layers, or nothing. Activations go to
     * stage s + 1 and gradients to stage s − 1 with {@code ppermute}. GPipe's order: every microbatch's forward
     * first, then every backward.
     *
     * <p>Graded: dW (float tolerance) laid out P('stage'); a hand-written shardMap; only ppermutes over 'stage', each
     * between neighbouring stages and of at most one microbatch's activations or gradients (b·D elements); no
     * program hands a stage more than its own k layers of W and the whole X and T; the schedule read from the trace:
     * each stage runs every microbatch's forward once and its backward once, at most one of each per step, every
     * forward before any backward; a bubble of at most (p − 1)/(M + p − 1) of the steps.
     * Docs: docs/chapter-7.md#part-72a-gpipe
     */
    public static ShardedArray gpipe(ShardedArray w, ShardedArray x, ShardedArray t) {
        // TODO(7.2a): At step t, which microbatch can stage s run forward, given that stage s − 1 handed it on at
        //  the end of step t − 1? Every device calls the same ppermutes: what does a stage with nothing to send
        //  hand over, and how does the receiver know which microbatch arrived? What must a stage keep from each
        //  forward for its backward, and which matmul gives dW from it?
        throw new ExerciseNotDone("7.2a");
    }

    /**
     * Part 7.2b — pipeline parallelism, the 1F1B schedule (one forward, one backward).
     *
     * <p>Input and output as in {@link #gpipe}: W[L_stage, D, D] laid out {@code P("stage")}, X[M, b, D] and
     * T[M, b, D] replicated; return dW[L_stage, D, D] laid out {@code P("stage")}. The schedule changes: stage s
     * starts a backward as soon as it can and then alternates a forward and a backward, so that it never keeps
     * the activations of more microbatches than it must.
     *
     * <p>Graded: dW (float tolerance) laid out P('stage'); a hand-written shardMap; only ppermutes over 'stage', each
     * between neighbouring stages and of at most one microbatch's activations or gradients (b·D elements); no
     * program hands a stage more than its own k layers of W and the whole X and T; the schedule read from the trace:
     * each stage runs every microbatch's forward once and its backward once, at most one of each per step; a bubble
     * of at most (p − 1)/(M + p − 1) of the steps; stage s keeps at most p − s microbatches' activations at once.
     * Docs: docs/chapter-7.md#part-72b-one-forward-one-backward
     */
    public static ShardedArray oneFOneB(ShardedArray w, ShardedArray x, ShardedArray t) {
        // TODO(7.2b): How many microbatches must stage s have run forward before the first gradient reaches it?
        //  Write down each stage's order of forwards and backwards first, then the step at which each one can
        //  start (its input must have arrived, and the stage must be free). Does your GPipe program still work if
        //  only that table changes?
        throw new ExerciseNotDone("7.2b");
    }


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
