package dev.shardlings.grader.problem4;

import dev.shardlings.grader.parts.Check;
import dev.shardlings.grader.parts.CourseMethod;
import dev.shardlings.grader.parts.Part;
import dev.shardlings.grader.parts.Requirement;
import dev.shardlings.grader.problem3.Problem3Parts;
import dev.shardlings.spmd.ShardedArray;

import java.util.List;
import java.util.function.BinaryOperator;

import static dev.shardlings.grader.parts.Part.example;
import static dev.shardlings.grader.parts.Part.property;

/**
 * Problem 4's parts (bidirectional collective matmuls, graded on Problem 3's cases) and their modelled-time
 * parts, one row each.
 */
public final class Problem4Parts {

    static final Part.Chapter CHAPTER = new Part.Chapter("problem 4", "bidirectional collective matmul", "Problem4");

    private static final String D = "docs/problem-4.md#";

    /** {@code Problem4.allGatherMatmul}. */
    public static final CourseMethod<BinaryOperator<ShardedArray>> P4_ALL_GATHER_MATMUL = CHAPTER.binary("allGatherMatmul");
    /** {@code Problem4.allReduceMatmul}. */
    public static final CourseMethod<BinaryOperator<ShardedArray>> P4_ALL_REDUCE_MATMUL = CHAPTER.binary("allReduceMatmul");
    /** {@code Problem4.reduceScatterMatmul}. */
    public static final CourseMethod<BinaryOperator<ShardedArray>> P4_REDUCE_SCATTER_MATMUL = CHAPTER.binary("reduceScatterMatmul");

    /** Part 4.0. */
    public static final Part P4_0 = CHAPTER.part("4.0", "bidirectional all-gather matmul", 2, "BidirectionalAllGatherMatmul")
            .calls(P4_ALL_GATHER_MATMUL)
            .docs(D + "part-40-bidirectional-all-gather-collective-matmul")
            .hint("send the left half of the A chunk up the ring and the right half down; after k steps you hold the"
                    + " left half of chunk (y − k) mod n and the right half of chunk (y + k) mod n.")
            .requires(P4_ALL_GATHER_MATMUL, "values (on every device, replicas included)", Check.VALUES)
            .requires(P4_ALL_GATHER_MATMUL, "only ppermutes over Y, each one step round the ring, both ways when Y has at "
                    + "least 3 devices", Check.COLLECTIVES, Check.RING_STEPS)
            .requires(P4_ALL_GATHER_MATMUL, "no message larger than one A block [B/X, D/Y]", Check.OPERANDS)
            .requires(P4_ALL_GATHER_MATMUL, "each direction at most ⌈(n − 1)/2⌉ blocks", Check.BYTES)
            .requires(P4_ALL_GATHER_MATMUL, "every matmul contracts at most D/Y", Check.MATMULS)
            .requires(P4_ALL_GATHER_MATMUL, "2·(B/X)·D·(F/Y) matmul FLOPs per device", Check.FLOPS)
            .graded(Problem3Parts.CASES, Problem3Parts.EXAMPLES, c -> Problem4Checks.allGatherMatmul(P4_ALL_GATHER_MATMUL.proxy(), c));

    /** Part 4.1. */
    public static final Part P4_1 = CHAPTER.part("4.1", "bidirectional all-reduce matmul", 3, "BidirectionalAllReduceMatmul")
            .calls(P4_ALL_REDUCE_MATMUL)
            .docs(D + "part-41-bidirectional-all-reduce-collective-matmul")
            .hint("a ring all-reduce is a ring reduce-scatter (n − 1 steps) then a ring all-gather (n − 1 steps); do one"
                    + " on the left half of the partial product going up and one on the right half going down.")
            .requires(P4_ALL_REDUCE_MATMUL, "values (on every device, replicas included)", Check.VALUES)
            .requires(P4_ALL_REDUCE_MATMUL, "only ppermutes over Y (no psum), each one step round the ring, both ways when Y "
                    + "has at least 3 devices", Check.COLLECTIVES, Check.RING_STEPS)
            .requires(P4_ALL_REDUCE_MATMUL, "each direction at most (n − 1)/n · V bytes, V = the bytes of the [B/X, F] "
                    + "partial product (on a ring of 2, 2(n − 1)/n · V)", Check.BYTES)
            .requires(P4_ALL_REDUCE_MATMUL, "2·(B/X)·(D/Y)·F matmul FLOPs per device", Check.FLOPS)
            .graded(Problem3Parts.CASES, Problem3Parts.EXAMPLES, c -> Problem4Checks.allReduceMatmul(P4_ALL_REDUCE_MATMUL.proxy(), c));

