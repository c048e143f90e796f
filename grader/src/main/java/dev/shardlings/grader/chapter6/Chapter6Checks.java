package dev.shardlings.grader.chapter6;

import dev.shardlings.array.NDArray;
import dev.shardlings.cost.ModelDtype;
import dev.shardlings.events.Collective;
import dev.shardlings.events.Origin;
import dev.shardlings.events.ShardMapTrace;
import dev.shardlings.events.TraceEvent.CollectiveEvent;
import dev.shardlings.grader.checks.Checks.Tolerance;
import dev.shardlings.grader.checks.Checks;
import dev.shardlings.grader.checks.Generators;
import dev.shardlings.grader.checks.ModelledTime;
import dev.shardlings.grader.checks.TraceRules.Rule;
import dev.shardlings.grader.checks.TraceRules;
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
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.PartitionSpec;
import dev.shardlings.spmd.ShardedArray;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;

import static dev.shardlings.grader.parts.Part.example;
import static dev.shardlings.grader.parts.Part.property;
import static dev.shardlings.sharding.PartitionSpec.P;

/**
 * Chapter 6's parts (training: data, tensor and fully sharded parallelism) and their modelled-time parts, then
 * their checks (training seed 001's MLP): first the table, one row each, then the checks the rows run. Values come
 * from {@link Chapter6Oracles} (double precision, hand-written backpropagation); the communication and memory rules
 * read the trace of every program the implementation ran (each step's jitted program or shardMap).
 */
public final class Chapter6Checks {

    static final Part.Chapter CHAPTER = new Part.Chapter("chapter 6", "training", "Chapter6");

    private static final String PERFORMANCE_DOCS = "docs/chapter-6.md#performance-points";
    private static final String PERFORMANCE_HINT = "the reference moves each gradient (or shard) once, in the"
            + " collective the part names, and computes only its own rows or columns; compare your timeline (written"
            + " under grader/target/grade/profiles/) with the breakdown in docs/chapter-6.md.";

    /** The performance parts' hardware and dtype: TPU v5e in bfloat16, as Problem 3's. */
    private static TimedSetting setting(String caseText) {
        return new TimedSetting("tpu-v5e", ModelDtype.BFLOAT16, caseText);
    }

    /** The measured runs' MLP: large enough that compute and communication both show, small enough to run here. */
    static final List<Integer> PERF_SIZES = List.of(128, 256, 256, 256, 16);

    public static final TimedSetting SETTING_62 = setting("mesh ('batch': 4, 'model': 2); layer sizes "
            + PERF_SIZES + ", batch 64, one step");
    public static final TimedSetting SETTING_63 = setting("mesh ('batch': 8); layer sizes " + PERF_SIZES
            + ", batch 64, one step");
    public static final TimedSetting SETTING_64 = SETTING_63;
    public static final TimedSetting SETTING_65 = setting("mesh ('model': 8); B, D, F = 64, 256, 1024");

    private static final String D = "docs/chapter-6.md#";

    /** {@code Chapter6.trainDataParallel}. */
    public static final CourseMethod<Train> C6_TRAIN_DATA_PARALLEL = CHAPTER.method("trainDataParallel", Train.class, List.class, List.class, NDArray.class, NDArray.class, Mesh.class, int.class, float.class);
    /** {@code Chapter6.trainDataTensorParallel}. */
    public static final CourseMethod<Train> C6_TRAIN_DATA_TENSOR_PARALLEL = CHAPTER.method("trainDataTensorParallel", Train.class, List.class, List.class, NDArray.class, NDArray.class, Mesh.class, int.class, float.class);
    /** {@code Chapter6.dataParallelStep}. */
    public static final CourseMethod<TrainingStep> C6_DATA_PARALLEL_STEP = CHAPTER.method("dataParallelStep", TrainingStep.class, List.class, List.class, ShardedArray.class, ShardedArray.class, float.class);
    /** {@code Chapter6.fsdpStep}. */
    public static final CourseMethod<TrainingStep> C6_FSDP_STEP = CHAPTER.method("fsdpStep", TrainingStep.class, List.class, List.class, ShardedArray.class, ShardedArray.class, float.class);
    /** {@code Chapter6.megatronMlp}. */
    public static final CourseMethod<Block> C6_MEGATRON_MLP = CHAPTER.method("megatronMlp", Block.class, List.class, ShardedArray.class, ShardedArray.class, ShardedArray.class, ShardedArray.class);

    /** Part 6.1. */
    public static final Part P6_1 = CHAPTER.part("6.1", "data parallelism with jit(grad)", 2, "TrainDataParallel")
            .calls(C6_TRAIN_DATA_PARALLEL)
            .docs(D + "part-61-data-parallelism-with-jit")
            .hint("which arrays must every device hold whole, and which only its rows of? Then: what does one step's jitted"
                    + " function take and return, so that the gradients never leave the program? The compiler"
                    + " inserts the communication.")
            .requires(C6_TRAIN_DATA_PARALLEL, "trained parameters (float tolerance) and layouts, each P()", Check.VALUES, Check.LAYOUT)
            .requires(C6_TRAIN_DATA_PARALLEL, "one program compiled by jit per step that computes the gradients and"
                    + " the update, with no eager operation and no hand-written shardMap", Check.USES_JIT)
            .requires(C6_TRAIN_DATA_PARALLEL, "per device only all-reduces over 'batch', carrying the"
                    + " gradients' elements once per step", Check.COLLECTIVES)
            .requires(C6_TRAIN_DATA_PARALLEL, "no program hands a device more than the parameters and"
                    + " its rows of the batch", Check.DEVICE_MEMORY)
            .graded(cases(Chapter6Kind.DATA_PARALLEL), examples(Chapter6Kind.DATA_PARALLEL), c -> trainDataParallel(C6_TRAIN_DATA_PARALLEL.proxy(), c));

