package dev.shardlings.course;

// What the tasks below use; an import left unused is harmless.
import dev.shardlings.ExerciseNotDone;
import dev.shardlings.array.NDArray;
import dev.shardlings.autodiff.Autodiff;
import dev.shardlings.autodiff.VjpResult;
import dev.shardlings.jit.Jit;
import dev.shardlings.nn.Mlp;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.spmd.Collectives;
import dev.shardlings.spmd.ShardMap;
import dev.shardlings.spmd.ShardedArray;
import dev.shardlings.spmd.Tiling;

import java.util.List;

import static dev.shardlings.sharding.PartitionSpec.P;

/**
 * Chapter 6 — training: seed 001's neural network ({@link Mlp}) trained with gradients ({@link Autodiff}), first
 * with the compiler choosing the communication (6.1, 6.2), then with every collective written by hand (6.3–6.5).
 *
 * <p>Parameters are lists {@code [W1, b1, W2, b2, W3, b3, W4, b4]}: W_l f32[n_{l−1}, n_l], b_l f32[n_l]; the
 * batch is inputs f32[B, n0] and targets f32[B, n4]; the loss is {@link Mlp#loss} (mean over the batch of the
 * squared error). One SGD step is {@code p − lr·∂loss/∂p}. The meshes have Auto axes 'batch' and/or 'model'; any
 * may have size 1.
 *
 * <p>Read {@code docs/chapter-6.md} first. Grade your work with {@code mvn test -Pgrade}.
 *
 * <p>This file stands alone: use the framework, the JDK and this class only, never another course file (copy a
 * helper you need into this file). Each course file is graded on its own, and one that does not compile is
 * graded as its stub, so a helper taken from it would break this file too.
 */
public final class Chapter6 {

    private Chapter6() {
    }

    /**
     * Part 6.1 — 8-way batch data parallelism with {@code jit(grad(loss))} (seed 001).
     *
     * <p>Input: the parameters, inputs f32[B, n0] and targets f32[B, n4] as whole arrays on the host, a mesh with
     * the Auto axis 'batch', a number of steps and a learning rate. Place every parameter replicated (W_l[n_{l−1},
     * n_l], b_l[n_l]) and the batch split by rows over 'batch' (inputs[B_batch, n0], targets[B_batch, n4]), then
     * run {@code steps} SGD steps, each one jitted program that computes the gradients with
     * {@code Autodiff.gradList} and updates the parameters. Return the trained parameters, each laid out
     * {@code P()}.
     *
     * <p>Graded: trained parameters (float tolerance) and layouts, each P(); one program compiled by jit per step
     * that computes the gradients and the update, with no eager operation and no hand-written shardMap; per device
     * only all-reduces over 'batch', carrying the gradients' elements once per step; no program hands a device more
     * than the parameters and its rows of the batch.
     * Docs: docs/chapter-6.md#part-61-data-parallelism-with-jit
     */
    public static List<ShardedArray> trainDataParallel(List<NDArray> params, NDArray inputs, NDArray targets,
                                                       Mesh mesh, int steps, float lr) {
        // TODO(6.1): If the gradients and the update are to be one compiled program, what does that program take in
        //  and what does it give back? Which of its arguments change from one step to the next? Which
        //  all-reduce do you expect the compiler to add, and why?
        throw new ExerciseNotDone("6.1");
    }

    /**
     * Part 6.2 — 4-way data × 2-way tensor parallelism (seed 001's second mesh).
     *
     * <p>Input: as 6.1, on a mesh with Auto axes 'batch' and 'model'. Place W2[n1, n2_model] split by its columns,
     * b2[n2_model] like them, W3[n2_model, n3] split by its rows, every other parameter replicated, and the batch
     * as inputs[B_batch, n0], targets[B_batch, n4]; train as in 6.1.
     *
     * <p>Graded: trained parameters (float tolerance) and layouts: W2 P(None, 'model'), b2 P('model'), W3
     * P('model', None), the rest P(); one program compiled by jit per step that computes the gradients and the
     * update, with no eager operation and no hand-written shardMap; per step two all-reduces over 'model' of
     * activations (forward f32[B/batch, n3], backward f32[B/batch, n1]) and all-reduces over 'batch' of
     * the gradients' blocks, nothing else; no program hands a device more than its blocks of the parameters and
     * its rows of the batch (W2 and W3 take 1/model of their bytes).
     * Docs: docs/chapter-6.md#part-62-data-and-tensor-parallelism-with-jit
     */
    public static List<ShardedArray> trainDataTensorParallel(List<NDArray> params, NDArray inputs, NDArray targets,
                                                             Mesh mesh, int steps, float lr) {
        // TODO(6.2): Between W2 and W3, which activations stay split over 'model', and where must the compiler sum
        //  partial products — forward, and in the backward pass? Which collectives does that predict per step?
        throw new ExerciseNotDone("6.2");
    }

