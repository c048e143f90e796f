package dev.shardlings.grader.chapter7;

import dev.shardlings.array.DType;
import dev.shardlings.array.DataOp;
import dev.shardlings.array.NDArray;
import dev.shardlings.array.OpKind;
import dev.shardlings.events.Collective;
import dev.shardlings.events.TraceEvent;
import dev.shardlings.events.TraceEvent.CollectiveEvent;
import dev.shardlings.events.TraceEvent.LocalOpEvent;
import dev.shardlings.events.TraceEvent.MatmulEvent;
import dev.shardlings.grader.checks.Checks;
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
import dev.shardlings.spmd.ShardedArray;

import java.util.ArrayList;
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
 * Part 7.5 (mixed precision): its row, then its check. The oracle is the whole step in double that rounds to
 * bfloat16 exactly where JAX 0.10.2 does (framework/src/test/resources/jax-checks/bf16_grad.py pins the framework's
 * cotangents against it): the casts of the weights, the batch and the hidden activations, and in the backward every
 * cotangent of a bfloat16 value (the hidden activations', each gathered weight's, per device before the float32
 * reduction). Which collectives carry which dtype, and in which dtype the matmuls accumulate, are read from the
 * trace.
 */
public final class MixedPrecisionChecks {

    private static final String D = "docs/chapter-7.md#";

    /** {@code Chapter7.mixedPrecisionStep}. */
    public static final CourseMethod<Mixed> C7_MIXED_PRECISION_STEP = CHAPTER.method("mixedPrecisionStep",
            Mixed.class, List.class, ShardedArray.class, ShardedArray.class, ShardedArray.class, ShardedArray.class,
            float.class);

    /** Part 7.5. */
    public static final Part P7_5 = CHAPTER.part("7.5", "mixed precision: bf16 compute, f32 master weights", 3,
                    "MixedPrecision")
            .calls(C7_MIXED_PRECISION_STEP)
            .docs(D + "part-75-mixed-precision")
            .hint("which arrays must stay float32 (the masters, the sums), and which may be bfloat16 (what is"
                    + " multiplied, what travels to be multiplied)? Where does a gradient of a bfloat16 value get"
                    + " rounded, and where must it be widened (chapter-7.md, part 7.5)?")
            .requires(C7_MIXED_PRECISION_STEP, "L, W1' and W2' (L to float32 rounding, the weights to a bfloat16"
                    + " rounding of the update) laid out P(), P('data'), P('data'), equal to a step that rounds to"
                    + " bfloat16 where JAX does", Check.VALUES, Check.LAYOUT)
            .requires(C7_MIXED_PRECISION_STEP, "a hand-written shardMap", Check.USES_SHARD_MAP)
            .requires(C7_MIXED_PRECISION_STEP, "per device one allGather over 'data' of each weight's block, one"
                    + " psumScatter over 'data' of each weight's gradient and one psum (or pmean) of the loss",
                    Check.COLLECTIVES, Check.OPERANDS)
            .requires(C7_MIXED_PRECISION_STEP, "the all-gathers carry bfloat16 (half the bytes of float32) and the"
                    + " reductions float32", Check.BYTES, Check.OPERANDS)
            .requires(C7_MIXED_PRECISION_STEP, "every matmul reads a bfloat16 operand and accumulates in float32",
                    Check.MATMULS)
            .requires(C7_MIXED_PRECISION_STEP, "the batch is never gathered on the host", Check.HOST_MEMORY)
            .graded(property("meshesAndShapes", 25, "7015", MixedCase::cases), List.of(
                    example("eightDevices", new MixedCase(8, 2, 1, 2, 3, 751)),
                    example("sixteenDevices", new MixedCase(16, 1, 2, 1, 2, 752)),
                    example("oneDevice", new MixedCase(1, 2, 2, 2, 2, 753))),
                    c -> mixedPrecisionStep(C7_MIXED_PRECISION_STEP.proxy(), c));

    /** Part 7.5's row. */
    public static final List<Part> PARTS = List.of(P7_5);

    private MixedPrecisionChecks() {
    }

    /** Part 7.5: one mixed-precision step of the two-layer MLP, returning [L, W1', W2']. */
    @FunctionalInterface
    public interface Mixed {
        List<ShardedArray> apply(ShardedArray w1, ShardedArray w2, ShardedArray x, ShardedArray t,
                                 float learningRate);
    }

