package dev.shardlings.grader.chapter0;

import dev.shardlings.array.NDArray;
import dev.shardlings.events.Collective;
import dev.shardlings.grader.checks.Checks.Tolerance;
import dev.shardlings.grader.checks.Checks;
import dev.shardlings.grader.checks.Generators;
import dev.shardlings.grader.checks.MeshSpec;
import dev.shardlings.grader.checks.TraceRules.Rule;
import dev.shardlings.grader.checks.TraceRules;
import dev.shardlings.grader.judge.CaseRun;
import dev.shardlings.grader.judge.Guard;
import dev.shardlings.grader.judge.Reports;
import dev.shardlings.grader.parts.Check;
import dev.shardlings.grader.parts.CourseMethod;
import dev.shardlings.grader.parts.Part;
import dev.shardlings.random.PRNG;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.PartitionSpec;
import dev.shardlings.spmd.ShardedArray;

import java.util.List;
import java.util.Set;
import java.util.function.Function;

import static dev.shardlings.grader.parts.Part.example;
import static dev.shardlings.grader.parts.Part.property;
import static dev.shardlings.sharding.PartitionSpec.P;
import static dev.shardlings.sharding.PartitionSpec.tuple;

/**
 * Chapter 0's parts (collectives in shardMap) and their checks. First the table, one row each: number, title,
 * points, course methods, docs, hint, the requirements its stub states, and its cases — a property with a fixed seed
 * over meshes on the part's axes, and fixed examples (the tutorial's mesh, one device, 16 devices).
 *
 * <p>Then the checks the rows run. Each takes the implementation under test as a function (so the grader's own
 * wrong implementations can be fed to it), builds the case's whole arrays, lays them out as the part says, runs
 * the implementation under the {@link Guard}, compares with the whole-array oracle and applies the part's rule on
 * communication from the trace.
 */
public final class Chapter0Checks {

    static final Part.Chapter CHAPTER = new Part.Chapter("chapter 0", "collectives", "Chapter0");

    private static final String D = "docs/chapter-0.md#";

