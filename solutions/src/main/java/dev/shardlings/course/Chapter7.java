package dev.shardlings.course;

// What the tasks below use; an import left unused is harmless.
import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.autodiff.Autodiff;
import dev.shardlings.autodiff.Checkpoint;
import dev.shardlings.autodiff.ValueAndGrad;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.spmd.Collectives;
import dev.shardlings.spmd.ShardMap;
import dev.shardlings.spmd.ShardedArray;
import dev.shardlings.spmd.Tiling;

import java.util.ArrayList;
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
     * 7.1: one SGD step of the MLP block Y = relu(X·W1)·W2 on a mesh ('data', 'model'), weights stored
     * W1[D_data, F_model] and W2[F_model, D_data]. Each weight is all-gathered over 'data' inside the
     * differentiated function, so the autodiff keeps the gathered layer for the backward pass and transposes the
     * gather into a reduce-scatter of its gradient. The second matmul leaves partial sums over 'model', completed
     * by one psum whose pullback needs no communication. Each 'data' row of devices sees 1/data of the batch, so
     * its mean loss is divided by the number of rows: the reduce-scatter's sum is then the batch mean's gradient.
     */
    public static List<ShardedArray> fsdpTpStep(ShardedArray x, ShardedArray t, ShardedArray w1, ShardedArray w2,
                                                float lr) {
        return ShardMap.shardMap(b -> {
            NDArray xb = b.get(0);
            NDArray tb = b.get(1);
            int rows = Collectives.axisSize("data");
            List<NDArray> grads = Autodiff.<NDArray>gradList(w -> {
                NDArray w1g = Collectives.allGather(w.get(0), "data", 0, Tiling.TILED);
                NDArray w2g = Collectives.allGather(w.get(1), "data", 1, Tiling.TILED);
                NDArray y = Collectives.psum(xb.matmul(w1g).relu().matmul(w2g), "model");
                return y.sub(tb).square().sum(-1).mean().div(rows);
            }).apply(List.of(b.get(2), b.get(3)));
            return List.of(b.get(2).sub(grads.get(0).mul(lr)), b.get(3).sub(grads.get(1).mul(lr)));
        }, x.mesh(), List.of(P("data", null), P("data", null), P("data", "model"), P("model", "data")),
                List.of(P("data", "model"), P("model", "data"))).named("fsdp_tp_step").call(List.of(x, t, w1, w2));
    }

    // ---- Part 7.2: pipeline parallelism ----

    /**
     * 7.2a: the gradients of a pipelined stack of L layers, GPipe's schedule (every microbatch forward, then every
     * one backward). Stage s (its index along 'stage') holds layers s·k … s·k + k − 1 (k = L / stages); microbatch
     * m's activations travel stage → stage + 1 and its gradients back, each by a ppermute between neighbours.
     *
     * @param w f32[L_stage, D, D], P('stage'): layer l maps x to relu(x · W[l])
     * @param x f32[M, b, D], P(): M microbatches of b rows
     * @param t f32[M, b, D], P(): their targets
     * @return dW f32[L_stage, D, D], P('stage'): the gradient of mean over all M·b rows of ½‖y − t‖²
     */
    public static ShardedArray gpipe(ShardedArray w, ShardedArray x, ShardedArray t) {
        return pipeline(w, x, t, false, "gpipe");
    }

    /**
     * 7.2b: the same gradients as {@link #gpipe}, on 1F1B's schedule: stage s runs stages − s − 1 forwards, then
     * alternates a forward and a backward, so it keeps at most stages − s microbatches' activations.
     *
     * @param w f32[L_stage, D, D], P('stage')
     * @param x f32[M, b, D], P()
     * @param t f32[M, b, D], P()
     * @return dW f32[L_stage, D, D], P('stage')
     */
    public static ShardedArray oneFOneB(ShardedArray w, ShardedArray x, ShardedArray t) {
        return pipeline(w, x, t, true, "one_f_one_b");
    }

    /** One stage's unit of work: the forward or the backward of one microbatch through its k layers. */
    private record StageOp(boolean forward, int microbatch) {
    }

    /** A stage's units in the order it runs them (the schedule's only difference between GPipe and 1F1B). */
    private static List<StageOp> stageOrder(int stage, int stages, int micro, boolean oneFOneB) {
        List<StageOp> ops = new ArrayList<>();
        int warm = oneFOneB ? Math.min(stages - stage - 1, micro) : micro;
        for (int m = 0; m < warm; m++) {
            ops.add(new StageOp(true, m));
        }
        for (int m = 0; m < micro; m++) {
            if (warm + m < micro) {
                ops.add(new StageOp(true, warm + m));
            }
            ops.add(new StageOp(false, m));
        }
        return ops;
    }

    /**
     * The step at which each stage runs each unit, [stage][step] (null: idle): every unit takes one step and
     * starts as soon as its stage is free and its input arrived (a forward needs the previous stage's forward of
     * the same microbatch, a backward the next stage's backward). Every device computes the same table.
     */
    private static StageOp[][] timetable(int stages, int micro, boolean oneFOneB) {
        List<List<StageOp>> orders = new ArrayList<>();
        for (int s = 0; s < stages; s++) {
            orders.add(stageOrder(s, stages, micro, oneFOneB));
        }
        int[][] fwdEnd = new int[stages][micro];
        int[][] bwdEnd = new int[stages][micro];
        int[] next = new int[stages];
        int[] free = new int[stages];
        List<java.util.Map<Integer, StageOp>> at = new ArrayList<>();
        for (int s = 0; s < stages; s++) {
            at.add(new java.util.HashMap<>());
        }
        int left = 2 * stages * micro;
        int steps = 0;
        while (left > 0) {
            for (int s = 0; s < stages; s++) {
                if (next[s] == orders.get(s).size()) {
                    continue;
                }
                StageOp op = orders.get(s).get(next[s]);
                int m = op.microbatch();
                // 0 means "not done yet": ends are stored plus one.
                int ready = op.forward() ? (s == 0 ? 1 : fwdEnd[s - 1][m]) : (s == stages - 1 ? 1 : bwdEnd[s + 1][m]);
                if (ready == 0) {
                    continue;
                }
                int start = Math.max(free[s], ready - 1);
                (op.forward() ? fwdEnd : bwdEnd)[s][m] = start + 2;
                free[s] = start + 1;
                steps = Math.max(steps, start + 1);
                at.get(s).put(start, op);
                next[s]++;
                left--;
            }
        }
        StageOp[][] table = new StageOp[stages][steps];
        for (int s = 0; s < stages; s++) {
            for (var e : at.get(s).entrySet()) {
                table[s][e.getKey()] = e.getValue();
            }
        }
        return table;
    }

    /**
     * Both schedules: each step, every stage runs its unit of the timetable, then the activations go one stage on
     * and the gradients one stage back, each by one ppermute (skipped when no stage sends that way).
     */
    private static ShardedArray pipeline(ShardedArray w, ShardedArray x, ShardedArray t, boolean oneFOneB,
                                         String name) {
        int stages = w.mesh().shape().get("stage");
        int micro = x.shape()[0];
        int rows = x.shape()[1];
        int d = x.shape()[2];
        StageOp[][] table = timetable(stages, micro, oneFOneB);
        int[][] up = new int[Math.max(0, stages - 1)][];
        int[][] down = new int[Math.max(0, stages - 1)][];
        for (int s = 0; s + 1 < stages; s++) {
            up[s] = new int[]{s, s + 1};
            down[s] = new int[]{s + 1, s};
        }
        return ShardMap.shardMap(b -> {
            NDArray wb = b.get(0);
            NDArray xb = b.get(1);
            NDArray tb = b.get(2);
            int s = Collectives.axisIndex("stage").intAt();
            int k = wb.shape()[0];
            List<NDArray> layers = new ArrayList<>();
            List<NDArray> grads = new ArrayList<>();
            for (int j = 0; j < k; j++) {
                layers.add(wb.index(j));
                grads.add(NDArray.zeros(DType.FLOAT32, d, d));
            }
            java.util.Map<Integer, NDArray> inbox = new java.util.HashMap<>();
            java.util.Map<Integer, NDArray> gradInbox = new java.util.HashMap<>();
            // Per microbatch: the input of each layer, then the stage's output (what the backward needs).
            java.util.Map<Integer, List<NDArray>> kept = new java.util.HashMap<>();
            float scale = 1f / (micro * rows);
            for (int step = 0; step < table[0].length; step++) {
                StageOp op = table[s][step];
                NDArray sendUp = NDArray.zeros(DType.FLOAT32, rows, d);
                NDArray sendDown = NDArray.zeros(DType.FLOAT32, rows, d);
                if (op != null && op.forward()) {
                    int m = op.microbatch();
                    NDArray a = s == 0 ? xb.index(m) : inbox.remove(m);
                    List<NDArray> acts = new ArrayList<>();
                    for (NDArray layer : layers) {
                        acts.add(a);
                        a = a.matmul(layer).relu();
                    }
                    acts.add(a);
                    kept.put(m, acts);
                    sendUp = a;
                } else if (op != null) {
                    int m = op.microbatch();
                    List<NDArray> acts = kept.remove(m);
                    NDArray g = s == stages - 1 ? acts.get(k).sub(tb.index(m)).mul(scale) : gradInbox.remove(m);
                    for (int j = k - 1; j >= 0; j--) {
                        NDArray gz = NDArray.where(acts.get(j + 1).greater(0), g, 0.0);
                        grads.set(j, grads.get(j).add(acts.get(j).matmul(true, gz, false)));
                        if (j > 0 || s > 0) {
                            g = gz.matmul(false, layers.get(j), true);
                        }
                    }
                    sendDown = g;
                }
                if (sends(table, step, true)) {
                    NDArray got = Collectives.ppermute(sendUp, "stage", up);
                    StageOp from = s > 0 ? table[s - 1][step] : null;
                    if (from != null && from.forward()) {
                        inbox.put(from.microbatch(), got);
                    }
                }
                if (sends(table, step, false)) {
                    NDArray got = Collectives.ppermute(sendDown, "stage", down);
                    StageOp from = s + 1 < stages ? table[s + 1][step] : null;
                    if (from != null && !from.forward()) {
                        gradInbox.put(from.microbatch(), got);
                    }
                }
            }
            return List.of(NDArray.stack(0, grads));
        }, w.mesh(), List.of(P("stage"), P(), P()), List.of(P("stage"))).named(name).call(List.of(w, x, t)).get(0);
    }

    /** Whether some stage sends this step: a forward below the last stage (up) or a backward above the first. */
    private static boolean sends(StageOp[][] table, int step, boolean up) {
        for (int s = 0; s < table.length; s++) {
            StageOp op = table[s][step];
            if (op != null && op.forward() == up && (up ? s + 1 < table.length : s > 0)) {
                return true;
            }
        }
        return false;
    }

    // ---- Part 7.3: ring attention ----

    /**
     * 7.3: O[S_seq, D] = softmax(Q·Kᵀ/√D)·V from Q, K, V f32[S_seq, D] on a mesh with axis 'seq', without any
     * device holding more than one block of K or V at a time (JAX: a shard_map whose body is a ring of ppermutes).
     */
    public static ShardedArray ringAttention(ShardedArray q, ShardedArray k, ShardedArray v) {
        return ring(q, k, v, false);
    }

    /** 7.3, causal: as {@link #ringAttention}, query i seeing only the keys j ≤ i. */
    public static ShardedArray causalRingAttention(ShardedArray q, ShardedArray k, ShardedArray v) {
        return ring(q, k, v, true);
    }

    private static ShardedArray ring(ShardedArray q, ShardedArray k, ShardedArray v, boolean causal) {
        return ShardMap.shardMap(b -> List.of(ringAttentionBlock(b.get(0), b.get(1), b.get(2), causal)), q.mesh(),
                List.of(P("seq"), P("seq"), P("seq")), List.of(P("seq"))).call(q, k, v).get(0);
    }

    /**
     * One device: its queries f32[S/n, D] against every K/V block as the blocks pass up the ring (after t shifts it
     * holds the blocks of device me − t). The online softmax keeps, per query row, the running max m, the running
     * sum l of exp(s − m) and the running output acc; when m grows, l and acc are rescaled by exp(m_old − m_new).
     * The own block comes first, so a causal row always has its diagonal key before any fully masked block and m is
     * finite from then on.
     */
    static NDArray ringAttentionBlock(NDArray q, NDArray k, NDArray v, boolean causal) {
        int n = Collectives.axisSize("seq");
        int me = Collectives.axisIndex("seq").intAt();
        int rows = q.shape(0);
        double scale = 1 / Math.sqrt(q.shape(1));
        dev.shardlings.array.KeepDims keep = dev.shardlings.array.KeepDims.KEEP;
        NDArray m = NDArray.full(Float.NEGATIVE_INFINITY, rows, 1);
        NDArray l = NDArray.full(0f, rows, 1);
        NDArray acc = NDArray.full(0f, rows, q.shape(1));
        NDArray kb = k;
        NDArray vb = v;
        for (int t = 0; t < n; t++) {
            if (t > 0) {
                kb = Collectives.ppermute(kb, "seq", ringUp(n));
                vb = Collectives.ppermute(vb, "seq", ringUp(n));
            }
            int src = Math.floorMod(me - t, n);
            if (causal && src > me) {
                continue; // every key of a later block is in every query's future: nothing to add
            }
            NDArray s = q.matmul(false, kb, true).mul(scale);
            if (causal && src == me) {
                // only the diagonal block is cut; positions within it compare like the global ones
                NDArray col = NDArray.arange(rows).reshape(1, rows);
                NDArray row = NDArray.arange(rows).reshape(rows, 1);
                s = NDArray.where(col.lessEqual(row), s, Double.NEGATIVE_INFINITY);
            }
            NDArray mNew = m.maximum(s.max(keep, 1));
            NDArray p = s.sub(mNew).exp();
            NDArray rescale = m.sub(mNew).exp();
            l = l.mul(rescale).add(p.sum(keep, 1));
            acc = acc.mul(rescale).add(p.matmul(vb));
            m = mNew;
        }
        return acc.div(l);
    }

    /** ppermute pairs (s, s + 1 mod n): one step up the ring. */
    private static int[][] ringUp(int n) {
        int[][] p = new int[n][];
        for (int s = 0; s < n; s++) {
            p[s] = new int[]{s, (s + 1) % n};
        }
        return p;
    }

    // ---- Part 7.4: gradient accumulation and ZeRO-1 ----

    /**
     * 7.4a: the gradient of L = (1/B)·Σ_rows ½‖relu(X·W) − T‖² on a mesh ('data'), each device taking its rows
     * B/data in M microbatches of r = B/(data·M) rows; the microbatch gradients are summed locally and reduced once
     * (JAX: a shard_map whose body loops over microbatches, then one psum).
     *
     * @param w            f32[D, F], P()
     * @param x            f32[B_data, D], P('data')
     * @param t            f32[B_data, F], P('data')
     * @param microbatches M, dividing B/data
     * @return dW f32[D, F], P()
     */
    public static ShardedArray accumulatedGradient(ShardedArray w, ShardedArray x, ShardedArray t,
                                                   int microbatches) {
        return ShardMap.shardMap(b -> {
            NDArray wb = b.get(0);
            NDArray xb = b.get(1);
            NDArray tb = b.get(2);
            int r = xb.shape(0) / microbatches;
            NDArray g = NDArray.zeros(DType.FLOAT32, wb.shape(0), wb.shape(1));
            for (int m = 0; m < microbatches; m++) {
                NDArray xm = xb.slice(0, m * r, (m + 1) * r);
                NDArray y = xm.matmul(wb).relu();
                NDArray dz = NDArray.where(y.greater(0), y.sub(tb.slice(0, m * r, (m + 1) * r)), 0.0);
                g = g.add(xm.matmul(true, dz, false));
            }
            // One reduction of the sum, and the mean's 1/B applied once to the whole batch.
            int batch = Collectives.axisSize("data") * xb.shape(0);
            return List.of(Collectives.psum(g, "data").mul(1f / batch));
        }, w.mesh(), List.of(P(), P("data"), P("data")), List.of(P())).call(w, x, t).get(0);
    }

    /**
     * 7.4b: one Adam step (optax's defaults b1 = 0.9, b2 = 0.999, eps = 1e-8) of the loss of
     * {@link #accumulatedGradient} with Adam's state sharded over 'data' (ZeRO-1): the gradient is reduce-scattered
     * so each device holds the summed gradient of the rows of W it owns, updates those rows and its rows of mu and
     * nu, and the rows of W are all-gathered again (JAX: psum_scatter, then all_gather, inside a shard_map).
     *
     * @param w            f32[D, F], P()
     * @param mu           f32[D_data, F], P('data'): Adam's first moment
     * @param nu           f32[D_data, F], P('data'): Adam's second moment
     * @param x            f32[B_data, D], P('data')
     * @param t            f32[B_data, F], P('data')
     * @param step         Adam's step number t ≥ 1, the count after this update
     * @param learningRate the step size
     * @return [W' f32[D, F] P(), mu' f32[D_data, F] P('data'), nu' f32[D_data, F] P('data')]
     */
    public static List<ShardedArray> zeroAdamStep(ShardedArray w, ShardedArray mu, ShardedArray nu, ShardedArray x,
                                                  ShardedArray t, int step, float learningRate) {
        double b1 = 0.9;
        double b2 = 0.999;
        return ShardMap.shardMap(b -> {
            NDArray wb = b.get(0);
            NDArray xb = b.get(3);
            NDArray y = xb.matmul(wb).relu();
            NDArray dz = NDArray.where(y.greater(0), y.sub(b.get(4)), 0.0);
            int batch = Collectives.axisSize("data") * xb.shape(0);
            // Each device receives the summed gradient of its own rows of W only: the rows its mu and nu cover.
            NDArray g = Collectives.psumScatter(xb.matmul(true, dz, false), "data", 0, Tiling.TILED)
                    .mul(1f / batch);
            int rows = g.shape(0);
            int me = Collectives.axisIndex("data").intAt();
            NDArray own = wb.slice(0, me * rows, (me + 1) * rows);
            NDArray m = b.get(1).mul((float) b1).add(g.mul((float) (1 - b1)));
            NDArray v = b.get(2).mul((float) b2).add(g.mul(g).mul((float) (1 - b2)));
            NDArray mHat = m.div((float) (1 - Math.pow(b1, step)));
            NDArray vHat = v.div((float) (1 - Math.pow(b2, step)));
            NDArray updated = own.sub(mHat.div(vHat.sqrt().add(1e-8f)).mul(learningRate));
            // The invariant all-gather: W' is the same everywhere, so out spec P() may leave out 'data'.
            return List.of(Collectives.allGatherInvariant(updated, List.of("data"), 0, Tiling.TILED), m, v);
        }, w.mesh(), List.of(P(), P("data"), P("data"), P("data"), P("data")),
                List.of(P(), P("data"), P("data"))).call(w, mu, nu, x, t);
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
        return ShardMap.shardMap(b -> {
            NDArray tb = b.get(3);
            int batch = Collectives.axisSize("data") * tb.shape(0);
            // The bf16 copies travel, not the f32 masters: half the bytes of each all-gather.
            NDArray w1b = Collectives.allGather(b.get(0).astype(DType.BFLOAT16), "data", 0, Tiling.TILED);
            NDArray w2b = Collectives.allGather(b.get(1).astype(DType.BFLOAT16), "data", 0, Tiling.TILED);
            NDArray xb = b.get(2).astype(DType.BFLOAT16);
            // Differentiated with respect to the gathered copies, not the masters: through the all-gather the
            // gradient would come back reduce-scattered in bf16. Their cotangents are bf16, as JAX keeps them.
            ValueAndGrad<NDArray> vg = Autodiff.<NDArray>valueAndGradList(p -> {
                NDArray h = xb.matmul(p.get(0), DType.FLOAT32).relu().astype(DType.BFLOAT16);
                NDArray y = h.matmul(p.get(1), DType.FLOAT32);
                return y.sub(tb).square().sum().mul(0.5f / batch);
            }, 0, 1).apply(List.of(w1b, w2b));
            // Widened before the reduction: n bf16 partial sums would lose the low bits of every device's share.
            NDArray g1 = Collectives.psumScatter(vg.grads().get(0).astype(DType.FLOAT32), "data", 0, Tiling.TILED);
            NDArray g2 = Collectives.psumScatter(vg.grads().get(1).astype(DType.FLOAT32), "data", 0, Tiling.TILED);
            return List.of(Collectives.psum(vg.value(), "data"), b.get(0).sub(g1.mul(learningRate)),
                    b.get(1).sub(g2.mul(learningRate)));
        }, w1.mesh(), List.of(P("data"), P("data"), P("data"), P("data")), List.of(P(), P("data"), P("data")))
                .call(w1, w2, x, t);
    }

    // ---- Part 7.6: rematerialisation ----

    /**
     * 7.6: one data-parallel step of an L-layer ReLU MLP, h_l = relu(h_{l−1}·W_l), L = (1/B)·Σ_rows ½‖h_L − T‖², on
     * a mesh ('data'), each layer checkpointed: the backward pass keeps only the layers' inputs and runs each layer
     * forward again when it reaches it (JAX: {@code jax.checkpoint} around the layer inside a shard_map).
     *
     * @param weights W_1 … W_L, each f32[D, D], P()
     * @param x       f32[B_data, D], P('data')
     * @param t       f32[B_data, D], P('data')
     * @return [loss f32[], dW_1 … dW_L f32[D, D]], all P()
     */
    public static List<ShardedArray> rematerialisedStep(List<ShardedArray> weights, ShardedArray x, ShardedArray t) {
        int layers = weights.size();
        var layer = Checkpoint.<NDArray>checkpointList(a -> List.of(a.get(0).matmul(a.get(1)).relu()));
        int[] argnums = new int[layers];
        for (int l = 0; l < layers; l++) {
            argnums[l] = l;
        }
        var in = new ArrayList<>(java.util.Collections.nCopies(layers, P()));
        in.add(P("data"));
        in.add(P("data"));
        List<ShardedArray> args = new ArrayList<>(weights);
        args.add(x);
        args.add(t);
        return ShardMap.shardMap(b -> {
            int batch = Collectives.axisSize("data") * b.get(layers).shape(0);
            var step = Autodiff.<NDArray>valueAndGradList(xs -> {
                NDArray h = xs.get(layers);
                for (int l = 0; l < layers; l++) {
                    h = layer.apply(List.of(h, xs.get(l))).get(0);
                }
                return h.sub(xs.get(layers + 1)).square().sum().mul(0.5f / batch);
            }, argnums).apply(b);
            List<NDArray> out = new ArrayList<>();
            out.add(Collectives.psum(step.value(), "data"));
            // W is invariant over 'data': Autodiff psums its cotangent over 'data' as it pulls it back
            out.addAll(step.grads());
            return out;
        }, x.mesh(), in, java.util.Collections.nCopies(layers + 1, P())).call(args);
    }
}
