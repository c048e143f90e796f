package dev.shardlings.grader.chapter7;

import dev.shardlings.array.NDArray;
import dev.shardlings.cost.ModelDtype;
import dev.shardlings.events.Collective;
import dev.shardlings.events.TraceEvent;
import dev.shardlings.events.TraceEvent.CollectiveEvent;
import dev.shardlings.events.TraceEvent.LocalOpEvent;
import dev.shardlings.events.TraceEvent.MatmulEvent;
import dev.shardlings.grader.checks.Checks;
import dev.shardlings.grader.checks.ModelledTime;
import dev.shardlings.grader.checks.Checks.Tolerance;
import dev.shardlings.grader.checks.TraceRules;
import dev.shardlings.grader.checks.TraceRules.Rule;
import dev.shardlings.grader.judge.CaseRun;
import dev.shardlings.grader.judge.GradingFailure;
import dev.shardlings.grader.judge.Guard;
import dev.shardlings.grader.judge.Reports;
import dev.shardlings.grader.parts.Check;
import dev.shardlings.grader.parts.CourseMethod;
import dev.shardlings.grader.parts.Part;
import dev.shardlings.grader.parts.Requirement;
import dev.shardlings.grader.parts.TimedResult;
import dev.shardlings.grader.parts.TimedSetting;
import dev.shardlings.spmd.ShardedArray;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static dev.shardlings.grader.chapter7.Chapter7Course.CHAPTER;
import static dev.shardlings.grader.parts.Part.example;
import static dev.shardlings.grader.parts.Part.property;
import static dev.shardlings.sharding.PartitionSpec.P;

/**
 * Part 7.3, ring attention (context parallelism): its row, then its check. Values come from a whole-array oracle
 * in double precision (softmax(Q·Kᵀ/√D)·V, causal or not); the ring, the blocks each matmul sees and what each
 * device is handed are read from the trace.
 */
public final class RingAttentionChecks {

    private static final String D = "docs/chapter-7.md#";

    /** {@code Chapter7.ringAttention}. */
    public static final CourseMethod<RingAttention> C7_RING_ATTENTION = CHAPTER.method("ringAttention",
            RingAttention.class, ShardedArray.class, ShardedArray.class, ShardedArray.class, ShardedArray.class);
    /** {@code Chapter7.causalRingAttention}. */
    public static final CourseMethod<RingAttention> C7_CAUSAL_RING_ATTENTION = CHAPTER.method(
            "causalRingAttention", RingAttention.class, ShardedArray.class, ShardedArray.class, ShardedArray.class,
            ShardedArray.class);

    private static final String RING = "per device only ppermutes over 'seq', each a one-step shift of its K and V"
            + " blocks (f32[S/n, D] each, or both in one array), n − 1 shifts of each in all";
    private static final String BLOCKS = "every matmul multiplies one block by one block (scores [S/n, D]·[D, S/n],"
            + " output [S/n, S/n]·[S/n, D]) and no program hands a device more than its blocks of Q, K and V";
    private static final String HOLD = "each V block that arrives multiplied by its weights before the shift after"
            + " next (a device holds at most two K/V blocks beyond its own) and no local operation making an array"
            + " of more than 2·(S/n)·max(S/n, D) elements";