    /** Part 6.2. */
    public static final Part P6_2 = CHAPTER.part("6.2", "data and tensor parallelism with jit(grad)", 2, "TrainDataTensorParallel")
            .calls(C6_TRAIN_DATA_TENSOR_PARALLEL)
            .docs(D + "part-62-data-and-tensor-parallelism-with-jit")
            .hint("which of W2's dimensions must 'model' split so that the hidden layer after it is split too, and which"
                    + " of W3's so that its contraction completes with one all-reduce? b2 follows the dimension it is"
                    + " added to; everything else as in 6.1.")
            .requires(C6_TRAIN_DATA_TENSOR_PARALLEL, "trained parameters (float tolerance) and layouts:"
                    + " W2 P(None, 'model'), b2 P('model'), W3 P('model', None), the rest P()", Check.VALUES, Check.LAYOUT)
            .requires(C6_TRAIN_DATA_TENSOR_PARALLEL, "one program compiled by jit per step that computes the"
                    + " gradients and the update, with no eager operation and no hand-written shardMap", Check.USES_JIT)
            .requires(C6_TRAIN_DATA_TENSOR_PARALLEL, "per step two all-reduces over 'model' of"
                    + " activations (forward f32[B/batch, n3], backward f32[B/batch, n1]) and all-reduces over"
                    + " 'batch' of the gradients' blocks, nothing else", Check.COLLECTIVES)
            .requires(C6_TRAIN_DATA_TENSOR_PARALLEL, "no program hands a device more than its blocks of"
                    + " the parameters and its rows of the batch (W2 and W3 take 1/model of their bytes)", Check.DEVICE_MEMORY)
            .graded(cases(Chapter6Kind.DATA_TENSOR_PARALLEL), examples(Chapter6Kind.DATA_TENSOR_PARALLEL), c -> trainDataTensorParallel(C6_TRAIN_DATA_TENSOR_PARALLEL.proxy(), c));

    /** Part 6.3. */
    public static final Part P6_3 = CHAPTER.part("6.3", "data parallelism by hand (pmean)", 2, "DataParallelStep")
            .calls(C6_DATA_PARALLEL_STEP)
            .docs(D + "part-63-data-parallelism-by-hand")
            .hint("print one gradient's varyingAxes() inside the shardMap: is it already summed over 'batch' (the transpose"
                    + " of the implicit pvary of a replicated parameter), or still one device's own? Each gradient"
                    + " must be the mean over all rows exactly once (chapter-6.md, part 6.3).")
            .requires(C6_DATA_PARALLEL_STEP, "the parameters after one step (float tolerance), laid out"
                    + " P()", Check.VALUES, Check.LAYOUT)
            .requires(C6_DATA_PARALLEL_STEP, "a hand-written shardMap", Check.USES_SHARD_MAP)
            .requires(C6_DATA_PARALLEL_STEP, "every collective an all-reduce (psum or pmean) over"
                    + " 'batch' of one gradient, each parameter's once", Check.OPERANDS)
            .requires(C6_DATA_PARALLEL_STEP, "no program hands a device more than the parameters and"
                    + " its rows of the batch", Check.DEVICE_MEMORY)
            .graded(cases(Chapter6Kind.MANUAL_DATA_PARALLEL), examples(Chapter6Kind.MANUAL_DATA_PARALLEL), c -> dataParallelStep(C6_DATA_PARALLEL_STEP.proxy(), c));

    /** Part 6.4. */
    public static final Part P6_4 = CHAPTER.part("6.4", "fully sharded data parallelism (ZeRO-3)", 3, "FsdpStep")
            .calls(C6_FSDP_STEP)
            .docs(D + "part-64-fully-sharded-data-parallelism")
            .hint("where must the all-gather of a parameter's shard happen for Autodiff to see it, and what is the"
                    + " transpose of an all-gather? Then check the scale: whose loss is each device's gradient the"
                    + " gradient of, and how many devices add into each shard?")
            .requires(C6_FSDP_STEP, "the parameters after one step (float tolerance), each laid out"
                    + " P('batch')", Check.VALUES, Check.LAYOUT)
            .requires(C6_FSDP_STEP, "a hand-written shardMap", Check.USES_SHARD_MAP)
            .requires(C6_FSDP_STEP, "per device one all-gather over 'batch' of each parameter's shard"
                    + " and one reduce-scatter of each gradient, and no all-reduce", Check.OPERANDS)
            .requires(C6_FSDP_STEP, "no program hands a device more than its shards of the parameters"
                    + " and its rows of the batch", Check.DEVICE_MEMORY)
            .graded(cases(Chapter6Kind.FSDP), examples(Chapter6Kind.FSDP), c -> fsdpStep(C6_FSDP_STEP.proxy(), c));

    /** Part 6.5. */
    public static final Part P6_5 = CHAPTER.part("6.5", "Megatron's tensor-parallel MLP block", 2, "MegatronMlp")
            .calls(C6_MEGATRON_MLP)
            .docs(D + "part-65-megatrons-mlp-block")
            .hint("which collective completes Y in the forward pass, and what is its transpose? X is replicated while W1"
                    + " is split: what does the implicit pvary of X become in the backward pass (chapter-6.md, part"
                    + " 6.5)?")
            .requires(C6_MEGATRON_MLP, "Y, dX, dW1 and dW2 (float tolerance) laid out P(), P(), P(None,"
                    + " 'model'), P('model', None)", Check.VALUES, Check.LAYOUT)
            .requires(C6_MEGATRON_MLP, "a hand-written shardMap", Check.USES_SHARD_MAP)
            .requires(C6_MEGATRON_MLP, "exactly two collectives per device, psums over 'model' of"
                    + " f32[B, D] (forward and backward)", Check.COLLECTIVES, Check.OPERANDS)
            .requires(C6_MEGATRON_MLP, "exactly 12·B·D·F/M matmul FLOPs per device", Check.FLOPS)
            .graded(cases(Chapter6Kind.MEGATRON), examples(Chapter6Kind.MEGATRON), c -> megatronMlp(C6_MEGATRON_MLP.proxy(), c));

    /** Part 6.2p. */
    public static final Part P6_2P = CHAPTER.part("6.2p", "6.2 modelled step time, TPU v5e", 1, "Performance")
            .calls(C6_TRAIN_DATA_TENSOR_PARALLEL)
            .docs(PERFORMANCE_DOCS)
            .hint(PERFORMANCE_HINT)
            .requires(Requirement.trainingPerformance(C6_TRAIN_DATA_TENSOR_PARALLEL, Check.USES_JIT))
            .timed(SETTING_62, () -> trainDataTensorParallelTime(C6_TRAIN_DATA_TENSOR_PARALLEL.proxy()));

