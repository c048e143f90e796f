package dev.shardlings.grader.chapter7;

import dev.shardlings.array.NDArray;
import dev.shardlings.events.Collective;
import dev.shardlings.events.TraceEvent.CollectiveEvent;
import dev.shardlings.grader.checks.Checks;
import dev.shardlings.grader.checks.Checks.Tolerance;
import dev.shardlings.grader.checks.TraceRules;
import dev.shardlings.grader.checks.TraceRules.Rule;
import dev.shardlings.grader.judge.CaseRun;
import dev.shardlings.grader.judge.GradingFailure;
import dev.shardlings.grader.judge.Guard;
import dev.shardlings.grader.judge.Reports;
import dev.shardlings.grader.parts.Check;
import dev.shardlings.grader.parts.CourseMethod;
import dev.shardlings.grader.parts.Part;
import dev.shardlings.spmd.ShardedArray;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static dev.shardlings.grader.chapter7.Chapter7Course.CHAPTER;
import static dev.shardlings.grader.parts.Part.example;
import static dev.shardlings.grader.parts.Part.property;
import static dev.shardlings.sharding.PartitionSpec.P;

/**
 * Part 7.6 (rematerialisation): its row, then its check. Loss and gradients come from a whole-array oracle in
 * double; the activation memory is the trace's {@code peakResidualBytes} (what each device's differentiation tapes
 * held for their backward passes), the FLOPs its matmuls (and which of them Autodiff's vjp rules and checkpoints ran:
 * the trace's pullbackFlops and recomputedFlops), the collectives its events.
 */
public final class RematChecks {

    private static final String D = "docs/chapter-7.md#";

    /** {@code Chapter7.rematerialisedStep}. */
    public static final CourseMethod<Remat> C7_REMATERIALISED_STEP = CHAPTER.method("rematerialisedStep",
            Remat.class, List.class, List.class, ShardedArray.class, ShardedArray.class);

    /** Part 7.6. */
    public static final Part P7_6 = CHAPTER.part("7.6", "rematerialisation", 3, "Remat")
            .calls(C7_REMATERIALISED_STEP)
            .docs(D + "part-76-rematerialisation")
            .hint("the backward pass of a layer needs its input and the intermediates it made; which of those can it"
                    + " make again from the input alone, and what does Checkpoint.checkpointList keep (chapter-7.md,"
                    + " part 7.6)?")
            .requires(C7_REMATERIALISED_STEP, "the loss f32[] and dW_1 … dW_L f32[D, D] (float tolerance) laid out"
                    + " P(), equal to the whole batch's", Check.VALUES, Check.LAYOUT)
            .requires(C7_REMATERIALISED_STEP, "a hand-written shardMap", Check.USES_SHARD_MAP)
            .requires(C7_REMATERIALISED_STEP, "per device one psum (or pmean) over 'data' of each gradient f32[D,"
                    + " D] and one of the loss f32[], and no other collective", Check.COLLECTIVES, Check.OPERANDS)
            .requires(C7_REMATERIALISED_STEP, "the gradients are taken with Autodiff on each device, whose tapes"
                    + " hold at most (L + 5)·r·D floats and 4 scalars at once (the layers' outputs, one layer's"
                    + " intermediates while it is recomputed, and the loss's), r = B/data", Check.DEVICE_MEMORY)
            .requires(C7_REMATERIALISED_STEP, "matmul FLOPs per device: Autodiff's own backward pass (its vjp"
                    + " rules) at least (2L − 1)·2·r·D² and its checkpoints' recomputation at least L·2·r·D², and in"
                    + " all at most those of the forward and backward passes plus one forward, (4L − 1)·2·r·D²",
                    Check.FLOPS)
            .requires(C7_REMATERIALISED_STEP, "besides the matmuls, at most 16·(L + 2)·r·D FLOPs of elementwise work"
                    + " and reductions per device", Check.FLOPS)
            .requires(C7_REMATERIALISED_STEP, "the batch is never gathered on the host", Check.HOST_MEMORY)
            .graded(property("meshesDepthsAndShapes", 25, "7006", RematCase::cases), List.of(
                    example("eightDevicesFourLayers", new RematCase(8, 4, 2, 3, 761)),
                    example("sixLayers", new RematCase(4, 6, 3, 4, 762)),
                    example("oneDevice", new RematCase(1, 5, 2, 2, 763))),
                    c -> rematerialisedStep(C7_REMATERIALISED_STEP.proxy(), c));

