package dev.shardlings.grader.chapter7;

import dev.shardlings.array.BinaryOp;
import dev.shardlings.array.CompareOp;
import dev.shardlings.array.DataOp;
import dev.shardlings.array.NDArray;
import dev.shardlings.array.UnaryOp;
import dev.shardlings.cost.ModelDtype;
import dev.shardlings.events.Collective;
import dev.shardlings.events.DeviceTrace;
import dev.shardlings.events.ShardMapTrace;
import dev.shardlings.events.TraceEvent;
import dev.shardlings.events.TraceEvent.CollectiveEvent;
import dev.shardlings.events.TraceEvent.LocalOpEvent;
import dev.shardlings.events.TraceEvent.MatmulEvent;
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
import dev.shardlings.spmd.ShardedArray;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import static dev.shardlings.grader.chapter7.Chapter7Course.CHAPTER;
import static dev.shardlings.grader.parts.Part.example;
import static dev.shardlings.grader.parts.Part.property;
import static dev.shardlings.sharding.PartitionSpec.P;

/**
 * Part 7.2, pipeline parallelism: the rows of 7.2a (GPipe) and 7.2b (1F1B), then their checks. Two parts with one
 * method each, not one part, because the two schedules compute the same gradients and differ only in the order
 * each stage works in: a student who writes GPipe has earned its points before reordering it into 1F1B. Values
 * come from an oracle in double precision on the whole arrays; the schedule is read from the trace (below).
 */
public final class PipelineChecks {

    private static final String D = "docs/chapter-7.md#";

    /** The schedule a part asks for. */
    public enum Schedule {
        /** Every microbatch's forward, then every one's backward, on each stage. */
        GPIPE("GPipe"),
        /** A few forwards, then one forward and one backward in turn, then the last backwards. */
        ONE_F_ONE_B("1F1B");

        private final String title;

        Schedule(String title) {
            this.title = title;
        }

        /** "GPipe" or "1F1B". */
        public String title() {
            return title;
        }
    }

    /** Parts 7.2a and 7.2b: the gradient of the pipelined stack. */
    @FunctionalInterface
    public interface Pipeline {
        ShardedArray apply(ShardedArray w, ShardedArray x, ShardedArray t);
    }

    /** {@code Chapter7.gpipe}. */
    public static final CourseMethod<Pipeline> C7_GPIPE = CHAPTER.method("gpipe", Pipeline.class, ShardedArray.class, ShardedArray.class, ShardedArray.class, ShardedArray.class);
    /** {@code Chapter7.oneFOneB}. */
    public static final CourseMethod<Pipeline> C7_ONE_F_ONE_B = CHAPTER.method("oneFOneB", Pipeline.class, ShardedArray.class, ShardedArray.class, ShardedArray.class, ShardedArray.class);

    /** Part 7.2a. */
    public static final Part P7_2A = CHAPTER.part("7.2a", "pipeline parallelism: GPipe", 2, "Gpipe")
            .calls(C7_GPIPE)
            .docs(D + "part-72a-gpipe")
            .hint("each step, every stage does at most one microbatch's forward (or backward) and then hands it on"
                    + " with one ppermute: which microbatch may stage s start at step t, and when does its first"
                    + " backward's gradient arrive from the last stage?")
            .requires(C7_GPIPE, "dW (float tolerance) laid out P('stage')", Check.VALUES, Check.LAYOUT)
            .requires(C7_GPIPE, "a hand-written shardMap", Check.USES_SHARD_MAP)
            .requires(C7_GPIPE, "only ppermutes over 'stage', each between neighbouring stages and of at most one"
                    + " microbatch's activations or gradients (b·D elements)", Check.COLLECTIVES, Check.RING_STEPS)
            .requires(C7_GPIPE, "no program hands a stage more than its own k layers of W and the whole X and T",
                    Check.DEVICE_MEMORY)
            .requires(C7_GPIPE, "the schedule read from the trace: each stage runs every microbatch's forward once"
                    + " and its backward once, at most one of each per step, every forward before any backward",
                    Check.SCHEDULE)
            .requires(C7_GPIPE, "a bubble of at most (p − 1)/(M + p − 1) of the steps", Check.SCHEDULE)
            .graded(cases(), examples(), c -> pipeline(C7_GPIPE.proxy(), c, Schedule.GPIPE));

