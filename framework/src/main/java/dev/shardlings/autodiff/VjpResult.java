package dev.shardlings.autodiff;

import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * What {@code jax.vjp} returns: the function's outputs and its pullback.
 *
 * @param outputs  the function's outputs at the primal point
 * @param pullback from one cotangent per output (each of that output's dtype and shape) to one cotangent per
 *                 primal input, in order; an integer input's cotangent is zeros of its dtype (JAX gives float0,
 *                 which Java has no counterpart for)
 * @param <T>      {@link dev.shardlings.array.NDArray} or {@link dev.shardlings.spmd.ShardedArray}
 */
public record VjpResult<T>(List<T> outputs, Function<List<T>, List<T>> pullback) {
    /** @throws NullPointerException if an argument is null */
    public VjpResult {
        outputs = List.copyOf(outputs);
        Objects.requireNonNull(pullback, "pullback");
    }
}
