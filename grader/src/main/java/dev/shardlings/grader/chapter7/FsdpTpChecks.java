package dev.shardlings.grader.chapter7;

import dev.shardlings.array.NDArray;
import dev.shardlings.cost.ModelDtype;
import dev.shardlings.events.Collective;
import dev.shardlings.events.DeviceTrace;
import dev.shardlings.events.TraceEvent.CollectiveEvent;
import dev.shardlings.grader.checks.Checks;
import dev.shardlings.grader.checks.Checks.Tolerance;
import dev.shardlings.grader.checks.ModelledTime;
import dev.shardlings.grader.checks.TraceRules;
import dev.shardlings.grader.checks.TraceRules.Rule;
import dev.shardlings.grader.judge.CaseRun;
import dev.shardlings.grader.judge.GradingFailure;
import dev.shardlings.grader.judge.Guard;
import dev.shardlings.grader.judge.Reports;
import dev.shardlings.grader.parts.Check;
import dev.shardlings.grader.parts.CheckLog;
import dev.shardlings.grader.parts.CourseMethod;
import dev.shardlings.grader.parts.Part;
import dev.shardlings.grader.parts.Requirement;
import dev.shardlings.grader.parts.TimedResult;
import dev.shardlings.grader.parts.TimedSetting;
import dev.shardlings.sharding.PartitionSpec;
import dev.shardlings.spmd.ShardedArray;

import java.util.List;
import java.util.Set;

import static dev.shardlings.grader.chapter7.Chapter7Course.CHAPTER;
import static dev.shardlings.grader.parts.Part.example;
import static dev.shardlings.grader.parts.Part.property;
import static dev.shardlings.sharding.PartitionSpec.P;

/**
 * Part 7.1, 2-D FSDP × tensor parallelism: its row, then its check. Values come from one SGD step computed in
 * double on the whole arrays; the collectives each device runs and the memory it is handed come from the trace.
 */
public final class FsdpTpChecks {

    private static final String D = "docs/chapter-7.md#";

    /** {@code Chapter7.fsdpTpStep}. */
    public static final CourseMethod<FsdpTpStep> C7_FSDP_TP_STEP = CHAPTER.method("fsdpTpStep", FsdpTpStep.class, List.class,
            ShardedArray.class, ShardedArray.class, ShardedArray.class, ShardedArray.class, float.class);

    /** 7.1's first example, which 7.1p checks before it times anything. */
    static final FsdpTpCase TWO_BY_FOUR = new FsdpTpCase(2, 4, 4, 3, 2, 711);

    /** Part 7.1. */
    public static final Part P7_1 = CHAPTER.part("7.1", "2-D FSDP × tensor parallelism", 3, "FsdpTpStep")
            .calls(C7_FSDP_TP_STEP)
            .docs(D + "part-71-2-d-fsdp--tensor-parallelism")
            .hint("gather each weight over 'data' only, inside the function you differentiate, so its gradient comes"
                    + " back reduce-scattered; the second matmul's partial sums still need a sum over 'model'; and"
                    + " each 'data' row of devices averages only its own rows (chapter-7.md, part 7.1)")
            .requires(C7_FSDP_TP_STEP, "W1 and W2 after one step (float tolerance) laid out P('data', 'model') and"
                    + " P('model', 'data')", Check.VALUES, Check.LAYOUT)
            .requires(C7_FSDP_TP_STEP, "a hand-written shardMap", Check.USES_SHARD_MAP)
            .requires(C7_FSDP_TP_STEP, "per device one all-gather over 'data' of each weight's block (kept for the"
                    + " backward pass, or gathered once more there), one reduce-scatter over 'data' of each gathered"
                    + " weight's gradient, and one all-reduce (psum) over 'model' of the activations Y[B/data, D]"
                    + " (or the sequence-parallel variant: reduce-scatters of Y's rows over 'model', each with an"
                    + " all-gather of the rows back), besides at most two psums or pmeans of the scalar loss,"
                    + " nothing else", Check.COLLECTIVES, Check.OPERANDS)
            .requires(C7_FSDP_TP_STEP, "no program hands a device more than 1/(data·model) of the weights and its"
                    + " rows, and no array on a device is larger than one gathered layer", Check.DEVICE_MEMORY)
            .requires(C7_FSDP_TP_STEP, "the weights are never gathered whole on the host", Check.HOST_MEMORY)
            .graded(property("meshesAndShapes", 25, "7001", FsdpTpCase::cases), List.of(
                    example("twoByFour", TWO_BY_FOUR),
                    example("fourByTwo", new FsdpTpCase(4, 2, 2, 2, 3, 712)),
                    example("oneDevice", new FsdpTpCase(1, 1, 2, 3, 4, 713))),
                    c -> fsdpTpStep(C7_FSDP_TP_STEP.proxy(), c));