    /** Part 6.3p. */
    public static final Part P6_3P = CHAPTER.part("6.3p", "6.3 modelled step time, TPU v5e", 1, "Performance")
            .calls(C6_DATA_PARALLEL_STEP)
            .docs(PERFORMANCE_DOCS)
            .hint(PERFORMANCE_HINT)
            .requires(Requirement.trainingPerformance(C6_DATA_PARALLEL_STEP, Check.USES_SHARD_MAP))
            .timed(SETTING_63, () -> dataParallelStepTime(C6_DATA_PARALLEL_STEP.proxy()));

    /** Part 6.4p. */
    public static final Part P6_4P = CHAPTER.part("6.4p", "6.4 modelled step time, TPU v5e", 1, "Performance")
            .calls(C6_FSDP_STEP)
            .docs(PERFORMANCE_DOCS)
            .hint(PERFORMANCE_HINT)
            .requires(Requirement.trainingPerformance(C6_FSDP_STEP, Check.USES_SHARD_MAP))
            .timed(SETTING_64, () -> fsdpStepTime(C6_FSDP_STEP.proxy()));

    /** Part 6.5p. */
    public static final Part P6_5P = CHAPTER.part("6.5p", "6.5 modelled time, TPU v5e", 1, "Performance")
            .calls(C6_MEGATRON_MLP)
            .docs(PERFORMANCE_DOCS)
            .hint(PERFORMANCE_HINT)
            .requires(Requirement.trainingPerformance(C6_MEGATRON_MLP, Check.USES_SHARD_MAP))
            .timed(SETTING_65, () -> megatronMlpTime(C6_MEGATRON_MLP.proxy()));

    /** The parts of chapter 6, in course order. */
    public static final List<Part> PARTS = List.of(P6_1, P6_2, P6_3, P6_4, P6_5, P6_2P, P6_3P, P6_4P, P6_5P);

    /**
     * The cases every Chapter 6 part is graded on: a property over meshes (1–16 devices), layer sizes, batch rows,
     * steps and values, for the part's kind of case.
     */
    private static Part.Property<Chapter6Case> cases(Chapter6Kind kind) {
        return property("meshesSizesAndValues", 25, "6006", () -> Chapter6Case.cases(kind));
    }

    /**
     * Fixed examples: seed 001's meshes at a small size (8 devices along 'batch', or 4 × 2, or 'model' of 8 for
     * 6.5), and one device.
     */
    private static List<Part.Example<Chapter6Case>> examples(Chapter6Kind kind) {
        return List.of(example("seed001Mesh", switch (kind) {
            case DATA_PARALLEL -> new Chapter6Case(8, 0, List.of(6, 8, 8, 8, 3), 2, 3, 61);
            case MANUAL_DATA_PARALLEL -> new Chapter6Case(8, 0, List.of(6, 8, 8, 8, 3), 2, 0, 63);
            case DATA_TENSOR_PARALLEL -> new Chapter6Case(4, 2, List.of(6, 8, 8, 8, 3), 2, 3, 62);
            case FSDP -> new Chapter6Case(8, 0, List.of(8, 16, 16, 8, 8), 2, 0, 64);
            case MEGATRON -> new Chapter6Case(0, 8, List.of(4, 6, 16), 1, 0, 65);
        }), example("oneDevice", switch (kind) {
            case DATA_PARALLEL -> new Chapter6Case(1, 0, List.of(3, 4, 5, 4, 2), 3, 2, 71);
            case MANUAL_DATA_PARALLEL -> new Chapter6Case(1, 0, List.of(3, 4, 5, 4, 2), 3, 0, 73);
            case DATA_TENSOR_PARALLEL -> new Chapter6Case(1, 1, List.of(3, 4, 5, 4, 2), 3, 2, 72);
            case FSDP -> new Chapter6Case(1, 0, List.of(3, 4, 5, 4, 2), 3, 0, 74);
            case MEGATRON -> new Chapter6Case(0, 1, List.of(3, 4, 5), 1, 0, 75);
        }));
    }

    // ------------------------------------------------------------------------------------------ checks

    private Chapter6Checks() {
    }

    /** Parts 6.1 and 6.2: whole arrays on the host in, trained parameters out. */
    @FunctionalInterface
    public interface Train {
        List<ShardedArray> apply(List<NDArray> params, NDArray inputs, NDArray targets, Mesh mesh, int steps, float lr);
    }

    /** Parts 6.3 and 6.4: one training step on placed arrays. */
    @FunctionalInterface
    public interface TrainingStep {
        List<ShardedArray> apply(List<ShardedArray> params, ShardedArray inputs, ShardedArray targets, float lr);
    }

    /** Part 6.5: Megatron's block and its pullback. */
    @FunctionalInterface
    public interface Block {
        List<ShardedArray> apply(ShardedArray x, ShardedArray w1, ShardedArray w2, ShardedArray dy);
    }

    static final List<String> PARAM_NAMES = List.of("W1", "b1", "W2", "b2", "W3", "b3", "W4", "b4");

    /** Trained parameters against the double-precision oracle: float32 rounding over a few steps. */
    static final Tolerance TOLERANCE = new Tolerance(2e-4, 2e-4);

    /**
     * What a jitted program's scalar constants may add to its arguments: the 0 of the ReLU, the batch size of the
     * mean, the learning rate, … — 16 float32 scalars; a parameter or a row of the batch is larger.
     */
    static final long CONSTANTS = 16 * 4;

    /** 6.2's layouts: W2 by columns, b2 with them, W3 by rows over 'model'; the rest replicated. */
    static final List<PartitionSpec> TENSOR_PARALLEL = List.of(P(), P(), P(null, "model"), P("model"),
            P("model", null), P(), P(), P());

    // ------------------------------------------------------------------------------------------ 6.1, 6.2

