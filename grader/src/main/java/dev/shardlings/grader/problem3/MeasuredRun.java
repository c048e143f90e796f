package dev.shardlings.grader.problem3;

import dev.shardlings.array.NDArray;
import dev.shardlings.grader.Generators;
import dev.shardlings.grader.GradingFailure;
import dev.shardlings.grader.Check;
import dev.shardlings.grader.CheckLog;
import dev.shardlings.grader.CaseRun;
import dev.shardlings.grader.ModelledTime;
import dev.shardlings.grader.Part;
import dev.shardlings.grader.Reports;
import dev.shardlings.sharding.PartitionSpec;
import dev.shardlings.spmd.ShardedArray;
import dev.shardlings.trace.DeviceTrace;
import dev.shardlings.trace.ShardMapTrace;
import dev.shardlings.trace.Trace;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.Function;

/**
 * The measured run of a performance part (3.0p … 4.2p) at the book's sizes: random inputs (the modelled time
 * depends on shapes only, so values cost nothing and let the answer be checked), and what the run must show
 * before its time is modelled — the answer's shape and layout, {@value #SAMPLES} of its elements (in
 * {@value #SAMPLE_ROWS} rows) against a row-wise oracle, a shardMap, at least the problem's matmul FLOPs on the devices, and no input gathered on the
 * host. Without this a program could return early at these sizes, or compute elsewhere, and be timed at 0 µs.
 *
 * @param part     the performance part
 * @param inputs   the whole inputs A[…] with their layouts
 * @param outSpec  the layout the answer must have
 * @param outShape the answer's global shape
 * @param oracle   one element of the answer, from the whole inputs, with the scale of its terms (for tolerance)
 * @param flops    the least matmul FLOPs the devices must do together (2·B·D·F per matmul)
 */