    /**
     * 7.1p's measured run: ('data': 4, 'model': 4), D = 512, F = 4·D = 2048 (an MLP block's shape), B = 512, so
     * each gather and reduce-scatter moves 384 KiB per device in bfloat16 (8.7 µs on a v5e link, more than the
     * hop latencies) and each matmul has 128 rows, a whole pass of the MXU; the values are drawn per run.
     */
    static final FsdpTpCase PERF_SHAPE = new FsdpTpCase(4, 4, 128, 128, 512, 0);

    /** 7.1p's hardware and dtype: TPU v5e in bfloat16, as the other performance parts of the course. */
    public static final TimedSetting SETTING_71P = new TimedSetting("tpu-v5e", ModelDtype.BFLOAT16, "mesh ('data':"
            + " 4, 'model': 4); X, T f32[512, 512], W1 f32[512, 2048], W2 f32[2048, 512]; one step");

    /** 7.1p's floor on a device's matmul FLOPs, its rule's text without the measured size's numbers. */
    private static final String FSDP_TP_FLOPS = "every device multiplies its rows by its gathered layers forward and"
            + " takes both weights' gradients, at least 8·(B/data)·D·(F/model) FLOPs";

    /** Part 7.1p. */
    public static final Part P7_1P = CHAPTER.part("7.1p", "7.1 modelled time, TPU v5e", 1, "Performance")
            .calls(C7_FSDP_TP_STEP)
            .docs(D + "part-71p-modelled-time-tpu-v5e")
            .hint("at this size the step is bound by its links, and the reference adds nothing beside them: each"
                    + " matmul takes all of a device's rows at once (a matmul of fewer than 128 rows still costs a"
                    + " whole pass of the MXU) and nothing is computed twice; compare your timeline (written under"
                    + " grader/target/grade/profiles/) with the table in docs/chapter-7.md, part 7.1p.")
            .requires(Requirement.measuredProgram(C7_FSDP_TP_STEP, P7_1.requirements(), FSDP_TP_FLOPS))
            .timed(SETTING_71P, () -> fsdpTpTime(C7_FSDP_TP_STEP.proxy()));

    /** Part 7.1's rows, the program, then its modelled time. */
    public static final List<Part> PARTS = List.of(P7_1, P7_1P);

    private FsdpTpChecks() {
    }

    /** Part 7.1: one training step of the MLP block, returning [W1', W2']. */
    @FunctionalInterface
    public interface FsdpTpStep {
        List<ShardedArray> apply(ShardedArray x, ShardedArray t, ShardedArray w1, ShardedArray w2, float lr);
    }

    /** Float32 sums of at most a few dozen products of values below 2, against double. */
    static final Tolerance TOLERANCE = new Tolerance(1e-4, 1e-4);

    private static final List<String> NAMES = List.of("W1", "W2");
    private static final List<PartitionSpec> SPECS = List.of(P("data", "model"), P("model", "data"));

