package dev.shardlings.grader.problem1;

import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.grader.checks.Checks.Tolerance;
import dev.shardlings.grader.checks.Checks;
import dev.shardlings.grader.checks.TraceRules;
import dev.shardlings.grader.judge.CaseRun;
import dev.shardlings.grader.judge.Guard;
import dev.shardlings.grader.judge.Reports;
import dev.shardlings.grader.parts.Check;
import dev.shardlings.grader.parts.CourseMethod;
import dev.shardlings.grader.parts.Part;
import dev.shardlings.sharding.AxisType;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.PartitionSpec;
import dev.shardlings.spmd.ShardedArray;

import java.util.List;

import static dev.shardlings.grader.parts.Part.example;
import static dev.shardlings.grader.parts.Part.property;
import static dev.shardlings.sharding.PartitionSpec.P;

/**
 * Problem 1's parts (shardMap and the global view) and their checks: first the table, one row each, then the
 * checks the rows run. Each check takes the implementation under test as a function, so the same check grades
 * exercises/, solutions/ and the grader's own deliberately wrong implementations.
 */
public final class Problem1Checks {

    static final Part.Chapter CHAPTER = new Part.Chapter("problem 1", "shardMap and global view", "Problem1");

    /**
     * The cases every Problem 1 part is graded on: a property over meshes (1–16 devices, X = 1 and Y = 1 included),
     * shapes, values and shifts, and fixed examples (the book's, one device, a single row or column of 16 devices,
     * shifts of zero, negative and larger than a shard, int32 values).
     */
    private static final Part.Property<Problem1Case> CASES = property("meshesShapesValuesAndShifts", 80, "1101",
            Problem1Case::cases);
    private static final List<Part.Example<Problem1Case>> EXAMPLES = List.of(
            // The book's example: arange(4096) as int32 [512, 8] on a (4, 2) mesh, shift 5.
            example("booksExample", Problem1Case.arange(4, 2, 128, 4, 5)),
            example("oneDevice", new Problem1Case(1, 1, 3, 2, 11, 1, DType.FLOAT32)),
            example("sixteenDevicesInOneRow", new Problem1Case(16, 1, 2, 3, 12, -1, DType.FLOAT32)),
            example("sixteenDevicesInOneColumn", new Problem1Case(1, 16, 4, 1, 13, 2, DType.FLOAT32)),
            example("shiftOfZero", new Problem1Case(2, 2, 3, 2, 21, 0, DType.FLOAT32)),
            example("negativeShift", new Problem1Case(2, 4, 4, 2, 22, -3, DType.FLOAT32)),
            example("shiftLargerThanAShard", new Problem1Case(4, 2, 3, 2, 23, 3 * 3 + 2, DType.FLOAT32)),
            example("int32Values", new Problem1Case(2, 2, 4, 2, 24, 5, DType.INT32)));

    /** {@code Problem1.perShardMean}. */
    public static final CourseMethod<PerShardMean> PER_SHARD_MEAN = CHAPTER.method("perShardMean", PerShardMean.class, ShardedArray.class, ShardedArray.class);
    /** {@code Problem1.perShardMeanGlobal}. */
    public static final CourseMethod<PerShardMeanGlobal> PER_SHARD_MEAN_GLOBAL = CHAPTER.method("perShardMeanGlobal", PerShardMeanGlobal.class, ShardedArray.class, ShardedArray.class);
    /** {@code Problem1.rollWithinShards}. */
    public static final CourseMethod<RollWithinShards> ROLL_WITHIN_SHARDS = CHAPTER.method("rollWithinShards", RollWithinShards.class, ShardedArray.class, ShardedArray.class, int.class);
    /** {@code Problem1.rollWithinShardsGlobal}. */
    public static final CourseMethod<RollWithinShardsGlobal> ROLL_WITHIN_SHARDS_GLOBAL = CHAPTER.method("rollWithinShardsGlobal", RollWithinShardsGlobal.class, ShardedArray.class, ShardedArray.class, int.class);