    /**
     * The loss is a float32 sum of at most 32 squares of values below 16 after one rounding of each product, so a
     * few float32 ulps of it; an all-float32 step differs from it by the casts of the weights, about 1e-3 of it.
     */
    static final Tolerance LOSS_TOLERANCE = new Tolerance(1e-5, 1e-6);

    /**
     * L, W1', W2' laid out P(), P('data'), P('data') against the oracle; a hand-written shardMap; exactly two
     * allGathers, two psumScatters and one psum (or pmean), all over 'data', of the weights' blocks, the weights'
     * gradients and the loss; bfloat16 all-gathers and float32 reductions; every matmul accumulating in float32 with
     * a bfloat16 operand; the batch never gathered on the host.
     */
    public static void mixedPrecisionStep(Mixed impl, MixedCase c) {
        NDArray w1 = c.w1();
        NDArray w2 = c.w2();
        NDArray x = c.x();
        NDArray t = c.t();
        ShardedArray w1s = ShardedArray.devicePut(w1, c.mesh(), P("data"));
        ShardedArray w2s = ShardedArray.devicePut(w2, c.mesh(), P("data"));
        ShardedArray xs = ShardedArray.devicePut(x, c.mesh(), P("data"));
        ShardedArray ts = ShardedArray.devicePut(t, c.mesh(), P("data"));
        CaseRun<List<ShardedArray>> run = Guard.run(P7_5, c.describe(), () -> impl.apply(w1s, w2s, xs, ts,
                MixedCase.LEARNING_RATE));
        Checks.usesShardMap(run);
        if (run.value().size() != 3) {
            throw run.report("returned other than [L, W1', W2']").failure(GradingFailure.Kind.WRONG_SHAPE,
                    "a list of " + run.value().size() + " arrays, expected 3");
        }
        int n = c.devices();
        List<List<Integer>> gathered = List.of(List.of(c.dRows(), c.h()), List.of(c.hRows(), c.f()));
        List<List<Integer>> reduced = List.of(List.of(c.d(), c.h()), List.of(c.h(), c.f()));
        TraceRules.perDevice(run, "communicates other than two all-gathers, two reduce-scatters and a psum",
                "every device runs one allGather over 'data' of each weight's block " + gathered + ", one"
                        + " psumScatter over 'data' of each weight's gradient " + reduced + " and one psum (or"
                        + " pmean) over 'data' of the loss []", collectives(gathered, reduced));
        TraceRules.perDevice(run, "gathers float32 weights", "each all-gather carries the bfloat16 copy of a"
                + " weight's block, half the bytes of its float32 master", gathersInBFloat16());
        TraceRules.perDevice(run, "reduces in bfloat16", "each psumScatter and the psum carry float32",
                reducesInFloat32());
        TraceRules.perDevice(run, "multiplies other than bfloat16 accumulating in float32", "every matmul gives"
                + " float32: the forward's read bfloat16 operands (preferredElementType float32), the backward's a"
                + " float32 cotangent and a bfloat16 value, as JAX transposes them", bf16Matmuls());

        Oracle right = oracle(w1, w2, x, t, n);
        String inputs = Reports.inputs("Input W1", w1, "Input W2", w2, "Input X", x, "Input T", t);
        Checks.shardedResult(part(run, 0, "L"), inputs, right.loss(), P(), LOSS_TOLERANCE, Reports.picture(xs),
                List.of());
        Checks.shardedResult(part(run, 1, "W1'"), inputs, right.w1(), P("data"), right.tolerance(),
                Reports.picture(w1s), List.of(mastersInBFloat16(right.w1())));
        Checks.shardedResult(part(run, 2, "W2'"), inputs, right.w2(), P("data"), right.tolerance(),
                Reports.picture(w2s), List.of(mastersInBFloat16(right.w2())));
        elementwise(part(run, 1, "W1'"), right.w1(), right.allowed1());
        elementwise(part(run, 2, "W2'"), right.w2(), right.allowed2());
        long whole = Math.max(4L * c.batch() * Math.max(c.d(), c.f()),
                4L * Math.max((long) c.d() * c.h(), (long) c.h() * c.f()) + 1);
        Checks.noHostGather(run, whole, n);
    }