    /**
     * 7.1: W1 and W2 after one step (float tolerance) laid out P('data', 'model') and P('model', 'data'); a
     * hand-written shardMap; per device the all-gathers over 'data' of the weights' blocks (once or twice each),
     * one reduce-scatter over 'data' of each gathered gradient, one psum over 'model' of Y's rows (or its
     * reduce-scatter and all-gather), nothing else; arguments at most the device's weight blocks and rows; no
     * array larger than a gathered layer or an activation.
     */
    public static void fsdpTpStep(FsdpTpStep impl, FsdpTpCase c) {
        NDArray x = c.x();
        NDArray t = c.t();
        NDArray w1 = c.w1();
        NDArray w2 = c.w2();
        ShardedArray xs = ShardedArray.devicePut(x, c.mesh(), P("data", null));
        ShardedArray ts = ShardedArray.devicePut(t, c.mesh(), P("data", null));
        ShardedArray w1s = ShardedArray.devicePut(w1, c.mesh(), SPECS.get(0));
        ShardedArray w2s = ShardedArray.devicePut(w2, c.mesh(), SPECS.get(1));
        CaseRun<List<ShardedArray>> run = Guard.run(P7_1, c.describe(),
                () -> impl.apply(xs, ts, w1s, w2s, FsdpTpCase.LR));
        Checks.usesShardMap(run);
        List<NDArray> expected = step(x, t, w1, w2, FsdpTpCase.LR, 1);
        List<NDArray> unaveraged = step(x, t, w1, w2, FsdpTpCase.LR, c.data());
        String inputs = Reports.inputs("Input X", x, "Input T", t, "Input W1", w1, "Input W2", w2);
        CheckLog.ran(Check.VALUES, Check.LAYOUT);
        List<ShardedArray> got = run.value();
        if (got == null || got.size() != 2) {
            throw run.report("returned the wrong number of arrays")
                    .paragraph("Expected 2 arrays, [W1, W2] after the step; got " + (got == null ? "null"
                            : got.size()) + ".")
                    .failure(GradingFailure.Kind.WRONG_SHAPE, "not two arrays");
        }
        for (int k = 0; k < 2; k++) {
            List<Checks.Mistake> known = c.data() > 1 ? List.of(new Checks.Mistake("the gradient summed over 'data'"
                    + " instead of averaged (every row of devices' mean loss counted whole)", unaveraged.get(k),
                    "each 'data' index sees B/data rows: divide its mean loss by the size of 'data'")) : List.of();
            Checks.shardedResult(new CaseRun<>(run.part(), run.caseText() + " (result " + NAMES.get(k) + ")",
                    got.get(k), run.trace()), inputs, expected.get(k), SPECS.get(k), TOLERANCE, null, known);
        }
        structure(run, c);
    }

    /**
     * 7.1's structural rules on a run's trace: the collectives, the arguments' bytes, the largest array and no
     * gather on the host. 7.1p applies them to its measured run too: a program that runs other code at the measured
     * size (devices reading each other's blocks through views the host took, no collective at all) must not be timed.
     */
    static void structure(CaseRun<?> run, FsdpTpCase c) {
        int dim = c.d();
        List<Integer> w1Block = List.of(c.dPer(), c.fPer());
        List<Integer> w2Block = List.of(c.fPer(), c.dPer());
        List<Integer> w1Grad = List.of(dim, c.fPer());
        List<Integer> w2Grad = List.of(c.fPer(), dim);
        List<Integer> activations = List.of(c.rows(), dim);
        TraceRules.perDevice(run, "communicates other than 2-D FSDP × TP", "every device all-gathers each weight's"
                + " block " + w1Block + ", " + w2Block + " over 'data' once or twice, reduce-scatters each gathered"
                + " gradient " + w1Grad + ", " + w2Grad + " over 'data' once, and all-reduces Y's rows " + activations
                + " over 'model' once (or reduce-scatters and all-gathers them), nothing else",
                collectives(w1Block, w2Block, w1Grad, w2Grad, activations));
        long args = 4L * 2 * dim * c.f() / ((long) c.data() * c.model()) + 4L * 2 * c.rows() * dim;
        TraceRules.perDevice(run, "stores whole weights", "no program hands a device more than its blocks of W1 and"
                + " W2 (1/" + c.data() * c.model() + " of each) and its rows of X and T, " + args + " bytes",
                TraceRules.argumentBytesAtMost(args, "keep W1 in spec P('data', 'model') and W2 in P('model',"
                        + " 'data'); gather inside the step"));
        long layer = 4L * Math.max((long) dim * c.fPer(), (long) c.rows() * Math.max(dim, c.fPer()));
        TraceRules.perDevice(run, "holds more than one gathered layer", "no array on a device is larger than one"
                + " gathered layer f32[" + dim + ", " + c.fPer() + "] or a block of activations, " + layer + " bytes",
                TraceRules.largestArrayBelow(layer + 1, "gather over 'data' only: the 'model' split stays"));
        // Values computed on the host from gathered weights would pass every rule above with a throwaway shardMap.
        Checks.noHostGather(run, 4L * dim * c.f(), c.data() * c.model());
    }

