package dev.shardlings.array;

/**
 * An array was asked for that the JVM's heap cannot hold, refused before anything was allocated (or, when the heap
 * is too full at the moment, when the allocation failed), as JAX answers with {@code RESOURCE_EXHAUSTED: Out of memory
 * while trying to allocate N bytes}. The message names the shape, the dtype, the bytes needed and what the heap allows.
 *
 * <p>Every dtype is held in 4 bytes per element on the heap (a Java {@code float} or {@code int}; bfloat16 and bool
 * too), so an array of n elements needs 4n bytes here, whatever its dtype's own size.
 */
public final class ResourceExhaustedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final long bytes;
    private final long heapBytes;

    ResourceExhaustedException(String message, long bytes, long heapBytes) {
        super(message);
        this.bytes = bytes;
        this.heapBytes = heapBytes;
    }

    /** The bytes the array needed on the heap. */
    public long bytes() {
        return bytes;
    }

    /** The heap's limit in bytes ({@code Runtime.maxMemory()}, set by {@code -Xmx}). */
    public long heapBytes() {
        return heapBytes;
    }
}