    /** Part 7.6's row. */
    public static final List<Part> PARTS = List.of(P7_6);

    private RematChecks() {
    }

    /** Part 7.6: one data-parallel step of an L-layer ReLU MLP, returning [loss, dW_1, …, dW_L]. */
    @FunctionalInterface
    public interface Remat {
        List<ShardedArray> apply(List<ShardedArray> weights, ShardedArray x, ShardedArray t);
    }

    /** Values are multiples of 1/16 and the sums short: float32 is off by a few ulps of values below 1. */
    static final Tolerance TOLERANCE = new Tolerance(1e-5, 1e-5);

    /**
     * 7.6: loss and dW_l (float tolerance) laid out P(); a hand-written shardMap; per device L psums (or pmeans)
     * over 'data' of f32[D, D] and one of f32[]; peak residual bytes in (0, 4·(L + 5)·r·D + 16]; of the matmul
     * FLOPs, at least (2L − 1)·2·r·D² run by Autodiff's vjp rules and L·2·r·D² recomputed by checkpoints (the
     * trace's counts, which only the tapes set), and at most (4L − 1)·2·r·D² in all; X and T never gathered on the
     * host.
     */
    public static void rematerialisedStep(Remat impl, RematCase c) {
        List<NDArray> ws = c.weights();
        NDArray x = c.x();
        NDArray t = c.t();
        List<ShardedArray> wss = new ArrayList<>();
        for (NDArray w : ws) {
            wss.add(ShardedArray.devicePut(w, c.mesh(), P()));
        }
        ShardedArray xs = ShardedArray.devicePut(x, c.mesh(), P("data"));
        ShardedArray ts = ShardedArray.devicePut(t, c.mesh(), P("data"));
        CaseRun<List<ShardedArray>> run = Guard.run(P7_6, c.describe(), () -> impl.apply(List.copyOf(wss), xs, ts));
        Checks.usesShardMap(run);
        int layers = c.layers();
        if (run.value() == null || run.value().size() != layers + 1) {
            throw run.report("returned other than [loss, dW_1, …, dW_L]").failure(GradingFailure.Kind.WRONG_SHAPE,
                    "a list of " + (run.value() == null ? "no" : run.value().size()) + " arrays, expected "
                            + (layers + 1));
        }
        int n = c.devices();
        Step right = step(ws, x, t, c.batch());
        Step firstDevice = step(ws, x.slice(0, 0, c.rows()), t.slice(0, 0, c.rows()), c.batch());
        String inputs = Reports.inputs("Input X", x, "Input T", t);
        String picture = Reports.picture(xs);
        Checks.shardedResult(part(run, 0, "loss"), inputs, right.loss(), P(), TOLERANCE, picture);
        for (int l = 0; l < layers; l++) {
            List<Checks.Mistake> known = new ArrayList<>();
            if (n > 1) {
                known.add(new Checks.Mistake("averaging twice (the loss already divided by B, then a pmean over"
                        + " 'data')", scaled(right.grads().get(l), 1.0 / n), "the 1/B of the mean covers the whole"
                        + " batch: sum the devices' gradients, do not average them again"));
                known.add(new Checks.Mistake("each device's mean over its own rows, summed over 'data'",
                        scaled(right.grads().get(l), n), "divide by the whole batch B, not by the rows r of one"
                        + " device, or average the devices' gradients"));
                known.add(new Checks.Mistake("device 0's gradient alone, not summed over 'data'",
                        firstDevice.grads().get(l), "every device's rows contribute to dW: psum the gradients over"
                        + " 'data' (an invariant W's cotangent is psummed for you)"));
            }
            Checks.shardedResult(part(run, l + 1, "dW_" + (l + 1)), inputs, right.grads().get(l), P(), TOLERANCE,
                    picture, known);
        }

        int r = c.rows();
        int d = c.width();
        TraceRules.perDevice(run, "reduces other than once per gradient", "every device runs one psum (or pmean)"
                + " over 'data' of each of the " + layers + " gradients f32[" + d + ", " + d + "] and one of the loss"
                + " f32[], and no other collective", reductions(layers, d));
        long activation = 4L * r * d;
        long bound = (layers + 5) * activation + 16;
        TraceRules.perDevice(run, "holds more activations than rematerialisation allows", "the gradients are taken"
                + " with Autodiff on the device, whose tapes hold at most (L + 5)·r·D floats and 4 scalars at once: "
                + bound + " bytes", residualsAtMost(bound, activation));
        long matmul = 2L * r * d * d;
        long flops = (4L * layers - 1) * matmul;
        TraceRules.perDevice(run, "its backward pass is not Autodiff's", "Autodiff's vjp rules run the"
                + " backward matmuls, at least (2L − 1)·2·r·D² = " + (2L * layers - 1) * matmul + " FLOPs per device",
                autodiffBackward((2L * layers - 1) * matmul));
        TraceRules.perDevice(run, "recomputes less than one forward", "the checkpoints run every layer forward again"
                + " in the backward pass, at least L·2·r·D² = " + layers * matmul + " FLOPs per device",
                recomputed(layers * matmul));
        TraceRules.perDevice(run, "recomputes more than one forward", "the matmuls do at most (4L − 1)·2·r·D² = "
                + flops + " FLOPs per device: the forward (L matmuls), the backward (2L − 1) and one forward again",
                flopsAtMost(flops, layers * matmul));
        long elementwise = ELEMENTWISE_PER_ACTIVATION * (layers + 2L) * r * d;
        TraceRules.perDevice(run, "multiplies matrices outside matmul", "besides its matmuls a device does at most "
                + ELEMENTWISE_PER_ACTIVATION + "·(L + 2)·r·D = " + elementwise + " FLOPs of elementwise work and"
                + " reductions (relus, masks, the loss: a few per activation)", elementwiseAtMost(elementwise, r, d));
        Checks.noHostGather(run, ZeroChecks.wholeBatchBytes(c.batch(), d, d), n);
    }

