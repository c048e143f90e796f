package dev.shardlings.grader.problem2;

import dev.shardlings.array.NDArray;
import dev.shardlings.grader.parts.Check;
import dev.shardlings.grader.parts.CourseMethod;
import dev.shardlings.grader.checks.MeshSpec;
import dev.shardlings.grader.parts.Part;
import dev.shardlings.spmd.ShardedArray;

import java.util.List;

import static dev.shardlings.grader.parts.Part.example;
import static dev.shardlings.grader.parts.Part.property;
import static dev.shardlings.grader.problem2.MoeCase.Routing.ONE_EXPERT;
import static dev.shardlings.grader.problem2.MoeCase.Routing.REPEATED;
import static dev.shardlings.grader.problem2.MoeCase.Routing.SOME_EMPTY;
import static dev.shardlings.grader.problem2.MoeCase.Routing.UNIFORM;

/**
 * Problem 2's parts (mixture of experts), one row each.
 */
public final class Problem2Parts {

    static final Part.Chapter CHAPTER = new Part.Chapter("problem 2", "mixture of experts", "Problem2");

    private static final String D = "docs/problem-2.md#";

    /** {@code Problem2.moeLocal}. */
    public static final CourseMethod<Problem2Checks.Local> MOE_LOCAL = CHAPTER.method("moeLocal", Problem2Checks.Local.class, NDArray.class, NDArray.class, NDArray.class, NDArray.class);
    /** {@code Problem2.moeJit}. */
    public static final CourseMethod<Problem2Checks.Sharded> MOE_JIT = CHAPTER.method("moeJit", Problem2Checks.Sharded.class, ShardedArray.class, ShardedArray.class, ShardedArray.class, ShardedArray.class);
    /** {@code Problem2.moeJitBytesReceived}. */
    public static final CourseMethod<Problem2Checks.BytesReport> MOE_JIT_BYTES_RECEIVED = CHAPTER.method("moeJitBytesReceived", Problem2Checks.BytesReport.class, int.class, ShardedArray.class, ShardedArray.class, ShardedArray.class);
    /** {@code Problem2.moeAllGather}. */
    public static final CourseMethod<Problem2Checks.Sharded> MOE_ALL_GATHER = CHAPTER.method("moeAllGather", Problem2Checks.Sharded.class, ShardedArray.class, ShardedArray.class, ShardedArray.class, ShardedArray.class);
    /** {@code Problem2.moeAllToAll}. */
    public static final CourseMethod<Problem2Checks.Ragged> MOE_ALL_TO_ALL = CHAPTER.method("moeAllToAll", Problem2Checks.Ragged.class, ShardedArray.class, ShardedArray.class, ShardedArray.class, ShardedArray.class, int.class);
    /** {@code Problem2.moeTopKLocal}. */
    public static final CourseMethod<Problem2Checks.Local> MOE_TOP_K_LOCAL = CHAPTER.method("moeTopKLocal", Problem2Checks.Local.class, NDArray.class, NDArray.class, NDArray.class, NDArray.class);
    /** {@code Problem2.moeTopKAllToAll}. */
    public static final CourseMethod<Problem2Checks.Ragged> MOE_TOP_K_ALL_TO_ALL = CHAPTER.method("moeTopKAllToAll", Problem2Checks.Ragged.class, ShardedArray.class, ShardedArray.class, ShardedArray.class, ShardedArray.class, int.class);

    /** Part 2.1. */
    public static final Part P2_1 = CHAPTER.part("2.1", "mixture of experts, local", 3, "MoeLocal")
            .calls(MOE_LOCAL)
            .docs(D + "part-21-the-local-version")
            .hint("order = B.argsort() groups the tokens by expert; for each expert e multiply A.take(rows, 0) by"
                    + " W.take(0, e), then put the rows back with one take by the inverse positions.")
            .requires(MOE_LOCAL, "values (routings: uniform, all tokens to one expert, experts that get no token)", Check.VALUES)
            .requires(MOE_LOCAL, "no shardMap", Check.NO_SHARD_MAP)
            .requires(MOE_LOCAL, "no array of S·D·F elements or more is allocated", Check.HOST_MEMORY)
            .requires(MOE_LOCAL, "each expert's tokens in one matmul: exactly 2·S·D·F matmul FLOPs, at most one "
                    + "matmul per expert that has tokens", Check.FLOPS, Check.MATMULS)
            .graded(cases(false), examples(false), c -> Problem2Checks.moeLocal(MOE_LOCAL.proxy(), c));

