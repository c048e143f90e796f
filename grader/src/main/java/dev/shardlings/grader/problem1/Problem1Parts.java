package dev.shardlings.grader.problem1;

import dev.shardlings.array.DType;
import dev.shardlings.grader.parts.Check;
import dev.shardlings.grader.parts.CourseMethod;
import dev.shardlings.grader.parts.Part;
import dev.shardlings.spmd.ShardedArray;

import java.util.List;

import static dev.shardlings.grader.parts.Part.example;
import static dev.shardlings.grader.parts.Part.property;

/**
 * Problem 1's parts (shardMap and the global view), one row each.
 */
public final class Problem1Parts {

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
    public static final CourseMethod<Problem1Checks.PerShardMean> PER_SHARD_MEAN = CHAPTER.method("perShardMean", Problem1Checks.PerShardMean.class, ShardedArray.class, ShardedArray.class);
    /** {@code Problem1.perShardMeanGlobal}. */
    public static final CourseMethod<Problem1Checks.PerShardMeanGlobal> PER_SHARD_MEAN_GLOBAL = CHAPTER.method("perShardMeanGlobal", Problem1Checks.PerShardMeanGlobal.class, ShardedArray.class, ShardedArray.class);
    /** {@code Problem1.rollWithinShards}. */
    public static final CourseMethod<Problem1Checks.RollWithinShards> ROLL_WITHIN_SHARDS = CHAPTER.method("rollWithinShards", Problem1Checks.RollWithinShards.class, ShardedArray.class, ShardedArray.class, int.class);
    /** {@code Problem1.rollWithinShardsGlobal}. */
    public static final CourseMethod<Problem1Checks.RollWithinShardsGlobal> ROLL_WITHIN_SHARDS_GLOBAL = CHAPTER.method("rollWithinShardsGlobal", Problem1Checks.RollWithinShardsGlobal.class, ShardedArray.class, ShardedArray.class, int.class);

    /** Part 1.1a. */
    public static final Part P1_1A = CHAPTER.part("1.1a", "per-shard mean with shardMap", 2, "PerShardMean")
            .calls(PER_SHARD_MEAN)
            .docs("docs/problem-1.md#part-11a-per-shard-mean-with-shardmap")
            .hint("reduce each block to shape (1, 1) with mean(true) so that out spec P(\"X\", \"Y\") assembles an [X, Y] array.")
            .requires(PER_SHARD_MEAN, "values against the mean of each block of the whole array (float tolerance), and "
                    + "layout", Check.VALUES, Check.LAYOUT)
            .requires(PER_SHARD_MEAN, "at least one shardMap call", Check.USES_SHARD_MAP)
            .requires(PER_SHARD_MEAN, "no collectives", Check.NO_COLLECTIVES)
            .requires(PER_SHARD_MEAN, "no device holds an array as large as the whole input", Check.DEVICE_MEMORY)
            .requires(PER_SHARD_MEAN, "the whole array is never gathered on the host", Check.HOST_MEMORY)
            .graded(CASES, EXAMPLES, c -> Problem1Checks.perShardMean(PER_SHARD_MEAN.proxy(), c));

    /** Part 1.1b. */
    public static final Part P1_1B = CHAPTER.part("1.1b", "per-shard mean with jit", 2, "PerShardMeanGlobal")
            .calls(PER_SHARD_MEAN_GLOBAL)
            .docs("docs/problem-1.md#part-11b-per-shard-mean-with-jit")
            .hint("inside Jit.jit reshape [S, D] to [X, S/X, Y, D/Y]: axes 0 and 2 pick the shard, axes 1 and 3 run inside"
                    + " it, so mean(1, 3) never crosses a device; outShardings(P(\"X\", \"Y\")).")
            .requires(PER_SHARD_MEAN_GLOBAL, "values (float tolerance) and layout", Check.VALUES, Check.LAYOUT)
            .requires(PER_SHARD_MEAN_GLOBAL, "compiled by jit, with no hand-written shardMap", Check.USES_JIT)
            .requires(PER_SHARD_MEAN_GLOBAL, "the compiled program has no collective", Check.NO_COLLECTIVES)
            .graded(CASES, EXAMPLES, c -> Problem1Checks.perShardMeanGlobal(PER_SHARD_MEAN_GLOBAL.proxy(), c));

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
            .graded(CASES, EXAMPLES, c -> Problem1Checks.rollWithinShards(ROLL_WITHIN_SHARDS.proxy(), c));

    /** Part 1.2b. */
    public static final Part P1_2B = CHAPTER.part("1.2b", "roll within shards with jit", 3, "RollWithinShardsGlobal")
            .calls(ROLL_WITHIN_SHARDS_GLOBAL)
            .docs("docs/problem-1.md#part-12b-roll-within-shards-with-jit")
            .hint("inside Jit.jit reshape [S, D] to [X, S/X, D] and roll along axis 1: a roll along the whole axis 0 would"
                    + " move rows across shard boundaries, and the compiler would have to communicate.")
            .requires(ROLL_WITHIN_SHARDS_GLOBAL, "values (exact) and layout", Check.VALUES, Check.LAYOUT)
            .requires(ROLL_WITHIN_SHARDS_GLOBAL, "compiled by jit, with no hand-written shardMap", Check.USES_JIT)
            .requires(ROLL_WITHIN_SHARDS_GLOBAL, "the compiled program has no collective", Check.NO_COLLECTIVES)
            .graded(CASES, EXAMPLES, c -> Problem1Checks.rollWithinShardsGlobal(ROLL_WITHIN_SHARDS_GLOBAL.proxy(), c));

    /** The parts of problem 1, in course order. */
    public static final List<Part> PARTS = List.of(P1_1A, P1_1B, P1_2A, P1_2B);

    private Problem1Parts() {
    }
}
