package dev.shardlings.grader.problem3;

import dev.shardlings.grader.parts.Check;
import dev.shardlings.grader.parts.CourseMethod;
import dev.shardlings.grader.checks.MeshSpec;
import dev.shardlings.grader.parts.Part;
import dev.shardlings.grader.parts.Requirement;
import dev.shardlings.spmd.ShardedArray;

import java.util.List;
import java.util.function.BinaryOperator;

import static dev.shardlings.grader.parts.Part.example;
import static dev.shardlings.grader.parts.Part.property;

/**
 * Problem 3's parts (collective matmuls) and their modelled-time parts, one row each.
 */
public final class Problem3Parts {

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

    private static final String D = "docs/problem-3.md#";

    /** {@code Problem3.allGatherMatmul}. */
    public static final CourseMethod<BinaryOperator<ShardedArray>> P3_ALL_GATHER_MATMUL = CHAPTER.binary("allGatherMatmul");
    /** {@code Problem3.allGatherMatmulNaive}. */
    public static final CourseMethod<BinaryOperator<ShardedArray>> P3_ALL_GATHER_MATMUL_NAIVE = CHAPTER.binary("allGatherMatmulNaive");
    /** {@code Problem3.allReduceMatmul}. */
    public static final CourseMethod<Problem3Checks.Tiled> P3_ALL_REDUCE_MATMUL = CHAPTER.method("allReduceMatmul", Problem3Checks.Tiled.class, ShardedArray.class, ShardedArray.class, ShardedArray.class, int.class);
    /** {@code Problem3.reduceScatterMatmul}. */
    public static final CourseMethod<BinaryOperator<ShardedArray>> P3_REDUCE_SCATTER_MATMUL = CHAPTER.binary("reduceScatterMatmul");
    /** {@code Problem3.transformerBlock}. */
    public static final CourseMethod<Problem3Checks.Block> TRANSFORMER_BLOCK = CHAPTER.method("transformerBlock", Problem3Checks.Block.class, ShardedArray.class, ShardedArray.class, ShardedArray.class, ShardedArray.class);
    /** {@code Problem3.transformerBlockNaive}. */
    public static final CourseMethod<Problem3Checks.Block> TRANSFORMER_BLOCK_NAIVE = CHAPTER.method("transformerBlockNaive", Problem3Checks.Block.class, ShardedArray.class, ShardedArray.class, ShardedArray.class, ShardedArray.class);

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
            .graded(CASES, EXAMPLES, c -> Problem3Checks.allGatherMatmul(P3_ALL_GATHER_MATMUL.proxy(), P3_ALL_GATHER_MATMUL_NAIVE.proxy(), c));

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
            .graded(CASES, EXAMPLES, c -> Problem3Checks.allReduceMatmul(P3_ALL_REDUCE_MATMUL.proxy(), c));

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
            .graded(CASES, EXAMPLES, c -> Problem3Checks.reduceScatterMatmul(P3_REDUCE_SCATTER_MATMUL.proxy(), c));

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
            .graded(CASES, EXAMPLES, c -> Problem3Checks.transformerBlock(TRANSFORMER_BLOCK.proxy(), TRANSFORMER_BLOCK_NAIVE.proxy(), c));

    /** Part 3.0p. */
    public static final Part P3_0P = CHAPTER.part("3.0p", "3.0 modelled time, TPU v5e", 1, "Performance")
            .calls(P3_ALL_GATHER_MATMUL)
            .docs(PERFORMANCE_DOCS)
            .hint(PERFORMANCE_HINT)
            .requires(Requirement.performance(P3_ALL_GATHER_MATMUL))
            .timed(Problem3Checks.SETTING, () -> Problem3Checks.allGatherMatmulTime(P3_ALL_GATHER_MATMUL.proxy(), P3_ALL_GATHER_MATMUL_NAIVE.proxy()));

    /** Part 3.1p. */
    public static final Part P3_1P = CHAPTER.part("3.1p", "3.1 modelled time, TPU v5e", 1, "Performance")
            .calls(P3_ALL_REDUCE_MATMUL)
            .docs(PERFORMANCE_DOCS)
            .hint(PERFORMANCE_HINT)
            .requires(Requirement.performance(P3_ALL_REDUCE_MATMUL))
            .timed(Problem3Checks.SETTING, () -> Problem3Checks.allReduceMatmulTime(P3_ALL_REDUCE_MATMUL.proxy()));

    /** Part 3.2p. */
    public static final Part P3_2P = CHAPTER.part("3.2p", "3.2 modelled time, TPU v5e", 1, "Performance")
            .calls(P3_REDUCE_SCATTER_MATMUL)
            .docs(PERFORMANCE_DOCS)
            .hint(PERFORMANCE_HINT)
            .requires(Requirement.performance(P3_REDUCE_SCATTER_MATMUL))
            .timed(Problem3Checks.SETTING, () -> Problem3Checks.reduceScatterMatmulTime(P3_REDUCE_SCATTER_MATMUL.proxy()));

    /** Part 3.3p. */
    public static final Part P3_3P = CHAPTER.part("3.3p", "3.3 modelled time, TPU v5e", 1, "Performance")
            .calls(TRANSFORMER_BLOCK)
            .docs(PERFORMANCE_DOCS)
            .hint(PERFORMANCE_HINT)
            .requires(Requirement.performance(TRANSFORMER_BLOCK))
            .timed(Problem3Checks.SETTING, () -> Problem3Checks.transformerBlockTime(TRANSFORMER_BLOCK.proxy(), TRANSFORMER_BLOCK_NAIVE.proxy()));

    /** The parts of problem 3, in course order. */
    public static final List<Part> PARTS = List.of(P3_0, P3_1, P3_2, P3_3, P3_0P, P3_1P, P3_2P, P3_3P);

    private Problem3Parts() {
    }
}
