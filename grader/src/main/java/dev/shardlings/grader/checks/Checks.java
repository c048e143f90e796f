package dev.shardlings.grader.checks;

import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.grader.parts.Check;
import dev.shardlings.grader.parts.CheckLog;
import dev.shardlings.grader.judge.CaseRun;
import dev.shardlings.grader.judge.GradingFailure;
import dev.shardlings.grader.judge.Report;
import dev.shardlings.grader.judge.Reports;
import dev.shardlings.sharding.Device;
import dev.shardlings.sharding.NamedSharding;
import dev.shardlings.sharding.PartitionSpec;
import dev.shardlings.spmd.ShardedArray;
import dev.shardlings.events.TraceEvent;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The checks every part is built from: values against a whole-array oracle, shapes, layout, and structural
 * rules read from the trace. Each throws a {@link GradingFailure} with a teaching report.
 */
public final class Checks {

    /** How many differing elements a report lists. */
    static final int SHOWN_DIFFERENCES = 5;

    private Checks() {
    }

    /** Tolerances for comparing floats: |actual − expected| ≤ atol + rtol·|expected|. */
    public record Tolerance(double rtol, double atol) {
        /** Exact equality. */
        public static final Tolerance EXACT = new Tolerance(0, 0);

        /** Suitable for float32 results of short sums and means of values of magnitude up to {@code scale}. */
        public static Tolerance float32(double scale) {
            return new Tolerance(1e-5, 1e-5 * Math.max(1.0, scale));
        }

        /** Whether {@code actual} is within this tolerance of {@code expected} (NaN only matches NaN). */
        public boolean close(double expected, double actual) {
            if (Double.isNaN(expected) || Double.isNaN(actual)) {
                return Double.isNaN(expected) && Double.isNaN(actual);
            }
            if (expected == actual) {
                return true;
            }
            return Math.abs(actual - expected) <= atol + rtol * Math.abs(expected);
        }
    }

    /**
     * A wrong answer a common mistake gives, and the hint that fixes it: when a result equals {@code wouldGive},
     * its report names the mistake and gives this hint instead of the part's general one.
     *
     * @param what      the mistake in words, e.g. "shifting by −k instead of k"
     * @param wouldGive the whole array that mistake computes on the case
     * @param hint      what to change
     */
    public record Mistake(String what, NDArray wouldGive, String hint) {
    }

    /** Adds the mistake {@code got} is known by, if any, to a wrong-values report. */
    private static Report diagnose(Report report, NDArray got, Tolerance tol, List<Mistake> known) {
        for (Mistake m : known) {
            if (Arrays.equals(m.wouldGive().shape(), got.shape()) && m.wouldGive().dtype() == got.dtype()
                    && differences(m.wouldGive(), got, tol).isEmpty()) {
                return report.paragraph("Your output is exactly what " + m.what() + " gives.").hint(m.hint());
            }
        }
        return report;
    }

    /**
     * {@link #shardedResult(CaseRun, String, NDArray, PartitionSpec, Tolerance, String, List)} with no known
     * mistakes.
     */
    public static void shardedResult(CaseRun<ShardedArray> run, String inputs, NDArray expected,
                                     PartitionSpec expectedSpec, Tolerance tol, String inputPicture) {
        shardedResult(run, inputs, expected, expectedSpec, tol, inputPicture, List.of());
    }

