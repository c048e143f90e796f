package dev.shardlings.grader.chapter0;

import dev.shardlings.array.NDArray;
import dev.shardlings.grader.parts.Check;
import dev.shardlings.grader.parts.CourseMethod;
import dev.shardlings.grader.checks.MeshSpec;
import dev.shardlings.grader.parts.Part;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.spmd.ShardedArray;

import java.util.List;
import java.util.function.Function;

import static dev.shardlings.grader.parts.Part.example;
import static dev.shardlings.grader.parts.Part.property;

/**
 * Chapter 0's parts (collectives in shardMap), one row each: number, title, points, course methods, docs, hint,
 * the requirements its stub states, and its cases — a property with a fixed seed over meshes on the part's axes, and
 * fixed examples (the tutorial's mesh, one device, 16 devices).
 */
public final class Chapter0Parts {

    static final Part.Chapter CHAPTER = new Part.Chapter("chapter 0", "collectives", "Chapter0");

    private static final String D = "docs/chapter-0.md#";

    /** {@code Chapter0.matmulNoCommunication}. */
    public static final CourseMethod<Chapter0Checks.Matmul> MATMUL_NO_COMMUNICATION = CHAPTER.method("matmulNoCommunication", Chapter0Checks.Matmul.class, ShardedArray.class, ShardedArray.class, ShardedArray.class);
    /** {@code Chapter0.matmulGatherA}. */
    public static final CourseMethod<Chapter0Checks.Matmul> MATMUL_GATHER_A = CHAPTER.method("matmulGatherA", Chapter0Checks.Matmul.class, ShardedArray.class, ShardedArray.class, ShardedArray.class);
    /** {@code Chapter0.matmulPsum}. */
    public static final CourseMethod<Chapter0Checks.Matmul> MATMUL_PSUM = CHAPTER.method("matmulPsum", Chapter0Checks.Matmul.class, ShardedArray.class, ShardedArray.class, ShardedArray.class);
    /** {@code Chapter0.matmulReduceScatterAllGather}. */
    public static final CourseMethod<Chapter0Checks.Matmul> MATMUL_REDUCE_SCATTER_ALL_GATHER = CHAPTER.method("matmulReduceScatterAllGather", Chapter0Checks.Matmul.class, ShardedArray.class, ShardedArray.class, ShardedArray.class);
    /** {@code Chapter0.matmulSameAxisGatherB}. */
    public static final CourseMethod<Chapter0Checks.Matmul> MATMUL_SAME_AXIS_GATHER_B = CHAPTER.method("matmulSameAxisGatherB", Chapter0Checks.Matmul.class, ShardedArray.class, ShardedArray.class, ShardedArray.class);
    /** {@code Chapter0.matmulSameAxisGatherA}. */
    public static final CourseMethod<Chapter0Checks.Matmul> MATMUL_SAME_AXIS_GATHER_A = CHAPTER.method("matmulSameAxisGatherA", Chapter0Checks.Matmul.class, ShardedArray.class, ShardedArray.class, ShardedArray.class);
    /** {@code Chapter0.parallelNormalize}. */
    public static final CourseMethod<Function<ShardedArray, ShardedArray>> PARALLEL_NORMALIZE = CHAPTER.unary("parallelNormalize");
    /** {@code Chapter0.matmulWithGatheredWeight}. */
    public static final CourseMethod<Chapter0Checks.Matmul> MATMUL_WITH_GATHERED_WEIGHT = CHAPTER.method("matmulWithGatheredWeight", Chapter0Checks.Matmul.class, ShardedArray.class, ShardedArray.class, ShardedArray.class);
    /** {@code Chapter0.ringShift}. */
    public static final CourseMethod<Chapter0Checks.RingShift> RING_SHIFT = CHAPTER.method("ringShift", Chapter0Checks.RingShift.class, ShardedArray.class, ShardedArray.class, int.class);
    /** {@code Chapter0.sliceAndAverage}. */
    public static final CourseMethod<Function<ShardedArray, ShardedArray>> SLICE_AND_AVERAGE = CHAPTER.unary("sliceAndAverage");
    /** {@code Chapter0.foldKeyOverAxis}. */
    public static final CourseMethod<Chapter0Checks.FoldKey> FOLD_KEY_OVER_AXIS = CHAPTER.method("foldKeyOverAxis", Chapter0Checks.FoldKey.class, ShardedArray.class, NDArray.class, Mesh.class);