    /** Part 7.2b. */
    public static final Part P7_2B = CHAPTER.part("7.2b", "pipeline parallelism: 1F1B", 2, "OneFOneB")
            .calls(C7_ONE_F_ONE_B)
            .docs(D + "part-72b-one-forward-one-backward")
            .hint("how many microbatches must stage s have sent on before the first gradient can come back to it?"
                    + " After those, let every forward be followed by a backward: what does each stage keep then?")
            .requires(C7_ONE_F_ONE_B, "dW (float tolerance) laid out P('stage')", Check.VALUES, Check.LAYOUT)
            .requires(C7_ONE_F_ONE_B, "a hand-written shardMap", Check.USES_SHARD_MAP)
            .requires(C7_ONE_F_ONE_B, "only ppermutes over 'stage', each between neighbouring stages and of at most"
                    + " one microbatch's activations or gradients (b·D elements)", Check.COLLECTIVES, Check.RING_STEPS)
            .requires(C7_ONE_F_ONE_B, "no program hands a stage more than its own k layers of W and the whole X and"
                    + " T", Check.DEVICE_MEMORY)
            .requires(C7_ONE_F_ONE_B, "the schedule read from the trace: each stage runs every microbatch's forward"
                    + " once and its backward once, at most one of each per step", Check.SCHEDULE)
            .requires(C7_ONE_F_ONE_B, "a bubble of at most (p − 1)/(M + p − 1) of the steps", Check.SCHEDULE)
            .requires(C7_ONE_F_ONE_B, "stage s keeps at most p − s microbatches' activations at once",
                    Check.DEVICE_MEMORY)
            .graded(cases(), examples(), c -> pipeline(C7_ONE_F_ONE_B.proxy(), c, Schedule.ONE_F_ONE_B));

    /** 7.2bp's measured run: 4 stages of 2 layers, D = 256, 8 microbatches of 32 rows (the values drawn per run). */
    static final PipelineCase PERF_SHAPE = new PipelineCase(4, 2, 8, 32, 256, 0);

    /** 7.2bp's hardware and dtype: TPU v5e in bfloat16, as the other performance parts of the course. */
    public static final TimedSetting SETTING_72 = new TimedSetting("tpu-v5e", ModelDtype.BFLOAT16, "mesh ('stage':"
            + " 4); L = 8 layers of D = 256, M = 8 microbatches of b = 32 rows, 1F1B");

    /** 7.2bp's floor on a stage's matmul FLOPs, its rule's text without the measured size's numbers. */
    private static final String PIPELINE_FLOPS = "every stage runs each microbatch forward through its layers and takes"
            + " their weights' gradients, at least 4·M·k·b·D² FLOPs";

    /** Part 7.2bp. */
    public static final Part P7_2P = CHAPTER.part("7.2bp", "7.2b modelled time, TPU v5e", 1, "Performance")
            .calls(C7_ONE_F_ONE_B)
            .docs(D + "performance-72bp")
            .hint("the reference runs each stage's unit as soon as its input has arrived, writes the backward by hand"
                    + " (two matmuls and a mask per layer) and does nothing else at full size; compare your timeline"
                    + " (written under grader/target/grade/profiles/) with the schedule in docs/chapter-7.md.")
            .requires(Requirement.measuredProgram(C7_ONE_F_ONE_B, P7_2B.requirements(), PIPELINE_FLOPS))
            .timed(SETTING_72, () -> oneFOneBTime(C7_ONE_F_ONE_B.proxy()));

    /** Chapter 7's pipeline parts, in course order: the programs, then the modelled-time part. */
    public static final List<Part> PARTS = List.of(P7_2A, P7_2B, P7_2P);

    private static Part.Property<PipelineCase> cases() {
        return property("stagesMicrobatchesAndValues", 25, "7002", PipelineCase::cases);
    }

    /** Fixed examples: 4 stages of 2 layers and 6 microbatches (the picture of the docs), and one device. */
    private static List<Part.Example<PipelineCase>> examples() {
        return List.of(example("fourStages", new PipelineCase(4, 2, 6, 2, 5, 72)),
                example("oneDevice", new PipelineCase(1, 3, 2, 3, 4, 73)));
    }

    // ------------------------------------------------------------------------------------------ checks

    private PipelineChecks() {
    }