    /**
     * 6.1: compiled by jit; trained parameters (float tolerance), every one laid out P(); per step only all-reduces
     * over 'batch', of the gradients (as many elements as the parameters have; a scalar loss may be reduced too);
     * no program hands a device more than the parameters and its rows of the batch.
     */
    public static void trainDataParallel(Train impl, Chapter6Case c) {
        Mesh mesh = c.mesh();
        List<NDArray> params = c.params();
        NDArray in = c.inputs();
        NDArray tg = c.targets();
        CaseRun<List<ShardedArray>> run = Guard.run(P6_1, c.describe("parameters and batch on the host"),
                () -> impl.apply(params, in, tg, mesh, c.steps(), Chapter6Case.LR));
        Checks.compiledByJit(run);
        trainedParameters(run, c, params, Collections.nCopies(params.size(), P()));
        long elements = 0;
        for (NDArray p : params) {
            elements += p.size();
        }
        long total = elements * c.steps();
        String what = c.data() > 1 ? "all-reduces over 'batch' of the gradients only: " + c.steps() + " step(s) × "
                + elements + " elements" : "nothing but all-reduces over 'batch' of the gradients";
        TraceRules.perDevice(run, "does not all-reduce exactly the gradients", "every device "
                + what, gradientAllReduces(Set.of("batch"), total, c.data() > 1));
        oneJittedProgramPerStep(run, c.steps());
        long bytes = 4 * elements + 4L * c.rowsPerDevice() * (c.sizes().get(0) + c.sizes().get(4)) + CONSTANTS;
        TraceRules.perDevice(run, "keeps more than its rows", "no program hands a device more than the parameters and"
                + " its rows of the batch, " + bytes + " bytes (scalar constants included)", TraceRules.argumentBytesAtMost(bytes,
                "split the batch's rows over 'batch' (P(\"batch\")) and replicate the parameters"));
    }

    /**
     * 6.2: compiled by jit; trained parameters with W2 P(None, 'model'), b2 P('model'), W3 P('model', None), the
     * rest P(); per step two all-reduces over 'model' of activations (forward [B/batch, n3], backward
     * [B/batch, n1]) and all-reduces over 'batch' of the gradients' blocks; no program hands a device more than its
     * blocks of the parameters (W2 and W3 split by 'model') and its rows.
     */
    public static void trainDataTensorParallel(Train impl, Chapter6Case c) {
        Mesh mesh = c.mesh();
        List<NDArray> params = c.params();
        NDArray in = c.inputs();
        NDArray tg = c.targets();
        CaseRun<List<ShardedArray>> run = Guard.run(P6_2, c.describe("parameters and batch on the host"),
                () -> impl.apply(params, in, tg, mesh, c.steps(), Chapter6Case.LR));
        Checks.compiledByJit(run);
        trainedParameters(run, c, params, TENSOR_PARALLEL);
        long local = 0;
        for (int k = 0; k < params.size(); k++) {
            local += params.get(k).size() / (TENSOR_PARALLEL.get(k).equals(P()) ? 1 : c.model());
        }
        int rows = c.rowsPerDevice();
        List<List<Integer>> activations = List.of(List.of(rows, c.sizes().get(3)), List.of(rows, c.sizes().get(1)));
        long gradients = local * c.steps();
        String modelWhat = "per step two all-reduces over 'model' of activations, f32" + activations.get(0)
                + " forward and f32" + activations.get(1) + " backward";
        Rule rule = Rule.of(Check.COLLECTIVES, d -> {
            int overModel = 0;
            long overBatch = 0;
            for (CollectiveEvent e : d.collectives()) {
                boolean allReduce = e.kind() == Collective.PSUM || e.kind() == Collective.PMEAN;
                if (allReduce && e.axes().equals(List.of("model")) && activations.contains(e.inputShape())) {
                    overModel++;
                } else if (allReduce && e.axes().equals(List.of("batch"))) {
                    overBatch += e.inputShape().isEmpty() ? 0 : elements(e.inputShape());
                } else {
                    return "it runs " + e.describe() + ", which is neither the activations' all-reduce over 'model'"
                            + " nor a gradient's all-reduce over 'batch'";
                }
            }
            int wantModel = c.model() > 1 ? 2 * c.steps() : 0;
            if (c.model() > 1 && overModel != wantModel) {
                return "it all-reduces activations over 'model' " + overModel + " time(s); expected " + wantModel
                        + " (" + modelWhat + ")";
            }
            if (c.data() > 1 && overBatch != gradients) {
                return "its all-reduces over 'batch' carry " + overBatch + " elements; the gradients' blocks have "
                        + gradients + " (" + c.steps() + " step(s))";
            }
            return null;
        }).withHint("place W2 as P(null, \"model\"), b2 as P(\"model\"), W3 as P(\"model\", null), everything else"
                + " replicated and the batch as P(\"batch\", null), then jit the gradient step: the compiler inserts"
                + " the rest");
        TraceRules.perDevice(run, "communicates other than the tensor-parallel plan", "every device runs " + modelWhat
                + ", and all-reduces over 'batch' of its blocks of the gradients", rule);
        oneJittedProgramPerStep(run, c.steps());
        long bytes = 4 * local + 4L * rows * (c.sizes().get(0) + c.sizes().get(4)) + CONSTANTS;
        TraceRules.perDevice(run, "stores whole weights", "no program hands a device more than its blocks of the"
                + " parameters (W2, b2 and W3 split over 'model') and its rows of the batch, " + bytes + " bytes"
                + " (scalar constants included)",
                TraceRules.argumentBytesAtMost(bytes, "W2 and W3 split over 'model' halve their bytes on a 2-way"
                        + " model axis"));
    }

