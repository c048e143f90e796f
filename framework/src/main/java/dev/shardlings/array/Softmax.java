package dev.shardlings.array;

/**
 * Attention's building blocks, composed of the primitives JAX composes them of (so the trace, the cost model and
 * the gradient tapes see max, sub, exp, sum, div, log, select as JAX's jaxpr shows them): {@code jax.nn.softmax},
 * {@code jax.nn.log_softmax}, {@code jax.scipy.special.logsumexp}, and the triangular masks {@code jnp.tril} /
 * {@code jnp.triu}. No online (streaming) softmax: accumulating blocks is the course's exercise.
 */
final class Softmax {

    private Softmax() {
    }

    /**
     * {@code jax.nn.softmax(x, axis)}: exp(x − max) / Σ exp(x − max). The max is subtracted without a finiteness
     * guard, as JAX does: a row of −inf, or any +inf, gives nan. The max is held constant for the gradient
     * (stop_gradient); the result's gradient equals JAX's custom jvp y·(ẋ − Σ y·ẋ) up to rounding.
     */
    static NDArray softmax(NDArray x, int axis) {
        NDArray unnormalized = x.sub(stopGradient(() -> x.max(KeepDims.KEEP, axis))).exp();
        return unnormalized.div(unnormalized.sum(KeepDims.KEEP, axis));
    }

    /** {@code jax.nn.log_softmax(x, axis)}: (x − max) − log Σ exp(x − max), the max held constant (stop_gradient). */
    static NDArray logSoftmax(NDArray x, int axis) {
        NDArray shifted = x.sub(stopGradient(() -> x.max(KeepDims.KEEP, axis)));
        return shifted.sub(shifted.exp().sum(KeepDims.KEEP, axis).log());
    }

    /**
     * {@code jax.scipy.special.logsumexp(x, axis=axes, keepdims=keep)}: log Σ exp(x − m) + m with m the max where
     * it is finite, else 0 (so an all −inf slice gives −inf, not nan); m held constant (stop_gradient). Integer
     * input is promoted to float32 first.
     */
    static NDArray logsumexp(NDArray x, boolean keep, int[] axes) {
        NDArray a = x.dtype().isFloating() ? x : x.astype(DType.FLOAT32);
        NDArray amax = stopGradient(() -> {
            NDArray m = a.max(KeepDims.KEEP, axes);
            return NDArray.where(m.abs().less(Double.POSITIVE_INFINITY), m, 0.0);
        });
        NDArray sumexp = a.sub(amax).exp().sum(keep ? KeepDims.KEEP : KeepDims.DROP, axes);
        return sumexp.abs().log().add(keep ? amax : stopGradient(() -> amax.reshape(sumexp.shape())));
    }

    /**
     * {@code jnp.tril(x, k)} (lower = true) or {@code jnp.triu(x, k)} on the last two axes [.., N, M]: keeps
     * element (i, j) where j − i ≤ k (tril) or j − i ≥ k (triu), zero elsewhere; the mask is JAX's iota comparison
     * and a select, so the gradient flows to the kept elements only.
     */
    static NDArray triangle(NDArray x, int k, boolean lower) {
        if (x.rank() < 2) {
            throw new IllegalArgumentException("Argument to jax.numpy." + (lower ? "tril" : "triu")
                    + " must be at least 2D");
        }
        int n = x.shape(x.rank() - 2);
        int m = x.shape(x.rank() - 1);
        NDArray rows = NDArray.arange(n).reshape(n, 1).add(k);
        NDArray cols = NDArray.arange(m).reshape(1, m);
        NDArray keep = lower ? rows.greaterEqual(cols) : rows.lessEqual(cols);
        return NDArray.where(keep, x, 0.0);
    }

    /** {@code lax.stop_gradient}: the value, computed with nothing recorded for the gradient (still observed). */
    private static NDArray stopGradient(java.util.function.Supplier<NDArray> f) {
        try (var r = GradRecorders.install(null)) {
            return f.get();
        }
    }
}