    /**
     * A sharded result: global shape, dtype, layout ({@code expectedSpec}, compared up to trailing Nones) and values,
     * every replica included.
     *
     * @param run          the graded call and its result
     * @param inputs       the whole inputs as text ({@link Reports#inputs})
     * @param inputPicture the input's sharding picture, or null
     * @param known        wrong answers that common mistakes give, for a hint about the mistake made
     * @throws GradingFailure of kind WRONG_SHAPE, WRONG_SHARDING or WRONG_VALUES for the first thing that is wrong
     */
    public static void shardedResult(CaseRun<ShardedArray> run, String inputs, NDArray expected,
                                     PartitionSpec expectedSpec, Tolerance tol, String inputPicture,
                                     List<Mistake> known) {
        CheckLog.ran(Check.VALUES, Check.LAYOUT);
        ShardedArray actual = run.value();
        int[] es = expected.shape();
        int[] as = actual.shape();
        if (!Arrays.equals(es, as)) {
            throw run.report("returned the wrong shape")
                    .paragraph("Expected global shape " + Reports.tuple(es) + ", got " + Reports.tuple(as)
                            + " (laid out " + actual.spec() + ", local blocks "
                            + Reports.tuple(actual.sharding().shardShape(as)) + ").")
                    .lines("Remember: shardMap's global output shape is the block shape times the number of devices"
                            + " along each axis the out spec names.")
                    .block("Input sharding", inputPicture)
                    .failure(GradingFailure.Kind.WRONG_SHAPE,
                            "output shape " + Reports.tuple(as) + ", expected " + Reports.tuple(es));
        }
        checkDtype(run, expected.dtype(), actual.dtype());
        if (!actual.spec().isEquivalentTo(expectedSpec)) {
            throw run.report("returned the right shape with the wrong layout")
                    .paragraph("The output must be laid out " + expectedSpec + " but is laid out " + actual.spec()
                            + ". Choose the out spec accordingly.")
                    .block("Output sharding", pictureOf(actual))
                    .failure(GradingFailure.Kind.WRONG_SHARDING,
                            "output laid out " + actual.spec() + ", expected " + expectedSpec);
        }
        NDArray got = actual.gather();
        List<int[]> diffs = differences(expected, got, tol);
        if (!diffs.isEmpty()) {
            throw needlessCommunication(run, diagnose(run.report("computed wrong values"), got, tol, known)
                    .paragraph(describeDifferences(expected, got, diffs, actual.sharding())))
                    .paragraph(inputs.strip())
                    .block("Expected", Reports.show(expected))
                    .block("Actual", Reports.show(got))
                    .block("Input sharding", inputPicture)
                    .block("Output sharding", pictureOf(actual))
                    .failure(GradingFailure.Kind.WRONG_VALUES, diffs.size() + " of " + expected.size()
                            + " values wrong (first at index " + Reports.tuple(diffs.get(0)) + ")");
        }
        replicasAgree(run, expected, tol);
    }

    /**
     * Every device's block equals the expected block at its place, replicas included. {@code gather()} reads only
     * replica 0 of each block (as JAX's host reads do), so without this a program run with {@code checkVma(false)}
     * whose replicas disagree would pass on replica 0 alone.
     */
    static void replicasAgree(CaseRun<ShardedArray> run, NDArray expected, Tolerance tol) {
        ShardedArray actual = run.value();
        for (ShardedArray.Shard s : actual.addressableShards()) {
            NDArray want = expected;
            List<NamedSharding.Slice> slices = s.index().slices();
            for (int d = 0; d < slices.size(); d++) {
                if (!slices.get(d).full()) {
                    want = want.slice(d, slices.get(d).start(), slices.get(d).stop());
                }
            }
            List<int[]> diffs = differences(want, s.data(), tol);
            if (!diffs.isEmpty()) {
                String dev = "device " + s.device().id() + " " + coords(actual.mesh().axisNames(), s.device());
                throw run.report("left devices that should hold the same block with different values")
                        .paragraph("The out spec says the block [" + s.index().compact() + "] is held by several"
                                + " devices (replicas), and replica 0 is right, but " + dev + " (replica "
                                + s.replicaId() + ") holds")
                        .lines(Reports.show(s.data()))
                        .lines("instead of")
                        .lines(Reports.show(want))
                        .lines("Reading the result on the host shows replica 0 only, so this would go unnoticed in"
                                + " JAX with check_vma=False. Finish the computation on every device of the group.")
                        .block("Output sharding", pictureOf(actual))
                        .failure(GradingFailure.Kind.WRONG_VALUES,
                                "replicas disagree: " + dev + " holds other values than replica 0 of its block");
            }
        }
    }