    /**
     * 6.1, 6.2: every step is one program compiled by jit that computes the gradients and the update. Run eagerly,
     * {@code Autodiff.gradList} compiles a program of its own ("grad") that returns only the gradients, so asking
     * that some program was jit's passes an update made eagerly afterwards; here no program may be an eager
     * operation and there may be at most one jitted program per step (one for the whole loop is fine too). Runs
     * after the value and communication checks (an eager update computes the right values with the right
     * all-reduces) and before the memory check, whose advice (split the batch) would mislead a step split into a
     * gradient program and an update program that takes the gradients.
     */
    static void oneJittedProgramPerStep(CaseRun<?> run, int steps) {
        CheckLog.ran(Check.USES_JIT);
        List<ShardMapTrace> programs = run.trace().shardMaps();
        boolean eager = programs.stream().anyMatch(m -> m.origin() == Origin.GLOBAL_OP);
        long jitted = programs.stream().filter(m -> m.origin().compiledByJit()).count();
        if (!eager && jitted <= steps) {
            parametersComeOutOfTheJittedStep(run, programs);
            return;
        }
        String first = eager ? "runs part of the step eagerly" : "compiles more than one program per step";
        throw run.report(first)
                .paragraph("The programs your code ran for " + steps + " step(s), each name in the order it first ran:")
                .lines(programList(programs))
                .paragraph(eager
                        ? "Each eager operation on a ShardedArray is a program of its own, outside jit: the compiler"
                        + " never sees the update, and the parameters go back and forth between programs every"
                        + " step. Autodiff.gradList called outside jit is one more such program: it compiles the"
                        + " gradient alone and hands the gradients back."
                        : "Each jitted call is one program; the gradients of one program go to the next as arrays"
                        + " on the devices, and the compiler plans each program without the other.")
                .paragraph("The part asks for one jitted program per step that takes the parameters and the batch"
                        + " and returns the updated parameters. Which of your calls would have to move inside the"
                        + " function you give to jit for that, and what does that function then return?")
                .noHint()
                .failure(GradingFailure.Kind.STRUCTURE, eager
                        ? "the step is not one jitted program: eager operations ran beside it"
                        : "the step is not one jitted program: " + jitted + " jitted programs for " + steps
                        + " step(s)");
    }

    /**
     * 6.1, 6.2: every returned parameter was made by a program compiled by jit (the trace's result programs: the
     * program whose events produced the array). Gradients from a jitted program (or from {@code Autodiff.gradList}
     * run eagerly, which compiles one) with the update done on the host — read back, computed there, placed again
     * with {@code devicePut} — run no eager operation and at most one jitted program per step, so only where the
     * parameters came from tells that step apart from the task's.
     */
    private static void parametersComeOutOfTheJittedStep(CaseRun<?> run, List<ShardMapTrace> programs) {
        List<Integer> made = run.trace().resultPrograms();
        List<String> wrong = new ArrayList<>();
        for (int k = 0; k < made.size(); k++) {
            int p = made.get(k);
            if (p == dev.shardlings.events.Trace.NO_PROGRAM) {
                wrong.add("  parameter " + k + ": made outside every program (on the host, e.g. devicePut of values"
                        + " computed there, or an argument handed back unchanged)");
            } else if (!programs.get(p).origin().compiledByJit()) {
                wrong.add("  parameter " + k + ": made by " + programs.get(p).functionName() + ", not compiled by"
                        + " jit");
            }
        }
        if (made.isEmpty()) {
            wrong.add("  no returned array could be traced to a program");
        }
        if (wrong.isEmpty()) {
            return;
        }
        throw run.report("returns parameters that no jitted program computed")
                .paragraph("Where each returned parameter was made:")
                .lines(String.join("\n", wrong) + "\n")
                .paragraph("The programs your code ran, each name in the order it first ran:")
                .lines(programList(programs))
                .paragraph("The gradients came out of a program, but the update did not happen inside one: the"
                        + " parameters went back to the host and were placed again. Which of your calls would have"
                        + " to move inside the function you give to jit, so that it returns the updated parameters?")
                .noHint()
                .failure(GradingFailure.Kind.STRUCTURE, "the step is not one jitted program: the update ran outside"
                        + " it");
    }

    /** The programs of a run by name, in the order each first ran: "grad (compiled by jit) ×2", … */
    private static String programList(List<ShardMapTrace> programs) {
        java.util.Map<String, Integer> counts = new java.util.LinkedHashMap<>();
        for (ShardMapTrace m : programs) {
            String name = m.functionName() + switch (m.origin()) {
                case JIT -> " (compiled by jit)";
                case JIT_WITH_SHARD_MAP -> " (compiled by jit, with a shardMap inside)";
                case GLOBAL_OP -> " (eager operation)";
                case SHARD_MAP -> " (shardMap)";
            };
            counts.merge(name, 1, Integer::sum);
        }
        StringBuilder out = new StringBuilder();
        counts.forEach((name, n) -> out.append("  ").append(name).append(" ×").append(n).append('\n'));
        return out.toString();
    }

    // ------------------------------------------------------------------------------------------ 6.3, 6.4

    /**
     * 6.3: a hand-written shardMap; the parameters after one step (float tolerance), laid out P(); every
     * collective an all-reduce (psum or pmean) over 'batch' of one gradient, each parameter's once; no program
     * hands a device more than the parameters and its rows.
     */
    public static void dataParallelStep(TrainingStep impl, Chapter6Case c) {
        Mesh mesh = c.mesh();
        List<NDArray> params = c.params();
        List<ShardedArray> placed = new ArrayList<>();
        for (NDArray p : params) {
            placed.add(ShardedArray.devicePut(p, mesh, P()));
        }
        ShardedArray in = ShardedArray.devicePut(c.inputs(), mesh, P("batch"));
        ShardedArray tg = ShardedArray.devicePut(c.targets(), mesh, P("batch"));
        CaseRun<List<ShardedArray>> run = Guard.run(P6_3, c.describe("parameters P(), inputs and targets"
                + " P('batch')"), () -> impl.apply(placed, in, tg, Chapter6Case.LR));
        Checks.usesShardMap(run);
        trainedParameters(run, c, params, Collections.nCopies(params.size(), P()));
        List<List<Integer>> shapes = new ArrayList<>();
        for (NDArray p : params) {
            shapes.add(boxed(p.shape()));
        }
        TraceRules.perDevice(run, "communicates other than one all-reduce per gradient", "every device all-reduces"
                + " each gradient once over 'batch' (psum or pmean), and nothing else",
                oncePerParameter(Set.of(Collective.PSUM, Collective.PMEAN), shapes, "an all-reduce (psum or pmean)"
                        + " over 'batch' of each gradient, once", "average each gradient over 'batch' with one"
                        + " pmean; pvary the parameters first, so their gradients stay local until then"));
        long bytes = 4 * elementsOf(params) + 4L * c.rowsPerDevice() * (c.sizes().get(0) + c.sizes().get(4));
        TraceRules.perDevice(run, "holds more than its rows", "no program hands a device more than the parameters and"
                + " its rows of the batch, " + bytes + " bytes", TraceRules.argumentBytesAtMost(bytes,
                "take the inputs and targets with in spec P(\"batch\")"));
    }

