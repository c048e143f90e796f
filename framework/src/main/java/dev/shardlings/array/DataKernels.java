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
        return dtype.isFloating() ? new float[n] : new int[n];
    }

    /** {@code d} filled with [0, 1, …, n−1] (int32); returns it. */
    static int[] iota(int[] d) {
        for (int k = 0; k < d.length; k++) {
            d[k] = k;
        }
        return d;
    }

    /** {@code d} filled with [0, 1, …, n−1] (float32); returns it. */
    static float[] iota(float[] d) {
        for (int k = 0; k < d.length; k++) {
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

    /** Side of the square tiles {@link #strided} transposes in, so a tile's rows and columns stay in L1. */
    private static final int TILE = 32;

    /**
     * A row-major walk over {@code dims} reading {@code src} with {@code strides} (a transpose, or a broadcast
     * with stride 0): the same elements as {@code gather(src, Shapes.offsets(dims, strides))}, without building
     * the offsets. Dimensions of size 1 are dropped and neighbours that are contiguous in the source merged; then
     * a contiguous last dimension moves as whole rows ({@link System#arraycopy}, or a fill for a broadcast
     * scalar), a swap of the last two dimensions (a matrix transpose, possibly batched) goes in square tiles,
     * and anything else walks the source with the last dimension's stride.
     */
    static Object strided(Object src, int[] dims, int[] strides) {
        int rank = 0;
        int[] d = new int[dims.length];
        int[] st = new int[dims.length];
        int n = 1;
        for (int k = 0; k < dims.length; k++) {
            n *= dims[k];
            if (dims[k] == 1) {
                continue;
            }
            if (rank > 0 && st[rank - 1] == strides[k] * dims[k]) {
                d[rank - 1] *= dims[k]; // contiguous with the previous one: one longer dimension
                st[rank - 1] = strides[k];
            } else {
                d[rank] = dims[k];
                st[rank] = strides[k];
                rank++;
            }
        }
        boolean floats = src instanceof float[];
        Object out = floats ? new float[n] : new int[n];
        if (n == 0) {
            return out;
        }
        if (rank == 0) { // one element
            System.arraycopy(src, 0, out, 0, 1);
            return out;
        }
        int last = d[rank - 1];
        int lastStride = st[rank - 1];
        if (rank >= 2 && lastStride == d[rank - 2] * st[rank - 2] && st[rank - 2] == 1) {
            // out[.., i, j] = src[base + j·lastStride + i]: a (batched) transpose of a [last, rows] matrix
            int rows = d[rank - 2];
            int outer = n / (rows * last);
            int[] od = java.util.Arrays.copyOf(d, rank - 2);
            int[] os = java.util.Arrays.copyOf(st, rank - 2);
            int[] idx = new int[rank - 2];
            int base = 0;
            for (int b = 0; b < outer; b++) {
                int o = b * rows * last;
                if (floats) {
                    transposeTiles((float[]) src, base, lastStride, (float[]) out, o, rows, last);
                } else {
                    transposeTiles((int[]) src, base, lastStride, (int[]) out, o, rows, last);
                }
                base = next(idx, od, os, base);
            }
            return out;
        }
        int outer = n / last;
        int[] od = java.util.Arrays.copyOf(d, rank - 1);
        int[] os = java.util.Arrays.copyOf(st, rank - 1);
        int[] idx = new int[rank - 1];
        int base = 0;
        for (int r = 0, o = 0; r < outer; r++, o += last) {
            if (lastStride == 1) {
                System.arraycopy(src, base, out, o, last);
            } else if (floats) {
                float[] f = (float[]) src;
                float[] g = (float[]) out;
                if (lastStride == 0) {
                    java.util.Arrays.fill(g, o, o + last, f[base]);
                } else {
                    for (int j = 0, s = base; j < last; j++, s += lastStride) {
                        g[o + j] = f[s];
                    }
                }
            } else {
                int[] f = (int[]) src;
                int[] g = (int[]) out;
                for (int j = 0, s = base; j < last; j++, s += lastStride) {
                    g[o + j] = f[s];
                }
            }
            base = next(idx, od, os, base);
        }
        return out;
    }

    /** Advances a row-major index over dims by one and returns the source offset that goes with it. */
    private static int next(int[] idx, int[] dims, int[] strides, int off) {
        for (int k = idx.length - 1; k >= 0; k--) {
            idx[k]++;
            off += strides[k];
            if (idx[k] < dims[k]) {
                return off;
            }
            off -= strides[k] * dims[k];
            idx[k] = 0;
        }
        return off;
    }

    /** out[o + i·cols + j] = src[base + j·ld + i] for i < rows, j < cols, in TILE × TILE tiles. */
    private static void transposeTiles(float[] src, int base, int ld, float[] out, int o, int rows, int cols) {
        for (int i0 = 0; i0 < rows; i0 += TILE) {
            int i1 = Math.min(rows, i0 + TILE);
            for (int j0 = 0; j0 < cols; j0 += TILE) {
                int j1 = Math.min(cols, j0 + TILE);
                for (int i = i0; i < i1; i++) {
                    int dst = o + i * cols;
                    for (int j = j0; j < j1; j++) {
                        out[dst + j] = src[base + j * ld + i];
                    }
                }
            }
        }
    }

    /** The int32 twin of {@link #transposeTiles(float[], int, int, float[], int, int, int)}. */
    private static void transposeTiles(int[] src, int base, int ld, int[] out, int o, int rows, int cols) {
        for (int i0 = 0; i0 < rows; i0 += TILE) {
            int i1 = Math.min(rows, i0 + TILE);
            for (int j0 = 0; j0 < cols; j0 += TILE) {
                int j1 = Math.min(cols, j0 + TILE);
                for (int i = i0; i < i1; i++) {
                    int dst = o + i * cols;
                    for (int j = j0; j < j1; j++) {
                        out[dst + j] = src[base + j * ld + i];
                    }
                }
            }
        }
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
