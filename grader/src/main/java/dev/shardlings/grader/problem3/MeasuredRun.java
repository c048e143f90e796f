package dev.shardlings.grader.problem3;

import dev.shardlings.grader.parts.TimedResult;
import dev.shardlings.grader.parts.TimedSetting;
import dev.shardlings.array.NDArray;
import dev.shardlings.grader.checks.Checks;
import dev.shardlings.grader.checks.Generators;
import dev.shardlings.grader.judge.GradingFailure;
import dev.shardlings.grader.parts.Check;
import dev.shardlings.grader.parts.CheckLog;
import dev.shardlings.grader.judge.CaseRun;
import dev.shardlings.grader.checks.ModelledTime;
import dev.shardlings.grader.parts.Part;
import dev.shardlings.grader.judge.Reports;
import dev.shardlings.sharding.NamedSharding;
import dev.shardlings.sharding.PartitionSpec;
import dev.shardlings.spmd.ShardedArray;
import dev.shardlings.events.DeviceTrace;
import dev.shardlings.events.ShardMapTrace;
import dev.shardlings.events.Trace;
import dev.shardlings.grader.judge.CaseRun;
import dev.shardlings.grader.parts.Check;
import dev.shardlings.grader.parts.CheckLog;
import dev.shardlings.grader.checks.Checks;
import dev.shardlings.grader.checks.Generators;
import dev.shardlings.grader.judge.GradingFailure;
import dev.shardlings.grader.checks.ModelledTime;
import dev.shardlings.grader.parts.Part;
import dev.shardlings.grader.judge.Reports;
import dev.shardlings.grader.chapter0.Chapter0Oracles;
import dev.shardlings.sharding.NamedSharding;
import dev.shardlings.sharding.PartitionSpec;
import dev.shardlings.spmd.ShardedArray;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

/**
 * The measured run of a performance part (3.0p … 4.2p) at the book's sizes: random inputs (the modelled time
 * depends on shapes only, so values cost nothing and let the answer be checked), and what the run must show
 * before its time is modelled — the answer's shape and layout, {@value #SAMPLES} of its elements
 * ({@value #SAMPLE_COLS} in each of {@value #SAMPLE_ROWS} rows) against an oracle with the part's own tolerance,
 * on every device that holds them (replicas included, as the part checks them), a shardMap, at least the problem's
 * matmul FLOPs on the devices, and no input gathered on the host. Without this a program could return early at
 * these sizes, or compute elsewhere, and be timed at 0 µs.
 *
 * <p><b>Nothing here is predictable from the sandbox.</b> The inputs come from a seed the judge draws from a
 * {@link SecureRandom} for every measured run ({@link #operands}), and the positions compared are drawn from it
 * only after the answer has come back ({@link Sample#draw}), never from the inputs' seed and never sent anywhere:
 * an answer that is right only where it can guess the check looks fails. (They used to come from the part's number,
 * and an answer right at those 24 elements passed 3.0p and 3.2p.) So the values, and which elements are compared,
 * differ from one grade run to the next; what a grade shows does not: the modelled time depends on the trace's
 * shapes only, and a right answer passes every sample. Only the numbers in a failing report change (which element
 * is shown first, and how many of the sample were wrong).
 *
 * @param part     the performance part
 * @param inputs   the whole inputs A[…] with their layouts
 * @param outSpec  the layout the answer must have
 * @param outShape the answer's global shape
 * @param oracle   the answer at given positions, from the whole inputs, with the part's tolerance
 * @param flops    the least matmul FLOPs the devices must do together (2·B·D·F per matmul)
 * @param received the least bytes every device must receive in its collectives ({@link #acrossY}): without it, device
 *                 code that read the other devices' blocks through references taken on the host before the
 *                 shardMap (no collective at all) was timed at the cost of its compute alone
 */
