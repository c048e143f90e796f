package dev.shardlings.grader.problem3;

import dev.shardlings.array.NDArray;
import dev.shardlings.cost.ModelDtype;
import dev.shardlings.events.Collective;
import dev.shardlings.events.TraceEvent.CollectiveEvent;
import dev.shardlings.grader.chapter0.Chapter0Oracles;
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
import dev.shardlings.grader.parts.Requirement;
import dev.shardlings.grader.parts.TimedResult;
import dev.shardlings.grader.parts.TimedSetting;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.PartitionSpec;
import dev.shardlings.spmd.ShardedArray;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BinaryOperator;
import java.util.function.Function;

import static dev.shardlings.grader.parts.Part.example;
import static dev.shardlings.grader.parts.Part.property;
import static dev.shardlings.sharding.PartitionSpec.P;

/**
 * Problem 3's parts (collective matmuls) and their modelled-time parts, then their checks: first the table, one row
 * each, then the checks the rows run. Each check takes the implementation under test as a function (so the grader's
 * own wrong implementations can be fed to it), lays the case's whole arrays out as the part says, runs the
 * implementation under the {@link Guard}, compares with {@link Problem3Oracles} on the whole arrays, and then reads
 * each device's trace: which collectives, one step round the ring along Y, what shape each message has, and whether
 * the matmuls work on one chunk at a time (which is what lets transfers overlap compute).
 *
 * <p>Shapes: n = |Y| is the ring; B = X·b, D = Y·d, F = Y·f (part 3.1: F = tiles·f) with the case's multipliers.
 */
public final class Problem3Checks {

    static final Part.Chapter CHAPTER = new Part.Chapter("problem 3", "collective matmul", "Problem3");

    /** The docs of every modelled-time part of Problems 3 and 4. */
    public static final String PERFORMANCE_DOCS = "docs/profiles.md#performance-points";
    /** The hint of every modelled-time part of Problems 3 and 4. */
    public static final String PERFORMANCE_HINT = "the reference overlaps every transfer with a matmul and does no"
            + " elementwise pass the matmul cannot absorb; compare your timeline (written under"
            + " grader/target/grade/profiles/) with the reference picture in docs/profiles.md.";

    /**
     * The cases every part of Problems 3 and 4 is graded on: a property over meshes (X and Y plus up to one
     * replicated axis, 1–16 devices, any axis order), sizes, values and tile counts, and fixed examples — the book's
     * 2 × 4 mesh, one device, rings of 2, 3 and 8, no ring at all (Y = 1), and a replicated extra axis placed first.
     */
    public static final Part.Property<MatmulCase> CASES = property("meshesShapesAndValues", 60, "1300",
            MatmulCase::cases);
    /** The fixed examples of Problems 3 and 4. */
    public static final List<Part.Example<MatmulCase>> EXAMPLES = List.of(
            example("booksMesh", new MatmulCase(MeshSpec.of("X", 2, "Y", 4), 2, 2, 3, 30, 2)),
            example("oneDevice", new MatmulCase(MeshSpec.of("X", 1, "Y", 1), 2, 3, 2, 31, 3)),
            example("ringOfTwo", new MatmulCase(MeshSpec.of("X", 1, "Y", 2), 1, 2, 2, 32, 2)),
            example("oddRing", new MatmulCase(MeshSpec.of("X", 1, "Y", 3), 2, 1, 2, 33, 4)),
            example("ringOfEightOnSixteenDevices", new MatmulCase(MeshSpec.of("X", 2, "Y", 8), 1, 1, 1, 34, 2)),
            example("noRing", new MatmulCase(MeshSpec.of("X", 4, "Y", 1), 1, 3, 2, 35, 2)),
            example("replicatedAxisFirst", new MatmulCase(MeshSpec.of("Z", 2, "Y", 4, "X", 2), 1, 2, 1, 36, 3)));

    /** Sizes of the performance parts of Problems 3 and 4: B, D, F on the book's 2 × 4 mesh; 4 tiles in 3.1. */
    public static final int PERF_B = 256;
    /** D of the performance parts. */
    public static final int PERF_D = 1024;
    /** F of the performance parts. */
    public static final int PERF_F = 8192;
    /** Tiles of part 3.1p. */
    public static final int PERF_TILES = 4;