    /** Exactly {@code layers} psums or pmeans over 'data' of f32[D, D] and one of f32[], in any order. */
    private static Rule reductions(int layers, int d) {
        List<Integer> gradient = List.of(d, d);
        return new Rule(Set.of(Check.COLLECTIVES, Check.OPERANDS), dev -> {
            int grads = 0;
            int losses = 0;
            for (CollectiveEvent e : dev.collectives()) {
                boolean reduction = (e.kind() == Collective.PSUM || e.kind() == Collective.PMEAN)
                        && e.axes().equals(List.of("data"));
                if (reduction && e.inputShape().equals(gradient)) {
                    grads++;
                } else if (reduction && e.inputShape().isEmpty()) {
                    losses++;
                } else {
                    return "it runs " + e.describe() + "; data parallelism needs only the reductions over 'data'";
                }
            }
            return grads == layers && losses == 1 ? null : "it reduces " + grads + " array(s) f32[" + d + ", " + d
                    + "] and " + losses + " scalar(s); expected " + layers + " and 1";
        }).withHint("an invariant W's cotangent is psummed over 'data' when Autodiff pulls it back inside the"
                + " shardMap; a W made varying first (pvary) needs its own psum. Either way, one per gradient");
    }

    private static Rule residualsAtMost(long bound, long activation) {
        return Rule.of(Check.DEVICE_MEMORY, dev -> {
            long held = dev.peakResidualBytes();
            if (held == 0) {
                return "its differentiation tapes held nothing: take the gradients with Autodiff inside the"
                        + " shardMap, so that the memory they keep is modelled";
            }
            return held <= bound ? null : "its tapes held " + held + " bytes at once (" + held / activation
                    + " activations f32[r, D] of " + activation + " bytes), more than " + bound;
        }).withHint("checkpoint each layer (Checkpoint.checkpointList): the backward pass then keeps only the layers'"
                + " inputs and makes one layer's intermediates again when it needs them");
    }

