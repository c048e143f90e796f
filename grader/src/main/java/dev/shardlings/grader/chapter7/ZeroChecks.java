package dev.shardlings.grader.chapter7;

import dev.shardlings.array.NDArray;
import dev.shardlings.events.Collective;
import dev.shardlings.grader.checks.Checks;
import dev.shardlings.grader.checks.Checks.Tolerance;
import dev.shardlings.grader.checks.TraceRules;
import dev.shardlings.grader.judge.CaseRun;
import dev.shardlings.grader.judge.Guard;
import dev.shardlings.grader.judge.Reports;
import dev.shardlings.grader.parts.Check;
import dev.shardlings.grader.parts.CourseMethod;
import dev.shardlings.grader.parts.Part;
import dev.shardlings.spmd.ShardedArray;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static dev.shardlings.grader.chapter7.Chapter7Course.CHAPTER;
import static dev.shardlings.grader.parts.Part.example;
import static dev.shardlings.grader.parts.Part.property;
import static dev.shardlings.sharding.PartitionSpec.P;

/**
 * Part 7.4a, gradient accumulation: its row, then its check. The gradient comes from a whole-array oracle in
 * double precision (the big-batch step); the one reduction per step and the microbatch-sized matmuls are read from
 * the trace.
 */
public final class ZeroChecks {

    private static final String D = "docs/chapter-7.md#";

    /** {@code Chapter7.accumulatedGradient}. */
    public static final CourseMethod<Accumulate> C7_ACCUMULATED_GRADIENT = CHAPTER.method("accumulatedGradient",
            Accumulate.class, ShardedArray.class, ShardedArray.class, ShardedArray.class, ShardedArray.class,
            int.class);

    /** Part 7.4a. */
    public static final Part P7_4A = CHAPTER.part("7.4a", "gradient accumulation", 2, "Accumulation")
            .calls(C7_ACCUMULATED_GRADIENT)
            .docs(D + "part-74a-gradient-accumulation")
            .hint("a sum of sums is the whole sum: which scale belongs to the whole batch, and how many times may it"
                    + " be applied? Which of the M microbatch gradients does another device need to see on its own"
                    + " (chapter-7.md, part 7.4a)?")
            .requires(C7_ACCUMULATED_GRADIENT, "dW (float tolerance) laid out P(), equal to the big-batch"
                    + " gradient", Check.VALUES, Check.LAYOUT)
            .requires(C7_ACCUMULATED_GRADIENT, "a hand-written shardMap", Check.USES_SHARD_MAP)
            .requires(C7_ACCUMULATED_GRADIENT, "per device exactly one psum (or pmean) over 'data' per step, of the"
                    + " accumulated gradient f32[D, F]", Check.COLLECTIVES, Check.OPERANDS)
            .requires(C7_ACCUMULATED_GRADIENT, "every matmul is sized per microbatch ([B/(data·M), D]·[D, F] or"
                    + " [D, B/(data·M)]·[B/(data·M), F])", Check.MATMULS)
            .graded(property("meshesMicrobatchesAndShapes", 25, "7004", AccumulationCase::cases), List.of(
                    example("eightDevicesFourMicrobatches", new AccumulationCase(8, 4, 2, 3, 2, 741)),
                    example("oneMicrobatch", new AccumulationCase(4, 1, 3, 2, 3, 742)),
                    example("oneDevice", new AccumulationCase(1, 3, 2, 2, 2, 743))),
                    c -> accumulatedGradient(C7_ACCUMULATED_GRADIENT.proxy(), c));

    /** Part 7.4's rows, programs first. */
    public static final List<Part> PARTS = List.of(P7_4A);

    private ZeroChecks() {
    }

    /** Part 7.4a: the gradient of one data-parallel step, each device's rows taken M microbatches at a time. */
    @FunctionalInterface
    public interface Accumulate {
        ShardedArray apply(ShardedArray w, ShardedArray x, ShardedArray t, int microbatches);
    }

    /**
     * Values are multiples of 1/16 within [−1/2, 1/2] and the gradient sums at most 192 products of two of them:
     * float32 adds them exactly but for the final 1/B, so a few ulps of values below 1 is the error.
     */
    static final Tolerance TOLERANCE = new Tolerance(1e-5, 1e-5);