    /** Float32 sums along a stack of up to 32 layers, against double. */
    static final Tolerance TOLERANCE = new Tolerance(2e-4, 2e-4);

    /**
     * 7.2a, 7.2b: dW (float tolerance) laid out P('stage'); a hand-written shardMap; only ppermutes over 'stage'
     * between neighbours; the schedule read from the trace (every microbatch forward and backward once per stage,
     * at most one of each per step; GPipe: every forward before any backward); a bubble of at most
     * (p − 1)/(M + p − 1); 1F1B: stage s keeps at most p − s microbatches' activations.
     */
    public static void pipeline(Pipeline impl, PipelineCase c, Schedule schedule) {
        NDArray w = c.weights();
        NDArray x = c.inputs();
        NDArray t = c.targets();
        ShardedArray ws = ShardedArray.devicePut(w, c.mesh(), P("stage"));
        ShardedArray xs = ShardedArray.devicePut(x, c.mesh(), P());
        ShardedArray ts = ShardedArray.devicePut(t, c.mesh(), P());
        Part part = schedule == Schedule.GPIPE ? P7_2A : P7_2B;
        CaseRun<ShardedArray> run = Guard.run(part, c.describe(), () -> impl.apply(ws, xs, ts));
        NDArray expected = gradients(w, x, t);
        Checks.shardedResult(run, Reports.inputs("Input W", w, "Input X", x, "Input T", t), expected, P("stage"),
                TOLERANCE, null, List.of(new Checks.Mistake("dividing the gradients by M once more (the"
                        + " microbatches averaged twice)", expected.mul(1f / c.micro()), "the loss is already the"
                        + " mean over all M·b rows, so dY = (y − t)/(M·b) and the microbatches' gradients are only"
                        + " added up")));
        Checks.usesShardMap(run);
        structure(run, c, schedule);
    }

    /**
     * 7.2a/7.2b's structural rules on a run's trace: neighbour ppermutes only, a stage's arguments, the schedule,
     * the bubble and (1F1B) the activations kept. 7.2bp applies them to its measured run too: a program that runs
     * other code at the measured size (the whole stack on every stage, read through views the host took) must not
     * be timed.
     */
    static void structure(CaseRun<?> run, PipelineCase c, Schedule schedule) {
        TraceRules.perDevice(run, "communicates other than by neighbour ppermutes", "only ppermutes over 'stage',"
                + " each sending from every stage s to s + 1 (activations) or from every s + 1 to s (gradients) at"
                + " most one microbatch's f32[" + c.rows() + ", " + c.width() + "]", neighbourPpermutes(c));
        long bytes = 4L * ((long) c.layersPerStage() * c.width() * c.width() + 2L * c.micro() * c.rows() * c.width())
                + Math.min(CONSTANTS, 4L * c.width() * c.width() - 4);
        TraceRules.perDevice(run, "holds more than its own layers", "no program hands a stage more than its own "
                + c.layersPerStage() + " layer(s) of W and the whole X and T, 4·(k·D² + 2·M·b·D) = " + bytes
                + " bytes (a few scalar constants included)", TraceRules.argumentBytesAtMost(bytes, "keep W split"
                + " over 'stage' (in spec P('stage')) so that each stage holds only its own layers"));
        StageSteps[] steps = read(run, c);
        scheduleKept(run, c, schedule, steps);
        bubbleKept(run, c, steps);
        if (schedule == Schedule.ONE_F_ONE_B) {
            activationsKept(run, c, steps);
        }
    }

    /**
     * The seeds of the measured run's values, drawn by the judge for every run: the modelled time depends on shapes
     * only, so the grade stays the same, and values nobody knows before the run leave nothing to precompute.
     */
    private static final java.security.SecureRandom PERF_SEEDS = new java.security.SecureRandom();