    /**
     * 6.4: a hand-written shardMap; the parameters after one step (float tolerance), each still laid out
     * P('batch'); per device one all-gather over 'batch' of each parameter's shard and one reduce-scatter of each
     * gradient, and no all-reduce at all; no program hands a device more than its shards and its rows.
     */
    public static void fsdpStep(TrainingStep impl, Chapter6Case c) {
        Mesh mesh = c.mesh();
        List<NDArray> params = c.params();
        List<ShardedArray> placed = new ArrayList<>();
        for (NDArray p : params) {
            placed.add(ShardedArray.devicePut(p, mesh, P("batch")));
        }
        ShardedArray in = ShardedArray.devicePut(c.inputs(), mesh, P("batch"));
        ShardedArray tg = ShardedArray.devicePut(c.targets(), mesh, P("batch"));
        CaseRun<List<ShardedArray>> run = Guard.run(P6_4, c.describe("every parameter, the inputs and the"
                + " targets laid out P('batch')"), () -> impl.apply(placed, in, tg, Chapter6Case.LR));
        Checks.usesShardMap(run);
        trainedParameters(run, c, params, Collections.nCopies(params.size(), P("batch")));
        List<List<Integer>> shards = new ArrayList<>();
        List<List<Integer>> wholes = new ArrayList<>();
        for (NDArray p : params) {
            List<Integer> s = boxed(p.shape());
            wholes.add(s);
            List<Integer> shard = new ArrayList<>(s);
            shard.set(0, s.get(0) / c.data());
            shards.add(shard);
        }
        String hint = "all-gather each parameter's shard inside the differentiated function: the gradient of an"
                + " all-gather is a reduce-scatter, so no all-reduce is needed";
        TraceRules.perDevice(run, "does not shard the parameters' communication", "every device all-gathers each"
                + " parameter's shard once and reduce-scatters each gradient once, over 'batch', and runs no"
                + " all-reduce", oncePerParameter(Set.of(Collective.ALL_GATHER), shards, "one all-gather of each"
                + " parameter's shard", hint).and(oncePerParameter(Set.of(Collective.PSUM_SCATTER), wholes,
                "one reduce-scatter of each whole gradient", hint)));
        long bytes = 4 * elementsOf(params) / c.data() + 4L * c.rowsPerDevice() * (c.sizes().get(0)
                + c.sizes().get(4));
        TraceRules.perDevice(run, "stores whole parameters", "no program hands a device more than its shards of the"
                + " parameters (1/" + c.data() + " of each) and its rows, " + bytes + " bytes",
                TraceRules.argumentBytesAtMost(bytes, "keep every parameter split over 'batch' (in spec P(\"batch\"))"));
    }

    // ------------------------------------------------------------------------------------------ 6.5

    /** The layouts of [Y, dX, dW1, dW2]. */
    static final List<PartitionSpec> BLOCK_SPECS = List.of(P(), P(), P(null, "model"), P("model", null));
    /** Float32 sums of up to a few thousand products of values below 1, against double. */
    static final Tolerance BLOCK_TOLERANCE = new Tolerance(1e-4, 1e-4);

    /** 6.5's inputs, whole and placed. */
    record BlockInputs(NDArray x, NDArray w1, NDArray w2, NDArray dy, ShardedArray xs, ShardedArray w1s,
                       ShardedArray w2s, ShardedArray dys) {
    }

    static BlockInputs blockInputs(Chapter6Case c) {
        Mesh mesh = c.mesh();
        int b = c.sizes().get(0);
        int d = c.sizes().get(1);
        int f = c.sizes().get(2);
        NDArray x = Generators.sixteenths(c.seed(), 2f, b, d);
        NDArray w1 = Generators.sixteenths(c.seed() + 1, (float) (2 / Math.sqrt(d)), d, f);
        NDArray w2 = Generators.sixteenths(c.seed() + 2, (float) (2 / Math.sqrt(f)), f, d);
        NDArray dy = Generators.sixteenths(c.seed() + 3, 1f, b, d);
        return new BlockInputs(x, w1, w2, dy, ShardedArray.devicePut(x, mesh, P()),
                ShardedArray.devicePut(w1, mesh, P(null, "model")), ShardedArray.devicePut(w2, mesh, P("model", null)),
                ShardedArray.devicePut(dy, mesh, P()));
    }

    /**
     * 6.5: a hand-written shardMap; Y, dX, dW1, dW2 (float tolerance) laid out P(), P(), P(None, 'model'),
     * P('model', None); exactly two collectives per device, psums over 'model' of f32[B, D] (forward and
     * backward); 12·B·D·F/M matmul FLOPs per device.
     */
    public static void megatronMlp(Block impl, Chapter6Case c) {
        BlockInputs in = blockInputs(c);
        int b = c.sizes().get(0);
        int d = c.sizes().get(1);
        int f = c.sizes().get(2);
        CaseRun<List<ShardedArray>> run = Guard.run(P6_5, "Case: mesh ('model': " + c.model() + "), Auto axes;"
                + " X f32[" + b + ", " + d + "] P(), W1 f32[" + d + ", " + f + "] P(None, 'model'), W2 f32[" + f + ", "
                + d + "] P('model', None), dY f32[" + b + ", " + d + "] P() (value seed " + c.seed() + ")",
                () -> impl.apply(in.xs(), in.w1s(), in.w2s(), in.dys()));
        NDArray x = in.x();
        NDArray w1 = in.w1();
        NDArray w2 = in.w2();
        NDArray dy = in.dy();
        Checks.usesShardMap(run);
        List<NDArray> expected = Chapter6Oracles.megatron(x, w1, w2, dy);
        results(run, expected, BLOCK_SPECS, List.of("Y", "dX", "dW1", "dW2"), BLOCK_TOLERANCE,
                Reports.inputs("Input X", x, "Input W1", w1, "Input W2", w2, "Input dY", dy));
        List<Integer> shape = List.of(b, d);
        String what = "two psums over 'model' of f32" + shape + ": the partial products of Y forward, of dX backward";
        TraceRules.perDevice(run, "communicates other than Megatron's two psums", "every device runs " + what,
                TraceRules.collectives(Set.of("model"), List.of(Set.of(Collective.PSUM), Set.of(Collective.PSUM)),
                        List.of(shape, shape), what));
        long flops = 12L * b * d * f / c.model();
        TraceRules.perDevice(run, "multiplies more than its columns", "every device does exactly 12·B·D·F/M matmul"
                + " FLOPs: two matmuls forward and four backward, each on its F/M columns", TraceRules.flops(flops,
                "12·" + b + "·" + d + "·" + f + "/" + c.model()));
    }