    /** Problem 3's performance setting: the book's chip, TPU v5e, in bfloat16. */
    public static final TimedSetting SETTING = new TimedSetting("tpu-v5e", ModelDtype.BFLOAT16,
            "mesh (X=2, Y=4); B, D, F = " + PERF_B + ", " + PERF_D + ", " + PERF_F + " (part 3.1: " + PERF_TILES
                    + " tiles)");

    private static final String D = "docs/problem-3.md#";

    /** {@code Problem3.allGatherMatmul}. */
    public static final CourseMethod<BinaryOperator<ShardedArray>> P3_ALL_GATHER_MATMUL = CHAPTER.binary("allGatherMatmul");
    /** {@code Problem3.allGatherMatmulNaive}. */
    public static final CourseMethod<BinaryOperator<ShardedArray>> P3_ALL_GATHER_MATMUL_NAIVE = CHAPTER.binary("allGatherMatmulNaive");
    /** {@code Problem3.allReduceMatmul}. */
    public static final CourseMethod<Tiled> P3_ALL_REDUCE_MATMUL = CHAPTER.method("allReduceMatmul", Tiled.class, ShardedArray.class, ShardedArray.class, ShardedArray.class, int.class);
    /** {@code Problem3.reduceScatterMatmul}. */
    public static final CourseMethod<BinaryOperator<ShardedArray>> P3_REDUCE_SCATTER_MATMUL = CHAPTER.binary("reduceScatterMatmul");
    /** {@code Problem3.transformerBlock}. */
    public static final CourseMethod<Block> TRANSFORMER_BLOCK = CHAPTER.method("transformerBlock", Block.class, ShardedArray.class, ShardedArray.class, ShardedArray.class, ShardedArray.class);
    /** {@code Problem3.transformerBlockNaive}. */
    public static final CourseMethod<Block> TRANSFORMER_BLOCK_NAIVE = CHAPTER.method("transformerBlockNaive", Block.class, ShardedArray.class, ShardedArray.class, ShardedArray.class, ShardedArray.class);

    /** Part 3.0. */
    public static final Part P3_0 = CHAPTER.part("3.0", "all-gather collective matmul", 3, "AllGatherMatmul")
            .calls(P3_ALL_GATHER_MATMUL, P3_ALL_GATHER_MATMUL_NAIVE)
            .docs(D + "part-30-the-all-gather-collective-matmul")
            .hint("after k shifts up the ring device y holds A's chunk (y − k) mod n, which multiplies rows"
                    + " [(y − k) mod n · D/Y, …) of its W block; use Math.floorMod for the chunk number.")
            .requires(P3_ALL_GATHER_MATMUL, "values", Check.VALUES)
            .requires(P3_ALL_GATHER_MATMUL, "only ppermutes over Y (no all-gather), exactly n − 1 per device, each of one A "
                    + "block [B/X, D/Y] and one step round the ring", Check.COLLECTIVES, Check.OPERANDS, Check.RING_STEPS)
            .requires(P3_ALL_GATHER_MATMUL, "every matmul multiplies one A chunk (contracts at most D/Y), so each can start "
                    + "as soon as its chunk arrives", Check.MATMULS)
            .requires(P3_ALL_GATHER_MATMUL, "2·(B/X)·D·(F/Y) matmul FLOPs per device", Check.FLOPS)
            .requires(P3_ALL_GATHER_MATMUL_NAIVE, "values", Check.VALUES)
            .requires(P3_ALL_GATHER_MATMUL_NAIVE, "exactly one all-gather per device, over Y, of the A block", Check.COLLECTIVES, Check.OPERANDS)
            .requires(P3_ALL_GATHER_MATMUL_NAIVE, "2·(B/X)·D·(F/Y) matmul FLOPs per device", Check.FLOPS)
            .graded(CASES, EXAMPLES, c -> allGatherMatmul(P3_ALL_GATHER_MATMUL.proxy(), P3_ALL_GATHER_MATMUL_NAIVE.proxy(), c));