    /** Part 1.1a. */
    public static final Part P1_1A = CHAPTER.part("1.1a", "per-shard mean with shardMap", 2, "PerShardMean")
            .calls(PER_SHARD_MEAN)
            .docs("docs/problem-1.md#part-11a-per-shard-mean-with-shardmap")
            .hint("out spec P(\"X\", \"Y\") stitches the blocks back together along both axes, so each block must become an array of shape (1, 1), not a scalar: reduce with the reduced axes kept (mean(KeepDims.KEEP), jnp.mean(..., keepdims=True)) to assemble an [X, Y] array.")
            .requires(PER_SHARD_MEAN, "values against the mean of each block of the whole array (float tolerance), and "
                    + "layout", Check.VALUES, Check.LAYOUT)
            .requires(PER_SHARD_MEAN, "at least one shardMap call", Check.USES_SHARD_MAP)
            .requires(PER_SHARD_MEAN, "no collectives", Check.NO_COLLECTIVES)
            .requires(PER_SHARD_MEAN, "no device holds an array as large as the whole input", Check.DEVICE_MEMORY)
            .requires(PER_SHARD_MEAN, "the whole array is never gathered on the host", Check.HOST_MEMORY)
            .graded(CASES, EXAMPLES, c -> perShardMean(PER_SHARD_MEAN.proxy(), c));

    /** Part 1.1b. */
    public static final Part P1_1B = CHAPTER.part("1.1b", "per-shard mean with jit", 2, "PerShardMeanGlobal")
            .calls(PER_SHARD_MEAN_GLOBAL)
            .docs("docs/problem-1.md#part-11b-per-shard-mean-with-jit")
            .hint("can a reshape give every shard a dimension of its own, so that a mean over the other dimensions never"
                    + " crosses a device? Which layout must the result then be asked for?")
            .requires(PER_SHARD_MEAN_GLOBAL, "values (float tolerance) and layout", Check.VALUES, Check.LAYOUT)
            .requires(PER_SHARD_MEAN_GLOBAL, "compiled by jit, with no hand-written shardMap", Check.USES_JIT)
            .requires(PER_SHARD_MEAN_GLOBAL, "the compiled program has no collective", Check.NO_COLLECTIVES)
            .graded(CASES, EXAMPLES, c -> perShardMeanGlobal(PER_SHARD_MEAN_GLOBAL.proxy(), c));

    /** Part 1.2a. */
    public static final Part P1_2A = CHAPTER.part("1.2a", "roll within shards with shardMap", 3, "RollWithinShards")
            .calls(ROLL_WITHIN_SHARDS)
            .docs("docs/problem-1.md#part-12a-roll-within-shards-with-shardmap")
            .hint("inside shardMap each device sees only its block, so roll(block, shift, 0) can never cross a shard"
                    + " boundary; subtract the block afterwards.")
            .requires(ROLL_WITHIN_SHARDS, "values against the definition applied to each block of the whole array, and "
                    + "layout", Check.VALUES, Check.LAYOUT)
            .requires(ROLL_WITHIN_SHARDS, "at least one shardMap call", Check.USES_SHARD_MAP)
            .requires(ROLL_WITHIN_SHARDS, "no collectives", Check.NO_COLLECTIVES)
            .requires(ROLL_WITHIN_SHARDS, "no device holds an array as large as the whole input", Check.DEVICE_MEMORY)
            .requires(ROLL_WITHIN_SHARDS, "the whole array is never gathered on the host", Check.HOST_MEMORY)
            .graded(CASES, EXAMPLES, c -> rollWithinShards(ROLL_WITHIN_SHARDS.proxy(), c));