    /**
     * The trace's count of the matmuls Autodiff's own vjp rules ran: a backward pass written by hand (with a tape
     * kept only for the loss, so that the memory rule sees something) does them as the program's work, and then
     * cannot also fit the (4L − 1) cap beside the autodiff's.
     */
    private static Rule autodiffBackward(long atLeast) {
        return Rule.of(Check.FLOPS, dev -> dev.pullbackFlops() >= atLeast ? null : "Autodiff's vjp rules ran "
                + dev.pullbackFlops() + " matmul FLOPs, fewer than " + atLeast + " (the backward pass's 2L − 1"
                + " matmuls); the rest of the backward pass was written by hand")
                .withHint("differentiate the whole network with Autodiff (the loss of h_L as a function of the"
                        + " weights), each layer checkpointed: a backward pass written out keeps every activation"
                        + " outside the tape, where no memory bound can see it");
    }

    /** The trace's count of the matmuls the checkpoints ran again in the backward pass (set by the tapes only). */
    private static Rule recomputed(long atLeast) {
        return Rule.of(Check.FLOPS, dev -> dev.recomputedFlops() >= atLeast ? null : "its checkpoints recomputed "
                + dev.recomputedFlops() + " matmul FLOPs in the backward pass, fewer than " + atLeast
                + " (each layer once)")
                .withHint("checkpoint every layer (Checkpoint.checkpointList) inside the differentiated function:"
                        + " the backward pass then runs each layer forward again");
    }

    private static Rule flopsAtMost(long flops, long forward) {
        return Rule.of(Check.FLOPS, dev -> dev.flops() <= flops ? null : "its matmuls do " + dev.flops() + " FLOPs,"
                + " more than " + flops + " by " + (dev.flops() - flops) + " (one forward is " + forward + ")")
                .withHint("checkpoint each layer once: a checkpoint inside a checkpoint runs the inner layer forward"
                        + " a third time");
    }

    /**
     * FLOPs of elementwise work and reductions a device may do per activation element (r·D), per layer and twice
     * for the loss. The solution does about 8 (relu, its mask, the recomputed relu, the cotangent's scale; the loss's
     * difference, square and sums). The FLOP rules above count matmuls only, so a product written elementwise — a
     * broadcast [r, D, 1]·[1, D, D] summed over D, or D rank-1 updates — would hide a hand-written backward beside
     * throwaway Autodiff work that fills the matmul budget (a reviewer's cheat): each such product costs at least
     * r·D² multiplications, 2·(3L − 1)·r·D² with the additions for a backward, above this bound once D is 5 or more
     * (the property cases' widths; the examples' smaller widths are held to the same bound).
     */
    static final int ELEMENTWISE_PER_ACTIVATION = 16;

    private static Rule elementwiseAtMost(long bound, int r, int d) {
        return Rule.of(Check.FLOPS, dev -> {
            long local = 0;
            for (dev.shardlings.events.TraceEvent e : dev.events()) {
                if (e instanceof dev.shardlings.events.TraceEvent.LocalOpEvent op) {
                    local = Math.addExact(local, op.flops());
                }
            }
            return local <= bound ? null : "its elementwise operations and reductions do " + local + " FLOPs, more"
                    + " than " + bound + " (" + (local / Math.max(1, (long) r * d)) + " per activation element"
                    + " f32[" + r + ", " + d + "]): a matrix product computed elementwise";
        }).withHint("multiply matrices with matmul, and let Autodiff (through the checkpoints) run the backward pass:"
                + " its products are the ones the FLOP rules count");
    }