    /**
     * W′ element by element to a few float32 ulps: a step whose device gradients are not the bfloat16 roundings
     * JAX makes lands up to lr·(half a bfloat16 step of a share) away, which {@link Oracle#tolerance()} lets
     * through. Only elements where some device's share sits within float32 accumulation error of a bfloat16
     * rounding boundary are allowed that much.
     */
    private static void elementwise(CaseRun<ShardedArray> run, NDArray expected, double[] allowed) {
        float[] got = run.value().gather().toFloatArray();
        float[] want = expected.toFloatArray();
        for (int q = 0; q < want.length; q++) {
            if (!(Math.abs((double) got[q] - want[q]) <= allowed[q])) {
                int cols = expected.shape(1);
                throw run.report("does not round the weight gradients to bfloat16 where JAX does").failure(
                        GradingFailure.Kind.WRONG_VALUES, "element [" + q / cols + ", " + q % cols + "] is "
                                + got[q] + ", the step that rounds each device's gradient of its bfloat16 copies to"
                                + " bfloat16 gives " + want[q] + " (allowed difference " + (float) allowed[q] + ")");
            }
        }
    }

    private static Checks.Mistake mastersInBFloat16(NDArray updated) {
        float[] v = updated.toFloatArray();
        float[] r = new float[v.length];
        for (int i = 0; i < v.length; i++) {
            r[i] = (float) bf16(v[i]);
        }
        return new Checks.Mistake("keeping the master weights in bfloat16", NDArray.fromFloats(r, updated.shape()),
                "an update lr·dW is often below one bfloat16 step of W: apply it to the float32 masters, and cast"
                        + " to bfloat16 only the copies that are multiplied");
    }

    /** The two all-gathers, two reduce-scatters and one psum (or pmean), in any order, with their shapes. */
    private static Rule collectives(List<List<Integer>> gathered, List<List<Integer>> reduced) {
        return new Rule(Set.of(Check.COLLECTIVES, Check.OPERANDS), d -> {
            List<List<Integer>> ag = new ArrayList<>();
            List<List<Integer>> rs = new ArrayList<>();
            int sums = 0;
            for (CollectiveEvent e : d.collectives()) {
                if (!e.axes().equals(List.of("data"))) {
                    return "it runs " + e.describe() + ", over other axes than 'data'";
                }
                switch (e.kind()) {
                    case ALL_GATHER -> ag.add(e.inputShape());
                    case PSUM_SCATTER -> rs.add(e.inputShape());
                    case PSUM, PMEAN -> {
                        if (!e.inputShape().isEmpty()) {
                            return "it runs " + e.describe() + "; the only all-reduce is the loss's, of a scalar";
                        }
                        sums++;
                    }
                    default -> {
                        return "it runs " + e.describe() + ", not one of the step's collectives";
                    }
                }
            }
            if (!sameShapes(ag, gathered) || !sameShapes(rs, reduced) || sums != 1) {
                return "it runs all-gathers of " + ag + ", reduce-scatters of " + rs + " and " + sums + " psum(s)"
                        + " of the loss; expected all-gathers of " + gathered + ", reduce-scatters of " + reduced
                        + " and one psum";
            }
            return null;
        }).withHint("each weight crosses the network twice per step: its block gathered before the forward, its"
                + " gradient reduce-scattered back to the rows each device keeps; the loss is one number");
    }

    private static boolean sameShapes(List<List<Integer>> got, List<List<Integer>> expected) {
        List<List<Integer>> left = new ArrayList<>(expected);
        for (List<Integer> s : got) {
            if (!left.remove(s)) {
                return false;
            }
        }
        return left.isEmpty();
    }

    private static Rule gathersInBFloat16() {
        return Rule.of(Check.BYTES, d -> {
            for (CollectiveEvent e : d.collectives()) {
                if (e.kind() == Collective.ALL_GATHER && e.dtype() != DType.BFLOAT16) {
                    return "it gathers " + e.dtype().jaxName() + e.inputShape() + ", sending " + e.bytesSent()
                            + " bytes where the bfloat16 copy would send " + e.bytesSent() * DType.BFLOAT16.byteSize()
                            / e.dtype().byteSize();
                }
            }
            return null;
        }).withHint("only what is multiplied needs to travel, and it is multiplied in bfloat16: cast the block to"
                + " bfloat16 before the all-gather");
    }

    private static Rule reducesInFloat32() {
        return Rule.of(Check.OPERANDS, d -> {
            for (CollectiveEvent e : d.collectives()) {
                if (e.kind() != Collective.ALL_GATHER && e.dtype() != DType.FLOAT32) {
                    return "it runs " + e.describe() + "; sums over devices lose each device's low bits in "
                            + e.dtype().jaxName();
                }
            }
            return null;
        }).withHint("differentiate with respect to the gathered bfloat16 copies, not through the all-gather (whose"
                + " transpose is a bfloat16 reduce-scatter), and widen each gradient to float32 before reducing it");
    }

