package dev.shardlings.grader.problem4;

import dev.shardlings.array.NDArray;
import dev.shardlings.cost.ModelDtype;
import dev.shardlings.grader.chapter0.Chapter0Oracles;
import dev.shardlings.grader.checks.Generators;
import dev.shardlings.grader.checks.TraceRules;
import dev.shardlings.grader.judge.CaseRun;
import dev.shardlings.grader.parts.Check;
import dev.shardlings.grader.parts.CourseMethod;
import dev.shardlings.grader.parts.Part;
import dev.shardlings.grader.parts.Requirement;
import dev.shardlings.grader.parts.TimedResult;
import dev.shardlings.grader.parts.TimedSetting;
import dev.shardlings.grader.problem3.MatmulCase;
import dev.shardlings.grader.problem3.MeasuredRun;
import dev.shardlings.grader.problem3.Problem3Checks.Operand;
import dev.shardlings.grader.problem3.Problem3Checks;
import dev.shardlings.sharding.PartitionSpec;
import dev.shardlings.spmd.ShardedArray;

import java.util.List;
import java.util.function.BinaryOperator;

import static dev.shardlings.sharding.PartitionSpec.P;

/**
 * Problem 4's parts (bidirectional collective matmuls, graded on Problem 3's cases) and their modelled-time parts,
 * then their checks: first the table, one row each, then the checks the rows run. Values as in Problem 3; from the
 * trace, per device: only ppermutes over Y, each one step round the ring; on a ring of at least 3 devices both
 * directions used; and neither direction carrying more than half of what the one-way version of Problem 3 sends
 * (rounded up to whole blocks where the one-way version sends whole blocks).
 *
 * <p>Two designs pass 4.0 and 4.2: halves of every block in both directions for n − 1 steps, or whole blocks in
 * both directions for about n/2 steps. Both halve the bytes per direction, which is what bounds the time when the
 * links are the bottleneck; the docs compare them.
 *
 * <p>Shapes: n = |Y|; B = X·b; part 4.0 and 4.2: D = Y·2d (so D/Y is even) and F = Y·f; part 4.1: D = Y·d and
 * F = 2Y·f (so each half of F splits into n chunks).
 */
public final class Problem4Checks {

    static final Part.Chapter CHAPTER = new Part.Chapter("problem 4", "bidirectional collective matmul", "Problem4");

    /**
     * Problem 4's performance setting: TPU v4 on the 2 × 4 mesh of Problem 3. A slice that small has no wraparound
     * links (v4 has them only in a full 4 × 4 × 4 cube of 64 chips or more), so Y is a line, as on v5e; the part
     * times the student's bidirectional program against the reference's bidirectional one on the same line, and a
     * slower variant of it (extra passes over memory, a shift that waits for compute) is still refused.
     */
    public static final TimedSetting SETTING = new TimedSetting("tpu-v4", ModelDtype.BFLOAT16,
            "mesh (X=2, Y=4); B, D, F = " + Problem3Checks.PERF_B + ", " + Problem3Checks.PERF_D + ", "
                    + Problem3Checks.PERF_F);

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
            .graded(Problem3Checks.CASES, Problem3Checks.EXAMPLES, c -> allGatherMatmul(P4_ALL_GATHER_MATMUL.proxy(), c));

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
            .graded(Problem3Checks.CASES, Problem3Checks.EXAMPLES, c -> allReduceMatmul(P4_ALL_REDUCE_MATMUL.proxy(), c));

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
            .graded(Problem3Checks.CASES, Problem3Checks.EXAMPLES, c -> reduceScatterMatmul(P4_REDUCE_SCATTER_MATMUL.proxy(), c));

    /** Part 4.0p. */
    public static final Part P4_0P = CHAPTER.part("4.0p", "4.0 modelled time, TPU v4", 1, "Performance")
            .calls(P4_ALL_GATHER_MATMUL)
            .docs(Problem3Checks.PERFORMANCE_DOCS)
            .hint(Problem3Checks.PERFORMANCE_HINT)
            .requires(Requirement.performance(P4_ALL_GATHER_MATMUL))
            .timed(SETTING, () -> allGatherMatmulTime(P4_ALL_GATHER_MATMUL.proxy()));