public record MeasuredRun(Part part, List<Problem3Checks.Operand> inputs, PartitionSpec outSpec, int[] outShape,
                   ElementOracle oracle, long flops) {

    /** How many elements of the answer are compared: {@link #SAMPLE_COLS} in each of {@link #SAMPLE_ROWS} rows. */
    public static final int SAMPLES = 24;
    /** Rows of the answer sampled: the first, the last and random ones (an oracle's cost is mostly per row). */
    static final int SAMPLE_ROWS = 4;
    /** Elements sampled per row: the first row's first and the last row's last among them. */
    static final int SAMPLE_COLS = SAMPLES / SAMPLE_ROWS;

    /** A matmul's answer: row {@code row} of whole[0] · whole[1] at the given columns. */
    public static final ElementOracle MATMUL = (w, widths, row, cols) -> {
        double[][] out = new double[cols.length][];
        for (int i = 0; i < cols.length; i++) {
            out[i] = dot(w.get(0), widths[0], w.get(1), widths[1], row, cols[i]);
        }
        return out;
    };

    /**
     * Part 3.3's answer: row {@code row} of gelu(In · Win) · Wout at the given columns, the hidden row rounded to
     * float32. The hidden row (F dot products of length D) is computed once per row, not once per element: it
     * is the whole cost of this oracle (24 elements in 4 rows: 4 · D · F multiply-adds instead of 24 · D · F).
     */
    public static final ElementOracle BLOCK = (w, widths, row, cols) -> {
        float[] wout = w.get(2);
        int f = widths[1];
        int d = widths[2];
        double c = Math.sqrt(2 / Math.PI);
        double[] hidden = new double[f];
        for (int j = 0; j < f; j++) {
            double x = (float) dot(w.get(0), widths[0], w.get(1), widths[1], row, j)[0];
            hidden[j] = (float) (0.5 * x * (1 + Math.tanh(c * (x + 0.044715 * x * x * x))));
        }
        double[][] out = new double[cols.length][];
        for (int i = 0; i < cols.length; i++) {
            double s = 0;
            double scale = 0;
            for (int j = 0; j < f; j++) {
                double t = hidden[j] * wout[j * d + cols[i]];
                s += t;
                scale += Math.abs(t);
            }
            out[i] = new double[]{s, scale};
        }
        return out;
    };

    /**
     * The modelled time of a performance part whose measured run is this one.
     *
     * @see ModelledTime#check(Part, Part, Runnable, ModelledTime.Setting, java.util.function.Supplier,
     * java.util.function.BiConsumer)
     */
    public ModelledTime.Result time(Part base, Runnable baseCheck, ModelledTime.Setting setting,
                                    Function<List<ShardedArray>, ShardedArray> impl) {
        return ModelledTime.check(part, base, baseCheck, setting, program(impl), this::verify);
    }

    /** Elements of one row of the expected answer, each with the sum of the magnitudes of its terms. */
    public interface ElementOracle {
        /**
         * @param whole  the whole inputs' values (row-major) in operand order
         * @param widths each input's number of columns
         * @param row    the answer's row
         * @param cols   the answer's columns wanted in that row
         * @return for each of {@code cols}, {value, Σ|terms|}
         */
        double[][] at(List<float[]> whole, int[] widths, int row, int[] cols);
    }

    /** Random inputs of the given shapes (seeded per part: a grade is reproducible). */
    public static List<Problem3Checks.Operand> operands(Part part, Object... nameShapeSpec) {
        List<Problem3Checks.Operand> ops = new ArrayList<>();
        long seed = part.number().hashCode();
        for (int i = 0; i < nameShapeSpec.length; i += 3) {
            int[] shape = (int[]) nameShapeSpec[i + 1];
            ops.add(new Problem3Checks.Operand((String) nameShapeSpec[i], Generators.smallFloats(seed + i, shape),
                    (PartitionSpec) nameShapeSpec[i + 2]));
        }
        return List.copyOf(ops);
    }

    /** Σ_k A[row, k]·B[k, col] for A with {@code k} columns and B with {@code n}, and Σ|terms|. */
    public static double[] dot(float[] x, int k, float[] y, int n, int row, int col) {
        double s = 0;
        double scale = 0;
        for (int l = 0; l < k; l++) {
            double t = (double) x[row * k + l] * y[l * n + col];
            s += t;
            scale += Math.abs(t);
        }
        return new double[]{s, scale};
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
        CheckLog.ran(Check.VALUES, Check.LAYOUT, Check.USES_SHARD_MAP, Check.FLOPS, Check.HOST_MEMORY);
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
        NDArray got = out.gather();
        Random r = new Random(part.number().hashCode());
        for (int s = 0; s < SAMPLE_ROWS; s++) {
            int row = s == 0 ? 0 : s == 1 ? outShape[0] - 1 : r.nextInt(outShape[0]);
            int[] cols = new int[SAMPLE_COLS];
            for (int i = 0; i < cols.length; i++) {
                cols[i] = i == 0 && s == 0 ? 0 : i == 0 && s == 1 ? outShape[1] - 1 : r.nextInt(outShape[1]);
            }
            double[][] want = oracle.at(whole, widths, row, cols);
            for (int i = 0; i < cols.length; i++) {
                int col = cols[i];
                double actual = got.floatAt(row, col);
                if (!(Math.abs(actual - want[i][0]) <= 1e-4 * (1 + want[i][1]))) {
                    throw fail(GradingFailure.Kind.WRONG_VALUES, "wrong values at the book's sizes (first at index ("
                            + row + ", " + col + "))", "computed " + actual + " at index (" + row + ", " + col
                            + ") where the answer is " + (float) want[i][0] + ". The part it builds on passes on"
                            + " small cases, so look for code that depends on the sizes.", outcome);
                }
            }
        }
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
        long largestInput = arrays.stream().mapToLong(NDArray::nbytes).max().orElse(0);
        if (t.hostLargestAllocation() >= largestInput) {
            throw fail(GradingFailure.Kind.STRUCTURE, "gathers a whole input on the host", "allocated "
                    + t.hostLargestAllocation() + " bytes on the host, as much as a whole input (" + largestInput
                    + " bytes).", outcome);
        }
    }

    private static GradingFailure fail(GradingFailure.Kind kind, String reason, String what, CaseRun<?> run) {
        return run.report("is wrong at the sizes its time is measured at").paragraph("At these sizes the code "
                + what + " A performance part times only a run that computes the right answer on the devices.")
                .noHint().failure(kind, "measured run: " + reason);
    }
}