    /** Part 7.3. */
    public static final Part P7_3 = CHAPTER.part("7.3", "ring attention (context parallelism)", 3, "RingAttention")
            .calls(C7_RING_ATTENTION, C7_CAUSAL_RING_ATTENTION)
            .docs(D + "part-73-ring-attention")
            .hint("keep, per query row, the largest score so far, the sum of exp(score − that max) and the output"
                    + " weighted the same way: when a new block raises the max, by what factor must the old sum and"
                    + " output change? After t shifts up the ring, whose blocks does a device hold, and where do"
                    + " their keys sit in the sequence (chapter-7.md, part 7.3)?")
            .requires(C7_RING_ATTENTION, "O (float tolerance) laid out P('seq'), on scores large enough to"
                    + " overflow exp", Check.VALUES, Check.LAYOUT)
            .requires(C7_RING_ATTENTION, "a hand-written shardMap", Check.USES_SHARD_MAP)
            .requires(C7_RING_ATTENTION, RING, Check.COLLECTIVES, Check.RING_STEPS, Check.OPERANDS)
            .requires(C7_RING_ATTENTION, BLOCKS, Check.MATMULS, Check.DEVICE_MEMORY)
            .requires(C7_RING_ATTENTION, HOLD, Check.SCHEDULE, Check.DEVICE_MEMORY)
            .requires(C7_CAUSAL_RING_ATTENTION, "O (float tolerance) laid out P('seq'), query i seeing the keys"
                    + " j ≤ i, on scores large enough to overflow exp", Check.VALUES, Check.LAYOUT)
            .requires(C7_CAUSAL_RING_ATTENTION, "a hand-written shardMap", Check.USES_SHARD_MAP)
            .requires(C7_CAUSAL_RING_ATTENTION, RING, Check.COLLECTIVES, Check.RING_STEPS, Check.OPERANDS)
            .requires(C7_CAUSAL_RING_ATTENTION, BLOCKS, Check.MATMULS, Check.DEVICE_MEMORY)
            .requires(C7_CAUSAL_RING_ATTENTION, HOLD, Check.SCHEDULE, Check.DEVICE_MEMORY)
            .graded(property("meshesShapesAndScores", 25, "7003", RingAttentionCase::cases), List.of(
                    example("eightDevicesLargeScores", new RingAttentionCase(8, 2, 4, false,
                            RingAttentionCase.LARGE, 731)),
                    example("causalLargeScores", new RingAttentionCase(4, 3, 4, true, RingAttentionCase.LARGE,
                            732)),
                    example("oneDevice", new RingAttentionCase(1, 3, 2, true, 1f, 733))),
                    c -> ringAttention(c.causal() ? C7_CAUSAL_RING_ATTENTION.proxy()
                            : C7_RING_ATTENTION.proxy(), c));

    /**
     * 7.3p's setting: TPU v5e in bfloat16, as the other performance parts; a block of 256 rows per device, so the
     * modelled matmuls take about as long as a block's transfer and the timeline shows whether they overlap.
     */
    public static final TimedSetting SETTING_73P = new TimedSetting("tpu-v5e", ModelDtype.BFLOAT16,
            "mesh ('seq': 8); Q, K, V f32[2048, 128] P('seq'), no mask");

    /** 7.3p's floor on a device's matmul FLOPs, its rule's text without the measured size's numbers. */
    private static final String RING_FLOPS = "every device takes its queries' scores against every K block and"
            + " multiplies every V block by their weights, at least 4·n·(S/n)²·D FLOPs";

    /** Part 7.3p. */
    public static final Part P7_3P = CHAPTER.part("7.3p", "7.3 modelled time, TPU v5e", 1, "Performance")
            .calls(C7_RING_ATTENTION)
            .docs(D + "part-73p-modelled-time-tpu-v5e")
            .hint("the reference shifts the next K and V blocks as soon as they have arrived, so each transfer"
                    + " runs while the previous block is multiplied, and multiplies each block once; compare your"
                    + " timeline (written under grader/target/grade/profiles/) with docs/chapter-7.md, part 7.3p.")
            .requires(Requirement.measuredProgram(C7_RING_ATTENTION, P7_3.requirements(), RING_FLOPS))
            .timed(SETTING_73P, () -> ringAttentionTime(C7_RING_ATTENTION.proxy()));

    /** Part 7.3's rows, programs first. */
    public static final List<Part> PARTS = List.of(P7_3, P7_3P);

    private RingAttentionChecks() {
    }

    /** Part 7.3: attention over a sequence split on 'seq' (one method without the mask, one with it). */
    @FunctionalInterface
    public interface RingAttention {
        ShardedArray apply(ShardedArray q, ShardedArray k, ShardedArray v);
    }

    /**
     * Float32 scores of up to a few hundred (the large cases), exponentiated and summed over at most 48 keys (2048
     * in 7.3p, at scale 1): the scores' rounding (a few 1e-5) is the error, against outputs within [−1/2, 1/2].
     */
    static final Tolerance TOLERANCE = new Tolerance(1e-4, 1e-4);