    /**
     * 7.4a: dW (float tolerance) laid out P(); a hand-written shardMap; exactly one psum or pmean over 'data' of
     * f32[D, F]; every matmul [r, D]·[D, F] or [D, r]·[r, F] with r = B/(data·M).
     */
    public static void accumulatedGradient(Accumulate impl, AccumulationCase c) {
        NDArray w = c.w();
        NDArray x = c.x();
        NDArray t = c.t();
        ShardedArray ws = ShardedArray.devicePut(w, c.mesh(), P());
        ShardedArray xs = ShardedArray.devicePut(x, c.mesh(), P("data"));
        ShardedArray ts = ShardedArray.devicePut(t, c.mesh(), P("data"));
        CaseRun<ShardedArray> run = Guard.run(P7_4A, c.describe(), () -> impl.apply(ws, xs, ts, c.microbatches()));
        Checks.usesShardMap(run);
        NDArray expected = gradient(w, x, t, 1);
        List<Checks.Mistake> known = new ArrayList<>();
        if (c.microbatches() > 1) {
            known.add(new Checks.Mistake("averaging twice (each microbatch's mean, then the sum scaled by 1/M"
                    + " again)", gradient(w, x, t, c.microbatches()), "the 1/B of the mean belongs to the whole"
                    + " batch: sum the microbatch gradients and scale once"));
            known.add(new Checks.Mistake("summing the microbatch means without dividing by M", gradient(w, x, t,
                    1.0 / c.microbatches()), "a mean over r rows scales by 1/r, but the step's loss is a mean over all"
                    + " B rows"));
        }
        Checks.shardedResult(run, Reports.inputs("Input W", w, "Input X", x, "Input T", t), expected, P(),
                TOLERANCE, Reports.picture(xs), known);

        int r = c.rows();
        TraceRules.perDevice(run, "reduces the gradient other than once per step", "every device runs exactly one"
                + " psum (or pmean) over 'data', of the accumulated gradient f32[" + c.d() + ", " + c.f() + "]",
                TraceRules.collectives(Set.of("data"), List.of(Set.of(Collective.PSUM, Collective.PMEAN)),
                        List.of(List.of(c.d(), c.f())), "one psum over 'data' of the summed gradient f32[" + c.d()
                                + ", " + c.f() + "]"));
        TraceRules.perDevice(run, "multiplies more than a microbatch at a time", "every matmul is sized per"
                + " microbatch, f32[" + r + ", " + c.d() + "]·[" + c.d() + ", " + c.f() + "] or f32[" + c.d() + ", " + r
                + "]·[" + r + ", " + c.f() + "]", TraceRules.everyMatmul(m -> m.m() == r && m.k() == c.d()
                && m.n() == c.f() || m.m() == c.d() && m.k() == r && m.n() == c.f(), "a microbatch's product"));
    }

    /**
     * The whole-array gradient in double of L = (1/B)·Σ_rows ½‖relu(X·W) − T‖², divided by {@code extra} (1: the
     * right answer; the mistakes scale it once more): dW = Xᵀ·(relu′(X·W) ⊙ (relu(X·W) − T)) / (B·extra).
     */
    static NDArray gradient(NDArray w, NDArray x, NDArray t, double extra) {
        int b = x.shape(0);
        int d = x.shape(1);
        int f = w.shape(1);
        float[] wv = w.toFloatArray();
        float[] xv = x.toFloatArray();
        float[] tv = t.toFloatArray();
        double[] g = new double[d * f];
        for (int i = 0; i < b; i++) {
            for (int j = 0; j < f; j++) {
                double z = 0;
                for (int k = 0; k < d; k++) {
                    z += (double) xv[i * d + k] * wv[k * f + j];
                }
                double dz = z > 0 ? z - tv[i * f + j] : 0;
                for (int k = 0; k < d; k++) {
                    g[k * f + j] += xv[i * d + k] * dz;
                }
            }
        }
        float[] out = new float[d * f];
        for (int i = 0; i < out.length; i++) {
            out[i] = (float) (g[i] / (b * extra));
        }
        return NDArray.fromFloats(out, d, f);
    }
}
