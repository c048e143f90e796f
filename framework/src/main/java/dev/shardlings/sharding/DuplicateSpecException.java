package dev.shardlings.sharding;

/** A PartitionSpec maps one mesh axis to more than one array dimension (JAX's {@code DuplicateSpecError}). */
public final class DuplicateSpecException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    DuplicateSpecException(String message) {
        super(message);
    }
}