    private static Rule bf16Matmuls() {
        return Rule.of(Check.MATMULS, d -> {
            Map<Long, TraceEvent> byId = new HashMap<>();
            for (TraceEvent e : d.events()) {
                byId.put(e.id(), e);
            }
            // the widened copies that the bfloat16 matmuls made of their operands under autodiff (no program can
            // hold them): their transposes read these in the backward
            Set<Long> transposed = new HashSet<>();
            for (MatmulEvent m : d.matmuls()) {
                if (m.hasOperand(DType.BFLOAT16)) {
                    for (long id : m.inputs()) {
                        if (byId.get(id) instanceof LocalOpEvent l && l.op() == DataOp.CONVERT
                                && l.dtype() == DType.FLOAT32) {
                            transposed.add(id);
                        }
                    }
                }
            }
            for (MatmulEvent m : d.matmuls()) {
                String shape = "[" + m.m() + ", " + m.k() + "]·[" + m.k() + ", " + m.n() + "]";
                if (m.dtype() != DType.FLOAT32) {
                    return "it multiplies " + shape + " giving " + m.dtype().jaxName() + ": the products add up in "
                            + m.dtype().jaxName();
                }
                if (m.hasOperand(DType.BFLOAT16)) {
                    // matmul(a, b, FLOAT32) reading a bfloat16 operand as such: the forward's, or a hand-written
                    // transpose as JAX's, a float32 cotangent times a bfloat16 operand (dot_general(ct, bf16,
                    // preferred f32)), whose other operand the Graded text leaves free
                    continue;
                }
                // Float32 operands: JAX's transpose of a bfloat16 dot under the framework's autodiff, which keeps
                // the bfloat16 operand as the exact widening its matmul made. Any other float32 matmul is one of
                // float32 values, whose gradients are never rounded to bfloat16.
                if (m.inputs().stream().anyMatch(id -> movedFrom(id, transposed, byId))) {
                    continue;
                }
                if (m.inputs().stream().noneMatch(id -> fromBFloat16(id, byId))) {
                    return "it multiplies " + shape + " with no bfloat16 operand: a float32 matmul";
                }
                return "it multiplies " + shape + " in float32 from float32 operands (bfloat16 values widened or"
                        + " promoted first): a float32 matmul, not one of bfloat16 operands";
            }
            return null;
        }).withHint("multiply the bfloat16 copies with preferredElementType FLOAT32: bfloat16 operands, float32"
                + " sums");
    }

    /** Whether the array {@code id} is one of {@code ids}, or made from one of them only by moving data. */
    private static boolean movedFrom(long id, Set<Long> ids, Map<Long, TraceEvent> byId) {
        if (ids.contains(id)) {
            return true;
        }
        return byId.get(id) instanceof LocalOpEvent l && l.kind() == OpKind.INDEXING
                && l.inputs().stream().anyMatch(i -> movedFrom(i, ids, byId));
    }

    /**
     * Whether the array {@code id} is bfloat16, or float32 made from bfloat16 only by exact widening and moving data
     * (how the framework's autodiff keeps a bfloat16 primal for the transpose of a float32-accumulating matmul,
     * which reads it in the backward as JAX reads the bfloat16 array itself).
     */
    private static boolean fromBFloat16(long id, Map<Long, TraceEvent> byId) {
        TraceEvent e = byId.get(id);
        if (e instanceof CollectiveEvent c) {
            return c.dtype() == DType.BFLOAT16;
        }
        if (e instanceof MatmulEvent m) {
            return m.dtype() == DType.BFLOAT16;
        }
        if (e instanceof LocalOpEvent l) {
            if (l.dtype() == DType.BFLOAT16) {
                return true;
            }
            boolean passes = l.op() == DataOp.CONVERT || l.kind() == OpKind.INDEXING;
            return passes && !l.inputs().isEmpty() && l.inputs().stream().allMatch(i -> fromBFloat16(i, byId));
        }
        return false;
    }

    /** The {@code i}th array of a list-valued run, as a run of its own for the value checks. */
    private static CaseRun<ShardedArray> part(CaseRun<List<ShardedArray>> run, int i, String name) {
        return new CaseRun<>(run.part(), run.caseText() + " (result " + name + ")", run.value().get(i), run.trace());
    }