    // ------------------------------------------------------------------------------------------ performance

    /**
     * The seeds of the measured runs' values, drawn by the judge for every run: the whole result is compared, and
     * values nobody can know before the run leave nothing to precompute. The modelled time depends on shapes only,
     * so the grade stays the same from run to run; only a failing report's numbers differ.
     */
    private static final java.security.SecureRandom PERF_SEEDS = new java.security.SecureRandom();

    /** 6.2p's case: seed 001's 4 × 2 mesh, 16 rows per 'batch' device, one step. */
    static Chapter6Case perfTp() {
        return new Chapter6Case(4, 2, PERF_SIZES, 16, 1, PERF_SEEDS.nextLong());
    }

    /** 6.3p's and 6.4p's case: 8 devices along 'batch', 8 rows each. */
    static Chapter6Case perfDp() {
        return new Chapter6Case(8, 0, PERF_SIZES, 8, 0, PERF_SEEDS.nextLong());
    }

    /** 6.5p's case: B = 64, D = 256, F = 1024 on 'model' of 8. */
    static Chapter6Case perfBlock() {
        return new Chapter6Case(0, 8, List.of(64, 256, 1024), 1, 0, PERF_SEEDS.nextLong());
    }

    /** The seed-001-sized example each performance part's base part must pass first. */
    private static Chapter6Case base(Chapter6Kind kind) {
        return switch (kind) {
            case DATA_PARALLEL -> new Chapter6Case(8, 0, List.of(6, 8, 8, 8, 3), 2, 3, 61);
            case MANUAL_DATA_PARALLEL -> new Chapter6Case(8, 0, List.of(6, 8, 8, 8, 3), 2, 0, 63);
            case DATA_TENSOR_PARALLEL -> new Chapter6Case(4, 2, List.of(6, 8, 8, 8, 3), 2, 3, 62);
            case FSDP -> new Chapter6Case(8, 0, List.of(8, 16, 16, 8, 8), 2, 0, 64);
            case MEGATRON -> new Chapter6Case(0, 8, List.of(4, 6, 16), 1, 0, 65);
        };
    }

    /** 6.2p: one tensor-parallel training step's modelled time. */
    public static TimedResult trainDataTensorParallelTime(Train impl) {
        Chapter6Case c = perfTp();
        List<NDArray> params = c.params();
        NDArray in = c.inputs();
        NDArray tg = c.targets();
        Mesh mesh = c.mesh();
        return ModelledTime.check(P6_2P, P6_2, () -> trainDataTensorParallel(impl,
                base(Chapter6Kind.DATA_TENSOR_PARALLEL)), SETTING_62,
                () -> impl.apply(params, in, tg, mesh, 1, Chapter6Case.LR), run -> {
                    CaseRun<List<ShardedArray>> r = listRun(run);
                    Checks.compiledByJit(r);
                    trainedParameters(r, c, params, TENSOR_PARALLEL);
                });
    }

    /** 6.3p: one hand-written data-parallel step's modelled time. */
    public static TimedResult dataParallelStepTime(TrainingStep impl) {
        Chapter6Case c = perfDp();
        List<NDArray> params = c.params();
        List<ShardedArray> placed = place(params, c.mesh(), Collections.nCopies(params.size(), P()));
        ShardedArray in = ShardedArray.devicePut(c.inputs(), c.mesh(), P("batch"));
        ShardedArray tg = ShardedArray.devicePut(c.targets(), c.mesh(), P("batch"));
        return ModelledTime.check(P6_3P, P6_3, () -> dataParallelStep(impl,
                base(Chapter6Kind.MANUAL_DATA_PARALLEL)), SETTING_63,
                () -> impl.apply(placed, in, tg, Chapter6Case.LR), run -> {
                    CaseRun<List<ShardedArray>> r = listRun(run);
                    Checks.usesShardMap(r);
                    trainedParameters(r, c, params, Collections.nCopies(params.size(), P()));
                });
    }

    /** 6.4p: one FSDP step's modelled time. */
    public static TimedResult fsdpStepTime(TrainingStep impl) {
        Chapter6Case c = perfDp();
        List<NDArray> params = c.params();
        List<ShardedArray> placed = place(params, c.mesh(), Collections.nCopies(params.size(), P("batch")));
        ShardedArray in = ShardedArray.devicePut(c.inputs(), c.mesh(), P("batch"));
        ShardedArray tg = ShardedArray.devicePut(c.targets(), c.mesh(), P("batch"));
        return ModelledTime.check(P6_4P, P6_4, () -> fsdpStep(impl, base(Chapter6Kind.FSDP)),
                SETTING_64, () -> impl.apply(placed, in, tg, Chapter6Case.LR), run -> {
                    CaseRun<List<ShardedArray>> r = listRun(run);
                    Checks.usesShardMap(r);
                    trainedParameters(r, c, params, Collections.nCopies(params.size(), P("batch")));
                });
    }

    /** 6.5p: Megatron's block, forward and backward, modelled. */
    public static TimedResult megatronMlpTime(Block impl) {
        Chapter6Case c = perfBlock();
        BlockInputs b = blockInputs(c);
        return ModelledTime.check(P6_5P, P6_5, () -> megatronMlp(impl, base(Chapter6Kind.MEGATRON)),
                SETTING_65, () -> impl.apply(b.xs(), b.w1s(), b.w2s(), b.dys()), run -> {
                    CaseRun<List<ShardedArray>> r = listRun(run);
                    Checks.usesShardMap(r);
                    results(r, Chapter6Oracles.megatron(b.x(), b.w1(), b.w2(), b.dy()), BLOCK_SPECS,
                            List.of("Y", "dX", "dW1", "dW2"), BLOCK_TOLERANCE, "(the performance part's inputs)");
                });
    }