    /**
     * The seeds of the measured run's values, drawn by the judge for every run: the modelled time depends on shapes
     * only, so the grade stays the same, and values nobody knows before the run leave nothing to precompute.
     */
    private static final java.security.SecureRandom PERF_SEEDS = new java.security.SecureRandom();

    /**
     * 7.1p: {@code fsdpTpStep} at the measured size, modelled, after 7.1's first example passes; the run's two
     * weights are compared whole with the oracle, and the run must keep 7.1's structural rules ({@link #structure}).
     */
    public static TimedResult fsdpTpTime(FsdpTpStep impl) {
        FsdpTpCase c = new FsdpTpCase(PERF_SHAPE.data(), PERF_SHAPE.model(), PERF_SHAPE.rows(), PERF_SHAPE.dPer(),
                PERF_SHAPE.fPer(), PERF_SEEDS.nextLong());
        NDArray x = c.x();
        NDArray t = c.t();
        NDArray w1 = c.w1();
        NDArray w2 = c.w2();
        ShardedArray xs = ShardedArray.devicePut(x, c.mesh(), P("data", null));
        ShardedArray ts = ShardedArray.devicePut(t, c.mesh(), P("data", null));
        ShardedArray w1s = ShardedArray.devicePut(w1, c.mesh(), SPECS.get(0));
        ShardedArray w2s = ShardedArray.devicePut(w2, c.mesh(), SPECS.get(1));
        return ModelledTime.check(P7_1P, P7_1, () -> fsdpTpStep(impl, TWO_BY_FOUR), SETTING_71P,
                () -> impl.apply(xs, ts, w1s, w2s, FsdpTpCase.LR), run -> {
                    if (!(run.value() instanceof List<?> got) || got.size() != 2
                            || !(got.get(0) instanceof ShardedArray) || !(got.get(1) instanceof ShardedArray)) {
                        throw run.report("returned something other than two placed arrays")
                                .failure(GradingFailure.Kind.WRONG_SHAPE, "not [W1, W2]");
                    }
                    Checks.usesShardMap(run);
                    List<NDArray> expected = step(x, t, w1, w2, FsdpTpCase.LR, 1);
                    for (int k = 0; k < 2; k++) {
                        Checks.shardedResult(new CaseRun<>(run.part(), run.caseText() + " (result " + NAMES.get(k)
                                        + ")", (ShardedArray) got.get(k), run.trace()),
                                "(the performance part's inputs)", expected.get(k), SPECS.get(k), TOLERANCE, null);
                    }
                    // 7.1's own rules at the measured size: the collectives they require are what every device
                    // must receive (the floor 3.0p–4.2p set with MeasuredRun), read from the trace.
                    structure(run, c);
                    long share = 8L * c.rows() * c.d() * c.fPer();
                    TraceRules.perDevice(run, "does less than its share of the work on the devices",
                            FSDP_TP_FLOPS.replace(" FLOPs", " = " + share + " FLOPs"), TraceRules.flopsAtLeast(share,
                            "8·(B/data)·D·(F/model)"));
                });
    }

