package dev.shardlings.array;

/**
 * The loops of the {@link DataOp} operations (creation, conversion and data movement) on dense row-major buffers,
 * apart from the operations that check arguments and work out shapes ({@link Creation}, {@link ShapeOps},
 * {@link Indexing}). A buffer is a {@code float[]} or an {@code int[]}, passed as an Object where a kernel serves
 * both; contiguous runs move with {@link System#arraycopy}.
 */
final class DataKernels {

    private DataKernels() {
    }

    /** A zeroed buffer of n elements of {@code dtype}. */
    static Object newBuffer(DType dtype, int n) {
        return dtype == DType.FLOAT32 ? new float[n] : new int[n];
    }

    /** [0, 1, …, n−1] in int32. */
    static int[] iota(int n) {
        int[] d = new int[n];
        for (int k = 0; k < n; k++) {
            d[k] = k;
        }
        return d;
    }

    /** [0, 1, …, n−1] in float32. */
    static float[] iotaFloat(int n) {
        float[] d = new float[n];
        for (int k = 0; k < n; k++) {
            d[k] = k;
        }
        return d;
    }

    /** The rows, each {@code cols} long, one after the other. */
    static float[] rows(float[][] rows, int cols, int size) {
        float[] d = new float[size];
        for (int r = 0; r < rows.length; r++) {
            System.arraycopy(rows[r], 0, d, r * cols, cols);
        }
        return d;
    }

    /** The rows, each {@code cols} long, one after the other. */
    static int[] rows(int[][] rows, int cols, int size) {
        int[] d = new int[size];
        for (int r = 0; r < rows.length; r++) {
            System.arraycopy(rows[r], 0, d, r * cols, cols);
        }
        return d;
    }

    /** Each int converted to the nearest float32. */
    static float[] toFloats(int[] src) {
        float[] out = new float[src.length];
        for (int k = 0; k < src.length; k++) {
            out[k] = src[k];
        }
        return out;
    }

    /** Each float truncated toward zero (Java's cast: saturating, NaN → 0, as XLA converts). */
    static int[] toInts(float[] src) {
        int[] out = new int[src.length];
        for (int k = 0; k < out.length; k++) {
            out[k] = (int) src[k];
        }
        return out;
    }

    /** {@code src[offsets[t]]} for every t: a transpose or broadcast, as offsets into the source. */
    static Object gather(Object src, int[] offsets) {
        int n = offsets.length;
        if (src instanceof float[]) {
            float[] f = (float[]) src;
            float[] out = new float[n];
            for (int t = 0; t < n; t++) {
                out[t] = f[offsets[t]];
            }
            return out;
        }
        int[] i = (int[]) src;
        int[] out = new int[n];
        for (int t = 0; t < n; t++) {
            out[t] = i[offsets[t]];
        }
        return out;
    }

    /**
     * Elements {@code [start, start + len)} of an axis of size {@code dim}, for each of the {@code outer} blocks
     * before it; {@code inner} elements per index of that axis.
     */
    static void slice(Object src, Object dst, int outer, int dim, int start, int len, int inner) {
        for (int o = 0; o < outer; o++) {
            System.arraycopy(src, (o * dim + start) * inner, dst, o * len * inner, len * inner);
        }
    }

    /**
     * Indices {@code rows[0], rows[1], …} of an axis of size {@code dim}, in that order, for each of the
     * {@code outer} blocks before it; {@code inner} elements per index.
     */
    static void takeRows(Object src, Object dst, int outer, int dim, int inner, int[] rows) {
        int n = rows.length;
        for (int o = 0; o < outer; o++) {
            for (int t = 0; t < n; t++) {
                System.arraycopy(src, (o * dim + rows[t]) * inner, dst, (o * n + t) * inner, inner);
            }
        }
    }

    /** An axis of size {@code dim} rotated by {@code s} in [0, dim): out[j] = in[(j − s) mod dim]. */
    static void roll(Object src, Object dst, int outer, int dim, int inner, int s) {
        for (int o = 0; o < outer; o++) {
            int base = o * dim * inner;
            // the last s rows move to the front
            System.arraycopy(src, base + (dim - s) * inner, dst, base, s * inner);
            System.arraycopy(src, base, dst, base + s * inner, (dim - s) * inner);
        }
    }

    /** n elements rotated by {@code s} in [0, n). */
    static void roll(Object src, Object dst, int n, int s) {
        System.arraycopy(src, n - s, dst, 0, s);
        System.arraycopy(src, 0, dst, s, n - s);
    }

    /**
     * One operand of a concatenation put in place: its {@code outer} runs of {@code chunk} elements go to
     * {@code pos} in each result run of {@code runLength}.
     */
    static void place(Object src, Object dst, int outer, int chunk, int runLength, int pos) {
        for (int o = 0; o < outer; o++) {
            System.arraycopy(src, o * chunk, dst, o * runLength + pos, chunk);
        }
    }
}
