package dev.shardlings.grader.problem2;

import dev.shardlings.array.NDArray;

/**
 * The whole-array answer of Problem 2, straight from the definition in plain loops: Out[i, c] = the mean over j of
 * Σ_d A[i, d]·W[B[i, j], d, c] (k = 1: no mean), accumulated in double.
 */
public final class Problem2Oracles {

    private Problem2Oracles() {
    }

    /**
     * @param a f32[S, D]
     * @param w f32[E, D, F]
     * @param b int32[S] or int32[S, k]
     * @return f32[S, F]
     */
    public static NDArray moe(NDArray a, NDArray w, NDArray b) {
        int s = a.shape(0);
        int d = a.shape(1);
        int f = w.shape(2);
        int k = b.rank() == 1 ? 1 : b.shape(1);
        float[] av = a.toFloatArray();
        float[] wv = w.toFloatArray();
        int[] bv = b.toIntArray();
        float[] out = new float[s * f];
        for (int i = 0; i < s; i++) {
            for (int c = 0; c < f; c++) {
                double total = 0;
                for (int j = 0; j < k; j++) {
                    int e = bv[i * k + j];
                    double sum = 0;
                    for (int t = 0; t < d; t++) {
                        sum += (double) av[i * d + t] * wv[(e * d + t) * f + c];
                    }
                    total += sum;
                }
                out[i * f + c] = (float) (total / k);
            }
        }
        return NDArray.fromFloats(out, s, f);
    }
}