    /** Part 4.2. */
    public static final Part P4_2 = CHAPTER.part("4.2", "bidirectional reduce-scatter matmul", 2, "BidirectionalReduceScatterMatmul")
            .calls(P4_REDUCE_SCATTER_MATMUL)
            .docs(D + "part-42-bidirectional-reduce-scatter-collective-matmul")
            .hint("two accumulators per chunk: its left half travels up from device c + 1, its right half travels down"
                    + " from device c − 1, each adding the partial product of the columns it carries.")
            .requires(P4_REDUCE_SCATTER_MATMUL, "values (on every device, replicas included)", Check.VALUES)
            .requires(P4_REDUCE_SCATTER_MATMUL, "only ppermutes over Y, each one step round the ring, both ways when Y has at "
                    + "least 3 devices", Check.COLLECTIVES, Check.RING_STEPS)
            .requires(P4_REDUCE_SCATTER_MATMUL, "no message larger than one accumulator block [B/X, D/Y]", Check.OPERANDS)
            .requires(P4_REDUCE_SCATTER_MATMUL, "each direction at most ⌈(n − 1)/2⌉ blocks", Check.BYTES)
            .requires(P4_REDUCE_SCATTER_MATMUL, "every matmul computes at most D/Y columns", Check.MATMULS)
            .requires(P4_REDUCE_SCATTER_MATMUL, "2·(B/X)·(F/Y)·D matmul FLOPs per device", Check.FLOPS)
            .graded(Problem3Parts.CASES, Problem3Parts.EXAMPLES, c -> Problem4Checks.reduceScatterMatmul(P4_REDUCE_SCATTER_MATMUL.proxy(), c));

    /** Part 4.0p. */
    public static final Part P4_0P = CHAPTER.part("4.0p", "4.0 modelled time, TPU v4", 1, "Performance")
            .calls(P4_ALL_GATHER_MATMUL)
            .docs(Problem3Parts.PERFORMANCE_DOCS)
            .hint(Problem3Parts.PERFORMANCE_HINT)
            .requires(Requirement.performance(P4_ALL_GATHER_MATMUL))
            .timed(Problem4Checks.SETTING, () -> Problem4Checks.allGatherMatmulTime(P4_ALL_GATHER_MATMUL.proxy()));

    /** Part 4.1p. */
    public static final Part P4_1P = CHAPTER.part("4.1p", "4.1 modelled time, TPU v4", 1, "Performance")
            .calls(P4_ALL_REDUCE_MATMUL)
            .docs(Problem3Parts.PERFORMANCE_DOCS)
            .hint(Problem3Parts.PERFORMANCE_HINT)
            .requires(Requirement.performance(P4_ALL_REDUCE_MATMUL))
            .timed(Problem4Checks.SETTING, () -> Problem4Checks.allReduceMatmulTime(P4_ALL_REDUCE_MATMUL.proxy()));

    /** Part 4.2p. */
    public static final Part P4_2P = CHAPTER.part("4.2p", "4.2 modelled time, TPU v4", 1, "Performance")
            .calls(P4_REDUCE_SCATTER_MATMUL)
            .docs(Problem3Parts.PERFORMANCE_DOCS)
            .hint(Problem3Parts.PERFORMANCE_HINT)
            .requires(Requirement.performance(P4_REDUCE_SCATTER_MATMUL))
            .timed(Problem4Checks.SETTING, () -> Problem4Checks.reduceScatterMatmulTime(P4_REDUCE_SCATTER_MATMUL.proxy()));

    /** The parts of problem 4, in course order. */
    public static final List<Part> PARTS = List.of(P4_0, P4_1, P4_2, P4_0P, P4_1P, P4_2P);

    private Problem4Parts() {
    }
}
