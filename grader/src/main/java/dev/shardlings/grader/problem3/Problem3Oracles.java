package dev.shardlings.grader.problem3;

import dev.shardlings.array.NDArray;
import dev.shardlings.grader.chapter0.Chapter0Oracles;

/**
 * Whole-array answers for Problems 3 and 4, in plain loops with double accumulation, independent of the framework's
 * kernels and of any solution. Every collective matmul of the two problems computes one of these; the matmul itself
 * is chapter 0's ({@link Chapter0Oracles#matmul}).
 */
public final class Problem3Oracles {

    private Problem3Oracles() {
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
        return Chapter0Oracles.matmul(gelu(Chapter0Oracles.matmul(in, win)), wout);
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