    /** Part 1.2b. */
    public static final Part P1_2B = CHAPTER.part("1.2b", "roll within shards with jit", 3, "RollWithinShardsGlobal")
            .calls(ROLL_WITHIN_SHARDS_GLOBAL)
            .docs("docs/problem-1.md#part-12b-roll-within-shards-with-jit")
            .hint("a roll along the whole axis 0 moves rows across shard boundaries, so the compiler must communicate. Which"
                    + " view of the array has an axis that runs only inside each shard?")
            .requires(ROLL_WITHIN_SHARDS_GLOBAL, "values (exact) and layout", Check.VALUES, Check.LAYOUT)
            .requires(ROLL_WITHIN_SHARDS_GLOBAL, "compiled by jit, with no hand-written shardMap", Check.USES_JIT)
            .requires(ROLL_WITHIN_SHARDS_GLOBAL, "the compiled program has no collective", Check.NO_COLLECTIVES)
            .graded(CASES, EXAMPLES, c -> rollWithinShardsGlobal(ROLL_WITHIN_SHARDS_GLOBAL.proxy(), c));

    /** The parts of problem 1, in course order. */
    public static final List<Part> PARTS = List.of(P1_1A, P1_1B, P1_2A, P1_2B);

    // ------------------------------------------------------------------------------------------ checks

    private static final PartitionSpec XY = P("X", "Y");

    private Problem1Checks() {
    }

    /** Part 1.1a's signature. */
    @FunctionalInterface
    public interface PerShardMean {
        ShardedArray apply(ShardedArray a);
    }

    /** Part 1.1b's signature. */
    @FunctionalInterface
    public interface PerShardMeanGlobal {
        ShardedArray apply(ShardedArray a);
    }

    /** Part 1.2a's signature. */
    @FunctionalInterface
    public interface RollWithinShards {
        ShardedArray apply(ShardedArray a, int shift);
    }

    /** Part 1.2b's signature. */
    @FunctionalInterface
    public interface RollWithinShardsGlobal {
        ShardedArray apply(ShardedArray a, int shift);
    }

    /**
     * 1.1a: values equal the per-block means of the whole array, laid out P('X', 'Y'); shardMap used; no
     * collectives; the whole array never gathered on the host.
     *
     * @throws dev.shardlings.grader.judge.GradingFailure when a rule is broken
     */
    public static void perShardMean(PerShardMean impl, Problem1Case c) {
        Mesh mesh = c.mesh();
        NDArray a = c.array();
        ShardedArray sharded = ShardedArray.devicePut(a, mesh, XY);
        String text = c.describe(false);
        CaseRun<ShardedArray> run = Guard.run(P1_1A, text, () -> impl.apply(sharded));
        NDArray expected = Problem1Oracles.perShardMean(a, c.x(), c.y());
        Checks.shardedResult(run, Reports.inputs("Input A", a), expected, XY, Tolerance.float32(8), Reports.picture(sharded));
        ownBlockOnly(run, a.nbytes(), mesh.size());
        Checks.noHostGather(run, a.nbytes(), mesh.size());
    }

    /**
     * Every device works on its own block: no collectives, and no device allocates an array as large as the whole
     * input (which only gathering could give it).
     */
    private static void ownBlockOnly(CaseRun<ShardedArray> run, long wholeBytes, int devices) {
        TraceRules.Rule rule = TraceRules.noCollectives("every device already holds the rows it needs");
        if (devices > 1) {
            rule = rule.and(TraceRules.largestArrayBelow(wholeBytes, "that is as large as the whole input ("
                    + wholeBytes + " bytes): each device should work on its own block only"));
        }
        TraceRules.perDevice(run, "communicates, or works on more than its own block", "each device"
                + " works on its own block: no collectives, and no array as large as the whole input", rule);
    }

    /**
     * What the usual slips in 1.2 compute: rolling the other way (JAX's roll moves row r to r + shift), and rolling
     * the whole array instead of each shard's rows (which only differs at the shards' edges).
     */
    private static List<Checks.Mistake> rollMistakes(NDArray a, Problem1Case c) {
        return List.of(
                new Checks.Mistake("rolling by −shift", Problem1Oracles.rollWithinShards(a, c.x(), -c.shift()),
                        "roll(x, shift, 0) moves row r to row r + shift (out[r] = x[r − shift]), as jnp.roll does;"
                                + " you moved rows the other way"),
                new Checks.Mistake("rolling all S rows as one array", Problem1Oracles.rollWithinShards(a, 1,
                        c.shift()), "roll each device's S/X rows on their own: the last row of a shard wraps to"
                        + " the first row of the same shard, never to the next shard"));
    }