    /**
     * Part 6.3 — a data-parallel step written by hand.
     *
     * <p>Input: the parameters laid out {@code P()}, inputs and targets laid out {@code P("batch")}, a learning
     * rate. In one shardMap, every device computes the gradient of the loss on its rows, the gradients are
     * averaged over 'batch', and every device applies the same update. Return the new parameters, laid out
     * {@code P()}.
     *
     * <p>Graded: the parameters after one step (float tolerance), laid out P(); a hand-written shardMap; every
     * collective an all-reduce (psum or pmean) over 'batch' of one gradient, each parameter's once; no program
     * hands a device more than the parameters and its rows of the batch.
     * Docs: docs/chapter-6.md#part-63-data-parallelism-by-hand
     */
    public static List<ShardedArray> dataParallelStep(List<ShardedArray> params, ShardedArray inputs,
                                                      ShardedArray targets, float lr) {
        // TODO(6.3): each device differentiates the loss on its own rows. What does Autodiff hand back for a
        //  parameter that is the same on every device (invariant over "batch"), and so how many times may the
        //  gradients be combined over "batch" for the update to use the mean over the whole batch?
        throw new ExerciseNotDone("6.3");
    }

    /**
     * Part 6.4 — fully sharded data parallelism (ZeRO-3) by hand.
     *
     * <p>Input: every parameter split by its first dimension over 'batch' (W_l[N_batch, n_l] and b_l[N_batch],
     * N its first dimension), inputs[B_batch, n0] and targets[B_batch, n4], a learning rate. No device ever
     * stores a whole parameter between steps: the forward pass all-gathers each one when it is needed, and each
     * device keeps only its shard of each gradient. Return the new parameters, laid out {@code P("batch")}.
     *
     * <p>Graded: the parameters after one step (float tolerance), each laid out P('batch'); a hand-written
     * shardMap; per device one all-gather over 'batch' of each parameter's shard and one reduce-scatter of each
     * gradient, and no all-reduce; no program hands a device more than its shards of the parameters and its rows
     * of the batch.
     * Docs: docs/chapter-6.md#part-64-fully-sharded-data-parallelism
     */
    public static List<ShardedArray> fsdpStep(List<ShardedArray> params, ShardedArray inputs, ShardedArray targets,
                                              float lr) {
        // TODO(6.4): Where must a shard's all-gather sit so that Autodiff hands you the gradient of the shard rather
        //  than of the whole parameter? What is the transpose of an all-gather, and does it sum or average the
        //  devices' contributions — so what must each device's loss be for the mean over the whole batch?
        throw new ExerciseNotDone("6.4");
    }

    /**
     * Part 6.5 — Megatron's tensor-parallel MLP block, forward and backward.
     *
     * <p>Input: X f32[B, D] laid out {@code P()}, W1 f32[D, F_model] laid out {@code P(null, "model")} (column
     * parallel), W2 f32[F_model, D] laid out {@code P("model", null)} (row parallel), and the cotangent dY f32[B, D]
     * laid out {@code P()}. Compute Y = relu(X·W1)·W2 and, for dY, the gradients dX, dW1 and dW2, each device
     * working on its F/M columns of the hidden layer. Return [Y, dX, dW1, dW2].
     *
     * <p>Graded: Y, dX, dW1 and dW2 (float tolerance) laid out P(), P(), P(None, 'model'), P('model', None); a
     * hand-written shardMap; exactly two collectives per device, psums over 'model' of f32[B, D] (forward and
     * backward); exactly 12·B·D·F/M matmul FLOPs per device.
     * Docs: docs/chapter-6.md#part-65-megatrons-mlp-block
     */
    public static List<ShardedArray> megatronMlp(ShardedArray x, ShardedArray w1, ShardedArray w2, ShardedArray dy) {
        // TODO(6.5): with F split over "model", which result is a partial sum in the forward pass, and which
        //  gradient in the backward pass? Could Autodiff give you the backward pass from the forward one?
        throw new ExerciseNotDone("6.5");
    }
}