    /** Part 3.1. */
    public static final Part P3_1 = CHAPTER.part("3.1", "all-reduce collective matmul", 2, "AllReduceMatmul")
            .calls(P3_ALL_REDUCE_MATMUL)
            .docs(D + "part-31-the-all-reduce-collective-matmul")
            .hint("for tile j multiply the A block by columns [j·F/tiles, (j + 1)·F/tiles) of the W block, psum that"
                    + " over Y, and concatenate the reduced tiles along dimension 1.")
            .requires(P3_ALL_REDUCE_MATMUL, "values", Check.VALUES)
            .requires(P3_ALL_REDUCE_MATMUL, "one psum over Y per tile (at least two), each of one output tile [B/X, "
                    + "F/tiles], so the psums together reduce exactly one [B/X, F] array — no more", Check.COLLECTIVES, Check.OPERANDS)
            .requires(P3_ALL_REDUCE_MATMUL, "every matmul computes at most one tile", Check.MATMULS)
            .requires(P3_ALL_REDUCE_MATMUL, "each psum reduces products of its own tile only, so no reduction waits for "
                    + "every matmul", Check.OVERLAP)
            .requires(P3_ALL_REDUCE_MATMUL, "2·(B/X)·(D/Y)·F matmul FLOPs per device", Check.FLOPS)
            .graded(CASES, EXAMPLES, c -> allReduceMatmul(P3_ALL_REDUCE_MATMUL.proxy(), c));

    /** Part 3.2. */
    public static final Part P3_2 = CHAPTER.part("3.2", "reduce-scatter collective matmul", 3, "ReduceScatterMatmul")
            .calls(P3_REDUCE_SCATTER_MATMUL)
            .docs(D + "part-32-the-reduce-scatter-collective-matmul")
            .hint("the accumulator that ends on device c must start on device c + 1 and pass every other device once:"
                    + " device y adds its partial product for chunk (y − 1 − k) mod n after k shifts up.")
            .requires(P3_REDUCE_SCATTER_MATMUL, "values", Check.VALUES)
            .requires(P3_REDUCE_SCATTER_MATMUL, "only ppermutes over Y, exactly n − 1 per device, each of one accumulator block "
                    + "[B/X, D/Y] and one step round the ring (no psum or psumScatter)", Check.COLLECTIVES, Check.OPERANDS, Check.RING_STEPS)
            .requires(P3_REDUCE_SCATTER_MATMUL, "every matmul computes the partial product of at most one D chunk [B/X, D/Y]", Check.MATMULS)
            .requires(P3_REDUCE_SCATTER_MATMUL, "2·(B/X)·(F/Y)·D matmul FLOPs per device", Check.FLOPS)
            .graded(CASES, EXAMPLES, c -> reduceScatterMatmul(P3_REDUCE_SCATTER_MATMUL.proxy(), c));

    /** Part 3.3. */
    public static final Part P3_3 = CHAPTER.part("3.3", "transformer block", 3, "TransformerBlock")
            .calls(TRANSFORMER_BLOCK, TRANSFORMER_BLOCK_NAIVE)
            .docs(D + "part-33-a-transformer-block")
            .hint("one shardMap over (In, Win, Wout): the 3.0 steps give the hidden block [B/X, F/Y], gelu it, and the"
                    + " 3.2 steps take it to Out [B/X, D/Y].")
            .requires(TRANSFORMER_BLOCK, "values", Check.VALUES)
            .requires(TRANSFORMER_BLOCK, "the collectives of 3.0 then those of 3.2: 2(n − 1) one-step ppermutes over Y of "
                    + "[B/X, D/Y] blocks, nothing else", Check.COLLECTIVES, Check.OPERANDS, Check.RING_STEPS)
            .requires(TRANSFORMER_BLOCK, "every matmul is one chunk of 3.0 or of 3.2", Check.MATMULS)
            .requires(TRANSFORMER_BLOCK, "4·(B/X)·D·(F/Y) matmul FLOPs per device", Check.FLOPS)
            .requires(TRANSFORMER_BLOCK_NAIVE, "values", Check.VALUES)
            .requires(TRANSFORMER_BLOCK_NAIVE, "exactly one all-gather then one psumScatter over Y per device, of the In block "
                    + "and of the [B/X, D] partial product", Check.COLLECTIVES, Check.OPERANDS)
            .requires(TRANSFORMER_BLOCK_NAIVE, "4·(B/X)·D·(F/Y) matmul FLOPs per device", Check.FLOPS)
            .graded(CASES, EXAMPLES, c -> transformerBlock(TRANSFORMER_BLOCK.proxy(), TRANSFORMER_BLOCK_NAIVE.proxy(), c));

    /** Part 3.0p. */
    public static final Part P3_0P = CHAPTER.part("3.0p", "3.0 modelled time, TPU v5e", 1, "Performance")
            .calls(P3_ALL_GATHER_MATMUL)
            .docs(PERFORMANCE_DOCS)
            .hint(PERFORMANCE_HINT)
            .requires(Requirement.performance(P3_ALL_GATHER_MATMUL))
            .timed(SETTING, () -> allGatherMatmulTime(P3_ALL_GATHER_MATMUL.proxy(), P3_ALL_GATHER_MATMUL_NAIVE.proxy()));