public record MeasuredRun(Part part, List<Problem3Checks.Operand> inputs, PartitionSpec outSpec, int[] outShape,
                   Oracle oracle, long flops, long received) {

    /**
     * The least bytes a device must receive when a [rows, cols] float32 array laid out with its rows over X has to
     * cross the Y axis of the book's mesh (X = 2, Y = 4) — gathered over Y, or its partial sums reduced over Y:
     * every device needs what the other Y − 1 devices of its row hold, (Y − 1)/Y of its row block, however the
     * collectives are arranged (the bandwidth bound of all-gather and reduce-scatter).
     */
    public static long acrossY(int rows, int cols) {
        int x = 2;
        int y = 4;
        return (long) rows / x * cols * Float.BYTES * (y - 1) / y;
    }

    /** Rows of the answer sampled: the first, the last, and one at random in each of six equal bands of rows. */
    public static final int SAMPLE_ROWS = 8;
    /**
     * Elements compared in each sampled row: distinct columns at random (the first row's first and the last row's
     * last among them). Rows are few because an oracle's cost is mostly per row (3.3p's hidden row is D·F
     * multiply-adds); each further column of a row costs one dot product.
     */
    public static final int SAMPLE_COLS = 64;
    /** How many elements of the answer are compared. */
    public static final int SAMPLES = SAMPLE_ROWS * SAMPLE_COLS;

    /** The judge's own randomness for inputs and positions; nothing derived from it reaches the sandbox but inputs. */
    private static final SecureRandom DRAWS = new SecureRandom();

    /**
     * A matmul's answer: whole[0] · whole[1] (float32 of a double sum, as {@link Chapter0Oracles#matmul}), compared
     * exactly as the parts of Problems 3 and 4 compare it ({@link Problem3Checks#exactSums}).
     */
    public static final Oracle MATMUL = (w, widths, rows, cols) -> {
        float[][] out = new float[rows.length][];
        for (int i = 0; i < rows.length; i++) {
            out[i] = new float[cols[i].length];
            for (int j = 0; j < cols[i].length; j++) {
                out[i][j] = (float) dot(w.get(0), widths[0], w.get(1), widths[1], rows[i], cols[i][j]);
            }
        }
        return new Expected(out, Problem3Checks.exactSums(widths[0]));
    };

    /**
     * Part 3.3's answer: gelu(In · Win) · Wout, as {@link Problem3Oracles#transformerBlock} computes it (the hidden
     * row rounded to float32), compared with part 3.3's tolerance ({@link Problem3Checks#blockTolerance}), the
     * largest hidden value of the sampled rows standing in for the whole hidden matrix's. The hidden row (F dot
     * products of length D) is computed once per sampled row, row by row through Win: it is the whole cost of this
     * oracle.
     */
    public static final Oracle BLOCK = (w, widths, rows, cols) -> {
        float[] wout = w.get(2);
        int f = widths[1];
        int d = widths[2];
        float[][] out = new float[rows.length][];
        double maxHidden = 0;
        for (int i = 0; i < rows.length; i++) {
            float[] hidden = hiddenRow(w.get(0), widths[0], w.get(1), f, rows[i]);
            out[i] = new float[cols[i].length];
            for (int j = 0; j < cols[i].length; j++) {
                double s = 0;
                for (int l = 0; l < f; l++) {
                    s += (double) hidden[l] * wout[l * d + cols[i][j]];
                }
                out[i][j] = (float) s;
            }
            for (float h : hidden) {
                maxHidden = Math.max(maxHidden, Math.abs(h));
            }
        }
        double maxWout = 0;
        for (float v : wout) {
            maxWout = Math.max(maxWout, Math.abs(v));
        }
        return new Expected(out, Problem3Checks.blockTolerance(f, maxHidden, maxWout));
    };

    /** gelu(row {@code row} of In · Win), each element rounded to float32 before and after gelu. */
    private static float[] hiddenRow(float[] in, int d, float[] win, int f, int row) {
        double[] acc = new double[f];
        for (int l = 0; l < d; l++) {
            double a = in[row * d + l];
            int off = l * f;
            for (int j = 0; j < f; j++) {
                acc[j] += a * win[off + j];
            }
        }
        double c = Math.sqrt(2 / Math.PI);
        float[] hidden = new float[f];
        for (int j = 0; j < f; j++) {
            double x = (float) acc[j];
            hidden[j] = (float) (0.5 * x * (1 + Math.tanh(c * (x + 0.044715 * x * x * x))));
        }
        return hidden;
    }

    /**
     * The modelled time of a performance part whose measured run is this one.
     *
     * @see ModelledTime#check(Part, Part, Runnable, TimedSetting, java.util.function.Supplier,
     * java.util.function.BiConsumer)
     */
    public TimedResult time(Part base, Runnable baseCheck, TimedSetting setting,
                                    Function<List<ShardedArray>, ShardedArray> impl) {
        return ModelledTime.check(part, base, baseCheck, setting, program(impl), this::verify);
    }

    /** The expected answer at sampled positions. */
    public interface Oracle {
        /**
         * @param whole  the whole inputs' values (row-major) in operand order
         * @param widths each input's number of columns
         * @param rows   the sampled rows of the answer
         * @param cols   for each of {@code rows}, the sampled columns in it
         * @return the answer at those positions (float32, as the part's oracle rounds it) and the tolerance the
         *         part itself compares its answer with
         */
        Expected at(List<float[]> whole, int[] widths, int[] rows, int[][] cols);
    }

    /**
     * The answer at the sampled positions.
     *
     * @param values for each sampled row, the values at its sampled columns
     * @param tol    the part's own tolerance
     */
    public record Expected(float[][] values, Checks.Tolerance tol) {
    }

    /**
     * The positions compared: {@link #SAMPLE_ROWS} rows and {@link #SAMPLE_COLS} distinct columns in each.
     *
     * @param rows the rows, in increasing order
     * @param cols for each row, its columns in increasing order
     */
    public record Sample(int[] rows, int[][] cols) {

        /**
         * Draws the positions for an answer of {@code nRows} × {@code nCols}: the first and the last row, and one
         * row at random in each of the {@code SAMPLE_ROWS − 2} equal bands of rows (so every block of rows a device
         * can hold is visited); in each, distinct columns at random, with the first row's first column and the last
         * row's last among them.
         */
        public static Sample draw(java.util.random.RandomGenerator random, int nRows, int nCols) {
            int bands = SAMPLE_ROWS - 2;
            int[] rows = new int[SAMPLE_ROWS];
            rows[0] = 0;
            for (int b = 0; b < bands; b++) {
                int lo = (int) ((long) b * nRows / bands);
                int hi = Math.max(lo + 1, (int) ((long) (b + 1) * nRows / bands));
                rows[b + 1] = Math.min(nRows - 1, lo + random.nextInt(hi - lo));
            }
            rows[SAMPLE_ROWS - 1] = nRows - 1;
            int perRow = Math.min(SAMPLE_COLS, nCols);
            int[][] cols = new int[SAMPLE_ROWS][];
            for (int i = 0; i < SAMPLE_ROWS; i++) {
                java.util.TreeSet<Integer> picked = new java.util.TreeSet<>();
                if (i == 0) {
                    picked.add(0);
                }
                if (i == SAMPLE_ROWS - 1) {
                    picked.add(nCols - 1);
                }
                while (picked.size() < perRow) {
                    picked.add(random.nextInt(nCols));
                }
                cols[i] = picked.stream().mapToInt(Integer::intValue).toArray();
            }
            return new Sample(rows, cols);
        }
    }

    /**
     * Random inputs of the given shapes, from a seed drawn now by the judge (see the class comment: the values
     * differ per grade run; the modelled time does not depend on them).
     *
     * @param nameShapeSpec for each input: its name, its shape ({@code int[]}) and its layout
     */
    public static List<Problem3Checks.Operand> operands(Object... nameShapeSpec) {
        List<Problem3Checks.Operand> ops = new ArrayList<>();
        long seed = DRAWS.nextLong();
        for (int i = 0; i < nameShapeSpec.length; i += 3) {
            int[] shape = (int[]) nameShapeSpec[i + 1];
            ops.add(new Problem3Checks.Operand((String) nameShapeSpec[i], Generators.smallFloats(seed + i, shape),
                    (PartitionSpec) nameShapeSpec[i + 2]));
        }
        return List.copyOf(ops);
    }

    /** Σ_k A[row, k]·B[k, col] for A with {@code k} columns and B with {@code n}, in double, in the order of k. */
    public static double dot(float[] x, int k, float[] y, int n, int row, int col) {
        double s = 0;
        for (int l = 0; l < k; l++) {
            s += (double) x[row * k + l] * y[l * n + col];
        }
        return s;
    }

    /** The inputs laid out on the performance mesh, then the implementation, as the measured program. */
    public java.util.function.Supplier<Object> program(Function<List<ShardedArray>, ShardedArray> impl) {
        List<ShardedArray> laid = new ArrayList<>();
        for (Problem3Checks.Operand o : inputs) {
            laid.add(ShardedArray.devicePut(o.value(), Problem3Checks.perfMesh(), o.spec()));
        }
        List<ShardedArray> args = List.copyOf(laid);
        return () -> impl.apply(args);
    }

    /** The checks of the run, for {@link ModelledTime#check}. */
    public void verify(CaseRun<Object> outcome) {
        CheckLog.ran(Check.VALUES, Check.LAYOUT, Check.USES_SHARD_MAP, Check.FLOPS, Check.HOST_MEMORY, Check.BYTES);
        if (!(outcome.value() instanceof ShardedArray out)) {
            throw fail(GradingFailure.Kind.WRONG_SHAPE, "returned no sharded array", "returned a "
                    + outcome.value().getClass().getSimpleName() + " instead of a ShardedArray.", outcome);
        }
        if (!Arrays.equals(out.shape(), outShape) || !out.spec().isEquivalentTo(outSpec)) {
            throw fail(GradingFailure.Kind.WRONG_SHAPE, "returned " + Reports.tuple(out.shape()) + " laid out "
                            + out.spec() + ", expected " + Reports.tuple(outShape) + " laid out " + outSpec,
                    "returned an array of shape " + Reports.tuple(out.shape()) + " laid out " + out.spec()
                            + "; the answer has shape " + Reports.tuple(outShape) + " laid out " + outSpec + ".", outcome);
        }
        List<NDArray> arrays = inputs.stream().map(Problem3Checks.Operand::value).toList();
        List<float[]> whole = arrays.stream().map(NDArray::toFloatArray).toList();
        int[] widths = arrays.stream().mapToInt(a -> a.shape(1)).toArray();
        // Drawn now, after the answer came back: nothing the sandbox saw or can compute tells which elements.
        Sample sample = Sample.draw(DRAWS, outShape[0], outShape[1]);
        Expected want = oracle.at(whole, widths, sample.rows(), sample.cols());
        values(out, sample, want, outcome);
        Trace t = outcome.trace();
        if (t.shardMaps().isEmpty()) {
            throw fail(GradingFailure.Kind.STRUCTURE, "no shardMap at the book's sizes", "ran no shardMap: the"
                    + " modelled time is the time of the devices' programs.", outcome);
        }
        long deviceFlops = 0;
        for (ShardMapTrace sm : t.shardMaps()) {
            for (DeviceTrace d : sm.devices()) {
                deviceFlops += d.flops();
            }
        }
        if (deviceFlops < flops) {
            throw fail(GradingFailure.Kind.STRUCTURE, "devices did " + deviceFlops + " of the " + flops
                    + " matmul FLOPs", "made its devices do " + deviceFlops + " matmul FLOPs in all; the answer"
                    + " takes at least " + flops + ". The work must be done by the devices, inside shardMap.", outcome);
        }
        long least = Long.MAX_VALUE;
        int leastDevice = -1;
        java.util.Map<Integer, Long> byDevice = new java.util.HashMap<>();
        for (ShardMapTrace sm : t.shardMaps()) {
            for (DeviceTrace d : sm.devices()) {
                byDevice.merge(d.deviceId(), d.collectives().stream()
                        .mapToLong(dev.shardlings.events.TraceEvent.CollectiveEvent::bytesReceived).sum(), Long::sum);
            }
        }
        for (java.util.Map.Entry<Integer, Long> e : byDevice.entrySet()) {
            if (e.getValue() < least) {
                least = e.getValue();
                leastDevice = e.getKey();
            }
        }
        if (least < received) {
            throw fail(GradingFailure.Kind.STRUCTURE, "device " + leastDevice + " received " + least + " of the "
                    + received + " bytes the answer needs", "made device " + leastDevice + " receive " + least
                    + " bytes in its collectives; every device needs at least " + received + " bytes from the"
                    + " others (what the other devices of its row hold). Data reaches a device only through"
                    + " collectives: a device that reads another's block through a reference taken on the host"
                    + " moves data no collective accounts for, and no chip can do that.", outcome);
        }
        long largestInput = arrays.stream().mapToLong(NDArray::nbytes).max().orElse(0);
        if (t.hostLargestAllocation() >= largestInput) {
            throw fail(GradingFailure.Kind.STRUCTURE, "gathers a whole input on the host", "allocated "
                    + t.hostLargestAllocation() + " bytes on the host, as much as a whole input (" + largestInput
                    + " bytes).", outcome);
        }
    }

    /**
     * The sampled elements, first in replica 0 of every block (what the host reads), then in every other replica:
     * the part's own value checks ({@code Checks.shardedResult}) on the sample.
     */
    private static void values(ShardedArray out, Sample sample, Expected want, CaseRun<?> outcome) {
        int wrong = 0;
        int[] first = null;
        float firstGot = 0;
        float firstWant = 0;
        for (ShardedArray.Shard s : out.addressableShards()) {
            if (s.replicaId() != 0) {
                continue;
            }
            for (int[] at : mismatches(s, sample, want)) {
                wrong++;
                if (first == null || at[0] < first[0] || at[0] == first[0] && at[1] < first[1]) {
                    first = at;
                    firstGot = s.data().floatAt(at[0] - start(s, 0), at[1] - start(s, 1));
                    firstWant = want.values()[at[2]][at[3]];
                }
            }
        }
        if (first != null) {
            String at = "(" + first[0] + ", " + first[1] + ")";
            throw fail(GradingFailure.Kind.WRONG_VALUES, "wrong values at the book's sizes (" + wrong + " of the "
                    + SAMPLES + " elements compared; first at index " + at + ")", "computed " + firstGot
                    + " at index " + at + " where the answer is " + firstWant + "; " + wrong + " of the " + SAMPLES
                    + " elements compared (drawn at random for every grade) are wrong. The part it builds on passes"
                    + " on small cases, so look for code that depends on the sizes.", outcome);
        }
        for (ShardedArray.Shard s : out.addressableShards()) {
            if (s.replicaId() == 0) {
                continue;
            }
            List<int[]> bad = mismatches(s, sample, want);
            if (!bad.isEmpty()) {
                int[] b = bad.get(0);
                String dev = "device " + s.device().id();
                String at = "(" + b[0] + ", " + b[1] + ")";
                throw fail(GradingFailure.Kind.WRONG_VALUES, "replicas disagree at the book's sizes: " + dev
                        + " holds other values than replica 0 of its block", "left " + dev + " (replica "
                        + s.replicaId() + " of its block) with " + s.data().floatAt(b[0] - start(s, 0),
                        b[1] - start(s, 1)) + " at index " + at + " where replica 0 holds the answer, "
                        + want.values()[b[2]][b[3]] + ". Finish the computation on every device of the group.",
                        outcome);
            }
        }
    }

    /** The sampled positions inside shard {@code s} where it differs from the answer: {row, col, i, j}. */
    private static List<int[]> mismatches(ShardedArray.Shard s, Sample sample, Expected want) {
        List<int[]> bad = new ArrayList<>();
        int r0 = start(s, 0);
        int r1 = r0 + s.data().shape(0);
        int c0 = start(s, 1);
        int c1 = c0 + s.data().shape(1);
        for (int i = 0; i < sample.rows().length; i++) {
            int row = sample.rows()[i];
            if (row < r0 || row >= r1) {
                continue;
            }
            for (int j = 0; j < sample.cols()[i].length; j++) {
                int col = sample.cols()[i][j];
                if (col >= c0 && col < c1 && !want.tol().close(want.values()[i][j],
                        s.data().floatAt(row - r0, col - c0))) {
                    bad.add(new int[]{row, col, i, j});
                }
            }
        }
        return bad;
    }

    private static int start(ShardedArray.Shard s, int dim) {
        NamedSharding.Slice sl = s.index().slices().get(dim);
        return sl.full() ? 0 : sl.start();
    }

    private static GradingFailure fail(GradingFailure.Kind kind, String reason, String what, CaseRun<?> run) {
        return run.report("is wrong at the sizes its time is measured at").paragraph("At these sizes the code "
                + what + " A performance part times only a run that computes the right answer on the devices.")
                .noHint().failure(kind, "measured run: " + reason);
    }
}