    /** 7.2bp: the 1F1B pipeline at the measured size, modelled, after 7.2b's first example passes; 7.2b's rules on its run. */
    public static TimedResult oneFOneBTime(Pipeline impl) {
        PipelineCase c = new PipelineCase(PERF_SHAPE.stages(), PERF_SHAPE.layersPerStage(), PERF_SHAPE.micro(),
                PERF_SHAPE.rows(), PERF_SHAPE.width(), PERF_SEEDS.nextLong());
        NDArray w = c.weights();
        NDArray x = perfInputs(c, w);
        NDArray t = c.targets();
        ShardedArray ws = ShardedArray.devicePut(w, c.mesh(), P("stage"));
        ShardedArray xs = ShardedArray.devicePut(x, c.mesh(), P());
        ShardedArray ts = ShardedArray.devicePut(t, c.mesh(), P());
        return ModelledTime.check(P7_2P, P7_2B, () -> pipeline(impl, examples().get(0).value(),
                Schedule.ONE_F_ONE_B), SETTING_72, () -> impl.apply(ws, xs, ts), run -> {
                    if (!(run.value() instanceof ShardedArray got)) {
                        throw run.report("returned something other than a placed array")
                                .failure(GradingFailure.Kind.WRONG_SHAPE, "not a ShardedArray");
                    }
                    CaseRun<ShardedArray> r = new CaseRun<>(run.part(), run.caseText(), got, run.trace());
                    Checks.usesShardMap(r);
                    Checks.shardedResult(r, "(the performance part's inputs)", gradients(w, x, t), P("stage"),
                            TOLERANCE, null);
                    // 7.2b's own rules at the measured size: the schedule's ppermutes are what every stage must
                    // receive (the floor 3.0p–4.2p set with MeasuredRun), read from the trace.
                    structure(r, c, Schedule.ONE_F_ONE_B);
                    long share = 4L * c.micro() * c.layersPerStage() * c.rows() * c.width() * c.width();
                    TraceRules.perDevice(r, "does less than its share of the work on the devices",
                            PIPELINE_FLOPS.replace(" FLOPs", " = " + share + " FLOPs"), TraceRules.flopsAtLeast(share,
                            "4·M·k·b·D²"));
                });
    }

    /**
     * How close to zero a pre-activation of the measured run may come. float32's rounding of a deep layer's z is
     * about 1e-6 here (D = 256, 8 layers, |z| up to a few units); at a z closer to zero than that, the double oracle
     * and a right float32 program may take opposite sides of the relu, and a whole column of dW then differs: 7.2bp
     * failed a right pipeline now and then that way (every drawn case has a z within 1e-5 of zero somewhere among
     * its half a million). A hundred times the typical rounding keeps every relu decision the same in both.
     */
    static final double TIE = 1e-4;

    /**
     * X for the measured run of {@code c}: {@code c.inputs()} with every row whose path through the stack comes
     * within {@link #TIE} of a relu's zero drawn again (from the case's seed, so the run stays reproducible from it),
     * until none does. Rows are independent in the forward pass, so redrawing one changes no other row's path; an
     * exact zero of the first layer may stay, since its inputs and weights are multiples of powers of two and
     * float32 computes it exactly.
     */
    static NDArray perfInputs(PipelineCase c, NDArray w) {
        NDArray x = c.inputs();
        int micro = x.shape()[0];
        int rows = x.shape()[1];
        int d = x.shape()[2];
        double[][][] wd = toDouble(w);
        float[] v = x.toFloatArray();
        java.util.Random draws = new java.util.Random(c.seed() ^ 0x7e5_71e5L);
        for (int row = 0; row < micro * rows; row++) {
            double[] a = new double[d];
            for (int tries = 0; tries < 1000; tries++) {
                for (int j = 0; j < d; j++) {
                    a[j] = v[row * d + j];
                }
                if (nearestReluTie(wd, a) >= TIE) {
                    break;
                }
                for (int j = 0; j < d; j++) {
                    v[row * d + j] = (draws.nextInt(16) + 1) / 16f; // as PipelineCase.inputs draws them
                }
            }
        }
        return NDArray.fromFloats(v, micro, rows, d);
    }

    /**
     * The smallest |z| of the pre-activations z = a·W_l of one row's path through the stack (see perfInputs). A row
     * that dies (every relu output zero) at some layer gives exact zeros in every later layer, in float32 as in
     * double, so those are no ties: they end the walk (counting them redrew such a row a thousand times in vain).
     */
    static double nearestReluTie(double[][][] w, double[] row) {
        int d = row.length;
        double[] a = row.clone();
        double nearest = Double.POSITIVE_INFINITY;
        for (int l = 0; l < w.length; l++) {
            if (java.util.Arrays.stream(a).allMatch(ai -> ai == 0)) {
                break;
            }
            double[] z = new double[d];
            for (int i = 0; i < d; i++) {
                double ai = a[i];
                if (ai != 0) {
                    double[] wi = w[l][i];
                    for (int j = 0; j < d; j++) {
                        z[j] += ai * wi[j];
                    }
                }
            }
            for (int j = 0; j < d; j++) {
                if (l > 0 || z[j] != 0) {
                    nearest = Math.min(nearest, Math.abs(z[j]));
                }
                a[j] = Math.max(z[j], 0);
            }
        }
        return nearest;
    }