    /** Part 3.1p. */
    public static final Part P3_1P = CHAPTER.part("3.1p", "3.1 modelled time, TPU v5e", 1, "Performance")
            .calls(P3_ALL_REDUCE_MATMUL)
            .docs(PERFORMANCE_DOCS)
            .hint(PERFORMANCE_HINT)
            .requires(Requirement.performance(P3_ALL_REDUCE_MATMUL))
            .timed(SETTING, () -> allReduceMatmulTime(P3_ALL_REDUCE_MATMUL.proxy()));

    /** Part 3.2p. */
    public static final Part P3_2P = CHAPTER.part("3.2p", "3.2 modelled time, TPU v5e", 1, "Performance")
            .calls(P3_REDUCE_SCATTER_MATMUL)
            .docs(PERFORMANCE_DOCS)
            .hint(PERFORMANCE_HINT)
            .requires(Requirement.performance(P3_REDUCE_SCATTER_MATMUL))
            .timed(SETTING, () -> reduceScatterMatmulTime(P3_REDUCE_SCATTER_MATMUL.proxy()));

    /** Part 3.3p. */
    public static final Part P3_3P = CHAPTER.part("3.3p", "3.3 modelled time, TPU v5e", 1, "Performance")
            .calls(TRANSFORMER_BLOCK)
            .docs(PERFORMANCE_DOCS)
            .hint(PERFORMANCE_HINT)
            .requires(Requirement.performance(TRANSFORMER_BLOCK))
            .timed(SETTING, () -> transformerBlockTime(TRANSFORMER_BLOCK.proxy(), TRANSFORMER_BLOCK_NAIVE.proxy()));

    /** The parts of problem 3, in course order. */
    public static final List<Part> PARTS = List.of(P3_0, P3_1, P3_2, P3_3, P3_0P, P3_1P, P3_2P, P3_3P);

    // ------------------------------------------------------------------------------------------ checks

    private static final PartitionSpec XY = P("X", "Y");
    private static final PartitionSpec ROWS_Y = P("Y", null);
    private static final PartitionSpec COLS_Y = P(null, "Y");
    private static final PartitionSpec ROWS_X = P("X", null);

    private Problem3Checks() {
    }

    /** The signature of part 3.3: (In, Win, Wout) → Out. */
    @FunctionalInterface
    public interface Block {
        ShardedArray apply(ShardedArray in, ShardedArray win, ShardedArray wout);
    }

    /** The signature of part 3.1: (A, W, tiles) → Out. */
    @FunctionalInterface
    public interface Tiled {
        ShardedArray apply(ShardedArray a, ShardedArray w, int tiles);
    }

    /** An input of a case: its name, whole value and layout. */
    public record Operand(String name, NDArray value, PartitionSpec spec) {
    }

    /**
     * Lays out the operands, runs {@code impl} under the Guard and checks the result's shape, dtype, layout and
     * values (every replica) against {@code expected}.
     *
     * @throws dev.shardlings.grader.judge.GradingFailure when the result is wrong
     */
    public static CaseRun<ShardedArray> run(Part part, MatmulCase c, List<Operand> ops, PartitionSpec outSpec, NDArray expected,
                          Tolerance tol, Function<List<ShardedArray>, ShardedArray> impl) {
        return run(part, c, "", ops, outSpec, expected, tol, impl);
    }

    /** {@link #run(Part, MatmulCase, List, PartitionSpec, NDArray, Tolerance, Function)} with parameters to show. */
    public static CaseRun<ShardedArray> run(Part part, MatmulCase c, String params, List<Operand> ops, PartitionSpec outSpec,
                          NDArray expected, Tolerance tol, Function<List<ShardedArray>, ShardedArray> impl) {
        List<ShardedArray> laid = new ArrayList<>();
        StringBuilder shapes = new StringBuilder();
        StringBuilder pictures = new StringBuilder();
        List<Object> inputs = new ArrayList<>();
        for (Operand o : ops) {
            ShardedArray s = ShardedArray.devicePut(o.value(), c.mesh().mesh(), o.spec());
            laid.add(s);
            shapes.append(shapes.length() > 0 ? ", " : "").append(o.name()).append(' ').append(dims(o.value()))
                    .append(" laid out ").append(o.spec());
            pictures.append(o.name()).append(":\n").append(Reports.picture(s));
            inputs.add(o.name());
            inputs.add(o.value());
        }
        String text = c.describe(shapes + "; Out " + dims(expected) + " laid out " + outSpec + params);
        CaseRun<ShardedArray> run = Guard.run(part, text, () -> impl.apply(List.copyOf(laid)));
        Checks.shardedResult(run, Reports.inputs(inputs.toArray()), expected, outSpec, tol, pictures.toString());
        return run;
    }

