package dev.shardlings.grader.selftest;

import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.autodiff.Autodiff;
import dev.shardlings.autodiff.VjpResult;
import dev.shardlings.grader.chapter7.Chapter7Checks;
import dev.shardlings.grader.chapter7.PipelineCase;
import dev.shardlings.grader.chapter7.PipelineChecks;
import dev.shardlings.grader.chapter7.PipelineChecks.Schedule;
import dev.shardlings.grader.judge.GradingFailure;
import dev.shardlings.grader.judge.GradingFailure.Kind;
import dev.shardlings.spmd.Collectives;
import dev.shardlings.spmd.ShardMap;
import dev.shardlings.spmd.ShardedArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static dev.shardlings.sharding.PartitionSpec.P;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The grader's own tests for part 7.2: plausible wrong pipelines, each rejected by the check that names its mistake.
 * They share one pipeline program, bent one way each ({@link Bend}); unbent it passes both parts.
 */
class PipelineWrongImplementationsTest {
    /** Four stages of two layers, six microbatches: more than the stages, so GPipe keeps more than 1F1B may. */
    private static final PipelineCase CASE = new PipelineCase(4, 2, 6, 2, 5, 702);

    /** One mistake each. */
    private enum Bend {
        NONE, WITH_VJP, WITH_VJP_PER_LAYER, SERIAL, GRADIENTS_SENT_UP, AVERAGED_TWICE, WRAPPING_RING, WHOLE_BATCH, WHERE_RELU, MUL_RELU,
        REPLICATED_WEIGHTS, WEIGHTS_BY_PPERMUTE, ZEROS, GRADIENTS_TO_NEXT_STAGE
    }

    /** The deepest case: 16 stages of 2 layers, where random weights once let an all-zero dW pass. */
    private static final PipelineCase DEEP = new PipelineCase(16, 2, 17, 2, 5, 716);

    private static GradingFailure rejected(Kind kind, Executable check) {
        GradingFailure f = Pinned.record(assertThrows(GradingFailure.class, check));
        assertEquals(kind, f.kind(), () -> "rejected for another reason: " + f.reason() + "\n" + f.getMessage());
        return f;
    }

    @Test
    void theUnbentPipelinePassesBothSchedules() {
        assertTrue(Chapter7Checks.PARTS.containsAll(PipelineChecks.PARTS));
        PipelineChecks.pipeline((w, x, t) -> pipeline(w, x, t, false, Bend.NONE), CASE, Schedule.GPIPE);
        PipelineChecks.pipeline((w, x, t) -> pipeline(w, x, t, true, Bend.NONE), CASE, Schedule.ONE_F_ONE_B);
    }

    /** Autodiff.vjp at each forward, its pullback kept for the backward: the same schedule, read the same way. */
    @Test
    void aStageDifferentiatedByAutodiffPassesToo() {
        PipelineChecks.pipeline((w, x, t) -> pipeline(w, x, t, true, Bend.WITH_VJP), CASE, Schedule.ONE_F_ONE_B);
        PipelineChecks.pipeline((w, x, t) -> pipeline(w, x, t, false, Bend.WITH_VJP),
                new PipelineCase(1, 2, 3, 2, 4, 703), Schedule.GPIPE);
    }

    /**
     * The pullback's extra work is visible in 7.2bp's model: a vjp over the stage's whole weight block pads each
     * layer's gradient to the block's shape, and fails; over the per-layer slices it passes. chapter-7.md quotes
     * both times and their ratios to the reference.
     */
    @Test
    void aStageDifferentiatedByAutodiffIsSlowerThanTheModelledLimit() {
        GradingFailure f = rejected(Kind.PERFORMANCE, () -> PipelineChecks.oneFOneBTime((w, x, t) -> pipeline(w, x, t,
                true, Bend.WITH_VJP)));
        assertTrue(f.reason().startsWith("modelled "), f.reason());
        double reference = dev.shardlings.grader.checks.ModelledTime.reference(PipelineChecks.P7_2P);
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("^modelled ([0-9.]+) µs, ([0-9.]+)× the reference")
                .matcher(f.reason());
        assertTrue(m.find(), f.reason());
        PipelineChecks.pipeline((w, x, t) -> pipeline(w, x, t, true, Bend.WITH_VJP_PER_LAYER), CASE,
                Schedule.ONE_F_ONE_B);
        double perLayer = PipelineChecks.oneFOneBTime((w, x, t) -> pipeline(w, x, t, true,
                Bend.WITH_VJP_PER_LAYER)).micros();
        DocsFigures.holds("c7_vjp_block", m.group(1));
        DocsFigures.holds("c7_vjp_block_ratio", m.group(2));
        DocsFigures.holds("c7_vjp_layers", perLayer);
        DocsFigures.holds("c7_vjp_layers_ratio", perLayer / reference);
    }