    /** Part 0.1. */
    public static final Part P0_1 = CHAPTER.part("0.1", "matmul, no sharded contracting dim", 1, "NoCommunication")
            .calls(MATMUL_NO_COMMUNICATION)
            .docs(D + "part-01-no-sharded-contracting-dimension")
            .hint("A[I_X, J] and B[J, K_Y] give each device whole rows of A and whole columns of B: multiply the blocks.")
            .requires(MATMUL_NO_COMMUNICATION, "values and layout", Check.VALUES, Check.LAYOUT)
            .requires(MATMUL_NO_COMMUNICATION, "a shardMap program", Check.USES_SHARD_MAP)
            .requires(MATMUL_NO_COMMUNICATION, "no collectives", Check.NO_COLLECTIVES)
            .requires(MATMUL_NO_COMMUNICATION, "2·(I/X)·J·(K/Y) matmul FLOPs per device (each device multiplies its own two "
                    + "blocks once)", Check.FLOPS)
            .graded(property("meshesShapesAndValues", 60, "1001", () -> Chapter0Case.cases("X", "Y")), List.of(
                    example("fourByFourOnTwoByTwo", new Chapter0Case(MeshSpec.of("X", 2, "Y", 2), 2, 4, 2, 0, 0)),
                    example("oneDevice", new Chapter0Case(MeshSpec.of("X", 1, "Y", 1), 2, 3, 1, 1, 0)),
                    example("sixteenDevicesWithAReplicatedAxis", new Chapter0Case(MeshSpec.of("Z", 2, "X", 8, "Y", 1), 1, 1, 2, 2, 0))),
                    c -> Chapter0Checks.noCommunication(MATMUL_NO_COMMUNICATION.proxy(), c));

    /** Part 0.2. */
    public static final Part P0_2 = CHAPTER.part("0.2", "matmul, all-gather A", 2, "GatherA")
            .calls(MATMUL_GATHER_A)
            .docs(D + "part-02-one-operand-sharded-on-the-contracting-dimension")
            .hint("AllGather_X A[I, J_X] → A[I, J] along dimension 1 (Tiling.TILED), then multiply by B; allGatherInvariant"
                    + " makes the result legal for out spec P().")
            .requires(MATMUL_GATHER_A, "values and layout", Check.VALUES, Check.LAYOUT)
            .requires(MATMUL_GATHER_A, "exactly one all-gather per device, over X, of A's block [I, J/X]", Check.COLLECTIVES, Check.OPERANDS)
            .requires(MATMUL_GATHER_A, "2·I·J·K matmul FLOPs per device", Check.FLOPS)
            .graded(property("meshesShapesAndValues", 60, "1002", () -> Chapter0Case.cases("X")), List.of(
                    example("fourDevices", new Chapter0Case(MeshSpec.of("X", 4), 2, 2, 3, 0, 0)),
                    example("oneDevice", new Chapter0Case(MeshSpec.of("X", 1), 2, 3, 1, 1, 0)),
                    example("sixteenDevicesWithAReplicatedAxis", new Chapter0Case(MeshSpec.of("Z", 2, "X", 8), 1, 1, 2, 2, 0))),
                    c -> Chapter0Checks.gatherA(MATMUL_GATHER_A.proxy(), c));