    /** The {@code i}th array of a list-valued run, as a run of its own for the value checks. */
    private static CaseRun<ShardedArray> part(CaseRun<List<ShardedArray>> run, int i, String name) {
        return new CaseRun<>(run.part(), run.caseText() + " (result " + name + ")", run.value().get(i),
                run.trace());
    }

    private static NDArray scaled(NDArray a, double by) {
        float[] v = a.toFloatArray();
        float[] out = new float[v.length];
        for (int i = 0; i < v.length; i++) {
            out[i] = (float) (v[i] * by);
        }
        return NDArray.fromFloats(out, a.shape());
    }

    /** The loss f32[] and the gradients f32[D, D] of one step. */
    record Step(NDArray loss, List<NDArray> grads) {
    }

    /**
     * The whole-array step in double: h_0 = X, h_l = relu(h_{l−1}·W_l), L = (1/B)·Σ_rows ½‖h_L − T‖² with the
     * given B (the mistake "device 0 alone" passes device 0's rows and the whole batch's B), and its gradients by
     * the chain rule written out: dh_L = (h_L − T)/B, dz_l = dh_l ⊙ [z_l > 0], dW_l = h_{l−1}ᵀ·dz_l,
     * dh_{l−1} = dz_l·W_lᵀ.
     */
    static Step step(List<NDArray> ws, NDArray x, NDArray t, int batch) {
        int rows = x.shape(0);
        int d = x.shape(1);
        int layers = ws.size();
        double[][] h = new double[layers + 1][];
        double[][] z = new double[layers + 1][];
        double[][] w = new double[layers][];
        h[0] = toDouble(x.toFloatArray());
        for (int l = 1; l <= layers; l++) {
            w[l - 1] = toDouble(ws.get(l - 1).toFloatArray());
            z[l] = new double[rows * d];
            h[l] = new double[rows * d];
            for (int i = 0; i < rows; i++) {
                for (int j = 0; j < d; j++) {
                    double s = 0;
                    for (int k = 0; k < d; k++) {
                        s += h[l - 1][i * d + k] * w[l - 1][k * d + j];
                    }
                    z[l][i * d + j] = s;
                    h[l][i * d + j] = Math.max(s, 0);
                }
            }
        }
        double[] tv = toDouble(t.toFloatArray());
        double loss = 0;
        double[] dh = new double[rows * d];
        for (int i = 0; i < rows * d; i++) {
            double e = h[layers][i] - tv[i];
            loss += 0.5 * e * e / batch;
            dh[i] = e / batch;
        }
        NDArray[] grads = new NDArray[layers];
        for (int l = layers; l >= 1; l--) {
            double[] dz = new double[rows * d];
            for (int i = 0; i < rows * d; i++) {
                dz[i] = z[l][i] > 0 ? dh[i] : 0;
            }
            float[] g = new float[d * d];
            double[] below = new double[rows * d];
            for (int k = 0; k < d; k++) {
                for (int j = 0; j < d; j++) {
                    double s = 0;
                    for (int i = 0; i < rows; i++) {
                        s += h[l - 1][i * d + k] * dz[i * d + j];
                        below[i * d + k] += dz[i * d + j] * w[l - 1][k * d + j];
                    }
                    g[k * d + j] = (float) s;
                }
            }
            grads[l - 1] = NDArray.fromFloats(g, d, d);
            dh = below;
        }
        return new Step(NDArray.scalar((float) loss), List.of(grads));
    }

    private static double[] toDouble(float[] v) {
        double[] out = new double[v.length];
        for (int i = 0; i < v.length; i++) {
            out[i] = v[i];
        }
        return out;
    }
}