    /**
     * 7.3: {@code impl} is the case's method (causal or not); O (float tolerance) laid out P('seq'), on scores
     * that overflow exp without the running max; a hand-written shardMap; only ppermutes over 'seq', each a
     * one-step shift, carrying at most one K and one V block at a time and 2(n − 1)·(S/n)·D elements in all; every
     * matmul one block by one block, at most 2n of them; no program hands a device more than its three blocks; each
     * arriving V block multiplied before the shift after next, and no local array larger than two blocks.
     */
    public static void ringAttention(RingAttention impl, RingAttentionCase c) {
        NDArray q = c.q();
        NDArray k = c.k();
        NDArray v = c.v();
        ShardedArray qs = ShardedArray.devicePut(q, c.mesh(), P("seq"));
        ShardedArray ks = ShardedArray.devicePut(k, c.mesh(), P("seq"));
        ShardedArray vs = ShardedArray.devicePut(v, c.mesh(), P("seq"));
        CaseRun<ShardedArray> run = Guard.run(P7_3, c.describe(), () -> impl.apply(qs, ks, vs));
        Checks.usesShardMap(run);
        List<Checks.Mistake> known = c.causal() && c.devices() > 1 ? List.of(new Checks.Mistake("masking every"
                + " block by its local positions (row i sees column j ≤ i of every block)", attention(q, k, v,
                c.rows(), Mask.LOCAL), "a key's place in the sequence is its block's device times S/n plus its row"
                + " in the block: which device's block do you hold after t shifts?")) : List.of();
        Checks.shardedResult(run, Reports.inputs("Input Q", q, "Input K", k, "Input V", v),
                attention(q, k, v, c.rows(), c.causal() ? Mask.CAUSAL : Mask.NONE), P("seq"), TOLERANCE,
                Reports.picture(qs), known);
        structure(run, c);
    }

    /**
     * 7.3's structural rules on a run's trace: the ring of ppermutes, the blocks each matmul sees, what a device
     * holds and is handed. 7.3p applies them to its measured run too: a program that runs other code at the measured
     * size (all of K and V read through views the host took, no ring) must not be timed.
     */
    static void structure(CaseRun<?> run, RingAttentionCase c) {
        int n = c.devices();
        long block = (long) c.rows() * c.d();
        TraceRules.perDevice(run, "communicates other than the K/V ring", "every device runs ppermutes over 'seq'"
                + " only (no all-gather, no all-to-all, no all-reduce)", TraceRules.onlyPpermutesOver("seq"));
        TraceRules.perDevice(run, "passes blocks other than one step round the ring", "every ppermute is a shift by"
                + " one step round the ring of 'seq' and carries at most one K block and one V block (" + 2 * block
                + " elements)", TraceRules.oneStepShifts().and(TraceRules.ppermuteAtMost(2 * block,
                "one K block and one V block")));
        long total = 2 * (n - 1) * block;
        TraceRules.perDevice(run, "moves the K/V blocks other than n − 1 times", "every device's ppermutes carry"
                + " 2·(n − 1)·(S/n)·D = " + total + " elements: its K and V blocks each pass n − 1 = " + (n - 1)
                + " times, and no shift after the last block is used", ringTotal(total));
        TraceRules.perDevice(run, "multiplies more than one block at a time", "every matmul is one block by one"
                + " block, scores f32[" + c.rows() + ", " + c.d() + "]·[" + c.d() + ", " + c.rows() + "] or output f32["
                + c.rows() + ", " + c.rows() + "]·[" + c.rows() + ", " + c.d() + "], at most 2n = " + 2 * n + " of"
                + " them", blockMatmuls(c.rows(), c.d(), 2 * n));
        long largest = 2L * c.rows() * Math.max(c.rows(), c.d());
        TraceRules.perDevice(run, "holds more than one block at a time", "no local operation makes an array of more"
                + " than 2·(S/n)·max(S/n, D) = " + largest + " elements (two blocks: a score block, or K and V joined"
                + " to travel together)", smallArrays(largest));
        TraceRules.perDevice(run, "keeps the blocks that came round the ring", "every V block that arrives is"
                + " multiplied by its weights ([S/n, S/n]·[S/n, D]) before the shift after next, so a device holds"
                + " at most two K/V blocks beyond its own", promptOutputs(c.rows(), c.d(), block));
        long bytes = 3 * 4 * block;
        TraceRules.perDevice(run, "is handed more than its blocks", "no program hands a device more than its blocks"
                + " of Q, K and V, 3·4·(S/n)·D = " + bytes + " bytes", TraceRules.argumentBytesAtMost(bytes,
                "take Q, K and V with in spec P(\"seq\"): the blocks of K and V reach each device by the ring"));
    }

    /**
     * The seeds of the measured run's values, drawn by the judge for every run: the whole result is compared, and
     * values nobody can know before the run leave nothing to precompute. The modelled time depends on shapes only.
     */
    private static final java.security.SecureRandom PERF_SEEDS = new java.security.SecureRandom();