    /**
     * The collectives of 2-D FSDP × TP: over 'data' all-gathers of the weight blocks (each once or twice) and one
     * reduce-scatter of each gathered gradient; over 'model' one psum of the activations, or their reduce-scatter
     * and all-gather.
     */
    private static Rule collectives(List<Integer> w1Block, List<Integer> w2Block, List<Integer> w1Grad,
                                    List<Integer> w2Grad, List<Integer> activations) {
        return new Rule(Set.of(Check.COLLECTIVES, Check.OPERANDS), d -> collectivesViolation(d, w1Block, w2Block,
                w1Grad, w2Grad, activations)).withHint("all-gather each weight's block over 'data' inside the function"
                + " you differentiate (its gradient then comes back as a reduce-scatter over 'data'), and complete"
                + " the second matmul's partial sums with one psum over 'model'");
    }

    private static String collectivesViolation(DeviceTrace d, List<Integer> w1Block, List<Integer> w2Block,
                                               List<Integer> w1Grad, List<Integer> w2Grad,
                                               List<Integer> activations) {
        int gather1 = 0;
        int gather2 = 0;
        int scatter1 = 0;
        int scatter2 = 0;
        int psumModel = 0;
        int scatterModel = 0;
        int gatherModel = 0;
        int scalars = 0;
        for (CollectiveEvent e : d.collectives()) {
            List<Integer> in = e.inputShape();
            boolean overData = e.axes().equals(List.of("data"));
            boolean overModel = e.axes().equals(List.of("model"));
            if (overData && e.kind() == Collective.ALL_GATHER && (in.equals(w1Block) || in.equals(w2Block))) {
                // equal block shapes (D/data = F/model) make one all-gather count for either weight
                gather1 += in.equals(w1Block) ? 1 : 0;
                gather2 += in.equals(w2Block) && !in.equals(w1Block) ? 1 : 0;
            } else if (overData && e.kind() == Collective.PSUM_SCATTER && (in.equals(w1Grad) || in.equals(w2Grad))) {
                scatter1 += in.equals(w1Grad) ? 1 : 0;
                scatter2 += in.equals(w2Grad) && !in.equals(w1Grad) ? 1 : 0;
            } else if (overModel && e.kind() == Collective.PSUM && in.equals(activations)) {
                psumModel++;
            } else if (overModel && e.kind() == Collective.PSUM_SCATTER && in.equals(activations)) {
                scatterModel++;
            } else if (overModel && e.kind() == Collective.ALL_GATHER && in.size() == 2
                    && in.get(1).equals(activations.get(1)) && in.get(0) <= activations.get(0)) {
                // Y's (or dY's) rows after the sequence-parallel reduce-scatter, gathered back
                gatherModel++;
            } else if ((e.kind() == Collective.PSUM || e.kind() == Collective.PMEAN) && in.isEmpty()) {
                // the scalar loss summed or averaged (jax's usual pmean over 'data'): four bytes
                scalars++;
            } else {
                return "it calls " + e.describe() + ", which 2-D FSDP × TP has no use for";
            }
        }
        if (scalars > 2) {
            return "it reduces " + scalars + " scalars; the loss needs at most two psums or pmeans";
        }
        boolean sameBlocks = w1Block.equals(w2Block);
        boolean gathersOk = sameBlocks ? gather1 >= 2 && gather1 <= 4
                : gather1 >= 1 && gather1 <= 2 && gather2 >= 1 && gather2 <= 2;
        if (!gathersOk) {
            return "it all-gathers W1's block " + gather1 + (sameBlocks ? " time(s) (W1's and W2's blocks have one"
                    + " shape)" : " time(s) and W2's block " + gather2 + " time(s)") + " over 'data'; expected each"
                    + " once forward, and at most once more for the backward";
        }
        boolean sameGrads = w1Grad.equals(w2Grad);
        boolean scattersOk = sameGrads ? scatter1 == 2 : scatter1 == 1 && scatter2 == 1;
        if (!scattersOk) {
            return "it reduce-scatters " + (scatter1 + scatter2) + " gradient(s) over 'data'; expected one"
                    + " reduce-scatter of each gathered weight's gradient";
        }
        boolean allReduce = psumModel == 1 && scatterModel == 0 && gatherModel == 0;
        // a reduce-scatter in the forward has an all-gather as its transpose in the backward; an all-gather of the
        // rows back in the forward adds a second all-gather (invariant: its transpose is a slice) or, plain, a
        // reduce-scatter in the backward: one or two of each
        boolean sequenceParallel = psumModel == 0 && scatterModel >= 1 && scatterModel <= 2 && gatherModel >= 1
                && gatherModel <= 2;
        return allReduce || sequenceParallel ? null : "over 'model' it runs " + psumModel + " psum(s) of Y's rows, "
                + scatterModel + " reduce-scatter(s) and " + gatherModel + " all-gather(s); expected one psum of"
                + " Y's rows (or, sequence-parallel, one or two reduce-scatters and one or two all-gathers of its rows)";
    }


