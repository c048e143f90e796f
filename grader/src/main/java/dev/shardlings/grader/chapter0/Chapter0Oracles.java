package dev.shardlings.grader.chapter0;

import dev.shardlings.array.NDArray;

/**
 * Chapter 0 answers computed on whole arrays with plain loops (double accumulation) — independent of the
 * framework's kernels, of shardMap and of solutions/.
 */
public final class Chapter0Oracles {

    private Chapter0Oracles() {
    }

    /** C = A·B for A f32[I, J], B f32[J, K]. */
    public static NDArray matmul(NDArray a, NDArray b) {
        int n = a.shape(0);
        int k = a.shape(1);
        int m = b.shape(1);
        float[] av = a.toFloatArray();
        float[] bv = b.toFloatArray();
        float[] c = new float[n * m];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < m; j++) {
                double s = 0;
                for (int t = 0; t < k; t++) {
                    s += (double) av[i * k + t] * bv[t * m + j];
                }
                c[i * m + j] = (float) s;
            }
        }
        return NDArray.fromFloats(c, n, m);
    }

    /** Each row of x f32[B, D] as (x − mean) / sqrt(var + eps), population variance over the row. */
    public static NDArray normalizeRows(NDArray x, double eps) {
        int rows = x.shape(0);
        int d = x.shape(1);
        float[] v = x.toFloatArray();
        float[] out = new float[v.length];
        for (int r = 0; r < rows; r++) {
            double mean = 0;
            for (int c = 0; c < d; c++) {
                mean += v[r * d + c];
            }
            mean /= d;
            double var = 0;
            for (int c = 0; c < d; c++) {
                double z = v[r * d + c] - mean;
                var += z * z;
            }
            var /= d;
            for (int c = 0; c < d; c++) {
                out[r * d + c] = (float) ((v[r * d + c] - mean) / Math.sqrt(var + eps));
            }
        }
        return NDArray.fromFloats(out, rows, d);
    }

    /** Blocks of n rows-groups rolled by k: out block p = x block (p − k) mod n, for x f32[N, M] cut into n blocks. */
    public static NDArray rollBlocks(NDArray x, int n, int k) {
        int rows = x.shape(0);
        int cols = x.shape(1);
        int per = rows / n;
        float[] v = x.toFloatArray();
        float[] out = new float[v.length];
        for (int p = 0; p < n; p++) {
            int src = Math.floorMod(p - k, n);
            System.arraycopy(v, src * per * cols, out, p * per * cols, per * cols);
        }
        return NDArray.fromFloats(out, rows, cols);
    }

    /** The mean over n blocks of x f32[N] (block size N/n) of each block's first 4 elements: f32[4]. */
    public static NDArray sliceAndAverage(NDArray x, int n) {
        int per = x.shape(0) / n;
        float[] v = x.toFloatArray();
        float[] out = new float[4];
        for (int e = 0; e < 4; e++) {
            double s = 0;
            for (int p = 0; p < n; p++) {
                s += v[p * per + e];
            }
            out[e] = (float) (s / n);
        }
        return NDArray.fromFloats(out, 4);
    }
}