    /** 7.3p: {@code ringAttention} at 8 × 256 rows of 128, modelled; its answer and 7.3's rules checked first. */
    public static TimedResult ringAttentionTime(RingAttention impl) {
        RingAttentionCase c = new RingAttentionCase(8, 256, 128, false, 1f, PERF_SEEDS.nextLong());
        NDArray q = c.q();
        NDArray k = c.k();
        NDArray v = c.v();
        ShardedArray qs = ShardedArray.devicePut(q, c.mesh(), P("seq"));
        ShardedArray ks = ShardedArray.devicePut(k, c.mesh(), P("seq"));
        ShardedArray vs = ShardedArray.devicePut(v, c.mesh(), P("seq"));
        return ModelledTime.check(P7_3P, P7_3, () -> ringAttention(impl, new RingAttentionCase(8, 2, 4, false,
                RingAttentionCase.LARGE, 731)), SETTING_73P, () -> impl.apply(qs, ks, vs), run -> {
                    if (!(run.value() instanceof ShardedArray out)) {
                        throw run.report("returned something other than a placed array")
                                .failure(GradingFailure.Kind.WRONG_SHAPE, "not a ShardedArray");
                    }
                    CaseRun<ShardedArray> r = new CaseRun<>(run.part(), run.caseText(), out, run.trace());
                    Checks.usesShardMap(r);
                    Checks.shardedResult(r, "(the performance part's inputs)", attention(q, k, v, c.rows(),
                            Mask.NONE), P("seq"), TOLERANCE, null);
                    // 7.3's own rules at the measured size: the ring's n − 1 shifts of K and V are what every
                    // device must receive (the floor 3.0p–4.2p set with MeasuredRun), read from the trace.
                    structure(r, c);
                    long share = 4L * c.devices() * c.rows() * c.rows() * c.d();
                    TraceRules.perDevice(r, "does less than its share of the work on the devices",
                            RING_FLOPS.replace(" FLOPs", " = " + share + " FLOPs"), TraceRules.flopsAtLeast(share,
                            "4·n·(S/n)²·D"));
                });
    }

    /** The ppermutes of the device carry exactly {@code elements} elements together. */
    private static Rule ringTotal(long elements) {
        return Rule.of(Check.COLLECTIVES, d -> {
            long sum = 0;
            for (CollectiveEvent e : d.collectives()) {
                if (e.kind() == Collective.PPERMUTE) {
                    sum += e.inputShape().stream().mapToLong(Integer::longValue).reduce(1, (a, b) -> a * b);
                }
            }
            return sum == elements ? null : "its ppermutes carry " + sum + " elements, expected " + elements;
        }).withHint("the device's own blocks need no shift and the ring has n devices: n − 1 shifts bring every"
                + " other block by, and a shift after the last block is used sends data nobody reads");
    }

    /**
     * Every matmul is Q's block against a K block ([r, D]·[D, r]) or weights against a V block ([r, r]·[r, D]), and
     * there are at most {@code most}.
     */
    private static Rule blockMatmuls(int r, int dim, int most) {
        return Rule.of(Check.MATMULS, d -> {
            List<MatmulEvent> ms = d.matmuls();
            for (MatmulEvent m : ms) {
                boolean scores = m.m() == r && m.k() == dim && m.n() == r;
                boolean output = m.m() == r && m.k() == r && m.n() == dim;
                if (!scores && !output) {
                    return "it multiplies [" + m.m() + ", " + m.k() + "] · [" + m.k() + ", " + m.n() + "], which is"
                            + " not one block by one block";
                }
            }
            return ms.size() <= most ? null : "it runs " + ms.size() + " matmuls, more than two per block (" + most
                    + ")";
        }).withHint("multiply Q's block by each K block as it arrives and the weights by the V block beside it;"
                + " never join the blocks into the whole K or V, which is what the ring is there to avoid");
    }

    /**
     * No local operation makes an array of more than {@code most} elements: a block of scores against all S keys,
     * or the blocks joined, is the softmax taken over the whole row at once.
     */
    private static Rule smallArrays(long most) {
        return Rule.of(Check.DEVICE_MEMORY, d -> {
            for (TraceEvent e : d.events()) {
                if (e instanceof LocalOpEvent op) {
                    long size = op.shape().stream().mapToLong(Integer::longValue).reduce(1, (a, b) -> a * b);
                    if (size > most) {
                        return "its " + op.name() + " makes an array of shape " + op.shape() + ", " + size
                                + " elements, more than " + most;
                    }
                }
            }
            return null;
        }).withHint("a device sees one block of keys at a time: keep per query row the running max, the running sum"
                + " and the running output, never the scores of every key");
    }