    static String dims(NDArray a) {
        return "f32" + java.util.Arrays.toString(a.shape()).replace(" ", "");
    }

    /** Exact sums of the generated values: multiples of 1/16 well inside float32's 24 bits. */
    public static Tolerance exactSums(int contracted) {
        return Tolerance.float32(4.0 * contracted);
    }

    /**
     * Part 3.3's tolerance: the first product is exact; the second sums F float32 terms in an order each program
     * chooses, so it may differ by a few ulps of its largest terms.
     *
     * @param f         F, the length of the second product's sums
     * @param maxHidden the largest |gelu(In · Win)|
     * @param maxWout   the largest |Wout|
     */
    public static Tolerance blockTolerance(int f, double maxHidden, double maxWout) {
        return new Tolerance(1e-5, 8.0 * f * Math.ulp(1.0f) * maxHidden * maxWout + 1e-6);
    }

    private static NDArray values(MatmulCase c, int which, int... shape) {
        return Generators.smallFloats(c.seed() + which, shape);
    }

    // ------------------------------------------------------------------------------------------------- 3.0

    /**
     * 3.0: A[B_X, D_Y] ·_D W[D, F_Y] → Out[B_X, F_Y] both ways. The collective version: only ppermutes over Y,
     * exactly n − 1, each of one A block [B/X, D/Y] and one step round the ring; matmuls contract one chunk of D at
     * a time (k ≤ D/Y); 2·(B/X)·D·(F/Y) FLOPs. The baseline: exactly one all-gather over Y of the A block, the same
     * FLOPs.
     */
    public static void allGatherMatmul(BinaryOperator<ShardedArray> collective, BinaryOperator<ShardedArray> naive,
                                       MatmulCase c) {
        Part part = P3_0;
        int n = c.y();
        int bx = c.b();
        int dy = c.d();
        int fy = c.f();
        int bb = c.batch();
        int d = c.model();
        int f = c.hidden();
        NDArray a = values(c, 0, bb, d);
        NDArray w = values(c, 1, d, f);
        List<Operand> ops = List.of(new Operand("A", a, XY), new Operand("W", w, COLS_Y));
        NDArray expected = Chapter0Oracles.matmul(a, w);
        long flops = 2L * bx * d * fy;
        String flopText = "2·(B/X)·D·(F/Y) = 2·" + bx + "·" + d + "·" + fy;

        CaseRun<ShardedArray> r = run(part, c, ops, XY, expected, exactSums(d), l -> collective.apply(l.get(0), l.get(1)));
        TraceRules.perDevice(r, "collective: " + (n - 1) + " one-step ppermutes of A blocks, one chunk per matmul",
                "allGatherMatmul: only ppermute over Y, exactly n − 1 = " + (n - 1)
                        + " per device, each of one A block [B/X, D/Y] = [" + bx + ", " + dy + "] and one step round"
                        + " the ring; every matmul contracts one chunk of D (k ≤ D/Y = " + dy + "); " + flops
                        + " FLOPs",
                TraceRules.onlyPpermutesOver("Y")
                        .and(TraceRules.ppermuteCount(n - 1, "every chunk but the device's own arrives once"))
                        .and(TraceRules.ppermuteShape(List.of(bx, dy), "one A block"))
                        .and(TraceRules.oneStepShifts())
                        .and(TraceRules.everyMatmul(m -> m.k() <= dy, "multiply one A chunk at a time (contract at"
                                + " most D/Y = " + dy + "), so that each matmul can start as soon as its chunk"
                                + " arrives instead of after the whole of A has been collected"))
                        .and(TraceRules.flops(flops, flopText)));

        CaseRun<ShardedArray> rn = run(part, c, ops, XY, expected, exactSums(d), l -> naive.apply(l.get(0), l.get(1)));
        TraceRules.perDevice(rn, "baseline: exactly one all-gather of the A block over Y",
                "allGatherMatmulNaive: exactly one all_gather over Y, of the A block [" + bx + ", " + dy
                        + "], then a local matmul; " + flops + " FLOPs",
                TraceRules.exactly("Y", List.of(Collective.ALL_GATHER), List.of(List.of(bx, dy)),
                                "exactly one all_gather over Y of the A block")
                        .and(TraceRules.flops(flops, flopText)));
    }

