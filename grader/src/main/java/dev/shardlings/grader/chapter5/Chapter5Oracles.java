package dev.shardlings.grader.chapter5;

import dev.shardlings.array.NDArray;

/**
 * Chapter 5 answers computed on the whole arrays with plain loops in double — independent of the framework's
 * matmul, einsum and square, and of solutions/.
 */
public final class Chapter5Oracles {

    private Chapter5Oracles() {
    }

    /** A · B for A f32[I, J], B f32[J, K], summed in double and rounded to float32. */
    public static NDArray matmul(NDArray a, NDArray b) {
        return product(a, b, false);
    }

    /** einsum('bd,df->bf', In², W), summed in double and rounded to float32. */
    public static NDArray matmulSquare(NDArray in, NDArray w) {
        return product(in, w, true);
    }

    private static NDArray product(NDArray a, NDArray b, boolean squareA) {
        int n = a.shape(0);
        int m = a.shape(1);
        int p = b.shape(1);
        float[] av = a.toFloatArray();
        float[] bv = b.toFloatArray();
        float[] out = new float[n * p];
        for (int r = 0; r < n; r++) {
            for (int c = 0; c < p; c++) {
                double sum = 0;
                for (int t = 0; t < m; t++) {
                    double x = av[r * m + t];
                    // x² is rounded to float32 first, as the program's square is
                    sum += (squareA ? (double) (float) (x * x) : x) * bv[t * p + c];
                }
                out[r * p + c] = (float) sum;
            }
        }
        return NDArray.fromFloats(out, n, p);
    }
}