    /**
     * The step's results; the difference each element of W1′ and W2′ may have ({@code allowed1}, {@code allowed2});
     * and the whole-array tolerance of the weights that the value report uses before that element comparison: a
     * bfloat16 step (2^−8, with margin) of the update of the largest sum of the devices' gradients in magnitude,
     * plus float32 rounding of W' itself.
     */
    record Oracle(NDArray loss, NDArray w1, NDArray w2, double largestShare, double[] allowed1, double[] allowed2) {
        Tolerance tolerance() {
            return new Tolerance(0, MixedCase.LEARNING_RATE * largestShare / 64 + 2e-7);
        }
    }

    /**
     * {@code v} rounded to float32, then to bfloat16 to nearest, ties to even: the oracle's own conversion, as
     * XLA converts float32 (values here are finite and far from overflow).
     */
    static double bf16(double v) {
        int bits = Float.floatToRawIntBits((float) v);
        bits += 0x7fff + ((bits >>> 16) & 1);
        return Float.intBitsToFloat(bits & 0xffff_0000);
    }

    /**
     * The whole step in double, rounding where JAX does. Forward: Xb = bf16(X), W1b = bf16(W1), W2b = bf16(W2); Z =
     * Xb·W1b in float32 (exact here), Hb = bf16(relu(Z)), Y = float32(Hb·W2b), L = Σ ½(Y − T)² / B. Backward per
     * device d (its rows): dY = float32((Y − T)/B); dW2_d = bf16(Hb_dᵀ·dY_d); dHb = bf16(dY·W2bᵀ) widened, dZ = dHb
     * where Z &gt; 0; dW1_d = bf16(Xb_dᵀ·dZ_d). Then dW = Σ_d dW_d in float32 and W' = W − lr·dW.
     */
    static Oracle oracle(NDArray w1, NDArray w2, NDArray x, NDArray t, int devices) {
        int b = x.shape(0);
        int dIn = x.shape(1);
        int h = w1.shape(1);
        int f = w2.shape(1);
        int rows = b / devices;
        double[] xb = rounded(x);
        double[] w1b = rounded(w1);
        double[] w2b = rounded(w2);
        float[] tv = t.toFloatArray();
        double loss = 0;
        double[] g1 = new double[dIn * h];
        double[] g2 = new double[h * f];
        double[] abs1 = new double[dIn * h];
        double[] abs2 = new double[h * f];
        double[] slack1 = new double[dIn * h];
        double[] slack2 = new double[h * f];
        for (int dev = 0; dev < devices; dev++) {
            double[] p1 = new double[dIn * h];
            double[] p2 = new double[h * f];
            double[] a1 = new double[dIn * h]; // Σ|term| of p1, and how far a flipped bf16(dh) may move it
            double[] a2 = new double[h * f];
            double[] moved1 = new double[dIn * h];
            double[] unit1 = new double[dIn * h]; // the smallest bit any term of p1 sets
            java.util.Arrays.fill(unit1, Double.POSITIVE_INFINITY);
            for (int i = dev * rows; i < (dev + 1) * rows; i++) {
                double[] z = new double[h];
                double[] hb = new double[h];
                for (int k = 0; k < h; k++) {
                    for (int j = 0; j < dIn; j++) {
                        z[k] += xb[i * dIn + j] * w1b[j * h + k];
                    }
                    hb[k] = bf16(Math.max(z[k], 0));
                }
                double[] dy = new double[f];
                for (int m = 0; m < f; m++) {
                    double y = 0;
                    for (int k = 0; k < h; k++) {
                        y += hb[k] * w2b[k * f + m];
                    }
                    double e = (float) y - tv[i * f + m];
                    loss += 0.5 * e * e / b;
                    dy[m] = (float) (e / b);
                    for (int k = 0; k < h; k++) {
                        p2[k * f + m] += hb[k] * dy[m];
                        a2[k * f + m] += Math.abs(hb[k] * dy[m]);
                    }
                }
                for (int k = 0; k < h; k++) {
                    double dh = 0;
                    double dhAbs = 0;
                    for (int m = 0; m < f; m++) {
                        dh += dy[m] * w2b[k * f + m];
                        dhAbs += Math.abs(dy[m] * w2b[k * f + m]);
                    }
                    double dz = z[k] > 0 ? bf16(dh) : 0;
                    // the device's float32 dh may round to the bfloat16 beside this one
                    double flip = z[k] > 0 ? roundings(dh, accumulationError(dhAbs, f + h)) : 0;
                    for (int j = 0; j < dIn; j++) {
                        p1[j * h + k] += xb[i * dIn + j] * dz;
                        a1[j * h + k] += Math.abs(xb[i * dIn + j] * dz);
                        unit1[j * h + k] = Math.min(unit1[j * h + k], lowestBit(xb[i * dIn + j] * dz));
                        moved1[j * h + k] += Math.abs(xb[i * dIn + j]) * flip;
                    }
                }
            }
            // each device's gradient of its bfloat16 copy is bfloat16; widened, then summed in float32
            for (int q = 0; q < p1.length; q++) {
                g1[q] += bf16(p1[q]);
                abs1[q] += Math.abs(bf16(p1[q]));
                // products of a 1/16-multiple and a bfloat16 are exact in float32, and so is their sum, in any
                // order, when it needs at most 24 bits: such a share is the device's exactly, even on a tie
                double err = a1[q] < 0x1p24 * unit1[q] ? 0 : accumulationError(a1[q], rows + f + h);
                slack1[q] += roundings(p1[q], err + moved1[q]);
            }
            for (int q = 0; q < p2.length; q++) {
                g2[q] += bf16(p2[q]);
                abs2[q] += Math.abs(bf16(p2[q]));
                slack2[q] += roundings(p2[q], accumulationError(a2[q], rows + h));
            }
        }
        double largest = 0;
        for (double a : abs1) {
            largest = Math.max(largest, a);
        }
        for (double a : abs2) {
            largest = Math.max(largest, a);
        }
        NDArray w1n = updated(w1, g1);
        NDArray w2n = updated(w2, g2);
        return new Oracle(NDArray.scalar((float) loss), w1n, w2n, largest, allowed(w1n, abs1, slack1, devices),
                allowed(w2n, abs2, slack2, devices));
    }