    // ------------------------------------------------------------------------------------------------- 3.1

    /**
     * 3.1: A[B_X, D_Y] ·_D W[D_Y, F] → Out[B_X, F] in {@code tiles} tiles of F. Only psums over Y, exactly one per
     * tile, each of one output tile [B/X, F/tiles] (together exactly one all-reduce of the [B/X, F] output); each
     * matmul computes at most one tile; 2·(B/X)·(D/Y)·F FLOPs.
     */
    public static void allReduceMatmul(Tiled impl, MatmulCase c) {
        Part part = P3_1;
        int n = c.y();
        int t = c.tiles();
        int bx = c.b();
        int dy = c.d();
        int ft = c.f();
        int bb = c.batch();
        int d = c.model();
        int f = t * ft;
        NDArray a = values(c, 0, bb, d);
        NDArray w = values(c, 1, d, f);
        List<Operand> ops = List.of(new Operand("A", a, XY), new Operand("W", w, ROWS_Y));
        NDArray expected = Chapter0Oracles.matmul(a, w);
        long flops = 2L * bx * dy * f;
        CaseRun<ShardedArray> r = run(part, c, "; tiles = " + t, ops, ROWS_X, expected, exactSums(d),
                l -> impl.apply(l.get(0), l.get(1), t));
        Rule onePsumPerTile = new Rule(java.util.Set.of(Check.COLLECTIVES, Check.OPERANDS), dev -> {
            List<CollectiveEvent> cs = dev.collectives();
            for (CollectiveEvent e : cs) {
                if (e.kind() != Collective.PSUM || !e.axes().equals(List.of("Y"))) {
                    return "it calls " + e.describe() + "; this part reduces with psum over Y only";
                }
                if (!e.inputShape().equals(List.of(bx, ft))) {
                    return "it reduces a " + e.dtype().jaxName() + e.inputShape() + "; each psum should reduce one output"
                            + " tile [B/X, F/tiles] = [" + bx + ", " + ft + "], so that the psums together move one"
                            + " all-reduce of the output and no more";
                }
            }
            return cs.size() == t ? null : "it calls psum " + cs.size() + " time(s), expected one per tile ("
                    + t + ")";
        });
        TraceRules.perDevice(r, "communication: one psum over Y per output tile",
                "one psum over Y per tile of F (" + t + " tiles), each of one tile [B/X, F/tiles] = ["
                        + bx + ", " + ft + "], computed from that tile's own products; every matmul computes at most one tile (≤ "
                        + ft + " columns), so the next tile's matmul can overlap this tile's reduction; " + flops
                        + " FLOPs",
                onePsumPerTile
                        .and(TraceRules.everyMatmul(m -> m.n() <= ft, "compute one output tile at a time (at most"
                                + " F/tiles = " + ft + " columns), so that its psum can run while the next tile is"
                                + " multiplied"))
                        .and(TraceRules.eachFromItsOwnMatmuls(Collective.PSUM, "psum each tile's product as"
                                + " soon as it is computed, not slices of all products put together"))
                        .and(TraceRules.flops(flops, "2·(B/X)·(D/Y)·F = 2·" + bx + "·" + dy + "·" + f)));
    }

    // ------------------------------------------------------------------------------------------------- 3.2