    static double[][][] toDouble(NDArray w) {
        int layers = w.shape()[0];
        int d = w.shape()[1];
        double[][][] wd = new double[layers][d][d];
        for (int l = 0; l < layers; l++) {
            for (int i = 0; i < d; i++) {
                for (int j = 0; j < d; j++) {
                    wd[l][i][j] = w.floatAt(l, i, j);
                }
            }
        }
        return wd;
    }

    /**
     * What a program's scalar constants may add to its arguments (the 0 of the relu, 1/(M·b), …): a few float32
     * scalars, always less than one layer of W (the bound takes the smaller).
     */
    static final long CONSTANTS = 8 * 4;

    /** Every collective is a ppermute over 'stage' whose pairs all go one stage up, or all one stage down. */
    private static Rule neighbourPpermutes(PipelineCase c) {
        long most = (long) c.rows() * c.width();
        return Rule.of(Check.COLLECTIVES, d -> {
            for (CollectiveEvent e : d.collectives()) {
                if (e.kind() != Collective.PPERMUTE || !e.axes().equals(List.of("stage"))) {
                    return "it runs " + e.describe() + "; a pipeline hands activations and gradients on with"
                            + " ppermute over 'stage' alone";
                }
                long size = e.inputShape().stream().mapToLong(Integer::longValue).reduce(1, (a, b) -> a * b);
                if (size > most) {
                    return "it runs " + e.describe() + ", which sends " + size + " elements; a step hands on one"
                            + " microbatch's activations or gradients, f32[" + c.rows() + ", " + c.width() + "] = "
                            + most + " elements";
                }
                int up = 0;
                int down = 0;
                for (List<Integer> pair : e.permutation()) {
                    int step = pair.get(1) - pair.get(0);
                    if (step == 1) {
                        up++;
                    } else if (step == -1) {
                        down++;
                    } else if (step != 0) {
                        return "it runs " + e.describe() + ", whose pair " + pair + " is not between neighbouring"
                                + " stages";
                    }
                }
                if (up > 0 && down > 0) {
                    return "it runs " + e.describe() + ", which sends both up and down the pipeline at once";
                }
            }
            return null;
        }).and(Rule.of(Check.RING_STEPS, d -> null)).withHint("send activations with perm pairs (s, s + 1) for"
                + " s < p − 1 and gradients with (s + 1, s): no pair wraps from the last stage to the first");
    }

    /**
     * What one stage did in each step of the program, a step being the stretch between two of its collectives or
     * programs (every collective is a barrier of all stages, so step t is the same stretch of time on every stage): the
     * layers it ran forward (ReLUs of shape [b, D]) and backward (weight-gradient matmuls [D, b] · [b, D]), and the
     * running count of microbatches it keeps activations for (forwards done minus backwards done, in event order).
     */
    record StageSteps(int stage, int[] forwardLayers, int[] backwardLayers, int peakKept, int firstBackwardBefore) {
    }