    /** Part 0.3. */
    public static final Part P0_3 = CHAPTER.part("0.3", "matmul, local then psum", 2, "Psum")
            .calls(MATMUL_PSUM)
            .docs(D + "part-03-both-operands-sharded-on-the-contracting-dimension")
            .hint("the product of the local blocks is a partial sum C[I, K]{U_X}; one psum over X completes it.")
            .requires(MATMUL_PSUM, "values and layout", Check.VALUES, Check.LAYOUT)
            .requires(MATMUL_PSUM, "exactly one psum per device, over X, of the partial product [I, K]", Check.COLLECTIVES, Check.OPERANDS)
            .requires(MATMUL_PSUM, "2·I·(J/X)·K matmul FLOPs per device", Check.FLOPS)
            .graded(property("meshesShapesAndValues", 60, "1003", () -> Chapter0Case.cases("X")), List.of(
                    example("fourDevices", new Chapter0Case(MeshSpec.of("X", 4), 2, 2, 3, 0, 0)),
                    example("oneDevice", new Chapter0Case(MeshSpec.of("X", 1), 2, 3, 1, 1, 0)),
                    example("sixteenDevicesWithAReplicatedAxis", new Chapter0Case(MeshSpec.of("Z", 2, "X", 8), 1, 1, 2, 2, 0))),
                    c -> Chapter0Checks.psumMatmul(MATMUL_PSUM.proxy(), c));

    /** Part 0.4. */
    public static final Part P0_4 = CHAPTER.part("0.4", "matmul, reduce-scatter + all-gather", 2, "ReduceScatterAllGather")
            .calls(MATMUL_REDUCE_SCATTER_ALL_GATHER)
            .docs(D + "part-04-all-reduce-as-reduce-scatter-then-all-gather")
            .hint("psumScatter(partial, \"X\", 0, Tiling.TILED) leaves each device I/X summed rows; gather them along"
                    + " dimension 0.")
            .requires(MATMUL_REDUCE_SCATTER_ALL_GATHER, "values and layout", Check.VALUES, Check.LAYOUT)
            .requires(MATMUL_REDUCE_SCATTER_ALL_GATHER, "one psumScatter over X of the partial product [I, K], then one allGather over X "
                    + "of the summed rows [I/X, K], and no psum", Check.COLLECTIVES, Check.OPERANDS)
            .requires(MATMUL_REDUCE_SCATTER_ALL_GATHER, "2·I·(J/X)·K matmul FLOPs per device", Check.FLOPS)
            .graded(property("meshesShapesAndValues", 60, "1004", () -> Chapter0Case.cases("X")), List.of(
                    example("fourDevices", new Chapter0Case(MeshSpec.of("X", 4), 2, 2, 3, 0, 0)),
                    example("oneDevice", new Chapter0Case(MeshSpec.of("X", 1), 2, 3, 1, 1, 0)),
                    example("sixteenDevicesWithAReplicatedAxis", new Chapter0Case(MeshSpec.of("Z", 2, "X", 8), 1, 1, 2, 2, 0))),
                    c -> Chapter0Checks.reduceScatterAllGather(MATMUL_REDUCE_SCATTER_ALL_GATHER.proxy(), c));

    /** Part 0.5. */
    public static final Part P0_5 = CHAPTER.part("0.5", "matmul, same axis twice", 2, "SameAxis")
            .calls(MATMUL_SAME_AXIS_GATHER_B, MATMUL_SAME_AXIS_GATHER_A)
            .docs(D + "part-05-both-non-contracting-dimensions-on-the-same-axis")
            .hint("for C[I_X, K] gather B's columns (dimension 1); for C[I, K_X] gather A's rows (dimension 0).")
            .requires(MATMUL_SAME_AXIS_GATHER_B, "values and layout", Check.VALUES, Check.LAYOUT)
            .requires(MATMUL_SAME_AXIS_GATHER_B, "exactly one all-gather per device, over X, of B's block [J, K/X]", Check.COLLECTIVES, Check.OPERANDS)
            .requires(MATMUL_SAME_AXIS_GATHER_B, "2·(I/X)·J·K matmul FLOPs per device", Check.FLOPS)
            .requires(MATMUL_SAME_AXIS_GATHER_A, "values and layout", Check.VALUES, Check.LAYOUT)
            .requires(MATMUL_SAME_AXIS_GATHER_A, "exactly one all-gather per device, over X, of A's block [I/X, J]", Check.COLLECTIVES, Check.OPERANDS)
            .requires(MATMUL_SAME_AXIS_GATHER_A, "2·I·J·(K/X) matmul FLOPs per device", Check.FLOPS)
            .graded(property("meshesShapesAndValues", 60, "1005", () -> Chapter0Case.cases("X")), List.of(
                    example("fourDevices", new Chapter0Case(MeshSpec.of("X", 4), 2, 2, 3, 0, 0)),
                    example("oneDevice", new Chapter0Case(MeshSpec.of("X", 1), 2, 3, 1, 1, 0)),
                    example("sixteenDevicesWithAReplicatedAxis", new Chapter0Case(MeshSpec.of("Z", 2, "X", 8), 1, 1, 2, 2, 0))),
                    c -> Chapter0Checks.sameAxis(MATMUL_SAME_AXIS_GATHER_B.proxy(), MATMUL_SAME_AXIS_GATHER_A.proxy(), c));