    /**
     * 3.2: Tmp[B_X, F_Y] ·_F W2[F_Y, D] → Out[B_X, D_Y]. Only ppermutes over Y, exactly n − 1, each of one
     * accumulator block [B/X, D/Y] and one step round the ring (no psum, no psum_scatter); each matmul computes at
     * most one chunk of D (≤ D/Y columns); 2·(B/X)·(F/Y)·D FLOPs.
     */
    public static void reduceScatterMatmul(BinaryOperator<ShardedArray> impl, MatmulCase c) {
        Part part = P3_2;
        int n = c.y();
        int bx = c.b();
        int dy = c.d();
        int fy = c.f();
        int bb = c.batch();
        int d = c.model();
        int f = c.hidden();
        NDArray tmp = values(c, 0, bb, f);
        NDArray w2 = values(c, 1, f, d);
        List<Operand> ops = List.of(new Operand("Tmp", tmp, XY), new Operand("W2", w2, ROWS_Y));
        long flops = 2L * bx * fy * d;
        CaseRun<ShardedArray> r = run(part, c, ops, XY, Chapter0Oracles.matmul(tmp, w2), exactSums(f),
                l -> impl.apply(l.get(0), l.get(1)));
        TraceRules.perDevice(r, "communication: n − 1 one-step ppermutes of accumulator blocks",
                "only ppermute over Y, exactly n − 1 = " + (n - 1) + " per device, each of one"
                        + " accumulator block [B/X, D/Y] = [" + bx + ", " + dy + "] and one step round the ring (no"
                        + " psum or psum_scatter of the whole [B/X, D] partial product); every matmul computes one"
                        + " chunk of D (≤ D/Y = " + dy + " columns); " + flops + " FLOPs",
                TraceRules.onlyPpermutesOver("Y")
                        .and(TraceRules.ppermuteCount(n - 1, "the accumulator visits the other n − 1 devices"))
                        .and(TraceRules.ppermuteShape(List.of(bx, dy), "one accumulator block"))
                        .and(TraceRules.oneStepShifts())
                        .and(TraceRules.everyMatmul(m -> m.n() <= dy, "compute the partial product of one chunk"
                                + " of D at a time (at most D/Y = " + dy + " columns), just before it is added to"
                                + " the accumulator and passed on"))
                        .and(TraceRules.flops(flops, "2·(B/X)·(F/Y)·D = 2·" + bx + "·" + fy + "·" + d)));
    }

    // ------------------------------------------------------------------------------------------------- 3.3

    /**
     * 3.3: In[B_X, D_Y] ·_D Win[D, F_Y] → gelu → ·_F Wout[F_Y, D] → Out[B_X, D_Y] both ways. The collective
     * version: only ppermutes over Y, exactly 2(n − 1), each of a [B/X, D/Y] block and one step; every matmul is a
     * chunk of 3.0 ([·, ≤ D/Y] · [≤ D/Y, F/Y]) or of 3.2 ([·, F/Y] · [F/Y, ≤ D/Y]); 4·(B/X)·D·(F/Y) FLOPs. The
     * baseline: exactly one all-gather over Y of the In block, then one psum_scatter over Y of the [B/X, D]
     * partial product.
     */
    public static void transformerBlock(Block collective, Block naive, MatmulCase c) {
        Part part = P3_3;
        int n = c.y();
        int bx = c.b();
        int dy = c.d();
        int fy = c.f();
        int bb = c.batch();
        int d = c.model();
        int f = c.hidden();
        NDArray in = values(c, 0, bb, d);
        NDArray win = values(c, 1, d, f);
        NDArray wout = values(c, 2, f, d);
        List<Operand> ops = List.of(new Operand("In", in, XY), new Operand("Win", win, COLS_Y),
                new Operand("Wout", wout, ROWS_Y));
        NDArray hidden = Problem3Oracles.gelu(Chapter0Oracles.matmul(in, win));
        NDArray expected = Chapter0Oracles.matmul(hidden, wout);
        Tolerance tol = blockTolerance(f, Problem3Oracles.maxAbs(hidden), Problem3Oracles.maxAbs(wout));
        long flops = 4L * bx * d * fy;
        String flopText = "2·(B/X)·D·(F/Y) for each of the two matmuls = 4·" + bx + "·" + d + "·" + fy;

        CaseRun<ShardedArray> r = run(part, c, ops, XY, expected, tol, l -> collective.apply(l.get(0), l.get(1), l.get(2)));
        TraceRules.perDevice(r, "collective: 2(n − 1) one-step ppermutes of [B/X, D/Y] blocks",
                "transformerBlock: the collectives of 3.0 then those of 3.2 — only ppermute over Y,"
                        + " exactly 2(n − 1) = " + 2 * (n - 1) + " per device, each of a [B/X, D/Y] = [" + bx + ", "
                        + dy + "] block and one step round the ring; every matmul is one chunk of 3.0 or of 3.2; "
                        + flops + " FLOPs",
                TraceRules.onlyPpermutesOver("Y")
                        .and(TraceRules.ppermuteCount(2 * (n - 1), "n − 1 for the A chunks, n − 1 for the"
                                + " accumulators"))
                        .and(TraceRules.ppermuteShape(List.of(bx, dy), "one In chunk or one accumulator"))
                        .and(TraceRules.oneStepShifts())
                        .and(TraceRules.everyMatmul(m -> (m.k() <= dy && m.n() == fy) || (m.k() == fy && m.n() <= dy),
                                "every matmul should be a chunk of 3.0 ([B/X, ≤ D/Y] · [≤ D/Y, F/Y]) or of 3.2"
                                        + " ([B/X, F/Y] · [F/Y, ≤ D/Y]) with D/Y = " + dy + ", F/Y = " + fy))
                        .and(TraceRules.flops(flops, flopText)));

        CaseRun<ShardedArray> rn = run(part, c, ops, XY, expected, tol, l -> naive.apply(l.get(0), l.get(1), l.get(2)));
        TraceRules.perDevice(rn, "baseline: one all-gather, then one psum_scatter over Y",
                "transformerBlockNaive: exactly one all_gather over Y of the In block [" + bx + ", " + dy
                        + "], then one psum_scatter over Y of the partial product [" + bx + ", " + d + "]; "
                        + flops + " FLOPs",
                TraceRules.exactly("Y", List.of(Collective.ALL_GATHER, Collective.PSUM_SCATTER),
                                List.of(List.of(bx, dy), List.of(bx, d)),
                                "one all_gather of the In block then one psum_scatter of the partial product")
                        .and(TraceRules.flops(flops, flopText)));
    }