    /**
     * Each stage's steps, in stage order. A step ends at every collective and at the end of every program (a
     * shardMap call, or an eager operation on placed arrays: its end is a barrier too), so a pipeline written as one
     * shardMap per step reads the same as one written in a single shardMap.
     */
    private static StageSteps[] read(CaseRun<?> run, PipelineCase c) {
        java.util.Map<Integer, List<TraceEvent>> byStage = new java.util.TreeMap<>();
        List<ShardMapTrace> programs = run.trace().shardMaps();
        for (int call = 0; call < programs.size(); call++) {
            for (DeviceTrace d : programs.get(call).devices()) {
                List<TraceEvent> events = byStage.computeIfAbsent(d.coords().get(0), k -> new ArrayList<>());
                if (call > 0) {
                    events.add(null);
                }
                events.addAll(d.events());
            }
        }
        int gaps = 1;
        for (List<TraceEvent> events : byStage.values()) {
            gaps = Math.max(gaps, (int) events.stream().filter(e -> e == null || e instanceof CollectiveEvent)
                    .count() + 1);
        }
        StageSteps[] out = new StageSteps[c.stages()];
        List<Integer> act = List.of(c.rows(), c.width());
        for (var entry : byStage.entrySet()) {
            int stage = entry.getKey();
            int[] fwd = new int[gaps];
            int[] bwd = new int[gaps];
            int gap = 0;
            int forwards = 0;
            int backwards = 0;
            int peak = 0;
            int forwardsBeforeBackward = -1;
            java.util.Map<Long, TraceEvent> byId = new java.util.HashMap<>();
            for (TraceEvent e : entry.getValue()) {
                if (e != null) {
                    byId.put(e.id(), e);
                }
            }
            for (TraceEvent e : entry.getValue()) {
                if (e == null || e instanceof CollectiveEvent) {
                    gap++;
                } else if (e instanceof LocalOpEvent op && op.shape().equals(act) && isRelu(op, byId)) {
                    fwd[gap]++;
                    forwards++;
                    peak = Math.max(peak, ceilDiv(forwards, c.layersPerStage()) - backwards / c.layersPerStage());
                } else if (e instanceof MatmulEvent m && m.m() == c.width() && m.k() == c.rows()
                        && m.n() == c.width()) {
                    bwd[gap]++;
                    if (backwards == 0) {
                        forwardsBeforeBackward = forwards / c.layersPerStage();
                    }
                    backwards++;
                }
            }
            out[stage] = new StageSteps(stage, fwd, bwd, peak, forwardsBeforeBackward);
        }
        return out;
    }