    @Test
    void aSerialRunLeavesTheBubbleOfPStages() {
        GradingFailure f = rejected(Kind.STRUCTURE, () -> PipelineChecks.pipeline((w, x, t) -> pipeline(w, x, t,
                false, Bend.SERIAL), CASE, Schedule.GPIPE));
        assertTrue(f.reason().startsWith("leaves a bubble larger than (p − 1)/(M + p − 1)"), f.reason());
    }

    @Test
    void theWholeBatchThroughEachStageAtOnceIsNoPipeline() {
        GradingFailure f = rejected(Kind.STRUCTURE, () -> PipelineChecks.pipeline((w, x, t) -> pipeline(w, x, t,
                false, Bend.WHOLE_BATCH), CASE, Schedule.GPIPE));
        assertTrue(f.reason().startsWith("communicates other than by neighbour ppermutes"), f.reason());
        assertTrue(f.reason().contains("which sends 60 elements"), f.reason());
    }

    @Test
    void gpipePassedAsOneFOneBKeepsEveryMicrobatch() {
        GradingFailure f = rejected(Kind.STRUCTURE, () -> PipelineChecks.pipeline((w, x, t) -> pipeline(w, x, t,
                false, Bend.NONE), CASE, Schedule.ONE_F_ONE_B));
        assertTrue(f.reason().startsWith("keeps more activations than 1F1B: stage 0 keeps the activations of up to 6"),
                f.reason());
    }

    @Test
    void oneFOneBPassedAsGpipeStartsABackwardEarly() {
        GradingFailure f = rejected(Kind.STRUCTURE, () -> PipelineChecks.pipeline((w, x, t) -> pipeline(w, x, t,
                true, Bend.NONE), CASE, Schedule.GPIPE));
        assertTrue(f.reason().startsWith("starts a backward before its last forward (not GPipe)"), f.reason());
    }

    @Test
    void gradientsSentUpThePipelineNeverReachTheEarlierStages() {
        for (Schedule s : Schedule.values()) {
            GradingFailure f = rejected(Kind.WRONG_VALUES, () -> PipelineChecks.pipeline((w, x, t) -> pipeline(w, x,
                    t, s == Schedule.ONE_F_ONE_B, Bend.GRADIENTS_SENT_UP), CASE, s));
            assertTrue(f.getMessage().contains("computed wrong values"), f.getMessage());
        }
    }

    @Test
    void microbatchGradientsAveragedTwiceAreOneMthTooSmall() {
        GradingFailure f = rejected(Kind.WRONG_VALUES, () -> PipelineChecks.pipeline((w, x, t) -> pipeline(w, x, t,
                true, Bend.AVERAGED_TWICE), CASE, Schedule.ONE_F_ONE_B));
        assertTrue(f.getMessage().contains("exactly what dividing the gradients by M once more"), f.getMessage());
    }

    @Test
    void aRingThatWrapsFromTheLastStageToTheFirstIsRefused() {
        GradingFailure f = rejected(Kind.STRUCTURE, () -> PipelineChecks.pipeline((w, x, t) -> pipeline(w, x, t,
                true, Bend.WRAPPING_RING), CASE, Schedule.ONE_F_ONE_B));
        assertTrue(f.reason().startsWith("communicates other than by neighbour ppermutes"), f.reason());
        assertTrue(f.reason().contains("[3, 0] is not between neighbouring stages"), f.reason());
    }

    /** A relu written as a mask of z by its own sign is a forward layer as relu() is. */
    @Test
    void aReluWrittenAsWhereOrAsAMaskPasses() {
        for (Bend bend : List.of(Bend.WHERE_RELU, Bend.MUL_RELU)) {
            PipelineChecks.pipeline((w, x, t) -> pipeline(w, x, t, false, bend), CASE, Schedule.GPIPE);
            PipelineChecks.pipeline((w, x, t) -> pipeline(w, x, t, true, bend), CASE, Schedule.ONE_F_ONE_B);
        }
    }