    @SuppressWarnings("unchecked")
    private static CaseRun<List<ShardedArray>> listRun(CaseRun<Object> run) {
        if (!(run.value() instanceof List<?>)) {
            throw run.report("returned something other than a list of arrays")
                    .failure(GradingFailure.Kind.WRONG_SHAPE, "not a list of arrays");
        }
        return new CaseRun<>(run.part(), run.caseText(), (List<ShardedArray>) run.value(), run.trace());
    }

    private static List<ShardedArray> place(List<NDArray> xs, Mesh mesh, List<PartitionSpec> specs) {
        List<ShardedArray> out = new ArrayList<>();
        for (int k = 0; k < xs.size(); k++) {
            out.add(ShardedArray.devicePut(xs.get(k), mesh, specs.get(k)));
        }
        return out;
    }

    // ------------------------------------------------------------------------------------------ shared

    private static void trainedParameters(CaseRun<List<ShardedArray>> run, Chapter6Case c, List<NDArray> params,
                                          List<PartitionSpec> specs) {
        int steps = Math.max(1, c.steps());
        List<NDArray> expected = Chapter6Oracles.train(params, c.inputs(), c.targets(), steps, Chapter6Case.LR);
        String inputs = "Loss before: " + Chapter6Oracles.loss(params, c.inputs(), c.targets()) + "; after "
                + steps + " step(s) on the whole batch: " + Chapter6Oracles.loss(expected, c.inputs(), c.targets());
        results(run, expected, specs, PARAM_NAMES, TOLERANCE, inputs);
    }

    /** A list of sharded results: count, then each one's shape, layout and values. */
    private static void results(CaseRun<List<ShardedArray>> run, List<NDArray> expected, List<PartitionSpec> specs,
                                List<String> names, Tolerance tol, String inputs) {
        CheckLog.ran(Check.VALUES, Check.LAYOUT);
        List<ShardedArray> got = run.value();
        if (got.size() != expected.size()) {
            throw run.report("returned the wrong number of arrays")
                    .paragraph("Expected " + expected.size() + " arrays, " + names + ", in that order; got "
                            + got.size() + ".")
                    .failure(GradingFailure.Kind.WRONG_SHAPE, got.size() + " arrays returned, expected "
                            + expected.size());
        }
        for (int k = 0; k < got.size(); k++) {
            Object v = got.get(k);
            if (!(v instanceof ShardedArray s)) {
                throw run.report("returned something other than placed arrays")
                        .paragraph("Entry " + k + " (" + names.get(k) + ") is "
                                + (v == null ? "null" : "a " + v.getClass().getSimpleName()) + ".")
                        .failure(GradingFailure.Kind.WRONG_SHAPE, names.get(k) + " is not a ShardedArray");
            }
            Checks.shardedResult(new CaseRun<>(run.part(), run.caseText() + "; result " + names.get(k), s,
                    run.trace()), inputs, expected.get(k), specs.get(k), tol, null);
        }
    }

    /**
     * Every collective is an all-reduce (psum or pmean) over {@code axes}; together their non-scalar operands have
     * {@code elements} elements (when {@code communicates}, else none may run).
     */
    private static Rule gradientAllReduces(Set<String> axes, long elements, boolean communicates) {
        return Rule.of(Check.COLLECTIVES, d -> {
            long sum = 0;
            for (CollectiveEvent e : d.collectives()) {
                if ((e.kind() != Collective.PSUM && e.kind() != Collective.PMEAN) || !Set.copyOf(e.axes()).equals(axes)) {
                    return "it runs " + e.describe() + "; data parallelism needs only all-reduces over 'batch'";
                }
                sum += e.inputShape().isEmpty() ? 0 : elements(e.inputShape());
            }
            if (communicates && sum != elements) {
                return "its all-reduces carry " + sum + " elements; the gradients have " + elements;
            }
            return null;
        }).withHint("replicate every parameter (P()) and split the batch (P(\"batch\")); then the gradient of the"
                + " loss needs one all-reduce of each parameter's gradient");
    }

    /**
     * The collectives of the given kinds over 'batch' have exactly these operand shapes, one each (a multiset);
     * an all-reduce (psum, pmean) of any other shape is a violation too.
     */
    private static Rule oncePerParameter(Set<Collective> kinds, List<List<Integer>> shapes, String what, String hint) {
        return Rule.of(Check.OPERANDS, d -> {
            List<List<Integer>> left = new ArrayList<>(shapes);
            for (CollectiveEvent e : d.collectives()) {
                boolean allReduce = e.kind() == Collective.PSUM || e.kind() == Collective.PMEAN;
                if (!kinds.contains(e.kind())) {
                    if (allReduce || e.kind() == Collective.PPERMUTE || e.kind() == Collective.ALL_TO_ALL
                            || e.kind() == Collective.PMAX || e.kind() == Collective.PMIN) {
                        return "it runs " + e.describe() + "; expected only " + what + " (and their counterparts)";
                    }
                    continue;
                }
                if (!e.axes().equals(List.of("batch")) || !left.remove(e.inputShape())) {
                    return "it runs " + e.describe() + ", which is not " + what + " (shapes left: " + left + ")";
                }
            }
            return left.isEmpty() ? null : "it never runs " + what + " for the shapes " + left;
        }).withHint(hint);
    }

    private static long elements(List<Integer> shape) {
        long n = 1;
        for (int s : shape) {
            n *= s;
        }
        return n;
    }

    private static long elementsOf(List<NDArray> xs) {
        long n = 0;
        for (NDArray x : xs) {
            n += x.size();
        }
        return n;
    }

    private static List<Integer> boxed(int[] xs) {
        List<Integer> out = new ArrayList<>();
        for (int x : xs) {
            out.add(x);
        }
        return out;
    }
}