    /** Part 4.1p. */
    public static final Part P4_1P = CHAPTER.part("4.1p", "4.1 modelled time, TPU v4", 1, "Performance")
            .calls(P4_ALL_REDUCE_MATMUL)
            .docs(Problem3Checks.PERFORMANCE_DOCS)
            .hint(Problem3Checks.PERFORMANCE_HINT)
            .requires(Requirement.performance(P4_ALL_REDUCE_MATMUL))
            .timed(SETTING, () -> allReduceMatmulTime(P4_ALL_REDUCE_MATMUL.proxy()));

    /** Part 4.2p. */
    public static final Part P4_2P = CHAPTER.part("4.2p", "4.2 modelled time, TPU v4", 1, "Performance")
            .calls(P4_REDUCE_SCATTER_MATMUL)
            .docs(Problem3Checks.PERFORMANCE_DOCS)
            .hint(Problem3Checks.PERFORMANCE_HINT)
            .requires(Requirement.performance(P4_REDUCE_SCATTER_MATMUL))
            .timed(SETTING, () -> reduceScatterMatmulTime(P4_REDUCE_SCATTER_MATMUL.proxy()));

    /** The parts of problem 4, in course order. */
    public static final List<Part> PARTS = List.of(P4_0, P4_1, P4_2, P4_0P, P4_1P, P4_2P);

    // ------------------------------------------------------------------------------------------ checks

    private static final PartitionSpec XY = P("X", "Y");

    private Problem4Checks() {
    }

    /** ⌈(n − 1)/2⌉: whole blocks per direction when n − 1 blocks are shared between two directions. */
    static int halfSteps(int n) {
        return n / 2;
    }

    /**
     * 4.0: A[B_X, D_Y] ·_D W[D, F_Y] → Out[B_X, F_Y]. Only one-step ppermutes over Y, both ways (n ≥ 3), none
     * larger than an A block [B/X, D/Y], at most ⌈(n − 1)/2⌉ blocks per direction; every matmul contracts at most
     * D/Y; 2·(B/X)·D·(F/Y) FLOPs.
     */
    public static void allGatherMatmul(BinaryOperator<ShardedArray> impl, MatmulCase c) {
        Part part = P4_0;
        int n = c.y();
        int bx = c.b();
        int dy = 2 * c.d();
        int fy = c.f();
        int d = n * dy;
        NDArray a = Generators.smallFloats(c.seed(), c.x() * bx, d);
        NDArray w = Generators.smallFloats(c.seed() + 1, d, n * fy);
        CaseRun<ShardedArray> r = Problem3Checks.run(part, c, List.of(new Operand("A", a, XY), new Operand("W", w, P(null, "Y"))),
                XY, Chapter0Oracles.matmul(a, w), Problem3Checks.exactSums(d), l -> impl.apply(l.get(0), l.get(1)));
        long block = 4L * bx * dy;
        long flops = 2L * bx * d * fy;
        TraceRules.perDevice(r, "communication: A pieces both ways round the ring, half the bytes each way",
                "only ppermute over Y, each one step round the ring, up and down (when Y has"
                        + " at least 3 devices); no message larger than one A block [B/X, D/Y] = [" + bx + ", "
                        + dy + "]; each direction at most ⌈(n − 1)/2⌉ = " + halfSteps(n) + " block(s) = "
                        + halfSteps(n) * block + " bytes, half of the one-way version's n − 1; every matmul"
                        + " contracts at most D/Y = " + dy + "; " + flops + " FLOPs",
                TraceRules.onlyPpermutesOver("Y")
                        .and(TraceRules.oneStepShifts())
                        .and(TraceRules.bothDirections(n))
                        .and(TraceRules.ppermuteAtMost((long) bx * dy, "one A block"))
                        .and(TraceRules.bytesPerDirectionAtMost(halfSteps(n) * block, "the one-way version sends"
                                + " n − 1 = " + (n - 1) + " blocks of " + block + " bytes one way"))
                        .and(TraceRules.everyMatmul(m -> m.k() <= dy, "multiply the A pieces as they arrive"
                                + " (contract at most D/Y = " + dy + ")"))
                        .and(TraceRules.flops(flops, "2·(B/X)·D·(F/Y) = 2·" + bx + "·" + d + "·" + fy)));
    }

