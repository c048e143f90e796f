package dev.shardlings.primitive;

/**
 * An operation's result sharding cannot be typed on a mesh with Explicit axes — JAX's
 * {@code jax.sharding.ShardingTypeError} (a {@code TypeError}). The message is JAX's text; most say how to fix the
 * program (pass {@code outSharding}, or {@code reshard} an operand first).
 */
public final class ShardingTypeError extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    /** @param message JAX's text */
    public ShardingTypeError(String message) {
        super(message);
    }
}