    /**
     * One SGD step of relu(X·W1)·W2 on the loss mean over rows of ‖Y − T‖², in double on the whole arrays;
     * {@code scale} multiplies the gradients (1 for the right step, data for the gradient never averaged).
     */
    static List<NDArray> step(NDArray x, NDArray t, NDArray w1, NDArray w2, float lr, double scale) {
        int b = x.shape(0);
        int d = x.shape(1);
        int f = w1.shape(1);
        float[] xv = x.toFloatArray();
        float[] tv = t.toFloatArray();
        float[] w1v = w1.toFloatArray();
        float[] w2v = w2.toFloatArray();
        double[] g1 = new double[d * f];
        double[] g2 = new double[f * d];
        // Loops ordered for contiguous reads (7.1p's size is B, D, F = 512, 512, 2048); every sum still runs over
        // its index in ascending order.
        for (int r = 0; r < b; r++) {
            double[] pre = new double[f];
            for (int i = 0; i < d; i++) {
                double xi = xv[r * d + i];
                for (int j = 0; j < f; j++) {
                    pre[j] += xi * w1v[i * f + j];
                }
            }
            double[] y = new double[d];
            for (int j = 0; j < f; j++) {
                double h = Math.max(pre[j], 0);
                for (int k = 0; k < d; k++) {
                    y[k] += h * w2v[j * d + k];
                }
            }
            double[] dy = new double[d];
            for (int k = 0; k < d; k++) {
                dy[k] = 2 * (y[k] - tv[r * d + k]) / b * scale;
            }
            double[] dpre = new double[f];
            for (int j = 0; j < f; j++) {
                double h = Math.max(pre[j], 0);
                double dh = 0;
                for (int k = 0; k < d; k++) {
                    g2[j * d + k] += h * dy[k];
                    dh += dy[k] * w2v[j * d + k];
                }
                dpre[j] = pre[j] > 0 ? dh : 0;
            }
            for (int i = 0; i < d; i++) {
                double xi = xv[r * d + i];
                for (int j = 0; j < f; j++) {
                    if (pre[j] > 0) {
                        g1[i * f + j] += xi * dpre[j];
                    }
                }
            }
        }
        float[] n1 = new float[d * f];
        float[] n2 = new float[f * d];
        for (int i = 0; i < n1.length; i++) {
            n1[i] = (float) (w1v[i] - (double) lr * g1[i]);
            n2[i] = (float) (w2v[i] - (double) lr * g2[i]);
        }
        return List.of(NDArray.fromFloats(n1, d, f), NDArray.fromFloats(n2, f, d));
    }
}