    /**
     * A bound on the float32 rounding error of a sum of {@code terms} products whose magnitudes add up to
     * {@code abs}, inputs that carry a few float32 roundings themselves included (2^−24 per term and input, twice
     * over).
     */
    private static double accumulationError(double abs, int terms) {
        return 2.0 * (terms + 4) * abs * 0x1p-24;
    }

    /** The value of the lowest bit {@code t} sets (infinity for 0). */
    private static double lowestBit(double t) {
        if (t == 0) {
            return Double.POSITIVE_INFINITY;
        }
        long mantissa = (Double.doubleToRawLongBits(t) & 0xF_FFFF_FFFF_FFFFL) | 0x10_0000_0000_0000L;
        return Math.scalb(1.0, Math.getExponent(t) - 52 + Long.numberOfTrailingZeros(mantissa));
    }

    /**
     * How far bf16 of a value within {@code err} of {@code v} can lie from bf16(v): 0 unless a bfloat16 rounding
     * boundary is that close.
     */
    static double roundings(double v, double err) {
        double here = bf16(v);
        return Math.max(Math.abs(bf16(v + err) - here), Math.abs(bf16(v - err) - here));
    }

    /**
     * The difference allowed in each element of W′: the float32 roundings of the sum over devices and of the update
     * (a few ulps), and lr times each device's share that may round to another bfloat16 (see {@link #roundings}).
     */
    private static double[] allowed(NDArray updated, double[] abs, double[] slack, int devices) {
        float[] v = updated.toFloatArray();
        double[] out = new double[v.length];
        for (int q = 0; q < v.length; q++) {
            out[q] = 2 * Math.ulp(v[q]) + MixedCase.LEARNING_RATE * (slack[q] + (devices + 1) * abs[q] * 0x1p-23);
        }
        return out;
    }

    private static double[] rounded(NDArray a) {
        float[] v = a.toFloatArray();
        double[] out = new double[v.length];
        for (int i = 0; i < v.length; i++) {
            out[i] = bf16(v[i]);
        }
        return out;
    }

    private static NDArray updated(NDArray w, double[] g) {
        float[] v = w.toFloatArray();
        float[] out = new float[v.length];
        for (int i = 0; i < v.length; i++) {
            out[i] = (float) (v[i] - MixedCase.LEARNING_RATE * g[i]);
        }
        return NDArray.fromFloats(out, w.shape());
    }
}