    /** Part 2.2. */
    public static final Part P2_2 = CHAPTER.part("2.2", "mixture of experts, jit", 2, "MoeJit")
            .calls(MOE_JIT, MOE_JIT_BYTES_RECEIVED)
            .docs(D + "part-22-jit-the-local-version-and-read-what-the-compiler-did")
            .hint("oneHot, then einsum(\"se,sd->esd\"), einsum(\"esd,edf->esf\") with W and einsum(\"se,esf->sf\"), inside"
                    + " Jit.jitList(...).outShardings(P(\"X\", \"Y\")); for the report, lower the same Jitted on"
                    + " (a, w, b) and read costAnalysis().bytesCommunicated().")
            .requires(MOE_JIT, "values and layout", Check.VALUES, Check.LAYOUT)
            .requires(MOE_JIT, "compiled by jit, with no hand-written shardMap", Check.USES_JIT)
            .requires(MOE_JIT_BYTES_RECEIVED, "equal to the bytes every device received in the collectives "
                    + "of the program moeJit ran, read from the trace", Check.REPORTED_COMMUNICATION)
            .graded(cases(false), examples(false), c -> Problem2Checks.moeJit(MOE_JIT.proxy(), MOE_JIT_BYTES_RECEIVED.proxy(), c));

    /** Part 2.3a. */
    public static final Part P2_3A = CHAPTER.part("2.3a", "mixture of experts, all-gather", 2, "MoeAllGather")
            .calls(MOE_ALL_GATHER)
            .docs(D + "part-23a-gather-then-compute")
            .hint("device x owns experts [x·E/X, (x+1)·E/X): after gathering A and B, compute only the tokens routed"
                    + " there (zeros elsewhere) and psumScatter the [S, F/Y] partial result over X along rows.")
            .requires(MOE_ALL_GATHER, "values and layout", Check.VALUES, Check.LAYOUT)
            .requires(MOE_ALL_GATHER, "all-gathers over X carry the tokens (rows of A, entries of B) and no collective "
                    + "carries an expert block", Check.COLLECTIVES, Check.OPERANDS)
            .requires(MOE_ALL_GATHER, "each device's matmuls do exactly 2·n·D·(F/Y) FLOPs, n = the tokens routed to "
                    + "its experts", Check.FLOPS)
            .graded(cases(false), examples(false), c -> Problem2Checks.moeAllGather(MOE_ALL_GATHER.proxy(), c));

    /** Part 2.3b. */
    public static final Part P2_3B = CHAPTER.part("2.3b", "mixture of experts, ragged all-to-all", 4, "MoeAllToAll")
            .calls(MOE_ALL_TO_ALL)
            .docs(D + "part-23b-ragged-all-to-all")
            .hint("per round and destination x', send rows [round·C, (round+1)·C) of your tokens for x' (zero rows and"
                    + " expert id −1 where there are fewer); allToAll(buf, \"X\", 0, 0, Tiling.TILED) there and back"
                    + " keeps the slots in place, so slot j of the returned results belongs to the token you put in"
                    + " slot j.")
            .requires(MOE_ALL_TO_ALL, "values", Check.VALUES)
            .requires(MOE_ALL_TO_ALL, "at least one all-to-all over X (when X > 1)", Check.COLLECTIVES)
            .requires(MOE_ALL_TO_ALL, "no all-gather over X", Check.COLLECTIVES)
            .requires(MOE_ALL_TO_ALL, "each device's matmuls do exactly 2·n·D·(F/Y) FLOPs, n = the tokens routed to "
                    + "its experts (no padded compute)", Check.FLOPS)
            .requires(MOE_ALL_TO_ALL, "no single array on a device larger than the largest of (S/X + 1)·D, (X·capacity "
                    + "+ 1)·D, D·(F/Y), (X·capacity + 1)·(F/Y) and (S/X + 1)·(F/Y) elements (one "
                    + "device's tokens or one round's buffers, each with a zero row) — far below the "
                    + "(E/X)·S·D of a masked [E/X, S, D] buffer", Check.DEVICE_MEMORY)
            .graded(cases(false), examples(false), c -> Problem2Checks.moeAllToAll(MOE_ALL_TO_ALL.proxy(), c));

