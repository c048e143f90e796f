package dev.shardlings.grader.problem3;

import dev.shardlings.array.NDArray;

/**
 * Whole-array answers for Problems 3 and 4, in plain loops with double accumulation, independent of the framework's
 * kernels and of any solution. Every collective matmul of the two problems computes one of these.
 */
public final class Problem3Oracles {

    private Problem3Oracles() {
    }

    /** C[m, n] = Σ_k A[m, k]·B[k, n], accumulated in double and rounded once to float32. */
    public static NDArray matmul(NDArray a, NDArray b) {
        int m = a.shape(0);
        int k = a.shape(1);
        int n = b.shape(1);
        float[] x = a.toFloatArray();
        float[] y = b.toFloatArray();
        float[] c = new float[m * n];
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                double s = 0;
                for (int l = 0; l < k; l++) {
                    s += (double) x[i * k + l] * y[l * n + j];
                }
                c[i * n + j] = (float) s;
            }
        }
        return NDArray.fromFloats(c, m, n);
    }

    /**
     * {@code jax.nn.gelu} with {@code approximate=True}, elementwise: 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))),
     * evaluated in double and rounded to float32 (the framework keeps the hidden activations in float32 too).
     */
    public static NDArray gelu(NDArray a) {
        float[] v = a.toFloatArray();
        float[] out = new float[v.length];
        double c = Math.sqrt(2 / Math.PI);
        for (int i = 0; i < v.length; i++) {
            double x = v[i];
            out[i] = (float) (0.5 * x * (1 + Math.tanh(c * (x + 0.044715 * x * x * x))));
        }
        return NDArray.fromFloats(out, a.shape());
    }

    /** The feed-forward block of part 3.3: gelu(In · Win) · Wout. */
    public static NDArray transformerBlock(NDArray in, NDArray win, NDArray wout) {
        return matmul(gelu(matmul(in, win)), wout);
    }

    /** The largest |value| of an array (0 for an empty one). */
    public static double maxAbs(NDArray a) {
        double m = 0;
        for (float v : a.toFloatArray()) {
            m = Math.max(m, Math.abs(v));
        }
        return m;
    }
}