    /** Fewer microbatches than stages (the pipeline never fills), and one microbatch: both schedules pass. */
    @Test
    void fewerMicrobatchesThanStagesPass() {
        for (int m = 1; m <= 4; m++) {
            PipelineCase c = new PipelineCase(5, 2, m, 2, 4, 704 + m);
            PipelineChecks.pipeline((w, x, t) -> pipeline(w, x, t, false, Bend.NONE), c, Schedule.GPIPE);
            PipelineChecks.pipeline((w, x, t) -> pipeline(w, x, t, true, Bend.NONE), c, Schedule.ONE_F_ONE_B);
        }
    }

    @Test
    void theDeepestStackPassesAndItsGradientsAreFarAboveTheTolerance() {
        PipelineChecks.pipeline((w, x, t) -> pipeline(w, x, t, true, Bend.NONE), DEEP, Schedule.ONE_F_ONE_B);
        for (long seed = 0; seed < 200; seed++) {
            for (int d = 4; d <= 6; d++) {
                PipelineCase c = new PipelineCase(16, 2, 1, 1, d, seed);
                NDArray dw = PipelineChecks.gradients(c.weights(), c.inputs(), c.targets());
                for (int l = 0; l < c.layers(); l++) {
                    double most = 0;
                    for (int i = 0; i < d; i++) {
                        for (int j = 0; j < d; j++) {
                            most = Math.max(most, Math.abs(dw.floatAt(l, i, j)));
                        }
                    }
                    final double m = most;
                    final int layer = l;
                    assertTrue(m > 1e-2, () -> c.describe() + ": layer " + layer + "'s largest |dW| is " + m);
                }
            }
        }
    }

    @Test
    void zerosForDwAreRejectedOnTheDeepestStack() {
        GradingFailure f = rejected(Kind.WRONG_VALUES, () -> PipelineChecks.pipeline((w, x, t) -> pipeline(w, x, t,
                true, Bend.ZEROS), DEEP, Schedule.ONE_F_ONE_B));
        assertTrue(f.getMessage().contains("computed wrong values"), f.getMessage());
    }

    @Test
    void gradientsAddedToTheNextStagesLayersAreRejectedOnTheDeepestStack() {
        GradingFailure f = rejected(Kind.WRONG_VALUES, () -> PipelineChecks.pipeline((w, x, t) -> pipeline(w, x, t,
                false, Bend.GRADIENTS_TO_NEXT_STAGE), DEEP, Schedule.GPIPE));
        assertTrue(f.getMessage().contains("computed wrong values"), f.getMessage());
    }

    /** The reviewer's cheat: W handed whole to every stage (in spec P()), each stage slicing its own layers. */
    @Test
    void weightsReplicatedOnEveryStageAreRefused() {
        for (Schedule s : Schedule.values()) {
            GradingFailure f = rejected(Kind.STRUCTURE, () -> PipelineChecks.pipeline((w, x, t) -> pipeline(w, x,
                    t, s == Schedule.ONE_F_ONE_B, Bend.REPLICATED_WEIGHTS), CASE, s));
            assertTrue(f.reason().startsWith("holds more than its own layers"), f.reason());
        }
    }

    /** Weights moved between stages by ppermute instead of activations: more than one microbatch per hand-off. */
    @Test
    void weightsSentByPpermuteAreRefused() {
        GradingFailure f = rejected(Kind.STRUCTURE, () -> PipelineChecks.pipeline((w, x, t) -> pipeline(w, x, t,
                true, Bend.WEIGHTS_BY_PPERMUTE), CASE, Schedule.ONE_F_ONE_B));
        assertTrue(f.reason().startsWith("communicates other than by neighbour ppermutes"), f.reason());
        assertTrue(f.reason().contains("which sends 25 elements"), f.reason());
    }

    // ------------------------------------------------------------------------------------------ the pipeline

    private record Unit(boolean forward, int microbatch) {
    }

    private static List<Unit> order(int stage, int stages, int micro, boolean oneFOneB) {
        List<Unit> ops = new ArrayList<>();
        int warm = oneFOneB ? Math.min(stages - stage - 1, micro) : micro;
        for (int m = 0; m < warm; m++) {
            ops.add(new Unit(true, m));
        }
        for (int m = 0; m < micro; m++) {
            if (warm + m < micro) {
                ops.add(new Unit(true, warm + m));
            }
            ops.add(new Unit(false, m));
        }
        return ops;
    }

