package dev.shardlings.autodiff;

import java.util.List;
import java.util.Objects;

/**
 * A function's value and its gradients, as {@code jax.value_and_grad} returns them.
 *
 * @param value the scalar value of the function (a float32[] array)
 * @param grads one gradient per differentiated argument, each with that argument's dtype, shape and sharding
 * @param <T>   {@link dev.shardlings.array.NDArray} or {@link dev.shardlings.spmd.ShardedArray}
 */
public record ValueAndGrad<T>(T value, List<T> grads) {
    /** @throws NullPointerException if an argument is null */
    public ValueAndGrad {
        Objects.requireNonNull(value, "value");
        grads = List.copyOf(grads);
    }
}