    private static String coords(List<String> axes, Device dev) {
        StringBuilder c = new StringBuilder("(");
        for (int a = 0; a < axes.size(); a++) {
            c.append(a > 0 ? ", " : "").append(axes.get(a)).append('=').append(dev.coords().get(a));
        }
        return c.append(')').toString();
    }

    /**
     * A whole (unsharded) result: shape, dtype and values.
     *
     * @param inputs the whole inputs as text ({@link Reports#inputs})
     * @throws GradingFailure of kind WRONG_SHAPE or WRONG_VALUES for the first thing that is wrong
     */
    public static void wholeResult(CaseRun<NDArray> run, String inputs, NDArray expected, Tolerance tol) {
        CheckLog.ran(Check.VALUES, Check.LAYOUT);
        NDArray actual = run.value();
        int[] es = expected.shape();
        int[] as = actual.shape();
        if (!Arrays.equals(es, as)) {
            throw run.report("returned the wrong shape")
                    .paragraph("Expected shape " + Reports.tuple(es) + ", got " + Reports.tuple(as) + ".")
                    .failure(GradingFailure.Kind.WRONG_SHAPE,
                            "output shape " + Reports.tuple(as) + ", expected " + Reports.tuple(es));
        }
        checkDtype(run, expected.dtype(), actual.dtype());
        List<int[]> diffs = differences(expected, actual, tol);
        if (!diffs.isEmpty()) {
            throw needlessCommunication(run, run.report("computed wrong values")
                    .paragraph(describeDifferences(expected, actual, diffs, null)))
                    .paragraph(inputs.strip())
                    .block("Expected", Reports.show(expected))
                    .block("Actual", Reports.show(actual))
                    .failure(GradingFailure.Kind.WRONG_VALUES, diffs.size() + " of " + expected.size()
                            + " values wrong (first at index " + Reports.tuple(diffs.get(0)) + ")");
        }
    }

    private static void checkDtype(CaseRun<?> run, DType expected, DType actual) {
        if (expected != actual) {
            throw run.report("returned the wrong dtype")
                    .paragraph("Expected " + expected.jaxName() + ", got " + actual.jaxName() + ". (A mean is"
                            + " float32 even of int32 input; sums and differences of int32 stay int32.)")
                    .noHint()
                    .failure(GradingFailure.Kind.WRONG_SHAPE,
                            "output dtype " + actual.jaxName() + ", expected " + expected.jaxName());
        }
    }

    /**
     * A wrong-values report names communication the part forbids as well: values are checked first, and a student
     * who fixes them should not discover only then that the collectives they added must go too.
     */
    private static Report needlessCommunication(CaseRun<?> run, Report report) {
        boolean forbidden = run.part().requirements().stream().anyMatch(r -> r.checks().contains(Check.NO_COLLECTIVES));
        List<TraceEvent.CollectiveEvent> cs = run.trace().collectives();
        if (!forbidden || cs.isEmpty()) {
            return report;
        }
        return report.paragraph("Also: this part needs no communication, but the trace shows "
                + collectiveCounts(cs).entrySet().stream().map(e -> e.getKey() + " (" + e.getValue() + " call(s) in all)")
                .collect(Collectors.joining(", ")) + "; remove it as well as fixing the values.");
    }

    private static Map<String, Long> collectiveCounts(List<TraceEvent.CollectiveEvent> cs) {
        return cs.stream().collect(Collectors.groupingBy(TraceEvent.CollectiveEvent::describe,
                java.util.LinkedHashMap::new, Collectors.counting()));
    }

