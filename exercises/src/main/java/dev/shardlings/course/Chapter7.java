package dev.shardlings.course;

// What the tasks below use; an import left unused is harmless.
import dev.shardlings.ExerciseNotDone;
import dev.shardlings.array.NDArray;
import dev.shardlings.autodiff.Autodiff;
import dev.shardlings.autodiff.Checkpoint;
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

    /**
     * Part 7.1 — 2-D FSDP × tensor parallelism: one SGD step of a transformer's MLP block.
     *
     * <p>Input on a mesh ('data', 'model'): X[B_data, D] and T[B_data, D], the batch and its targets split over
     * 'data' (replicated over 'model'); the weights W1[D_data, F_model] and W2[F_model, D_data], each split over
     * both axes; {@code lr}, the learning rate. The block is Y = relu(X·W1)·W2 and the loss the mean over the B rows
     * of ‖Y − T‖². Return [W1 − lr·dW1, W2 − lr·dW2], laid out P('data', 'model') and P('model', 'data'), with one
     * hand-written shardMap.
     *
     * <p>Graded: W1 and W2 after one step (float tolerance) laid out P('data', 'model') and P('model', 'data'); a
     * hand-written shardMap; per device one all-gather over 'data' of each weight's block (kept for the backward pass,
     * or gathered once more there), one reduce-scatter over 'data' of each gathered weight's gradient, and one
     * all-reduce (psum) over 'model' of the activations Y[B/data, D] (or the sequence-parallel variant:
     * reduce-scatters of Y's rows over 'model', each with an all-gather of the rows back), besides at most two psums
     * or pmeans of the scalar loss, nothing else; no program hands a device more than 1/(data·model) of the weights
     * and its rows, and no array on a device is larger than one gathered layer; the weights are never gathered whole
     * on the host.
     *
     * <p>Graded (7.1p, at its measured size on TPU v5e): the measured run's answer has its shapes, layouts and values;
     * it ran in a shardMap; per device one all-gather over 'data' of each weight's block (kept for the backward pass,
     * or gathered once more there), one reduce-scatter over 'data' of each gathered weight's gradient, and one
     * all-reduce (psum) over 'model' of the activations Y[B/data, D] (or the sequence-parallel variant: reduce-scatters
     * of Y's rows over 'model', each with an all-gather of the rows back), besides at most two psums or pmeans of the
     * scalar loss, nothing else; no program hands a device more than 1/(data·model) of the weights and its rows, and no
     * array on a device is larger than one gathered layer; the weights are never gathered whole on the host; every
     * device multiplies its rows by its gathered layers forward and takes both weights' gradients, at least
     * 8·(B/data)·D·(F/model) FLOPs; modelled time at most 1.25× the reference's.
     * Docs: docs/chapter-7.md#part-71-2-d-fsdp--tensor-parallelism
     */
    public static List<ShardedArray> fsdpTpStep(ShardedArray x, ShardedArray t, ShardedArray w1, ShardedArray w2,
                                                float lr) {
        // TODO(7.1): Which axis must a device gather W1's block over before X's rows can multiply it, and which
        //  axis stays split? After the second matmul, which sum is still missing, and over which axis? What does
        //  the autodiff turn an all-gather into on the way back? Every 'data' row of devices averages its own
        //  rows: what factor makes the sum over the rows the mean over the whole batch?
        throw new ExerciseNotDone("7.1");
    }

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
     *
     * <p>Graded (7.2bp, at its measured size on TPU v5e): the measured run's answer has its shapes, layouts and values;
     * it ran in a shardMap; only ppermutes over 'stage', each between neighbouring stages and of at most one
     * microbatch's activations or gradients (b·D elements); no program hands a stage more than its own k layers of W
     * and the whole X and T; the schedule read from the trace: each stage runs every microbatch's forward once and its
     * backward once, at most one of each per step; a bubble of at most (p − 1)/(M + p − 1) of the steps; stage s keeps
     * at most p − s microbatches' activations at once; every stage runs each microbatch forward through its layers and
     * takes their weights' gradients, at least 4·M·k·b·D² FLOPs; modelled time at most 1.25× the reference's.
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
     * Q, K and V; each V block that arrives multiplied by its weights before the shift after next (a device holds
     * at most two K/V blocks beyond its own) and no local operation making an array of more than
     * 2·(S/n)·max(S/n, D) elements.
     *
     * <p>Graded (7.3p, at its measured size on TPU v5e): the measured run's answer has its shapes, layouts and values;
     * it ran in a shardMap; per device only ppermutes over 'seq', each a one-step shift of its K and V blocks (f32[S/n,
     * D] each, or both in one array), n − 1 shifts of each in all; every matmul multiplies one block by one block
     * (scores [S/n, D]·[D, S/n], output [S/n, S/n]·[S/n, D]) and no program hands a device more than its blocks of Q, K
     * and V; each V block that arrives multiplied by its weights before the shift after next (a device holds at most
     * two K/V blocks beyond its own) and no local operation making an array of more than 2·(S/n)·max(S/n, D) elements;
     * every device takes its queries' scores against every K block and multiplies every V block by their weights, at
     * least 4·n·(S/n)²·D FLOPs; modelled time at most 1.25× the reference's.
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
     * more than its blocks of Q, K and V; each V block that arrives multiplied by its weights before the shift after
     * next (a device holds at most two K/V blocks beyond its own) and no local operation making an array of more
     * than 2·(S/n)·max(S/n, D) elements.
     * Docs: docs/chapter-7.md#part-73-ring-attention
     */
    public static ShardedArray causalRingAttention(ShardedArray q, ShardedArray k, ShardedArray v) {
        // TODO(7.3): which device's K block does a device hold after t shifts, and so at which positions of the
        //  sequence do its keys sit? Which blocks does query row i see whole, which in part, which not at all — and
        //  must a device still pass on a block it does not use?
        throw new ExerciseNotDone("7.3");
    }

    // ---- Part 7.4: gradient accumulation and ZeRO-1 ----

    /**
     * Part 7.4a — gradient accumulation.
     *
     * <p>Input: a layer W f32[D, F] laid out {@code P()}, a batch X f32[B_data, D] and its targets T f32[B_data, F]
     * laid out {@code P("data")} on a mesh with axis 'data', and a number of microbatches M that divides B/data.
     * Compute dW f32[D, F], the gradient of L = (1/B)·Σ_rows ½‖relu(X·W) − T‖² over the whole batch, but let each
     * device work through its B/data rows M microbatches at a time, r = B/(data·M) rows each (as a device whose
     * memory holds only one microbatch's activations must). Return dW laid out {@code P()}.
     *
     * <p>Graded: dW (float tolerance) laid out P(), equal to the big-batch gradient; a hand-written shardMap; per
     * device exactly one psum (or pmean) over 'data' per step, of the accumulated gradient f32[D, F]; every matmul
     * is sized per microbatch ([B/(data·M), D]·[D, F] or [D, B/(data·M)]·[B/(data·M), F]); no device allocates an
     * array larger than f32[D, F], f32[B/(data·M), D] or f32[B/(data·M), F]; the batch is never gathered on the host.
     * Docs: docs/chapter-7.md#part-74a-gradient-accumulation
     */
    public static ShardedArray accumulatedGradient(ShardedArray w, ShardedArray x, ShardedArray t,
                                                   int microbatches) {
        // TODO(7.4a): the loss is a mean over all B rows. Written as a sum over microbatches, which factor does each
        //  microbatch's gradient carry, and how many times may 1/B be applied in all? Does another device need each
        //  microbatch's gradient as it is computed, or only the total at the end?
        throw new ExerciseNotDone("7.4a");
    }

    /**
     * Part 7.4b — ZeRO-1: Adam's state sharded over 'data'.
     *
     * <p>Input: the layer and batch of {@link #accumulatedGradient} (W f32[D, F] {@code P()}, X f32[B_data, D], T
     * f32[B_data, F] {@code P("data")}), Adam's moments mu and nu f32[D_data, F] laid out {@code P("data")} (device i
     * owns rows i·D/data … (i + 1)·D/data − 1 of each), the step number t ≥ 1 and the learning rate. Take one Adam
     * step as optax computes it (b1 = 0.9, b2 = 0.999, eps = 1e-8: mu' = b1·mu + (1 − b1)·g, nu' = b2·nu + (1 − b2)·g²,
     * W' = W − lr·m̂/(√n̂ + eps) with m̂ = mu'/(1 − b1^t), n̂ = nu'/(1 − b2^t)) on the gradient g of the mean loss over
     * all B rows, without any device holding more than its rows of mu and nu. Return [W' laid out {@code P()}, mu'
     * and nu' laid out {@code P("data")}].
     *
     * <p>Graded: W' (float tolerance) laid out P(), mu' and nu' laid out P('data'), equal to one step of Adam on the
     * whole arrays; a hand-written shardMap; per device one psumScatter over 'data' of the gradient f32[D, F], then
     * one allGather over 'data' of its rows of W f32[D/data, F], and no all-reduce; no program hands a device more
     * than W, its 1/data of mu and nu and its rows of X and T; the batch is never gathered on the host.
     * Docs: docs/chapter-7.md#part-74b-zero-1
     */
    public static List<ShardedArray> zeroAdamStep(ShardedArray w, ShardedArray mu, ShardedArray nu, ShardedArray x,
                                                  ShardedArray t, int step, float learningRate) {
        // TODO(7.4b): a device owns some rows of mu and nu. Which rows of the gradient does it need to update them,
        //  and must they be summed over every device first? Which collective hands each device exactly its rows of
        //  a sum? Once each device has new values for its rows of W, how does every device get the whole W back?
        throw new ExerciseNotDone("7.4b");
    }

    // ---- Part 7.5: mixed precision ----

    /**
     * Part 7.5 — mixed precision: bf16 compute, f32 master weights.
     *
     * <p>Input: the f32 master weights of a two-layer MLP, W1 f32[D_data, H] and W2 f32[H_data, F] laid out
     * {@code P("data")} (each device keeps its rows, as under FSDP), a batch X f32[B_data, D] and its targets T
     * f32[B_data, F] laid out {@code P("data")}, on a mesh with axis 'data', and a learning rate. Take one step of
     * plain gradient descent on L = (1/B)·Σ_rows ½‖relu(X·W1)·W2 − T‖² computing in bfloat16 as JAX's mixed-precision
     * training does: the weights and the batch cast to bfloat16, both matmuls on bfloat16 operands accumulating in
     * float32 ({@code preferred_element_type} float32), the hidden activations cast to bfloat16 before the second
     * matmul, the loss in float32, the weights gathered in bfloat16, the gradients reduced in float32 and the update
     * W − lr·dW applied to the f32 masters. Return [L f32[] laid out {@code P()}, W1' and W2' f32 laid out
     * {@code P("data")}].
     *
     * <p>Graded: L, W1' and W2' (L to float32 rounding, the weights to a bfloat16 rounding of the update) laid out
     * P(), P('data'), P('data'), equal to a step that rounds to bfloat16 where JAX does; a hand-written shardMap; per
     * device one allGather over 'data' of each weight's block, one psumScatter over 'data' of each weight's gradient
     * and one psum (or pmean) of the loss; the all-gathers carry bfloat16 (half the bytes of float32) and the
     * reductions float32; every matmul reads a bfloat16 operand and accumulates in float32; the batch is never
     * gathered on the host.
     * Docs: docs/chapter-7.md#part-75-mixed-precision
     */
    public static List<ShardedArray> mixedPrecisionStep(ShardedArray w1, ShardedArray w2, ShardedArray x,
                                                        ShardedArray t, float learningRate) {
        // TODO(7.5): which of the arrays must keep float32 and which may travel and be multiplied in bfloat16?
        //  If each device holds its rows of the masters, what is the smallest thing it can send the others, and
        //  which dtype should the products add up in? Differentiated through an all-gather, in which dtype would
        //  the gradient be reduced, and what would that do to each device's share of the sum? Where does the
        //  update of the masters happen, and in which dtype?
        throw new ExerciseNotDone("7.5");
    }

    // ---- Part 7.6: rematerialisation ----

    /**
     * Part 7.6 — rematerialisation.
     *
     * <p>Input: L layers W_1 … W_L f32[D, D] laid out {@code P()}, a batch X f32[B_data, D] and its targets T
     * f32[B_data, D] laid out {@code P("data")} on a mesh with axis 'data'. The network is h_0 = X, h_l =
     * relu(h_{l−1}·W_l), and the loss L = (1/B)·Σ_rows ½‖h_L − T‖². Take one data-parallel step: return [L f32[],
     * dW_1 … dW_L f32[D, D]], all laid out {@code P()}, computing the gradients with {@link Autodiff} on each device
     * — but let each device keep, for its backward pass, no more than the layers' inputs and the intermediates of
     * one layer at a time (r = B/data rows per device), at the price of at most one extra forward pass.
     *
     * <p>Graded: the loss f32[] and dW_1 … dW_L f32[D, D] (float tolerance) laid out P(), equal to the whole batch's;
     * a hand-written shardMap; per device one psum (or pmean) over 'data' of each gradient f32[D, D] and one of the
     * loss f32[], and no other collective; the gradients are taken with Autodiff on each device, whose tapes hold at
     * most (L + 5)·r·D floats and 4 scalars at once (the layers' outputs, one layer's intermediates while it is
     * recomputed, and the loss's), r = B/data; matmul FLOPs per device: Autodiff's own backward pass (its vjp
     * rules) at least (2L − 1)·2·r·D² and its checkpoints' recomputation at least L·2·r·D², and in all at most those
     * of the forward and backward passes plus one forward, (4L − 1)·2·r·D²; besides the matmuls, at most
     * 16·(L + 2)·r·D FLOPs of elementwise work and reductions per device; the batch is never gathered on the host.
     * Docs: docs/chapter-7.md#part-76-rematerialisation
     */
    public static List<ShardedArray> rematerialisedStep(List<ShardedArray> weights, ShardedArray x, ShardedArray t) {
        // TODO(7.6): what does the backward pass of relu(h·W) read: h, W, the product, the ReLU's output? Which of
        //  those could it compute again from h and W alone, and what would that cost in FLOPs? Read Checkpoint's
        //  Javadoc: what does a checkpointed function keep, and when does it run again? With every layer handled so,
        //  how many activations f32[r, D] does a device hold at the worst moment of its backward pass?
        throw new ExerciseNotDone("7.6");
    }
}