    /**
     * Whether an operation is a layer's relu: relu(z) or max(z, 0), or z masked by its own sign, as where(z &gt; 0,
     * z, 0) or z · (z &gt; 0) write it (one of the operation's operands is z itself, another a comparison of z,
     * perhaps converted). The backward's mask where(a &gt; 0, g, 0) masks another array than the one compared, so
     * it is no forward.
     */
    static boolean isRelu(LocalOpEvent op, java.util.Map<Long, TraceEvent> byId) {
        if (op.op() == UnaryOp.RELU || op.op() == BinaryOp.MAX) {
            return true;
        }
        for (long in : op.inputs()) {
            TraceEvent cmp = byId.get(in);
            if (cmp instanceof LocalOpEvent conv && conv.op() == DataOp.CONVERT && conv.inputs().size() == 1) {
                cmp = byId.get(conv.inputs().get(0));
            }
            if (cmp instanceof LocalOpEvent c && c.op() instanceof CompareOp) {
                for (long z : c.inputs()) {
                    // z must be an array of the layer's shape (a scalar 0 of the comparison is no z).
                    TraceEvent made = byId.get(z);
                    boolean sameShape = made instanceof LocalOpEvent o && o.shape().equals(op.shape())
                            || made instanceof MatmulEvent m && List.of(m.m(), m.n()).equals(op.shape());
                    if (z != in && sameShape && op.inputs().contains(z)) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    private static int ceilDiv(int a, int b) {
        return (a + b - 1) / b;
    }

    /**
     * The order rules: on every stage each step runs whole microbatches through the stage's k layers, at most one
     * forward and one backward; M forwards and M backwards in all; GPipe's stages finish every forward first.
     */
    private static void scheduleKept(CaseRun<?> run, PipelineCase c, Schedule schedule, StageSteps[] steps) {
        CheckLog.ran(Check.SCHEDULE);
        int k = c.layersPerStage();
        for (StageSteps s : steps) {
            int forwards = 0;
            int backwards = 0;
            for (int g = 0; g < s.forwardLayers().length; g++) {
                int f = s.forwardLayers()[g];
                int b = s.backwardLayers()[g];
                if (f % k != 0 || b % k != 0) {
                    throw scheduleReport(run, c, steps, "splits a microbatch's pass over steps", "stage "
                            + s.stage() + " runs " + (f % k != 0 ? f + " layer(s) forward" : b + " layer(s) backward")
                            + " in step " + g + ", not whole microbatches through its " + k + " layers");
                }
                // One stage sends nothing, so its program has no collectives to cut it into steps.
                if (c.stages() > 1 && (f > k || b > k)) {
                    throw scheduleReport(run, c, steps, "runs several microbatches in one step (a serial run)",
                            "stage " + s.stage() + " runs " + (f > k ? f / k + " microbatches forward" : b / k
                            + " microbatches backward") + " in step " + g + "; a pipeline step moves one"
                            + " microbatch per stage, so that the next stage can start on it");
                }
                forwards += f / k;
                backwards += b / k;
            }
            if (forwards != c.micro() || backwards != c.micro()) {
                throw scheduleReport(run, c, steps, "does not run each microbatch through each stage once",
                        "stage " + s.stage() + " runs " + forwards + " forward(s) and " + backwards + " backward(s)"
                        + " of one microbatch (f32[" + c.rows() + ", " + c.width() + "] through its layers); expected"
                        + " " + c.micro() + " of each, one per microbatch");
            }
            if (schedule == Schedule.GPIPE && s.firstBackwardBefore() < c.micro()) {
                throw scheduleReport(run, c, steps, "starts a backward before its last forward (not GPipe)",
                        "stage " + s.stage() + " starts its first backward after " + s.firstBackwardBefore()
                        + " of its " + c.micro() + " forwards; GPipe runs every microbatch forward first");
            }
        }
    }

    /**
     * The bubble: each step lasts as long as its busiest stage (a forward and a backward of one microbatch count
     * one unit each), and the bubble is the share of stage-steps left idle, 1 − 2M / (units of all steps). GPipe and
     * 1F1B both reach (p − 1)/(M + p − 1); a serial run (one stage at a time) leaves (p − 1)/p.
     */
    private static void bubbleKept(CaseRun<?> run, PipelineCase c, StageSteps[] steps) {
        CheckLog.ran(Check.SCHEDULE);
        int k = c.layersPerStage();
        int units = 0;
        for (int g = 0; g < steps[0].forwardLayers().length; g++) {
            int most = 0;
            for (StageSteps s : steps) {
                most = Math.max(most, (s.forwardLayers()[g] + s.backwardLayers()[g]) / k);
            }
            units += most;
        }
        int p = c.stages();
        int m = c.micro();
        int best = 2 * (m + p - 1);
        if (units > best) {
            throw scheduleReport(run, c, steps, "leaves a bubble larger than (p − 1)/(M + p − 1)",
                    String.format(Locale.ROOT, "the steps take %d units (a stage's forward or backward of one"
                            + " microbatch each), so the stages idle %.3f of the time; a pipeline of p = %d stages and"
                            + " M = %d microbatches needs only 2(M + p − 1) = %d units, a bubble of (p − 1)/(M + p − 1)"
                            + " = %.3f", units, 1 - 2.0 * m / units, p, m, best, (p - 1.0) / (m + p - 1)));
        }
    }

    /**
     * 1F1B's memory: a stage keeps a microbatch's activations from its forward to its backward; counted in event
     * order (forwards begun minus backwards finished), stage s may keep at most p − s at once (GPipe keeps M).
     */
    private static void activationsKept(CaseRun<?> run, PipelineCase c, StageSteps[] steps) {
        CheckLog.ran(Check.DEVICE_MEMORY);
        for (StageSteps s : steps) {
            int most = c.stages() - s.stage();
            if (s.peakKept() > most) {
                throw scheduleReport(run, c, steps, "keeps more activations than 1F1B",
                        "stage " + s.stage() + " keeps the activations of up to " + s.peakKept() + " microbatches at"
                        + " once (from a forward to its backward); 1F1B keeps at most p − s = " + most
                        + ": after stage s has sent p − s − 1 microbatches on, each forward is followed by a"
                        + " backward");
            }
        }
    }

    private static GradingFailure scheduleReport(CaseRun<?> run, PipelineCase c, StageSteps[] steps, String reason,
                                                 String what) {
        return run.report("computes the right gradients, but its schedule breaks a rule read from the trace")
                .paragraph(what + ".")
                .paragraph("Your schedule as the trace shows it: one column per step (the stretch between two"
                        + " collectives), F3 = the forward of the stage's fourth microbatch, B0 = the backward of its"
                        + " first, . = idle:")
                .lines(grid(c, steps))
                .failure(GradingFailure.Kind.STRUCTURE, reason + ": " + Guard.clip(what, 200));
    }

    /** The schedule as a table: a row per stage, a column per step that any stage worked in. */
    static String grid(PipelineCase c, StageSteps[] steps) {
        int k = c.layersPerStage();
        int gaps = steps[0].forwardLayers().length;
        List<Integer> busy = new ArrayList<>();
        for (int g = 0; g < gaps; g++) {
            for (StageSteps s : steps) {
                if (s.forwardLayers()[g] + s.backwardLayers()[g] > 0) {
                    busy.add(g);
                    break;
                }
            }
        }
        StringBuilder sb = new StringBuilder();
        for (StageSteps s : steps) {
            sb.append(String.format(Locale.ROOT, "  stage %2d:", s.stage()));
            int f = 0;
            int b = 0;
            for (int g : busy) {
                StringBuilder cell = new StringBuilder();
                for (int j = 0; j < s.forwardLayers()[g] / k; j++) {
                    cell.append('F').append(f++);
                }
                for (int j = 0; j < s.backwardLayers()[g] / k; j++) {
                    cell.append('B').append(b++);
                }
                sb.append(' ').append(String.format(Locale.ROOT, "%-3s", cell.length() == 0 ? "." : cell));
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    /**
     * The oracle, in double on the whole arrays: each microbatch through every layer a ← relu(a · W[l]), the loss
     * mean over all M·b rows of ½‖y − t‖², so dY = (y − t)/(M·b), then back through the layers: dZ = dA where
     * z &gt; 0 (else 0), dW[l] += aᵀ · dZ, dA = dZ · W[l]ᵀ.
     */
    public static NDArray gradients(NDArray w, NDArray x, NDArray t) {
        int layers = w.shape()[0];
        int d = w.shape()[1];
        int micro = x.shape()[0];
        int rows = x.shape()[1];
        double[][][] wd = new double[layers][d][d];
        for (int l = 0; l < layers; l++) {
            for (int i = 0; i < d; i++) {
                for (int j = 0; j < d; j++) {
                    wd[l][i][j] = w.floatAt(l, i, j);
                }
            }
        }
        double[][][] dw = new double[layers][d][d];
        for (int m = 0; m < micro; m++) {
            double[][][] a = new double[layers + 1][rows][d];
            for (int r = 0; r < rows; r++) {
                for (int j = 0; j < d; j++) {
                    a[0][r][j] = x.floatAt(m, r, j);
                }
            }
            for (int l = 0; l < layers; l++) {
                for (int r = 0; r < rows; r++) {
                    for (int j = 0; j < d; j++) {
                        double z = 0;
                        for (int i = 0; i < d; i++) {
                            z += a[l][r][i] * wd[l][i][j];
                        }
                        a[l + 1][r][j] = Math.max(z, 0);
                    }
                }
            }
            double[][] g = new double[rows][d];
            for (int r = 0; r < rows; r++) {
                for (int j = 0; j < d; j++) {
                    g[r][j] = (a[layers][r][j] - t.floatAt(m, r, j)) / ((double) micro * rows);
                }
            }
            for (int l = layers - 1; l >= 0; l--) {
                double[][] gz = new double[rows][d];
                for (int r = 0; r < rows; r++) {
                    for (int j = 0; j < d; j++) {
                        gz[r][j] = a[l + 1][r][j] > 0 ? g[r][j] : 0;
                    }
                }
                for (int i = 0; i < d; i++) {
                    for (int j = 0; j < d; j++) {
                        for (int r = 0; r < rows; r++) {
                            dw[l][i][j] += a[l][r][i] * gz[r][j];
                        }
                    }
                }
                double[][] next = new double[rows][d];
                for (int r = 0; r < rows; r++) {
                    for (int i = 0; i < d; i++) {
                        for (int j = 0; j < d; j++) {
                            next[r][i] += gz[r][j] * wd[l][i][j];
                        }
                    }
                }
                g = next;
            }
        }
        float[] out = new float[layers * d * d];
        for (int l = 0; l < layers; l++) {
            for (int i = 0; i < d; i++) {
                for (int j = 0; j < d; j++) {
                    out[(l * d + i) * d + j] = (float) dw[l][i][j];
                }
            }
        }
        return NDArray.fromFloats(out, layers, d, d);
    }
}