    /** The trace shows no collective at all. */
    public static void noCollectives(CaseRun<?> run) {
        CheckLog.ran(Check.NO_COLLECTIVES);
        List<TraceEvent.CollectiveEvent> cs = run.trace().collectives();
        if (!cs.isEmpty()) {
            Map<String, Long> counts = collectiveCounts(cs);
            StringBuilder list = new StringBuilder();
            counts.forEach((k, v) -> list.append("  ").append(k).append(" — ").append(v).append(" call(s) in all\n"));
            throw run.report("communicates, but needs no communication")
                    .paragraph("The values are right, but the trace shows collectives:")
                    .lines(list.toString())
                    .lines("Every device already holds all it needs; remove the collectives.")
                    .noHint()
                    .failure(GradingFailure.Kind.STRUCTURE,
                            "uses " + cs.get(0).kind().jaxName() + " but needs no communication");
        }
    }

    /**
     * The work ran in at least one program compiled by {@code jit}, and the code wrote no shardMap of its own
     * (the compiler, not the student, decides what each device does).
     */
    public static void compiledByJit(CaseRun<?> run) {
        CheckLog.ran(Check.USES_JIT);
        List<dev.shardlings.events.ShardMapTrace> maps = run.trace().shardMaps();
        if (maps.stream().anyMatch(m -> m.origin().handWritten())) {
            throw run.report("writes a shardMap")
                    .paragraph("This part asks the compiler to partition the program: write it on whole arrays"
                            + " (ShardedArray's sin, add, reshape, roll, mean, …) inside Jit.jit(...), and let jit"
                            + " decide what each device computes. A hand-written shardMap, also one called inside"
                            + " jit, is the Manual mode of the chapters before.")
                    .noHint()
                    .failure(GradingFailure.Kind.STRUCTURE, "uses shardMap in a jit part");
        }
        if (maps.stream().noneMatch(m -> m.origin().compiledByJit())) {
            throw run.report("never calls a jitted function")
                    .paragraph("The result is not from a program compiled by jit. Wrap the computation:"
                            + " Jit.jit(x -> …).outShardings(P(\"X\", \"Y\")).call(a).get(0).")
                    .noHint()
                    .failure(GradingFailure.Kind.STRUCTURE, "does not use jit");
        }
    }

    /**
     * No collective in any compiled program: the layout the compiler chose lets every device work on its own
     * block. The report lists what the compiler inserted, per program, as device 0 ran it.
     *
     * @param advice what usually causes the communication in this part, and how to avoid it
     */
    public static void compiledWithoutCommunication(CaseRun<?> run, String advice) {
        CheckLog.ran(Check.NO_COLLECTIVES);
        List<TraceEvent.CollectiveEvent> cs = run.trace().collectives();
        if (cs.isEmpty()) {
            return;
        }
        StringBuilder list = new StringBuilder();
        for (dev.shardlings.events.ShardMapTrace m : run.trace().shardMaps()) {
            if (m.devices().isEmpty() || m.devices().get(0).collectives().isEmpty()) {
                continue;
            }
            list.append("  in ").append(m.functionName()).append(" (").append(m.origin().compiledByJit()
                    ? "compiled by jit" : "an eager operation").append("), device ")
                    .append(m.devices().get(0).deviceId()).append(" runs:\n");
            for (TraceEvent.CollectiveEvent c : m.devices().get(0).collectives()) {
                list.append("    ").append(c.describe()).append('\n');
            }
        }
        throw run.report("the compiled program communicates")
                .paragraph("To run this program the compiler had to move data between devices — the program it"
                        + " built contains collectives:")
                .lines(list.toString())
                .lines(advice)
                .noHint()
                .failure(GradingFailure.Kind.STRUCTURE, "the compiled program contains "
                        + cs.get(0).kind().jaxName() + " but needs no communication");
    }

    /** The code ran at least one shardMap. */
    public static void usesShardMap(CaseRun<?> run) {
        CheckLog.ran(Check.USES_SHARD_MAP);
        if (run.trace().shardMaps().isEmpty()) {
            throw run.report("never calls shardMap")
                    .paragraph("This part is about writing the per-device program: compute with"
                            + " ShardMap.shardMap(...) on each device's block.")
                    .noHint()
                    .failure(GradingFailure.Kind.STRUCTURE, "does not use shardMap");
        }
    }