    /** Part 2.4. */
    public static final Part P2_4 = CHAPTER.part("2.4", "mixture of experts, top-k", 3, "MoeTopK")
            .calls(MOE_TOP_K_LOCAL, MOE_TOP_K_ALL_TO_ALL)
            .docs(D + "part-24-top-k-routing")
            .hint("build int32 indices [0, …, 0, 1, …, 1, …] (each token k times) with NDArray.fromInts; row i·k + j of"
                    + " A.take(indices, 0) is token i for its j-th expert: route those S·k rows as in 2.1 / 2.3b, then"
                    + " reshape the result to [S, k, F] and take the mean over axis 1.")
            .requires(MOE_TOP_K_LOCAL, "values", Check.VALUES)
            .requires(MOE_TOP_K_LOCAL, "no shardMap", Check.NO_SHARD_MAP)
            .requires(MOE_TOP_K_LOCAL, "no array of S·D·F elements or more", Check.HOST_MEMORY)
            .requires(MOE_TOP_K_LOCAL, "each expert's (token, expert) pairs in one matmul: exactly 2·S·k·D·F matmul "
                    + "FLOPs, at most one matmul per expert that has pairs", Check.FLOPS, Check.MATMULS)
            .requires(MOE_TOP_K_ALL_TO_ALL, "as 2.3b with the S·k (token, expert) pairs in place of the S tokens", Check.VALUES, Check.LAYOUT, Check.COLLECTIVES, Check.FLOPS, Check.DEVICE_MEMORY)
            .graded(cases(true), examples(true), c -> Problem2Checks.topK(MOE_TOP_K_LOCAL.proxy(), MOE_TOP_K_ALL_TO_ALL.proxy(), c));

    /** The parts of problem 2, in course order. */
    public static final List<Part> PARTS = List.of(P2_1, P2_2, P2_3A, P2_3B, P2_4);

    private Problem2Parts() {
    }

    /**
     * The cases every Problem 2 part is graded on: a property over meshes (X and Y plus up to one replicated axis,
     * 1–16 devices), numbers of experts and tokens, sizes, routings and capacities ({@code topK}: k of 2–3).
     */
    private static Part.Property<MoeCase> cases(boolean topK) {
        return property("meshesSizesAndRoutings", 60, "1200", () -> MoeCase.cases(topK));
    }

    /**
     * Fixed examples: the book's 2 × 4 mesh, one device, all tokens to one expert, experts with no token, a capacity
     * of one token per round, and (top-k) repeated experts in one token's choices.
     */
    private static List<Part.Example<MoeCase>> examples(boolean topK) {
        int k = topK ? 2 : 1;
        return List.of(
                example("booksMesh", new MoeCase(MeshSpec.of("X", 2, "Y", 4), 2, 3, 1, 2, k, UNIFORM, 2, 40)),
                example("oneDevice", new MoeCase(MeshSpec.of("X", 1, "Y", 1), 3, 4, 2, 2, k, UNIFORM, 1, 41)),
                example("everyTokenToOneExpert", new MoeCase(MeshSpec.of("X", 4, "Y", 2), 1, 3, 1, 1, k, ONE_EXPERT, 2,
                        42)),
                example("expertsWithNoToken", new MoeCase(MeshSpec.of("X", 4, "Y", 1), 3, 2, 2, 1, k, SOME_EMPTY, 1,
                        43)),
                example("oneTokenPerRoundAndAReplicatedAxis", new MoeCase(MeshSpec.of("Z", 2, "X", 2, "Y", 2), 2, 4, 1,
                        1, k, UNIFORM, 1, 44)),
                example("repeatedExpertsInOneTokensChoices", new MoeCase(MeshSpec.of("X", 2, "Y", 2), 2, 3, 1, 2,
                        topK ? 3 : 1, REPEATED, 2, 45)));
    }
}
