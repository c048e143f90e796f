package dev.shardlings.grader.chapter6;

import dev.shardlings.array.NDArray;
import dev.shardlings.grader.parts.Check;
import dev.shardlings.grader.parts.CourseMethod;
import dev.shardlings.grader.parts.Part;
import dev.shardlings.grader.parts.Requirement;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.spmd.ShardedArray;

import java.util.List;

import static dev.shardlings.grader.parts.Part.example;
import static dev.shardlings.grader.parts.Part.property;

/**
 * Chapter 6's parts (training: data, tensor and fully sharded parallelism) and their modelled-time parts, one
 * row each.
 */
public final class Chapter6Parts {

    static final Part.Chapter CHAPTER = new Part.Chapter("chapter 6", "training", "Chapter6");

    private static final String PERFORMANCE_DOCS = "docs/chapter-6.md#performance-points";
    private static final String PERFORMANCE_HINT = "the reference moves each gradient (or shard) once, in the"
            + " collective the part names, and computes only its own rows or columns; compare your timeline (written"
            + " under grader/target/grade/profiles/) with the breakdown in docs/chapter-6.md.";

    private static final String D = "docs/chapter-6.md#";

    /** {@code Chapter6.trainDataParallel}. */
    public static final CourseMethod<Chapter6Checks.Train> C6_TRAIN_DATA_PARALLEL = CHAPTER.method("trainDataParallel", Chapter6Checks.Train.class, List.class, List.class, NDArray.class, NDArray.class, Mesh.class, int.class, float.class);
    /** {@code Chapter6.trainDataTensorParallel}. */
    public static final CourseMethod<Chapter6Checks.Train> C6_TRAIN_DATA_TENSOR_PARALLEL = CHAPTER.method("trainDataTensorParallel", Chapter6Checks.Train.class, List.class, List.class, NDArray.class, NDArray.class, Mesh.class, int.class, float.class);
    /** {@code Chapter6.dataParallelStep}. */
    public static final CourseMethod<Chapter6Checks.TrainingStep> C6_DATA_PARALLEL_STEP = CHAPTER.method("dataParallelStep", Chapter6Checks.TrainingStep.class, List.class, List.class, ShardedArray.class, ShardedArray.class, float.class);
    /** {@code Chapter6.fsdpStep}. */
    public static final CourseMethod<Chapter6Checks.TrainingStep> C6_FSDP_STEP = CHAPTER.method("fsdpStep", Chapter6Checks.TrainingStep.class, List.class, List.class, ShardedArray.class, ShardedArray.class, float.class);
    /** {@code Chapter6.megatronMlp}. */
    public static final CourseMethod<Chapter6Checks.Block> C6_MEGATRON_MLP = CHAPTER.method("megatronMlp", Chapter6Checks.Block.class, List.class, ShardedArray.class, ShardedArray.class, ShardedArray.class, ShardedArray.class);

    /** Part 6.1. */
    public static final Part P6_1 = CHAPTER.part("6.1", "data parallelism with jit(grad)", 2, "TrainDataParallel")
            .calls(C6_TRAIN_DATA_PARALLEL)
            .docs(D + "part-61-data-parallelism-with-jit")
            .hint("devicePut every parameter with P() and the inputs and targets with P(\"batch\"), then call one jitted"
                    + " program per step that applies Autodiff.gradList to Mlp.loss and returns the updated"
                    + " parameters: the compiler all-reduces the gradients.")
            .requires(C6_TRAIN_DATA_PARALLEL, "trained parameters (float tolerance) and layouts, each P()", Check.VALUES, Check.LAYOUT)
            .requires(C6_TRAIN_DATA_PARALLEL, "compiled by jit, with no hand-written shardMap", Check.USES_JIT)
            .requires(C6_TRAIN_DATA_PARALLEL, "per device only all-reduces over 'batch', carrying the"
                    + " gradients' elements once per step", Check.COLLECTIVES)
            .requires(C6_TRAIN_DATA_PARALLEL, "no program hands a device more than the parameters and"
                    + " its rows of the batch", Check.DEVICE_MEMORY)
            .graded(cases(Chapter6Kind.DATA_PARALLEL), examples(Chapter6Kind.DATA_PARALLEL), c -> Chapter6Checks.trainDataParallel(C6_TRAIN_DATA_PARALLEL.proxy(), c));