    /**
     * No shardMap written by hand: the programs in the trace are jit's or eager global-view operations' (Explicit
     * parts, where either is a whole-array program the typing rules partition).
     */
    public static void noHandWrittenShardMap(CaseRun<?> run) {
        CheckLog.ran(Check.NO_SHARD_MAP);
        if (run.trace().shardMaps().stream().anyMatch(m -> m.origin().handWritten())) {
            throw run.report("writes a shardMap")
                    .paragraph("This part is written on whole arrays: the einsum's types decide what each device"
                            + " computes. Use ShardedArray's operations (square, einsum, matmul), eagerly or inside"
                            + " Jit.jit, and no hand-written shardMap.")
                    .noHint()
                    .failure(GradingFailure.Kind.STRUCTURE, "uses shardMap in a whole-array part");
        }
    }

    /** The code ran no shardMap (global-view parts). */
    public static void noShardMap(CaseRun<?> run) {
        CheckLog.ran(Check.NO_SHARD_MAP);
        if (!run.trace().shardMaps().isEmpty()) {
            throw run.report("calls shardMap")
                    .paragraph("This part asks for the global view: compute on the whole array with reshapes and"
                            + " reductions, as jax.jit would see it.")
                    .noHint()
                    .failure(GradingFailure.Kind.STRUCTURE, "uses shardMap in a global-view part");
        }
    }

    /**
     * The host never allocated an array as large as the whole input: no gathering to one place.
     *
     * @param wholeBytes bytes of the whole input array
     * @param devices    devices of the mesh (on one device the whole input is a block, so nothing is checked)
     */
    public static void noHostGather(CaseRun<?> run, long wholeBytes, int devices) {
        CheckLog.ran(Check.HOST_MEMORY);
        long largest = run.trace().hostLargestAllocation();
        if (devices > 1 && largest >= wholeBytes) {
            throw run.report("materialises the whole array in one place")
                    .paragraph("Outside shardMap the code allocated an array of " + largest + " bytes, as large as"
                            + " the whole input (" + wholeBytes + " bytes). Work on each device's block inside"
                            + " shardMap instead of calling gather().")
                    .noHint()
                    .failure(GradingFailure.Kind.STRUCTURE, "gathers the whole array on the host");
        }
        // Reading the blocks one at a time on the host never allocates the whole array, but a matmul there is the
        // part's work done off the devices (a throwaway shardMap can still show the expected collectives).
        List<TraceEvent.MatmulEvent> host = run.trace().hostEvents().stream()
                .filter(TraceEvent.MatmulEvent.class::isInstance).map(TraceEvent.MatmulEvent.class::cast).toList();
        if (!host.isEmpty()) {
            TraceEvent.MatmulEvent m = host.get(0);
            throw run.report("computes on the host")
                    .paragraph("Outside shardMap the code multiplied " + host.size() + " matrix product(s) on the"
                            + " host, the first f32[" + m.m() + ", " + m.k() + "]·[" + m.k() + ", " + m.n() + "]."
                            + " Reading each device's block on the host and computing there is gathering the input"
                            + " piece by piece: multiply inside shardMap, where each device works on its own block.")
                    .noHint()
                    .failure(GradingFailure.Kind.STRUCTURE, "computes on the host: " + host.size()
                            + " matmul(s) outside shardMap");
        }
        // Arithmetic on the host over a block's worth of elements: a block read and reduced there, say.
        long block = Math.max(1, wholeBytes / (4L * Math.max(1, devices)));
        List<TraceEvent.LocalOpEvent> work = run.trace().hostEvents().stream()
                .filter(TraceEvent.LocalOpEvent.class::isInstance).map(TraceEvent.LocalOpEvent.class::cast)
                .filter(e -> e.flops() >= block).toList();
        if (!work.isEmpty()) {
            TraceEvent.LocalOpEvent e = work.get(0);
            throw run.report("computes on the host")
                    .paragraph("Outside shardMap the code ran " + work.size() + " arithmetic operation(s) on the"
                            + " host over a block's worth of elements or more (" + block + "), the first "
                            + e.name() + " giving " + e.dtype().jaxName() + e.shape() + " (" + e.flops() + " FLOPs)."
                            + " Reading each device's block on the host and computing there is gathering the input"
                            + " piece by piece: compute inside shardMap, where each device works on its own block.")
                    .noHint()
                    .failure(GradingFailure.Kind.STRUCTURE, "computes on the host: " + e.name() + " of "
                            + e.flops() + " FLOPs outside shardMap");
        }
    }