    /**
     * 4.1: A[B_X, D_Y] ·_D W[D_Y, F] → Out[B_X, F] with the all-reduce built from ppermutes: only one-step
     * ppermutes over Y, both ways (n ≥ 3), each direction at most (n − 1)/n · V bytes, V = (B/X)·F·4 (half of the
     * 2(n − 1)/n · V of a one-way ring all-reduce; on a ring of 2 the two directions are one, so 2(n − 1)/n · V);
     * every device along Y holds the whole result;
     * 2·(B/X)·(D/Y)·F FLOPs.
     */
    public static void allReduceMatmul(BinaryOperator<ShardedArray> impl, MatmulCase c) {
        Part part = P4_1;
        int n = c.y();
        int bx = c.b();
        int dy = c.d();
        int f = 2 * n * c.f();
        int d = n * dy;
        NDArray a = Generators.smallFloats(c.seed(), c.x() * bx, d);
        NDArray w = Generators.smallFloats(c.seed() + 1, d, f);
        CaseRun<ShardedArray> r = Problem3Checks.run(part, c, List.of(new Operand("A", a, XY), new Operand("W", w, P("Y", null))),
                P("X", null), Chapter0Oracles.matmul(a, w), Problem3Checks.exactSums(d),
                l -> impl.apply(l.get(0), l.get(1)));
        long v = 4L * bx * f;
        long oneWay = 2L * (n - 1) * v / n;
        // On a ring of 2 one step up and one step down are the same link direction: nothing to halve.
        long perDirection = n >= 3 ? oneWay / 2 : oneWay;
        long flops = 2L * bx * dy * f;
        TraceRules.perDevice(r, "communication: a ring all-reduce from ppermutes, half the bytes each way",
                "only ppermute over Y (no psum), each one step round the ring, up and down"
                        + " (when Y has at least 3 devices); each direction at most (n − 1)/n · V = " + perDirection
                        + " bytes (on a ring of 2, where both directions are one: 2(n − 1)/n · V) with V = (B/X)·F·4 = " + v + " bytes, half of what a one-way ring all-reduce"
                        + " sends; " + flops + " FLOPs",
                TraceRules.onlyPpermutesOver("Y")
                        .and(TraceRules.oneStepShifts())
                        .and(TraceRules.bothDirections(n))
                        .and(TraceRules.bytesPerDirectionAtMost(perDirection, "a one-way ring all-reduce sends"
                                + " 2(n − 1)/n · V = " + oneWay + " bytes one way"))
                        .and(TraceRules.flops(flops, "2·(B/X)·(D/Y)·F = 2·" + bx + "·" + dy + "·" + f)));
    }