    /** Part 6.2. */
    public static final Part P6_2 = CHAPTER.part("6.2", "data and tensor parallelism with jit(grad)", 2, "TrainDataTensorParallel")
            .calls(C6_TRAIN_DATA_TENSOR_PARALLEL)
            .docs(D + "part-62-data-and-tensor-parallelism-with-jit")
            .hint("W2 P(null, \"model\"), b2 P(\"model\"), W3 P(\"model\", null), the rest P(), the batch"
                    + " P(\"batch\", null): the hidden layer between W2 and W3 stays split over 'model', and W3's"
                    + " contraction sums it with one all-reduce.")
            .requires(C6_TRAIN_DATA_TENSOR_PARALLEL, "trained parameters (float tolerance) and layouts:"
                    + " W2 P(None, 'model'), b2 P('model'), W3 P('model', None), the rest P()", Check.VALUES, Check.LAYOUT)
            .requires(C6_TRAIN_DATA_TENSOR_PARALLEL, "compiled by jit, with no hand-written shardMap", Check.USES_JIT)
            .requires(C6_TRAIN_DATA_TENSOR_PARALLEL, "per step two all-reduces over 'model' of"
                    + " activations (forward f32[B/batch, n3], backward f32[B/batch, n1]) and all-reduces over"
                    + " 'batch' of the gradients' blocks, nothing else", Check.COLLECTIVES)
            .requires(C6_TRAIN_DATA_TENSOR_PARALLEL, "no program hands a device more than its blocks of"
                    + " the parameters and its rows of the batch (W2 and W3 take 1/model of their bytes)", Check.DEVICE_MEMORY)
            .graded(cases(Chapter6Kind.DATA_TENSOR_PARALLEL), examples(Chapter6Kind.DATA_TENSOR_PARALLEL), c -> Chapter6Checks.trainDataTensorParallel(C6_TRAIN_DATA_TENSOR_PARALLEL.proxy(), c));

    /** Part 6.3. */
    public static final Part P6_3 = CHAPTER.part("6.3", "data parallelism by hand (pmean)", 2, "DataParallelStep")
            .calls(C6_DATA_PARALLEL_STEP)
            .docs(D + "part-63-data-parallelism-by-hand")
            .hint("inside the shardMap, pvary each parameter over \"batch\", take Autodiff.gradList of Mlp.lossLocal on"
                    + " the device's rows, and pmean each gradient over \"batch\" before the update.")
            .requires(C6_DATA_PARALLEL_STEP, "the parameters after one step (float tolerance), laid out"
                    + " P()", Check.VALUES, Check.LAYOUT)
            .requires(C6_DATA_PARALLEL_STEP, "a hand-written shardMap", Check.USES_SHARD_MAP)
            .requires(C6_DATA_PARALLEL_STEP, "every collective an all-reduce (psum or pmean) over"
                    + " 'batch' of one gradient, each parameter's once", Check.OPERANDS)
            .requires(C6_DATA_PARALLEL_STEP, "no program hands a device more than the parameters and"
                    + " its rows of the batch", Check.DEVICE_MEMORY)
            .graded(cases(Chapter6Kind.MANUAL_DATA_PARALLEL), examples(Chapter6Kind.MANUAL_DATA_PARALLEL), c -> Chapter6Checks.dataParallelStep(C6_DATA_PARALLEL_STEP.proxy(), c));

    /** Part 6.4. */
    public static final Part P6_4 = CHAPTER.part("6.4", "fully sharded data parallelism (ZeRO-3)", 3, "FsdpStep")
            .calls(C6_FSDP_STEP)
            .docs(D + "part-64-fully-sharded-data-parallelism")
            .hint("all-gather (tiled, dimension 0) each shard inside the function you differentiate and divide its loss by"
                    + " the axis size: the gradient of the all-gather is a reduce-scatter that sums the devices'"
                    + " gradients into each shard.")
            .requires(C6_FSDP_STEP, "the parameters after one step (float tolerance), each laid out"
                    + " P('batch')", Check.VALUES, Check.LAYOUT)
            .requires(C6_FSDP_STEP, "a hand-written shardMap", Check.USES_SHARD_MAP)
            .requires(C6_FSDP_STEP, "per device one all-gather over 'batch' of each parameter's shard"
                    + " and one reduce-scatter of each gradient, and no all-reduce", Check.OPERANDS)
            .requires(C6_FSDP_STEP, "no program hands a device more than its shards of the parameters"
                    + " and its rows of the batch", Check.DEVICE_MEMORY)
            .graded(cases(Chapter6Kind.FSDP), examples(Chapter6Kind.FSDP), c -> Chapter6Checks.fsdpStep(C6_FSDP_STEP.proxy(), c));