    // ------------------------------------------------------------------------------------ performance points

    /** The small case a performance part checks correctness on before it measures. */
    public static final MatmulCase BASE_CASE = new MatmulCase(MeshSpec.of("X", 2, "Y", 4), 1, 2, 2, 7, 2);

    /** The book's mesh. */
    public static Mesh perfMesh() {
        return MeshSpec.of("X", 2, "Y", 4).mesh();
    }

    private static final int[] BD = {PERF_B, PERF_D};
    private static final int[] DF = {PERF_D, PERF_F};
    private static final int[] BF = {PERF_B, PERF_F};
    private static final int[] FD = {PERF_F, PERF_D};
    private static final long MATMUL_FLOPS = 2L * PERF_B * PERF_D * PERF_F;

    /** 3.0p: the collective version's modelled time. */
    public static TimedResult allGatherMatmulTime(BinaryOperator<ShardedArray> collective,
                                             BinaryOperator<ShardedArray> naive) {
        return new MeasuredRun(P3_0P, MeasuredRun.operands("A", BD, XY, "W", DF, COLS_Y), XY, BF,
                MeasuredRun.MATMUL, MATMUL_FLOPS, MeasuredRun.acrossY(PERF_B, PERF_D)).time(P3_0, () -> allGatherMatmul(collective, naive,
                BASE_CASE), SETTING, l -> collective.apply(l.get(0), l.get(1)));
    }

    /** 3.1p. */
    public static TimedResult allReduceMatmulTime(Tiled impl) {
        return new MeasuredRun(P3_1P, MeasuredRun.operands("A", BD, XY, "W", DF, ROWS_Y), ROWS_X,
                BF, MeasuredRun.MATMUL, MATMUL_FLOPS, MeasuredRun.acrossY(PERF_B, PERF_F)).time(P3_1, () -> allReduceMatmul(impl, BASE_CASE),
                SETTING, l -> impl.apply(l.get(0), l.get(1), PERF_TILES));
    }

    /** 3.2p. */
    public static TimedResult reduceScatterMatmulTime(BinaryOperator<ShardedArray> impl) {
        return new MeasuredRun(P3_2P, MeasuredRun.operands("Tmp", BF, XY, "W2", FD, ROWS_Y), XY,
                BD, MeasuredRun.MATMUL, MATMUL_FLOPS, MeasuredRun.acrossY(PERF_B, PERF_D)).time(P3_2, () -> reduceScatterMatmul(impl, BASE_CASE),
                SETTING, l -> impl.apply(l.get(0), l.get(1)));
    }

    /** 3.3p: the collective block's modelled time. */
    public static TimedResult transformerBlockTime(Block collective, Block naive) {
        return new MeasuredRun(P3_3P, MeasuredRun.operands("In", BD, XY, "Win", DF, COLS_Y,
                "Wout", FD, ROWS_Y), XY, BD, MeasuredRun.BLOCK, 2 * MATMUL_FLOPS, MeasuredRun.acrossY(PERF_B, PERF_D)).time(P3_3,
                () -> transformerBlock(collective, naive, BASE_CASE), SETTING,
                l -> collective.apply(l.get(0), l.get(1), l.get(2)));
    }
}