    /**
     * 4.2: Tmp[B_X, F_Y] ·_F W2[F_Y, D] → Out[B_X, D_Y]. Only one-step ppermutes over Y, both ways (n ≥ 3), none
     * larger than an accumulator block [B/X, D/Y], at most ⌈(n − 1)/2⌉ blocks per direction; every matmul computes
     * at most D/Y columns; 2·(B/X)·(F/Y)·D FLOPs.
     */
    public static void reduceScatterMatmul(BinaryOperator<ShardedArray> impl, MatmulCase c) {
        Part part = P4_2;
        int n = c.y();
        int bx = c.b();
        int dy = 2 * c.d();
        int fy = c.f();
        int d = n * dy;
        int f = n * fy;
        NDArray tmp = Generators.smallFloats(c.seed(), c.x() * bx, f);
        NDArray w2 = Generators.smallFloats(c.seed() + 1, f, d);
        CaseRun<ShardedArray> r = Problem3Checks.run(part, c, List.of(new Operand("Tmp", tmp, XY), new Operand("W2", w2,
                        P("Y", null))), XY, Chapter0Oracles.matmul(tmp, w2), Problem3Checks.exactSums(f),
                l -> impl.apply(l.get(0), l.get(1)));
        long block = 4L * bx * dy;
        long flops = 2L * bx * fy * d;
        TraceRules.perDevice(r, "communication: accumulators both ways round the ring, half the bytes each way",
                "only ppermute over Y, each one step round the ring, up and down (when Y has"
                        + " at least 3 devices); no message larger than one accumulator block [B/X, D/Y] = [" + bx
                        + ", " + dy + "]; each direction at most ⌈(n − 1)/2⌉ = " + halfSteps(n) + " block(s) = "
                        + halfSteps(n) * block + " bytes, half of the one-way version's n − 1; every matmul"
                        + " computes at most D/Y = " + dy + " columns; " + flops + " FLOPs",
                TraceRules.onlyPpermutesOver("Y")
                        .and(TraceRules.oneStepShifts())
                        .and(TraceRules.bothDirections(n))
                        .and(TraceRules.ppermuteAtMost((long) bx * dy, "one accumulator block"))
                        .and(TraceRules.bytesPerDirectionAtMost(halfSteps(n) * block, "the one-way version sends"
                                + " n − 1 = " + (n - 1) + " blocks of " + block + " bytes one way"))
                        .and(TraceRules.everyMatmul(m -> m.n() <= dy, "compute the partial product of at most one"
                                + " chunk of D (≤ D/Y = " + dy + " columns) at a time, just before it is added"))
                        .and(TraceRules.flops(flops, "2·(B/X)·(F/Y)·D = 2·" + bx + "·" + fy + "·" + d)));
    }

    // ------------------------------------------------------------------------------------ performance points

    private static final int[] BD = {Problem3Checks.PERF_B, Problem3Checks.PERF_D};
    private static final int[] DF = {Problem3Checks.PERF_D, Problem3Checks.PERF_F};
    private static final int[] BF = {Problem3Checks.PERF_B, Problem3Checks.PERF_F};
    private static final int[] FD = {Problem3Checks.PERF_F, Problem3Checks.PERF_D};
    private static final long MATMUL_FLOPS = 2L * Problem3Checks.PERF_B * Problem3Checks.PERF_D
            * Problem3Checks.PERF_F;

    /** 4.0p. */
    public static TimedResult allGatherMatmulTime(BinaryOperator<ShardedArray> impl) {
        return new MeasuredRun(P4_0P, MeasuredRun.operands("A", BD, XY, "W", DF, P(null, "Y")),
                XY, BF, MeasuredRun.MATMUL, MATMUL_FLOPS, MeasuredRun.acrossY(Problem3Checks.PERF_B, Problem3Checks.PERF_D)).time(P4_0, () -> allGatherMatmul(impl,
                Problem3Checks.BASE_CASE), SETTING, l -> impl.apply(l.get(0), l.get(1)));
    }

    /** 4.1p. */
    public static TimedResult allReduceMatmulTime(BinaryOperator<ShardedArray> impl) {
        return new MeasuredRun(P4_1P, MeasuredRun.operands("A", BD, XY, "W", DF, P("Y", null)),
                P("X", null), BF, MeasuredRun.MATMUL, MATMUL_FLOPS, MeasuredRun.acrossY(Problem3Checks.PERF_B, Problem3Checks.PERF_F)).time(P4_1, () -> allReduceMatmul(impl,
                Problem3Checks.BASE_CASE), SETTING, l -> impl.apply(l.get(0), l.get(1)));
    }

    /** 4.2p. */
    public static TimedResult reduceScatterMatmulTime(BinaryOperator<ShardedArray> impl) {
        return new MeasuredRun(P4_2P, MeasuredRun.operands("Tmp", BF, XY, "W2", FD,
                P("Y", null)), XY, BD, MeasuredRun.MATMUL, MATMUL_FLOPS, MeasuredRun.acrossY(Problem3Checks.PERF_B, Problem3Checks.PERF_D)).time(P4_2, () -> reduceScatterMatmul(
                impl, Problem3Checks.BASE_CASE), SETTING, l -> impl.apply(l.get(0), l.get(1)));
    }
}