    /** [stage][step]: each unit one step, as early as its input and stage allow (SERIAL: one stage at a time). */
    private static Unit[][] timetable(int stages, int micro, boolean oneFOneB, boolean serial) {
        int[][] fwdEnd = new int[stages][micro];
        int[][] bwdEnd = new int[stages][micro];
        int[] next = new int[stages];
        int[] free = new int[stages];
        int everyone = 0;
        List<Map<Integer, Unit>> at = new ArrayList<>();
        List<List<Unit>> orders = new ArrayList<>();
        for (int s = 0; s < stages; s++) {
            at.add(new HashMap<>());
            orders.add(order(s, stages, micro, oneFOneB));
        }
        int steps = 0;
        for (int left = 2 * stages * micro; left > 0; ) {
            for (int s = 0; s < stages; s++) {
                if (next[s] == orders.get(s).size()) {
                    continue;
                }
                Unit op = orders.get(s).get(next[s]);
                int m = op.microbatch();
                int ready = op.forward() ? (s == 0 ? 1 : fwdEnd[s - 1][m]) : (s == stages - 1 ? 1 : bwdEnd[s + 1][m]);
                if (ready == 0) {
                    continue;
                }
                int start = Math.max(serial ? everyone : free[s], ready - 1);
                (op.forward() ? fwdEnd : bwdEnd)[s][m] = start + 2;
                free[s] = start + 1;
                everyone = Math.max(everyone, start + 1);
                steps = Math.max(steps, start + 1);
                at.get(s).put(start, op);
                next[s]++;
                left--;
            }
        }
        Unit[][] table = new Unit[stages][steps];
        for (int s = 0; s < stages; s++) {
            for (var e : at.get(s).entrySet()) {
                table[s][e.getKey()] = e.getValue();
            }
        }
        return table;
    }

    private static boolean sends(Unit[][] table, int step, boolean up) {
        for (int s = 0; s < table.length; s++) {
            Unit op = table[s][step];
            if (op != null && op.forward() == up && (up ? s + 1 < table.length : s > 0)) {
                return true;
            }
        }
        return false;
    }

