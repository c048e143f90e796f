package dev.shardlings.spmd;

/**
 * Base class of the failures of a {@code shardMap} run: a device's function threw
 * ({@link DeviceFailureException}), or the devices did not perform matching collectives
 * ({@link CollectiveMismatchException}). Argument errors (bad specs, shapes, axis names) are reported as
 * {@link IllegalArgumentException}s instead, before any device runs where possible.
 */
public class SpmdException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    SpmdException(String message, Throwable cause) {
        super(message, cause);
    }
}