    /** All global indices where the values differ (row-major order). */
    static List<int[]> differences(NDArray expected, NDArray actual, Tolerance tol) {
        int[] shape = expected.shape();
        List<int[]> out = new ArrayList<>();
        if (expected.dtype() == DType.INT32 && actual.dtype() == DType.INT32) {
            // Integers compare exactly, and not through float32, which cannot hold every int32.
            int[] e = expected.toIntArray();
            int[] a = actual.toIntArray();
            for (int i = 0; i < e.length; i++) {
                if (e[i] != a[i]) {
                    out.add(unravel(i, shape));
                }
            }
            return out;
        }
        float[] e = expected.toFloatArray();
        float[] a = actual.toFloatArray();
        for (int i = 0; i < e.length; i++) {
            if (!tol.close(e[i], a[i])) {
                out.add(unravel(i, shape));
            }
        }
        return out;
    }

    /** The first differing elements, each with the devices that hold it under {@code sharding} (null: none). */
    private static String describeDifferences(NDArray expected, NDArray actual, List<int[]> diffs,
                                              NamedSharding sharding) {
        StringBuilder sb = new StringBuilder("Expected vs actual (first ")
                .append(Math.min(SHOWN_DIFFERENCES, diffs.size())).append(" of ").append(diffs.size())
                .append(" differing elements):\n");
        for (int[] idx : diffs.subList(0, Math.min(SHOWN_DIFFERENCES, diffs.size()))) {
            sb.append("  index ").append(Reports.tuple(idx));
            if (sharding != null) {
                sb.append(" on ").append(devicesHolding(sharding, expected.shape(), idx));
            }
            sb.append(": expected ").append(value(expected, idx)).append(", got ").append(value(actual, idx))
                    .append('\n');
        }
        return sb.toString();
    }

    private static String value(NDArray a, int[] idx) {
        return a.dtype() == DType.INT32 ? Integer.toString(a.intAt(idx)) : Float.toString(a.floatAt(idx));
    }

    /** "device 3 (X=1, Y=1)" or "devices 0, 1 (replicas)" for the element at idx. */
    static String devicesHolding(NamedSharding sharding, int[] shape, int[] idx) {
        List<String> names = new ArrayList<>();
        for (Map.Entry<Device, NamedSharding.Index> e : sharding.devicesIndicesMap(shape).entrySet()) {
            List<NamedSharding.Slice> slices = e.getValue().slices();
            boolean inside = true;
            for (int d = 0; d < idx.length; d++) {
                NamedSharding.Slice s = d < slices.size() ? slices.get(d) : null;
                if (s != null && !s.full() && (idx[d] < s.start() || idx[d] >= s.stop())) {
                    inside = false;
                    break;
                }
            }
            if (inside) {
                Device dev = e.getKey();
                names.add("device " + dev.id() + " " + coords(sharding.mesh().axisNames(), dev));
            }
        }
        if (names.size() <= 2) {
            return String.join(" and ", names);
        }
        return names.get(0) + " and " + (names.size() - 1) + " replicas";
    }

    private static int[] unravel(int flat, int[] shape) {
        int[] idx = new int[shape.length];
        for (int d = shape.length - 1; d >= 0; d--) {
            idx[d] = flat % shape[d];
            flat /= shape[d];
        }
        return idx;
    }

    /** The output's sharding picture, when it can be drawn, else empty. */
    static String pictureOf(ShardedArray a) {
        if (a.rank() < 1 || a.rank() > 2) {
            return "";
        }
        return Reports.picture(a);
    }
}