    /** The reference pipeline of 7.2, bent by {@code bend}. */
    private static ShardedArray pipeline(ShardedArray w, ShardedArray x, ShardedArray t, boolean oneFOneB, Bend bend) {
        int stages = w.mesh().shape().get("stage");
        int micro = x.shape()[0];
        int rows = x.shape()[1];
        int d = x.shape()[2];
        Unit[][] table = timetable(stages, micro, oneFOneB, bend == Bend.SERIAL);
        int[][] up = new int[stages - 1 + (bend == Bend.WRAPPING_RING ? 1 : 0)][];
        int[][] down = new int[stages - 1][];
        for (int s = 0; s + 1 < stages; s++) {
            up[s] = new int[]{s, s + 1};
            down[s] = new int[]{s + 1, s};
        }
        if (bend == Bend.WRAPPING_RING) {
            up[stages - 1] = new int[]{stages - 1, 0};
        }
        return ShardMap.shardMap(b -> {
            int s = Collectives.axisIndex("stage").intAt();
            NDArray wb = b.get(0);
            if (bend == Bend.REPLICATED_WEIGHTS) {
                int kk = wb.shape()[0] / stages;
                wb = wb.slice(0, s * kk, (s + 1) * kk);
            }
            if (bend == Bend.WEIGHTS_BY_PPERMUTE && stages > 1) {
                // A pointless hand-off of the stage's first layer to its neighbour: no activation is that big.
                Collectives.ppermute(wb.index(0), "stage", up);
            }
            NDArray xb = b.get(1);
            NDArray tb = b.get(2);
            int k = wb.shape()[0];
            final NDArray wFinal = wb;
            if (bend == Bend.WHOLE_BATCH) {
                return List.of(wholeBatch(wb, xb, tb, s, stages, up, down));
            }
            List<NDArray> grads = new ArrayList<>();
            for (int j = 0; j < k; j++) {
                grads.add(NDArray.zeros(DType.FLOAT32, d, d));
            }
            Map<Integer, NDArray> inbox = new HashMap<>();
            Map<Integer, NDArray> gradInbox = new HashMap<>();
            Map<Integer, List<NDArray>> kept = new HashMap<>();
            Map<Integer, VjpResult<NDArray>> pullbacks = new HashMap<>();
            float scale = 1f / (micro * rows * (bend == Bend.AVERAGED_TWICE ? micro : 1));
            for (int step = 0; step < table[0].length; step++) {
                Unit op = table[s][step];
                NDArray sendUp = NDArray.zeros(DType.FLOAT32, rows, d);
                NDArray sendDown = NDArray.zeros(DType.FLOAT32, rows, d);
                boolean vjp = bend == Bend.WITH_VJP || bend == Bend.WITH_VJP_PER_LAYER;
                boolean perLayer = bend == Bend.WITH_VJP_PER_LAYER;
                int first = s == 0 ? 0 : 1; // where the weights start among the vjp's arguments
                if (op != null && op.forward() && vjp) {
                    NDArray a0 = s == 0 ? xb.index(op.microbatch()) : inbox.remove(op.microbatch());
                    // Stage 0's input X is the same on every stage: its cotangent would be psummed over 'stage'
                    // (the transpose of the implicit pvary), so stage 0 differentiates with respect to W alone.
                    // Per layer: the slices W[0] … W[k − 1] are cut before the vjp and are its arguments, so its
                    // pullback makes [D, D] gradients, not zero-padded [k, D, D] ones.
                    List<NDArray> args = new ArrayList<>();
                    if (s != 0) {
                        args.add(a0);
                    }
                    if (perLayer) {
                        for (int j = 0; j < k; j++) {
                            args.add(wFinal.index(j));
                        }
                    } else {
                        args.add(wFinal);
                    }
                    VjpResult<NDArray> r = Autodiff.vjp(q -> {
                        NDArray a = s == 0 ? a0 : q.get(0);
                        for (int j = 0; j < k; j++) {
                            a = a.matmul(perLayer ? q.get(first + j) : q.get(first).index(j)).relu();
                        }
                        return List.of(a);
                    }, args);
                    pullbacks.put(op.microbatch(), r);
                    sendUp = r.outputs().get(0);
                } else if (op != null && !op.forward() && vjp) {
                    VjpResult<NDArray> r = pullbacks.remove(op.microbatch());
                    NDArray g = s == stages - 1 ? r.outputs().get(0).sub(tb.index(op.microbatch())).mul(scale)
                            : gradInbox.remove(op.microbatch());
                    List<NDArray> cts = r.pullback().apply(List.of(g));
                    for (int j = 0; j < k; j++) {
                        grads.set(j, grads.get(j).add(perLayer ? cts.get(first + j) : cts.get(first).index(j)));
                    }
                    sendDown = s == 0 ? sendDown : cts.get(0);
                } else if (op != null && op.forward()) {
                    NDArray a = s == 0 ? xb.index(op.microbatch()) : inbox.remove(op.microbatch());
                    List<NDArray> acts = new ArrayList<>();
                    for (int j = 0; j < k; j++) {
                        acts.add(a);
                        NDArray z = a.matmul(wb.index(j));
                        a = bend == Bend.WHERE_RELU ? NDArray.where(z.greater(0), z, 0.0)
                                : bend == Bend.MUL_RELU ? z.mul(z.greater(0)) : z.relu();
                    }
                    acts.add(a);
                    kept.put(op.microbatch(), acts);
                    sendUp = a;
                } else if (op != null) {
                    List<NDArray> acts = kept.remove(op.microbatch());
                    NDArray g = s == stages - 1 ? acts.get(k).sub(tb.index(op.microbatch())).mul(scale)
                            : gradInbox.remove(op.microbatch());
                    if (g == null) {
                        g = NDArray.zeros(DType.FLOAT32, rows, d);
                    }
                    for (int j = k - 1; j >= 0; j--) {
                        NDArray gz = NDArray.where(acts.get(j + 1).greater(0), g, 0.0);
                        grads.set(j, grads.get(j).add(acts.get(j).matmul(true, gz, false)));
                        g = gz.matmul(false, wb.index(j), true);
                    }
                    sendDown = g;
                }
                if (sends(table, step, true)) {
                    NDArray got = Collectives.ppermute(sendUp, "stage", up);
                    Unit from = s > 0 ? table[s - 1][step] : null;
                    if (from != null && from.forward()) {
                        inbox.put(from.microbatch(), got);
                    }
                }
                if (sends(table, step, false)) {
                    NDArray got = Collectives.ppermute(sendDown, "stage", bend == Bend.GRADIENTS_SENT_UP ? up : down);
                    Unit from = s + 1 < stages ? table[s + 1][step] : null;
                    if (from != null && !from.forward()) {
                        gradInbox.put(from.microbatch(), got);
                    }
                }
            }
            if (bend == Bend.ZEROS) {
                return List.of(NDArray.stack(0, grads).mul(0f));
            }
            if (bend == Bend.GRADIENTS_TO_NEXT_STAGE && stages > 1) {
                return List.of(Collectives.ppermute(NDArray.stack(0, grads), "stage", up));
            }
            return List.of(NDArray.stack(0, grads));
        }, w.mesh(), List.of(bend == Bend.REPLICATED_WEIGHTS ? P() : P("stage"), P(), P()), List.of(P("stage")))
                .named("pipeline").call(List.of(w, x, t)).get(0);
    }