    /** The case's mesh with Auto axes: in the jit parts the compiler, not the types, chooses layouts. */
    private static Mesh autoMesh(Problem1Case c) {
        return c.mesh().withAxisTypes(AxisType.AUTO, AxisType.AUTO);
    }

    /**
     * 1.1b: compiled by jit with no shardMap of its own; the compiled program has no collective; values equal the
     * per-block means, laid out P('X', 'Y').
     */
    public static void perShardMeanGlobal(PerShardMeanGlobal impl, Problem1Case c) {
        Mesh mesh = autoMesh(c);
        NDArray a = c.array();
        ShardedArray sharded = ShardedArray.devicePut(a, mesh, XY);
        String text = c.describe(false);
        CaseRun<ShardedArray> run = Guard.run(P1_1B, text, () -> impl.apply(sharded));
        Checks.compiledByJit(run);
        Checks.compiledWithoutCommunication(run, "Each output element depends on one device's block only. Reshape"
                + " [S, D] to [X, S/X, Y, D/Y]: X stays on dimension 0 and Y on dimension 2, so a mean over"
                + " dimensions 1 and 3 runs inside every device.");
        NDArray expected = Problem1Oracles.perShardMean(a, c.x(), c.y());
        Checks.shardedResult(run, Reports.inputs("Input A", a), expected, XY, Tolerance.float32(8),
                Reports.picture(sharded));
    }

    /**
     * 1.2a: values equal roll-minus-self inside every X shard of the whole array, laid out P('X', 'Y'); shardMap
     * used; no collectives; no gather on the host.
     */
    public static void rollWithinShards(RollWithinShards impl, Problem1Case c) {
        Mesh mesh = c.mesh();
        NDArray a = c.array();
        ShardedArray sharded = ShardedArray.devicePut(a, mesh, XY);
        String text = c.describe(true);
        CaseRun<ShardedArray> run = Guard.run(P1_2A, text, () -> impl.apply(sharded, c.shift()));
        NDArray expected = Problem1Oracles.rollWithinShards(a, c.x(), c.shift());
        Checks.shardedResult(run, Reports.inputs("Input A", a), expected, XY, Tolerance.EXACT, Reports.picture(sharded),
                rollMistakes(a, c));
        ownBlockOnly(run, a.nbytes(), mesh.size());
        Checks.noHostGather(run, a.nbytes(), mesh.size());
    }

    /**
     * 1.2b: compiled by jit with no shardMap of its own; the compiled program has no collective (a roll along the
     * split axis 0 makes the compiler move rows between devices); values equal roll-minus-self inside every group
     * of S/X rows, laid out P('X', 'Y').
     */
    public static void rollWithinShardsGlobal(RollWithinShardsGlobal impl, Problem1Case c) {
        Mesh mesh = autoMesh(c);
        NDArray a = c.array();
        ShardedArray sharded = ShardedArray.devicePut(a, mesh, XY);
        String text = c.describe(true);
        CaseRun<ShardedArray> run = Guard.run(P1_2B, text, () -> impl.apply(sharded, c.shift()));
        Checks.compiledByJit(run);
        Checks.compiledWithoutCommunication(run, "A roll along dimension 0, which X splits, moves rows from one"
                + " device to another, so the compiler had to move them. Reshape A to [X, S/X, D] first: the roll then"
                + " runs along dimension 1, which no device splits, and reshaping back gives every device its own"
                + " rows again.");
        NDArray expected = Problem1Oracles.rollWithinShards(a, c.x(), c.shift());
        Checks.shardedResult(run, Reports.inputs("Input A", a), expected, XY, Tolerance.EXACT,
                Reports.picture(sharded), rollMistakes(a, c));
    }
}
