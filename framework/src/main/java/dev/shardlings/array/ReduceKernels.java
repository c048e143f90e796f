package dev.shardlings.array;

/**
 * The loops of the reductions ({@link ReduceOp}) and searches ({@link SearchOp}), apart from the operations that
 * check axes and work out shapes ({@link Reductions}, {@link Indexing}). A reduction's operand arrives with the
 * reduced axes moved last, so output element o reduces the contiguous run {@code [o·count, (o+1)·count)} in
 * row-major order of the reduced axes: a fixed order, independent of layout and threads.
 */
final class ReduceKernels {

    private ReduceKernels() {
    }

    /**
     * Each run of {@code count} floats reduced to one: sums and means accumulate in double ({@link Kernels#sum}),
     * max and min propagate NaN.
     */
    static float[] reduce(ReduceOp op, float[] a, int outN, int count) {
        float[] out = new float[outN];
        for (int o = 0; o < outN; o++) {
            int from = o * count;
            int to = from + count;
            switch (op) {
                case SUM: out[o] = (float) Kernels.sum(a, from, to); break;
                case MEAN: out[o] = (float) (Kernels.sum(a, from, to) / count); break;
                case MAX: {
                    float m = a[from];
                    for (int t = from + 1; t < to; t++) {
                        m = Math.max(m, a[t]);
                    }
                    out[o] = m;
                    break;
                }
                default: {
                    float m = a[from];
                    for (int t = from + 1; t < to; t++) {
                        m = Math.min(m, a[t]);
                    }
                    out[o] = m;
                }
            }
        }
        return out;
    }

    /** Outputs summed together by {@link #sumLeading}: 16 double partial sums each, 32 KB, stay in L1. */
    private static final int SUM_BLOCK = 256;

    /**
     * The sum (or mean) over the leading axis of a row-major [count, outN] buffer: out[o] is the sum of
     * a[t·outN + o] for t = 0 … count−1 with exactly {@link Kernels#sum}'s arithmetic — element t into double
     * partial sum t % {@link Kernels#SUM_LANES}, the partial sums added in lane order, then the tail in index
     * order — so the same bits as {@code reduce} on the transposed buffer, without transposing it: the partial
     * sums of a block of outputs are kept side by side and each row of a is read once, in order.
     */
    static float[] sumLeading(float[] a, int count, int outN, boolean mean) {
        float[] out = new float[outN];
        int lanes = Kernels.SUM_LANES;
        int body = count / lanes * lanes;
        double[] acc = new double[lanes * SUM_BLOCK];
        for (int o0 = 0; o0 < outN; o0 += SUM_BLOCK) {
            int w = Math.min(SUM_BLOCK, outN - o0);
            java.util.Arrays.fill(acc, 0.0);
            for (int t = 0; t < body; t++) {
                int lane = (t % lanes) * SUM_BLOCK;
                int row = t * outN + o0;
                for (int j = 0; j < w; j++) {
                    acc[lane + j] += a[row + j];
                }
            }
            for (int j = 0; j < w; j++) {
                double total = 0;
                for (int l = 0; l < lanes; l++) {
                    total += acc[l * SUM_BLOCK + j];
                }
                for (int t = body; t < count; t++) {
                    total += a[t * outN + o0 + j];
                }
                out[o0 + j] = (float) (mean ? total / count : total);
            }
        }
        return out;
    }

    /** Each run of {@code count} ints reduced to one by sum (wrapping), max or min. */
    static int[] reduce(ReduceOp op, int[] a, int outN, int count) {
        int[] out = new int[outN];
        for (int o = 0; o < outN; o++) {
            int from = o * count;
            int to = from + count;
            int m = op == ReduceOp.SUM ? 0 : a[from];
            for (int t = op == ReduceOp.SUM ? from : from + 1; t < to; t++) {
                switch (op) {
                    case SUM: m += a[t]; break;
                    case MAX: m = Math.max(m, a[t]); break;
                    default: m = Math.min(m, a[t]);
                }
            }
            out[o] = m;
        }
        return out;
    }

    /** The mean of each run of {@code count} ints, as float32. */
    static float[] mean(int[] a, int outN, int count) {
        float[] out = new float[outN];
        for (int o = 0; o < outN; o++) {
            long s = 0; // exact: JAX converts to float before summing, so the mean does not wrap
            for (int t = o * count; t < (o + 1) * count; t++) {
                s += a[t];
            }
            out[o] = (float) ((double) s / count);
        }
        return out;
    }

    /** The index in each run of {@code len} floats of its first maximum; a NaN counts as the maximum. */
    static int[] argmax(float[] a, int outN, int len) {
        int[] out = new int[outN];
        for (int o = 0; o < outN; o++) {
            int base = o * len;
            int best = 0;
            float bv = a[base];
            for (int j = 1; j < len && !Float.isNaN(bv); j++) {
                float v = a[base + j];
                if (Float.isNaN(v) || v > bv) {
                    bv = v;
                    best = j;
                }
            }
            out[o] = best;
        }
        return out;
    }

    /** The index in each run of {@code len} ints of its first maximum. */
    static int[] argmax(int[] a, int outN, int len) {
        int[] out = new int[outN];
        for (int o = 0; o < outN; o++) {
            int base = o * len;
            int best = 0;
            int bv = a[base];
            for (int j = 1; j < len; j++) {
                if (a[base + j] > bv) {
                    bv = a[base + j];
                    best = j;
                }
            }
            out[o] = best;
        }
        return out;
    }

    /** The indices that sort {@code f} ascending, stably, NaNs last; -0.0 and 0.0 are equal, as in numpy. */
    static int[] argsort(float[] f) {
        Integer[] order = identity(f.length);
        // Float.compare orders NaN after every number (and -0.0 before 0.0, which numpy treats as equal;
        // compare by value with NaN last instead).
        java.util.Arrays.sort(order, (p, q) -> {
            float a = f[p];
            float b = f[q];
            boolean na = Float.isNaN(a);
            boolean nb = Float.isNaN(b);
            if (na || nb) {
                return Boolean.compare(na, nb);
            }
            return a < b ? -1 : a > b ? 1 : 0;
        });
        return unboxed(order);
    }

    /** The indices that sort {@code v} ascending, stably. */
    static int[] argsort(int[] v) {
        Integer[] order = identity(v.length);
        java.util.Arrays.sort(order, (p, q) -> Integer.compare(v[p], v[q]));
        return unboxed(order);
    }

    private static Integer[] identity(int n) {
        Integer[] order = new Integer[n];
        for (int t = 0; t < n; t++) {
            order[t] = t;
        }
        return order;
    }

    private static int[] unboxed(Integer[] order) {
        int[] out = new int[order.length];
        for (int t = 0; t < out.length; t++) {
            out[t] = order[t];
        }
        return out;
    }
}