    /** No microbatches: all M·b rows through stage 0, then stage 1, …, and back (one stage busy at a time). */
    private static NDArray wholeBatch(NDArray wb, NDArray xb, NDArray tb, int s, int stages, int[][] up,
                                      int[][] down) {
        int all = xb.shape()[0] * xb.shape()[1];
        int d = xb.shape()[2];
        int k = wb.shape()[0];
        NDArray a = xb.reshape(all, d);
        List<NDArray> acts = List.of();
        for (int stage = 0; stage < stages; stage++) {
            if (stage > 0) {
                a = Collectives.ppermute(a, "stage", up);
            }
            if (stage == s) {
                acts = new ArrayList<>();
                for (int j = 0; j < k; j++) {
                    acts.add(a);
                    a = a.matmul(wb.index(j)).relu();
                }
                acts.add(a);
            }
        }
        NDArray g = acts.get(k).sub(tb.reshape(all, d)).mul(1f / all);
        List<NDArray> grads = new ArrayList<>();
        for (int stage = stages - 1; stage >= 0; stage--) {
            if (stage < stages - 1) {
                g = Collectives.ppermute(g, "stage", down);
            }
            if (stage == s) {
                for (int j = k - 1; j >= 0; j--) {
                    NDArray gz = NDArray.where(acts.get(j + 1).greater(0), g, 0.0);
                    grads.add(0, acts.get(j).matmul(true, gz, false));
                    g = gz.matmul(false, wb.index(j), true);
                }
            }
        }
        return NDArray.stack(0, grads);
    }

    /**
     * 7.2bp's analogue of the reviewed cheats 7.1p-V and 7.3p-V: at the measured size (D ≥ 256) every stage reads the
     * whole stack W through views the host took before the shardMap, differentiates all L layers on all M·b rows and
     * keeps its own layers' gradients, no ppermute at all; smaller cases run the right pipeline, so 7.2b's example
     * passes. 7.2b's own rules now run on the measured trace.
     */
    @Test
    void theWholeStackReadThroughHostViewsAtTheMeasuredSizeIsNotTimed() {
        PipelineChecks.Pipeline views = (w, x, t) -> {
            if (w.shape()[1] < 256) {
                return pipeline(w, x, t, true, Bend.NONE);
            }
            java.util.function.Supplier<NDArray> ww = FsdpTpWrongImplementationsTest.whole(w);
            int layers = w.shape()[0];
            int d = w.shape()[1];
            return ShardMap.shardMap(b -> {
                int stages = Collectives.axisSize("stage");
                int me = Collectives.axisIndex("stage").intAt();
                int k = layers / stages;
                NDArray whole = ww.get();
                List<NDArray> stack = new ArrayList<>();
                for (int l = 0; l < layers; l++) {
                    stack.add(whole.slice(0, l, l + 1).reshape(d, d));
                }
                NDArray xs = b.get(1).reshape(x.shape()[0] * x.shape()[1], d);
                NDArray ts = b.get(2).reshape(x.shape()[0] * x.shape()[1], d);
                List<NDArray> g = Autodiff.<NDArray>gradList(ws -> {
                    NDArray a = xs;
                    for (NDArray wl : ws) {
                        a = a.matmul(wl).relu();
                    }
                    return a.sub(ts).square().sum(-1).mean().mul(0.5f);
                }).apply(stack);
                List<NDArray> mine = new ArrayList<>();
                for (int l = me * k; l < (me + 1) * k; l++) {
                    mine.add(g.get(l).reshape(1, d, d));
                }
                return List.of(NDArray.concat(0, mine));
            }, w.mesh(), List.of(P("stage"), P(), P()), List.of(P("stage"))).call(List.of(w, x, t)).get(0);
        };
        GradingFailure f = rejected(Kind.STRUCTURE, () -> PipelineChecks.oneFOneBTime(views));
        assertTrue(f.reason().startsWith("does not run each microbatch through each stage once: stage 0 runs 0"
                + " forward(s)"), f.reason());
    }
}