    /** {@code Chapter0.matmulNoCommunication}. */
    public static final CourseMethod<Matmul> MATMUL_NO_COMMUNICATION = CHAPTER.method("matmulNoCommunication", Matmul.class, ShardedArray.class, ShardedArray.class, ShardedArray.class);
    /** {@code Chapter0.matmulGatherA}. */
    public static final CourseMethod<Matmul> MATMUL_GATHER_A = CHAPTER.method("matmulGatherA", Matmul.class, ShardedArray.class, ShardedArray.class, ShardedArray.class);
    /** {@code Chapter0.matmulPsum}. */
    public static final CourseMethod<Matmul> MATMUL_PSUM = CHAPTER.method("matmulPsum", Matmul.class, ShardedArray.class, ShardedArray.class, ShardedArray.class);
    /** {@code Chapter0.matmulReduceScatterAllGather}. */
    public static final CourseMethod<Matmul> MATMUL_REDUCE_SCATTER_ALL_GATHER = CHAPTER.method("matmulReduceScatterAllGather", Matmul.class, ShardedArray.class, ShardedArray.class, ShardedArray.class);
    /** {@code Chapter0.matmulSameAxisGatherB}. */
    public static final CourseMethod<Matmul> MATMUL_SAME_AXIS_GATHER_B = CHAPTER.method("matmulSameAxisGatherB", Matmul.class, ShardedArray.class, ShardedArray.class, ShardedArray.class);
    /** {@code Chapter0.matmulSameAxisGatherA}. */
    public static final CourseMethod<Matmul> MATMUL_SAME_AXIS_GATHER_A = CHAPTER.method("matmulSameAxisGatherA", Matmul.class, ShardedArray.class, ShardedArray.class, ShardedArray.class);
    /** {@code Chapter0.parallelNormalize}. */
    public static final CourseMethod<Function<ShardedArray, ShardedArray>> PARALLEL_NORMALIZE = CHAPTER.unary("parallelNormalize");
    /** {@code Chapter0.matmulWithGatheredWeight}. */
    public static final CourseMethod<Matmul> MATMUL_WITH_GATHERED_WEIGHT = CHAPTER.method("matmulWithGatheredWeight", Matmul.class, ShardedArray.class, ShardedArray.class, ShardedArray.class);
    /** {@code Chapter0.ringShift}. */
    public static final CourseMethod<RingShift> RING_SHIFT = CHAPTER.method("ringShift", RingShift.class, ShardedArray.class, ShardedArray.class, int.class);
    /** {@code Chapter0.sliceAndAverage}. */
    public static final CourseMethod<Function<ShardedArray, ShardedArray>> SLICE_AND_AVERAGE = CHAPTER.unary("sliceAndAverage");
    /** {@code Chapter0.foldKeyOverAxis}. */
    public static final CourseMethod<FoldKey> FOLD_KEY_OVER_AXIS = CHAPTER.method("foldKeyOverAxis", FoldKey.class, ShardedArray.class, NDArray.class, Mesh.class);

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
                    c -> noCommunication(MATMUL_NO_COMMUNICATION.proxy(), c));

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
                    c -> gatherA(MATMUL_GATHER_A.proxy(), c));

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
                    c -> psumMatmul(MATMUL_PSUM.proxy(), c));

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
                    c -> reduceScatterAllGather(MATMUL_REDUCE_SCATTER_ALL_GATHER.proxy(), c));

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
                    c -> sameAxis(MATMUL_SAME_AXIS_GATHER_B.proxy(), MATMUL_SAME_AXIS_GATHER_A.proxy(), c));

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
                    c -> normalize(PARALLEL_NORMALIZE.proxy(), c));

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
                    c -> gatheredWeight(MATMUL_WITH_GATHERED_WEIGHT.proxy(), c));

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
                    c -> ringShift(RING_SHIFT.proxy(), c));

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
                    c -> sliceAndAverage(SLICE_AND_AVERAGE.proxy(), c));

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
                    c -> foldKey(FOLD_KEY_OVER_AXIS.proxy(), c));

    /** The parts of chapter 0, in course order. */
    public static final List<Part> PARTS = List.of(P0_1, P0_2, P0_3, P0_4, P0_5, P0_6, P0_7, P0_8, P0_9, P0_10);

    // ------------------------------------------------------------------------------------------ checks

    private Chapter0Checks() {
    }

    /** A two-argument part: (a, b) → C. */
    @FunctionalInterface
    public interface Matmul {
        ShardedArray apply(ShardedArray a, ShardedArray b);
    }

    /** Part 0.8's signature. */
    @FunctionalInterface
    public interface RingShift {
        ShardedArray apply(ShardedArray x, int k);
    }

    /** Part 0.10's signature. */
    @FunctionalInterface
    public interface FoldKey {
        ShardedArray apply(NDArray key, Mesh mesh);
    }

    private static Tolerance tol(int contracted) {
        return Tolerance.float32(4.0 * Math.max(1, contracted));
    }

    private static String dims(String name, int... d) {
        return name + " f32" + java.util.Arrays.toString(d).replace(" ", "");
    }

    /** Runs a matmul part on A, B laid out by specA, specB and checks C against the oracle and its layout. */
    private static CaseRun<ShardedArray> runMatmul(Part part, Matmul impl, Chapter0Case c, int i, int j, int k,
                                                   PartitionSpec specA, PartitionSpec specB, PartitionSpec specC) {
        Mesh mesh = c.mesh().mesh();
        NDArray a = Generators.smallFloats(c.seed(), i, j);
        NDArray b = Generators.smallFloats(c.seed() + 1, j, k);
        ShardedArray as = ShardedArray.devicePut(a, mesh, specA);
        ShardedArray bs = ShardedArray.devicePut(b, mesh, specB);
        String text = c.describe(dims("A", i, j) + " laid out " + specA + ", " + dims("B", j, k) + " laid out "
                + specB + "; C laid out " + specC);
        CaseRun<ShardedArray> run = Guard.run(part, text, () -> impl.apply(as, bs));
        Checks.shardedResult(run, Reports.inputs("A", a, "B", b), Chapter0Oracles.matmul(a, b), specC, tol(j),
                "A:\n" + visual(as) + "B:\n" + visual(bs));
        return run;
    }

    private static String visual(ShardedArray x) {
        return x.rank() <= 2 ? Reports.picture(x) : "";
    }

    /** The rule every device of the run must keep; the reason is the score table's line. */
    private static void rule(CaseRun<?> run, String reason, String ruleText, Rule rule) {
        TraceRules.perDevice(run, reason, ruleText, rule);
    }

    private static Set<Collective> kind(Collective c) {
        return Set.of(c);
    }

    /** 0.1: C = A·B laid out P('X', 'Y'); no collectives; each device multiplies its own blocks once. */
    public static void noCommunication(Matmul impl, Chapter0Case c) {
        MeshSpec m = c.mesh();
        int i = m.size("X") * c.a();
        int j = c.b();
        int k = m.size("Y") * c.c();
        var r = runMatmul(P0_1, impl, c, i, j, k, P("X", null), P(null, "Y"), P("X", "Y"));
        long flops = 2L * (i / m.size("X")) * j * (k / m.size("Y"));
        rule(r, "communicates or multiplies more than its own blocks", "no collectives; each device"
                        + " multiplies its A block [I/X, J] by its B block [J, K/Y] once: " + flops + " FLOPs",
                TraceRules.noCollectives("every device already holds all it needs")
                        .and(TraceRules.flops(flops, "2·(I/X)·J·(K/Y)")));
    }

    /** 0.2: C = A·B replicated; exactly one all-gather per device, over X, of A's block [I, J/X]. */
    public static void gatherA(Matmul impl, Chapter0Case c) {
        int x = c.mesh().size("X");
        int i = c.a();
        int j = x * c.b();
        int k = c.c();
        var r = runMatmul(P0_2, impl, c, i, j, k, P(null, "X"), P(), P());
        rule(r, "wrong communication for 'all-gather A'", "exactly one all-gather over X, of A's block"
                        + " of shape " + Reports.tuple(i, j / x) + ", then one matmul of the whole A by B: "
                        + 2L * i * j * k + " FLOPs",
                TraceRules.collectives(Set.of("X"), List.of(kind(Collective.ALL_GATHER)), List.of(List.of(i, j / x)),
                        "one all-gather over X of A's block")
                        .and(TraceRules.flops(2L * i * j * k, "2·I·J·K")));
    }

    /** 0.3: C = A·B replicated; a local matmul of the blocks, then exactly one psum over X of C{U_X}. */
    public static void psumMatmul(Matmul impl, Chapter0Case c) {
        int x = c.mesh().size("X");
        int i = c.a();
        int j = x * c.b();
        int k = c.c();
        var r = runMatmul(P0_3, impl, c, i, j, k, P(null, "X"), P("X", null), P());
        rule(r, "wrong communication for 'local matmul, then psum'", "a local matmul of the blocks ("
                        + 2L * i * (j / x) * k + " FLOPs), then exactly one psum over X, of the partial product of"
                        + " shape " + Reports.tuple(i, k),
                TraceRules.collectives(Set.of("X"), List.of(kind(Collective.PSUM)), List.of(List.of(i, k)),
                        "one psum over X of the partial product")
                        .and(TraceRules.flops(2L * i * (j / x) * k, "2·I·(J/X)·K")));
    }

    /** 0.4: as 0.3, from exactly one psumScatter then one allGather over X per device; no psum. */
    public static void reduceScatterAllGather(Matmul impl, Chapter0Case c) {
        int x = c.mesh().size("X");
        int i = x * c.a(); // I must divide by X for the reduce-scatter along I
        int j = x * c.b();
        int k = c.c();
        var r = runMatmul(P0_4, impl, c, i, j, k, P(null, "X"), P("X", null), P());
        rule(r, "wrong communication for 'reduce-scatter, then all-gather'", "a local matmul ("
                        + 2L * i * (j / x) * k + " FLOPs), then one psumScatter over X of the partial product "
                        + Reports.tuple(i, k) + ", then one allGather over X of the summed rows "
                        + Reports.tuple(i / x, k) + ", and no psum",
                TraceRules.collectives(Set.of("X"), List.of(kind(Collective.PSUM_SCATTER), kind(Collective.ALL_GATHER)),
                        List.of(List.of(i, k), List.of(i / x, k)), "psumScatter of the partial product, then"
                                + " allGather of the summed rows")
                        .and(TraceRules.flops(2L * i * (j / x) * k, "2·I·(J/X)·K")));
    }

    /** 0.5: both halves; each exactly one all-gather over X, of B's block (→ C[I_X, K]) or A's (→ C[I, K_X]). */
    public static void sameAxis(Matmul gatherB, Matmul gatherA, Chapter0Case c) {
        int x = c.mesh().size("X");
        int i = x * c.a();
        int j = c.b();
        int k = x * c.c();
        var rb = runMatmul(P0_5, gatherB, c, i, j, k, P("X", null), P(null, "X"), P("X", null));
        rule(rb, "wrong communication for C[I_X, K]", "for C[I_X, K]: exactly one all-gather over X, of"
                        + " B's block of shape " + Reports.tuple(j, k / x) + ", then A's block times the whole B: "
                        + 2L * (i / x) * j * k + " FLOPs",
                TraceRules.collectives(Set.of("X"), List.of(kind(Collective.ALL_GATHER)), List.of(List.of(j, k / x)),
                        "one all-gather over X of B's block")
                        .and(TraceRules.flops(2L * (i / x) * j * k, "2·(I/X)·J·K")));
        var ra = runMatmul(P0_5, gatherA, c, i, j, k, P("X", null), P(null, "X"), P(null, "X"));
        rule(ra, "wrong communication for C[I, K_X]", "for C[I, K_X]: exactly one all-gather over X, of"
                        + " A's block of shape " + Reports.tuple(i / x, j) + ", then the whole A times B's block: "
                        + 2L * i * j * (k / x) + " FLOPs",
                TraceRules.collectives(Set.of("X"), List.of(kind(Collective.ALL_GATHER)), List.of(List.of(i / x, j)),
                        "one all-gather over X of A's block")
                        .and(TraceRules.flops(2L * i * j * (k / x), "2·I·J·(K/X)")));
    }

    /** 0.6: rows normalised over all D features; only pmean/psum over j of per-row statistics, at least one. */
    public static void normalize(Function<ShardedArray, ShardedArray> impl, Chapter0Case c) {
        MeshSpec m = c.mesh();
        int rows = m.size("i") * c.a();
        int feats = m.size("j") * c.b();
        Mesh mesh = m.mesh();
        NDArray x = Generators.smallFloats(c.seed(), rows, feats);
        ShardedArray xs = ShardedArray.devicePut(x, mesh, P("i", "j"));
        String text = c.describe(dims("x", rows, feats) + " laid out P('i', 'j')");
        CaseRun<ShardedArray> run = Guard.run(P0_6, text, () -> impl.apply(xs));
        Checks.shardedResult(run, Reports.inputs("x", x), Chapter0Oracles.normalizeRows(x, 1e-5),
                P("i", "j"), new Tolerance(1e-4, 1e-4), visual(xs));
        int local = c.a();
        rule(run, "wrong communication for the parallel normalisation",
                "only pmean or psum over j (at least one), each of per-row statistics (at most " + local
                        + " elements: one per row of the block), no all-gather",
                new Rule(Set.of(Check.COLLECTIVES, Check.OPERANDS), d -> {
                    if (d.collectives().isEmpty()) {
                        return "it calls no collective; a row's statistics need the blocks of every device along j";
                    }
                    for (var e : d.collectives()) {
                        if ((e.kind() != Collective.PMEAN && e.kind() != Collective.PSUM)
                                || !e.axes().equals(List.of("j"))) {
                            return "it calls " + e.describe() + "; only pmean or psum over j are needed";
                        }
                        long size = e.inputShape().stream().mapToLong(Integer::longValue).reduce(1, (p, q) -> p * q);
                        if (size > local) {
                            return "it reduces a " + e.dtype().jaxName() + e.inputShape() + " (" + size + " elements); reduce"
                                    + " the per-row statistics (" + local + " values), not the block";
                        }
                    }
                    return null;
                }));
    }

    /** 0.7: y = x·w laid out P('i', None); exactly one all-gather of w's block over i. */
    public static void gatheredWeight(Matmul impl, Chapter0Case c) {
        MeshSpec m = c.mesh();
        int n = m.size("i");
        int rows = n * c.a();
        int d = n * c.b();
        int f = c.c();
        Mesh mesh = m.mesh();
        NDArray x = Generators.smallFloats(c.seed(), rows, d);
        NDArray w = Generators.smallFloats(c.seed() + 1, d, f);
        ShardedArray xs = ShardedArray.devicePut(x, mesh, P("i", null));
        ShardedArray ws = ShardedArray.devicePut(w, mesh, P("i", null));
        String text = c.describe(dims("x", rows, d) + " and " + dims("w", d, f) + " both laid out P('i', None)");
        CaseRun<ShardedArray> run = Guard.run(P0_7, text, () -> impl.apply(xs, ws));
        Checks.shardedResult(run, Reports.inputs("x", x, "w", w), Chapter0Oracles.matmul(x, w),
                P("i", null), tol(d), "x:\n" + visual(xs) + "w:\n" + visual(ws));
        long flops = 2L * (rows / n) * d * f;
        rule(run, "wrong communication for the gathered weight",
                "exactly one all-gather over i, of w's block of shape " + Reports.tuple(d / n, f) + ", then the x"
                        + " block times the whole w: " + flops + " FLOPs",
                TraceRules.collectives(Set.of("i"), List.of(kind(Collective.ALL_GATHER)), List.of(List.of(d / n, f)),
                        "one all-gather over i of w's block")
                        .and(TraceRules.flops(flops, "2·(rows/i)·D·F")));
    }

    /** 0.8: blocks rolled by k along i; at most one ppermute over i, of the block, and nothing else. */
    public static void ringShift(RingShift impl, Chapter0Case c) {
        MeshSpec m = c.mesh();
        int n = m.size("i");
        int rows = n * c.a();
        int cols = c.b();
        Mesh mesh = m.mesh();
        NDArray x = Generators.smallFloats(c.seed(), rows, cols);
        ShardedArray xs = ShardedArray.devicePut(x, mesh, P("i", null));
        int k = c.param();
        String text = c.describe(dims("x", rows, cols) + " laid out P('i', None); k = " + k);
        CaseRun<ShardedArray> run = Guard.run(P0_8, text, () -> impl.apply(xs, k));
        Checks.shardedResult(run, Reports.inputs("x", x), Chapter0Oracles.rollBlocks(x, n, k),
                P("i", null), Tolerance.EXACT, visual(xs), List.of(new Checks.Mistake("shifting by −k",
                        Chapter0Oracles.rollBlocks(x, n, -k), "device j's block goes to device (j + k) mod n: perm"
                        + " pairs (j, (j + k) % n), sources first; you sent blocks the other way round the ring")));
        Rule one = TraceRules.collectives(Set.of("i"), List.of(kind(Collective.PPERMUTE)),
                java.util.Collections.singletonList(List.of(c.a(), cols)), "at most one ppermute over i, of the"
                        + " device's block");
        rule(run, "wrong communication for the ring shift", "at most one"
                        + " ppermute over i, of the block " + Reports.tuple(c.a(), cols) + ", and no other collective",
                new Rule(one.checks(), d -> d.collectives().isEmpty() ? null : one.violation(d)));
    }

    /** 0.9: f32[4], the mean of every block's first 4 elements; one pmean/psum over {x, y} of 4 elements. */
    public static void sliceAndAverage(Function<ShardedArray, ShardedArray> impl, Chapter0Case c) {
        MeshSpec m = c.mesh();
        int n = m.size("x") * m.size("y");
        int per = 4 + c.a() - 1;
        Mesh mesh = m.mesh();
        NDArray x = Generators.smallFloats(c.seed(), n * per);
        ShardedArray xs = ShardedArray.devicePut(x, mesh, P(tuple("x", "y")));
        String text = c.describe(dims("x", n * per) + " laid out P(('x', 'y'),), " + per + " elements per device");
        CaseRun<ShardedArray> run = Guard.run(P0_9, text, () -> impl.apply(xs));
        Checks.shardedResult(run, Reports.inputs("x", x), Chapter0Oracles.sliceAndAverage(x, n),
                P(), new Tolerance(1e-6, 1e-6), visual(xs));
        rule(run, "wrong communication for slice-and-average", "exactly one"
                        + " pmean (or psum) over both x and y, of the 4 sliced elements",
                TraceRules.collectives(Set.of("x", "y"), List.of(Set.of(Collective.PMEAN, Collective.PSUM)),
                        List.of(List.of(4)), "one pmean over x and y of the 4 sliced elements"));
    }

    /** 0.10: row r = foldIn(key, r) for r in [0, I), laid out P('i', None); a shardMap; no collectives. */
    public static void foldKey(FoldKey impl, Chapter0Case c) {
        MeshSpec m = c.mesh();
        Mesh mesh = m.mesh();
        NDArray key = PRNG.key((int) c.seed()).toArray();
        String text = c.describe("key " + PRNG.Key.of(key) + " (int32 bit patterns " + key + ")");
        CaseRun<ShardedArray> run = Guard.run(P0_10, text, () -> impl.apply(key, mesh));
        int n = m.size("i");
        NDArray[] rows = new NDArray[n];
        for (int r = 0; r < n; r++) {
            rows[r] = PRNG.foldIn(PRNG.Key.of(key), r).toArray();
        }
        Checks.shardedResult(run, Reports.inputs("key", key), NDArray.stack(0, rows),
                P("i", null), Tolerance.EXACT, null);
        rule(run, "communicates, or computes the keys outside shardMap",
                "a shardMap in which every device folds its own index into the key; no collectives",
                TraceRules.noCollectives("every device knows its own index (axisIndex)"));
    }
}
