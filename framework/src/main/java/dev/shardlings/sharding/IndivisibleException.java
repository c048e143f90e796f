package dev.shardlings.sharding;

/**
 * An array dimension is not divisible by the number of parts its PartitionSpec entry splits it into (JAX's
 * {@code IndivisibleError}).
 */
public final class IndivisibleException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    IndivisibleException(String message) {
        super(message);
    }
}