    /** Part 0.6. */
    public static final Part P0_6 = CHAPTER.part("0.6", "parallel normalisation", 2, "ParallelNormalize")
            .calls(PARALLEL_NORMALIZE)
            .docs(D + "part-06-parallel-normalisation")
            .hint("the row's mean is the pmean over j of the blocks' means (equal block widths); the variance likewise,"
                    + " after subtracting the global mean.")
            .requires(PARALLEL_NORMALIZE, "values and layout", Check.VALUES, Check.LAYOUT)
            .requires(PARALLEL_NORMALIZE, "only pmean or psum over j (at least one), each of per-row statistics (at most "
                    + "one value per row of the block), and no all-gather", Check.COLLECTIVES, Check.OPERANDS)
            .graded(property("meshesShapesAndValues", 60, "1006", () -> Chapter0Case.cases("i", "j")), List.of(
                    example("tutorialsMesh", new Chapter0Case(MeshSpec.of("i", 4, "j", 2), 2, 3, 2, 0, 1)),
                    example("oneDevice", new Chapter0Case(MeshSpec.of("i", 1, "j", 1), 2, 2, 1, 1, 0)),
                    example("sixteenDevices", new Chapter0Case(MeshSpec.of("j", 4, "i", 4), 1, 2, 2, 2, -5))),
                    c -> Chapter0Checks.normalize(PARALLEL_NORMALIZE.proxy(), c));

    /** Part 0.7. */
    public static final Part P0_7 = CHAPTER.part("0.7", "matmul with a gathered weight", 1, "GatheredWeight")
            .calls(MATMUL_WITH_GATHERED_WEIGHT)
            .docs(D + "part-07-matmul-with-a-gathered-weight")
            .hint("gather w's row blocks along dimension 0 (Tiling.TILED) over i, then x_block · w.")
            .requires(MATMUL_WITH_GATHERED_WEIGHT, "values and layout", Check.VALUES, Check.LAYOUT)
            .requires(MATMUL_WITH_GATHERED_WEIGHT, "exactly one all-gather per device, over i, of w's block [D/i, F]", Check.COLLECTIVES, Check.OPERANDS)
            .requires(MATMUL_WITH_GATHERED_WEIGHT, "2·(rows/i)·D·F matmul FLOPs per device", Check.FLOPS)
            .graded(property("meshesShapesAndValues", 60, "1007", () -> Chapter0Case.cases("i")), List.of(
                    example("eightDevices", new Chapter0Case(MeshSpec.of("i", 8), 2, 2, 3, 0, 1)),
                    example("oneDevice", new Chapter0Case(MeshSpec.of("i", 1), 2, 2, 1, 1, 3)),
                    example("downTheRingAndFurtherThanOnce", new Chapter0Case(MeshSpec.of("i", 4, "Z", 2), 1, 2, 1, 2, -6))),
                    c -> Chapter0Checks.gatheredWeight(MATMUL_WITH_GATHERED_WEIGHT.proxy(), c));