    /**
     * Every output matmul ([r, r]·[r, D]) whose V operand came round the ring runs before the shift two steps after
     * that block's: the ppermutes before it in the device's program order reach at most one step past its block
     * (the next block may be fetched ahead). A block's step is the lowest step among the nearest ppermutes its V
     * operand was computed from (walking back through local operations), each ppermute's step its carried elements
     * so far over one K and one V block, rounded up. A program that keeps every block and multiplies them after the
     * last shift holds all S keys, and it needs that only to take the softmax over the whole row.
     */
    private static Rule promptOutputs(int r, int dim, long block) {
        return Rule.of(Check.SCHEDULE, d -> {
            Map<Long, TraceEvent> byId = new HashMap<>();
            Map<Long, Long> stepOf = new HashMap<>();
            long carried = 0;
            long lastStep = 0;
            for (TraceEvent e : d.events()) {
                byId.put(e.id(), e);
                if (e instanceof CollectiveEvent c && c.kind() == Collective.PPERMUTE) {
                    carried += c.inputShape().stream().mapToLong(Integer::longValue).reduce(1, (a, b) -> a * b);
                    stepOf.put(c.id(), (carried + 2 * block - 1) / (2 * block));
                }
            }
            for (TraceEvent e : d.events()) {
                if (e instanceof CollectiveEvent c && stepOf.containsKey(c.id())) {
                    lastStep = stepOf.get(c.id());
                }
                if (!(e instanceof MatmulEvent m) || m.m() != r || m.k() != r || m.n() != dim
                        || m.inputs().size() < 2) {
                    continue;
                }
                long arrived = Long.MAX_VALUE;
                Deque<Long> todo = new ArrayDeque<>(List.of(m.inputs().get(1)));
                Set<Long> seen = new HashSet<>();
                while (!todo.isEmpty()) {
                    long id = todo.pop();
                    if (!seen.add(id)) {
                        continue;
                    }
                    TraceEvent from = byId.get(id);
                    if (from instanceof CollectiveEvent c && stepOf.containsKey(c.id())) {
                        arrived = Math.min(arrived, stepOf.get(c.id()));
                    } else if (from instanceof LocalOpEvent op) {
                        todo.addAll(op.inputs());
                    }
                }
                if (arrived != Long.MAX_VALUE && lastStep > arrived + 1) {
                    return "it multiplies the V block of shift " + arrived + " by its weights only after shift "
                            + lastStep + ": it holds " + (lastStep - arrived + 1) + " blocks that came round the ring"
                            + " at once";
                }
            }
            return null;
        }).withHint("fold each block into the running max, sum and output as soon as it has arrived (you may shift"
                + " the next one first, so that its transfer overlaps); keeping the blocks to take the softmax over"
                + " the whole row at the end is an all-gather done by hand");
    }

    /** Which keys each query sees. */
    enum Mask {
        /** Every key. */
        NONE,
        /** Keys at global positions j ≤ i. */
        CAUSAL,
        /** The mistake: keys whose row within their block is at most the query's row within its block. */
        LOCAL
    }

    /** softmax(Q·Kᵀ/√D)·V on the whole arrays in double, each query over the keys {@code mask} lets it see. */
    static NDArray attention(NDArray q, NDArray k, NDArray v, int rows, Mask mask) {
        int s = q.shape(0);
        int dim = q.shape(1);
        float[] qv = q.toFloatArray();
        float[] kv = k.toFloatArray();
        float[] vv = v.toFloatArray();
        float[] out = new float[s * dim];
        double scale = 1 / Math.sqrt(dim);
        for (int i = 0; i < s; i++) {
            double[] score = new double[s];
            double max = Double.NEGATIVE_INFINITY;
            for (int j = 0; j < s; j++) {
                boolean sees = switch (mask) {
                    case NONE -> true;
                    case CAUSAL -> j <= i;
                    case LOCAL -> j % rows <= i % rows;
                };
                if (!sees) {
                    score[j] = Double.NEGATIVE_INFINITY;
                    continue;
                }
                double dot = 0;
                for (int x = 0; x < dim; x++) {
                    dot += (double) qv[i * dim + x] * kv[j * dim + x];
                }
                score[j] = dot * scale;
                max = Math.max(max, score[j]);
            }
            double sum = 0;
            double[] o = new double[dim];
            for (int j = 0; j < s; j++) {
                double w = Math.exp(score[j] - max);
                sum += w;
                for (int x = 0; x < dim; x++) {
                    o[x] += w * vv[j * dim + x];
                }
            }
            for (int x = 0; x < dim; x++) {
                out[i * dim + x] = (float) (o[x] / sum);
            }
        }
        return NDArray.fromFloats(out, s, dim);
    }
}
