package dev.shardlings.grader.chapter7;

import dev.shardlings.array.NDArray;
import dev.shardlings.events.Collective;
import dev.shardlings.grader.checks.Checks;
import dev.shardlings.grader.checks.Checks.Tolerance;
import dev.shardlings.grader.checks.TraceRules;
import dev.shardlings.grader.judge.CaseRun;
import dev.shardlings.grader.judge.GradingFailure;
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
 * Parts 7.4a (gradient accumulation) and 7.4b (ZeRO-1): their rows, then their checks. Gradient and Adam step
 * come from whole-array oracles in double precision (the big-batch step; optax's Adam written out, not nn.Adam);
 * the collectives, the microbatch-sized matmuls and what each device is handed are read from the trace. Two parts
 * rather than one method: a student can finish accumulation (one reduction) before meeting the sharded optimizer
 * (reduce-scatter, all-gather), and each part's rules then name one idea.
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
            .requires(C7_ACCUMULATED_GRADIENT, "no device allocates an array larger than f32[D, F], f32[B/(data·M),"
                    + " D] or f32[B/(data·M), F]", Check.DEVICE_MEMORY)
            .requires(C7_ACCUMULATED_GRADIENT, "the batch is never gathered on the host", Check.HOST_MEMORY)
            .graded(property("meshesMicrobatchesAndShapes", 25, "7004", AccumulationCase::cases), List.of(
                    example("eightDevicesFourMicrobatches", new AccumulationCase(8, 4, 2, 3, 2, 741)),
                    example("oneMicrobatch", new AccumulationCase(4, 1, 3, 2, 3, 742)),
                    example("oneDevice", new AccumulationCase(1, 3, 2, 2, 2, 743))),
                    c -> accumulatedGradient(C7_ACCUMULATED_GRADIENT.proxy(), c));

    /** {@code Chapter7.zeroAdamStep}. */
    public static final CourseMethod<Zero> C7_ZERO_ADAM_STEP = CHAPTER.method("zeroAdamStep", Zero.class,
            List.class, ShardedArray.class, ShardedArray.class, ShardedArray.class, ShardedArray.class,
            ShardedArray.class, int.class, float.class);

    /** Part 7.4b. */
    public static final Part P7_4B = CHAPTER.part("7.4b", "ZeRO-1: Adam's state sharded over 'data'", 3, "Zero")
            .calls(C7_ZERO_ADAM_STEP)
            .docs(D + "part-74b-zero-1")
            .hint("a device that owns rows of mu and nu needs the summed gradient of those rows only: which"
                    + " collective delivers each device its own rows of a sum? And after each device has updated its"
                    + " rows of W, how does every device get the whole W back (chapter-7.md, part 7.4b)?")
            .requires(C7_ZERO_ADAM_STEP, "W' (float tolerance) laid out P(), mu' and nu' laid out P('data'), equal"
                    + " to one step of Adam on the whole arrays", Check.VALUES, Check.LAYOUT)
            .requires(C7_ZERO_ADAM_STEP, "a hand-written shardMap", Check.USES_SHARD_MAP)
            .requires(C7_ZERO_ADAM_STEP, "per device one psumScatter over 'data' of the gradient f32[D, F], then one"
                    + " allGather over 'data' of its rows of W f32[D/data, F], and no all-reduce", Check.COLLECTIVES,
                    Check.OPERANDS)
            .requires(C7_ZERO_ADAM_STEP, "no program hands a device more than W, its 1/data of mu and nu and its"
                    + " rows of X and T", Check.DEVICE_MEMORY)
            .requires(C7_ZERO_ADAM_STEP, "the batch is never gathered on the host", Check.HOST_MEMORY)
            .graded(property("meshesShapesAndSteps", 25, "7014", ZeroCase::cases), List.of(
                    example("eightDevicesFirstStep", new ZeroCase(8, 2, 1, 3, 1, 744)),
                    example("laterStep", new ZeroCase(4, 3, 2, 2, 3, 745)),
                    example("oneDevice", new ZeroCase(1, 2, 2, 2, 2, 746))),
                    c -> zeroAdamStep(C7_ZERO_ADAM_STEP.proxy(), c));

    /** Part 7.4's rows, programs first. */
    public static final List<Part> PARTS = List.of(P7_4A, P7_4B);

    private ZeroChecks() {
    }

    /** Part 7.4a: the gradient of one data-parallel step, each device's rows taken M microbatches at a time. */
    @FunctionalInterface
    public interface Accumulate {
        ShardedArray apply(ShardedArray w, ShardedArray x, ShardedArray t, int microbatches);
    }

    /** Part 7.4b: one Adam step with its state sharded over 'data', returning [W', mu', nu']. */
    @FunctionalInterface
    public interface Zero {
        List<ShardedArray> apply(ShardedArray w, ShardedArray mu, ShardedArray nu, ShardedArray x, ShardedArray t,
                                 int step, float learningRate);
    }

    /**
     * Values are multiples of 1/16 within [−1/2, 1/2] and the gradient sums at most 192 products of two of them:
     * float32 adds them exactly but for the final 1/B, so a few ulps of values below 1 is the error.
     */
    static final Tolerance TOLERANCE = new Tolerance(1e-5, 1e-5);

    /**
     * 7.4a: dW (float tolerance) laid out P(); a hand-written shardMap; exactly one psum or pmean over 'data' of
     * f32[D, F]; every matmul [r, D]·[D, F] or [D, r]·[r, F] with r = B/(data·M); no device array larger than
     * f32[D, F], f32[r, D] or f32[r, F]; X and T never gathered on the host.
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
        // Activation memory: one microbatch's rows, the weight-sized gradient and accumulator, nothing larger. The
        // whole local batch at once without a matmul (X[b, D, 1]·W[1, D, F] summed, say) shows here.
        long largest = 4L * Math.max((long) c.d() * c.f(), (long) r * Math.max(c.d(), c.f()));
        TraceRules.perDevice(run, "holds more than a microbatch's activations", "no device allocates an array"
                + " larger than f32[" + c.d() + ", " + c.f() + "], f32[" + r + ", " + c.d() + "] or f32[" + r + ", "
                + c.f() + "], " + largest + " bytes", TraceRules.largestArrayBelow(largest + 1, "larger than the"
                + " gradient or one microbatch's rows: take the rows r at a time"));
        Checks.noHostGather(run, wholeBatchBytes(c.batch(), c.d(), c.f()), c.devices());
    }

    /** Adam's decay rates and epsilon, optax's defaults. */
    static final double B1 = 0.9;
    static final double B2 = 0.999;
    static final double EPS = 1e-8;

    /**
     * Adam's ratio m̂/(√n̂ + ε) is near ±1 where the gradient is tiny, so float32 rounding in the gradient shows up
     * relative to the learning rate: a few ulps of values below 1 for W, mu and nu.
     */
    static final Tolerance ADAM_TOLERANCE = new Tolerance(1e-5, 1e-6);

    /**
     * nu' = b2·nu + (1 − b2)·g²: its gradient term is 1e-3·g², often below 1e-6, so nu' is compared relative to its
     * own size (float32 rounding of its two terms is below 1e-6 of it) with an absolute floor far below any g² term
     * that matters: the error a float32 gradient brings, (1 − b2)·2|g|·δg, stays under 1e-9.
     */
    static final Tolerance NU_TOLERANCE = new Tolerance(1e-6, 1e-9);

    /**
     * 7.4b: W' (float tolerance) laid out P(), mu' and nu' laid out P('data'); a hand-written shardMap; exactly one
     * psumScatter of f32[D, F] then one allGather of f32[D/data, F], both over 'data'; no program hands a device more
     * than W, its rows of mu and nu and its rows of X and T; X and T never gathered on the host.
     */
    public static void zeroAdamStep(Zero impl, ZeroCase c) {
        NDArray w = c.w();
        NDArray mu = c.mu();
        NDArray nu = c.nu();
        NDArray x = c.x();
        NDArray t = c.t();
        ShardedArray ws = ShardedArray.devicePut(w, c.mesh(), P());
        ShardedArray mus = ShardedArray.devicePut(mu, c.mesh(), P("data"));
        ShardedArray nus = ShardedArray.devicePut(nu, c.mesh(), P("data"));
        ShardedArray xs = ShardedArray.devicePut(x, c.mesh(), P("data"));
        ShardedArray ts = ShardedArray.devicePut(t, c.mesh(), P("data"));
        CaseRun<List<ShardedArray>> run = Guard.run(P7_4B, c.describe(), () -> impl.apply(ws, mus, nus, xs, ts,
                c.step(), ZeroCase.LEARNING_RATE));
        Checks.usesShardMap(run);
        if (run.value().size() != 3) {
            throw run.report("returned other than [W', mu', nu']").failure(GradingFailure.Kind.WRONG_SHAPE,
                    "a list of " + run.value().size() + " arrays, expected 3");
        }
        NDArray g = gradient(w, x, t, 1);
        NDArray[] right = adam(w, mu, nu, g, c.step(), true);
        NDArray[] uncorrected = adam(w, mu, nu, g, c.step(), false);
        String inputs = Reports.inputs("Input W", w, "Input X", x, "Input T", t);
        Checks.shardedResult(part(run, 0), inputs, right[0], P(), ADAM_TOLERANCE, Reports.picture(xs),
                List.of(new Checks.Mistake("Adam without bias correction", uncorrected[0], "divide mu' by"
                        + " 1 − b1^t and nu' by 1 − b2^t before the update, t the step number")));
        Checks.shardedResult(part(run, 1), inputs, right[1], P("data"), ADAM_TOLERANCE, Reports.picture(mus));
        Checks.shardedResult(part(run, 2), inputs, right[2], P("data"), NU_TOLERANCE, Reports.picture(nus),
                List.of(new Checks.Mistake("nu' without its gradient term", stale(nu), "nu' = b2·nu + (1 − b2)·g²:"
                        + " the second moment takes in the square of this step's gradient")));

        int n = c.devices();
        TraceRules.perDevice(run, "communicates other than reduce-scatter then all-gather", "every device runs one"
                + " psumScatter over 'data' of the gradient f32[" + c.d() + ", " + c.f() + "], then one allGather"
                + " over 'data' of its rows of W f32[" + c.dRows() + ", " + c.f() + "], and no all-reduce",
                TraceRules.collectives(Set.of("data"), List.of(Set.of(Collective.PSUM_SCATTER),
                        Set.of(Collective.ALL_GATHER)), List.of(List.of(c.d(), c.f()), List.of(c.dRows(), c.f())),
                        "a psumScatter of the gradient, then an allGather of the updated rows of W"));
        long bytes = 4L * (c.d() * c.f() + 2L * c.dRows() * c.f() + (long) c.rows() * (c.d() + c.f()));
        TraceRules.perDevice(run, "is handed more than its share of the optimizer state", "no program hands a"
                + " device more than W, its 1/" + n + " of mu and nu and its rows of X and T, " + bytes + " bytes",
                TraceRules.argumentBytesAtMost(bytes, "take mu and nu with in spec P(\"data\"): each device"
                        + " updates only the rows it owns"));
        Checks.noHostGather(run, wholeBatchBytes(c.devices() * c.rows(), c.d(), c.f()), n);
    }

    /** b2·nu: the second moment decayed, without this step's (1 − b2)·g². */
    private static NDArray stale(NDArray nu) {
        float[] v = nu.toFloatArray();
        float[] out = new float[v.length];
        for (int i = 0; i < v.length; i++) {
            out[i] = (float) (B2 * v[i]);
        }
        return NDArray.fromFloats(out, nu.shape());
    }

    /**
     * The bytes of the larger of X f32[B, D] and T f32[B, F] whole, the least a host computation of the gradient
     * gathers, but at least one byte more than f32[D, F]: the judge itself reads blocks of W and of the results on
     * the host (each at most f32[D, F], or one device's rows of X or T), and those are not gathering.
     */
    static long wholeBatchBytes(int batch, int d, int f) {
        return Math.max(4L * batch * Math.max(d, f), 4L * d * f + 1);
    }

    /** The {@code i}th array of a list-valued run, as a run of its own for the value checks. */
    private static CaseRun<ShardedArray> part(CaseRun<List<ShardedArray>> run, int i) {
        return new CaseRun<>(run.part(), run.caseText() + " (result " + (i == 0 ? "W'" : i == 1 ? "mu'" : "nu'")
                + ")", run.value().get(i), run.trace());
    }

    /**
     * One Adam step on the whole arrays in double, as optax 0.2.8 defines it: mu' = b1·mu + (1 − b1)·g, nu' = b2·nu +
     * (1 − b2)·g², W' = W − lr·m̂/(√n̂ + ε) with m̂ = mu'/(1 − b1^t), n̂ = nu'/(1 − b2^t) ({@code corrected}; without
     * it, m̂ = mu' and n̂ = nu', the mistake). Returns [W', mu', nu'].
     */
    static NDArray[] adam(NDArray w, NDArray mu, NDArray nu, NDArray g, int step, boolean corrected) {
        float[] wv = w.toFloatArray();
        float[] mv = mu.toFloatArray();
        float[] nv = nu.toFloatArray();
        float[] gv = g.toFloatArray();
        float[] w2 = new float[wv.length];
        float[] m2 = new float[wv.length];
        float[] n2 = new float[wv.length];
        double c1 = corrected ? 1 - Math.pow(B1, step) : 1;
        double c2 = corrected ? 1 - Math.pow(B2, step) : 1;
        for (int i = 0; i < wv.length; i++) {
            double m = B1 * mv[i] + (1 - B1) * gv[i];
            double v = B2 * nv[i] + (1 - B2) * (double) gv[i] * gv[i];
            m2[i] = (float) m;
            n2[i] = (float) v;
            w2[i] = (float) (wv[i] - ZeroCase.LEARNING_RATE * (m / c1) / (Math.sqrt(v / c2) + EPS));
        }
        int[] shape = w.shape();
        return new NDArray[]{NDArray.fromFloats(w2, shape), NDArray.fromFloats(m2, shape),
                NDArray.fromFloats(n2, shape)};
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