    /** Part 0.8. */
    public static final Part P0_8 = CHAPTER.part("0.8", "ring shift with ppermute", 2, "RingShift")
            .calls(RING_SHIFT)
            .docs(D + "part-08-ring-shift")
            .hint("the pair for source s is (s, (s + k) mod n) — use Math.floorMod so negative k works.")
            .requires(RING_SHIFT, "values and layout", Check.VALUES, Check.LAYOUT)
            .requires(RING_SHIFT, "at most one ppermute per device, over i, of the block, and no other collective", Check.COLLECTIVES, Check.OPERANDS)
            .graded(property("meshesShapesAndValues", 60, "1008", () -> Chapter0Case.cases("i")), List.of(
                    example("eightDevices", new Chapter0Case(MeshSpec.of("i", 8), 2, 2, 3, 0, 1)),
                    example("oneDevice", new Chapter0Case(MeshSpec.of("i", 1), 2, 2, 1, 1, 3)),
                    example("downTheRingAndFurtherThanOnce", new Chapter0Case(MeshSpec.of("i", 4, "Z", 2), 1, 2, 1, 2, -6))),
                    c -> Chapter0Checks.ringShift(RING_SHIFT.proxy(), c));

    /** Part 0.9. */
    public static final Part P0_9 = CHAPTER.part("0.9", "slice and average", 1, "SliceAndAverage")
            .calls(SLICE_AND_AVERAGE)
            .docs(D + "part-09-slice-and-average")
            .hint("slice the block's first 4 elements first, then pmean over both axes at once: pmean(x, \"x\", \"y\").")
            .requires(SLICE_AND_AVERAGE, "values and layout", Check.VALUES, Check.LAYOUT)
            .requires(SLICE_AND_AVERAGE, "exactly one pmean (or psum) per device, over both x and y, of the 4 sliced "
                    + "elements", Check.COLLECTIVES, Check.OPERANDS)
            .graded(property("meshesShapesAndValues", 60, "1009", () -> Chapter0Case.cases("x", "y")), List.of(
                    example("booksMesh", new Chapter0Case(MeshSpec.of("x", 2, "y", 4), 3, 1, 1, 0, 0)),
                    example("oneDevice", new Chapter0Case(MeshSpec.of("x", 1, "y", 1), 1, 1, 1, 1, 0))),
                    c -> Chapter0Checks.sliceAndAverage(SLICE_AND_AVERAGE.proxy(), c));

    /** Part 0.10. */
    public static final Part P0_10 = CHAPTER.part("0.10", "per-device randomness", 1, "FoldKey")
            .calls(FOLD_KEY_OVER_AXIS)
            .docs(D + "part-010-per-device-randomness")
            .hint("PRNG.foldIn(key, axisIndex(\"i\")) differs along i and not along j; out spec P(\"i\", null).")
            .requires(FOLD_KEY_OVER_AXIS, "values and layout (the keys bit for bit)", Check.VALUES, Check.LAYOUT)
            .requires(FOLD_KEY_OVER_AXIS, "a shardMap program", Check.USES_SHARD_MAP)
            .requires(FOLD_KEY_OVER_AXIS, "no collectives", Check.NO_COLLECTIVES)
            .graded(property("meshesAndKeys", 60, "1010", () -> Chapter0Case.cases("i", "j")), List.of(
                    example("tutorialsKeys", new Chapter0Case(MeshSpec.of("i", 4, "j", 2), 1, 1, 1, 0, 0)),
                    example("axesTheOtherWayRound", new Chapter0Case(MeshSpec.of("j", 2, "i", 8), 1, 1, 1, 42, 0))),
                    c -> Chapter0Checks.foldKey(FOLD_KEY_OVER_AXIS.proxy(), c));

    /** The parts of chapter 0, in course order. */
    public static final List<Part> PARTS = List.of(P0_1, P0_2, P0_3, P0_4, P0_5, P0_6, P0_7, P0_8, P0_9, P0_10);

    private Chapter0Parts() {
    }
}