    /** Part 6.5. */
    public static final Part P6_5 = CHAPTER.part("6.5", "Megatron's tensor-parallel MLP block", 2, "MegatronMlp")
            .calls(C6_MEGATRON_MLP)
            .docs(D + "part-65-megatrons-mlp-block")
            .hint("Autodiff.vjp of x -> psum(relu(x·W1)·W2, \"model\") inside the shardMap: the psum's pullback sends"
                    + " dY to every device for free, and dX's partial sums come back with the one psum the implicit"
                    + " pvary of X transposes to.")
            .requires(C6_MEGATRON_MLP, "Y, dX, dW1 and dW2 (float tolerance) laid out P(), P(), P(None,"
                    + " 'model'), P('model', None)", Check.VALUES, Check.LAYOUT)
            .requires(C6_MEGATRON_MLP, "a hand-written shardMap", Check.USES_SHARD_MAP)
            .requires(C6_MEGATRON_MLP, "exactly two collectives per device, psums over 'model' of"
                    + " f32[B, D] (forward and backward)", Check.COLLECTIVES, Check.OPERANDS)
            .requires(C6_MEGATRON_MLP, "exactly 12·B·D·F/M matmul FLOPs per device", Check.FLOPS)
            .graded(cases(Chapter6Kind.MEGATRON), examples(Chapter6Kind.MEGATRON), c -> Chapter6Checks.megatronMlp(C6_MEGATRON_MLP.proxy(), c));

    /** Part 6.2p. */
    public static final Part P6_2P = CHAPTER.part("6.2p", "6.2 modelled step time, TPU v5e", 1, "Performance")
            .calls(C6_TRAIN_DATA_TENSOR_PARALLEL)
            .docs(PERFORMANCE_DOCS)
            .hint(PERFORMANCE_HINT)
            .requires(Requirement.trainingPerformance(C6_TRAIN_DATA_TENSOR_PARALLEL, Check.USES_JIT))
            .timed(Chapter6Checks.SETTING_62, () -> Chapter6Checks.trainDataTensorParallelTime(C6_TRAIN_DATA_TENSOR_PARALLEL.proxy()));

    /** Part 6.3p. */
    public static final Part P6_3P = CHAPTER.part("6.3p", "6.3 modelled step time, TPU v5e", 1, "Performance")
            .calls(C6_DATA_PARALLEL_STEP)
            .docs(PERFORMANCE_DOCS)
            .hint(PERFORMANCE_HINT)
            .requires(Requirement.trainingPerformance(C6_DATA_PARALLEL_STEP, Check.USES_SHARD_MAP))
            .timed(Chapter6Checks.SETTING_63, () -> Chapter6Checks.dataParallelStepTime(C6_DATA_PARALLEL_STEP.proxy()));

    /** Part 6.4p. */
    public static final Part P6_4P = CHAPTER.part("6.4p", "6.4 modelled step time, TPU v5e", 1, "Performance")
            .calls(C6_FSDP_STEP)
            .docs(PERFORMANCE_DOCS)
            .hint(PERFORMANCE_HINT)
            .requires(Requirement.trainingPerformance(C6_FSDP_STEP, Check.USES_SHARD_MAP))
            .timed(Chapter6Checks.SETTING_64, () -> Chapter6Checks.fsdpStepTime(C6_FSDP_STEP.proxy()));

    /** Part 6.5p. */
    public static final Part P6_5P = CHAPTER.part("6.5p", "6.5 modelled time, TPU v5e", 1, "Performance")
            .calls(C6_MEGATRON_MLP)
            .docs(PERFORMANCE_DOCS)
            .hint(PERFORMANCE_HINT)
            .requires(Requirement.trainingPerformance(C6_MEGATRON_MLP, Check.USES_SHARD_MAP))
            .timed(Chapter6Checks.SETTING_65, () -> Chapter6Checks.megatronMlpTime(C6_MEGATRON_MLP.proxy()));

    /** The parts of chapter 6, in course order. */
    public static final List<Part> PARTS = List.of(P6_1, P6_2, P6_3, P6_4, P6_5, P6_2P, P6_3P, P6_4P, P6_5P);

    private Chapter6Parts() {
    }

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
}
