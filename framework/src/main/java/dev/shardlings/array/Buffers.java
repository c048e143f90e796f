package dev.shardlings.array;

/**
 * The buffers of new arrays made from nothing (zeros, ones, full, arange), allocated only once the heap is known to be
 * able to hold them: an array larger than the heap is refused with a {@link ResourceExhaustedException} that says what
 * was asked for and what the heap allows, never a bare {@code OutOfMemoryError} (an API fuzz found 284 of those).
 */
final class Buffers {

    private Buffers() {
    }

    /** A new float buffer of {@code shape}'s size, for an array of {@code dtype} made by {@code op}. */
    static float[] floats(DType dtype, int[] shape, String op) {
        int n = Shapes.size(shape);
        requireHeap(dtype, shape, op);
        try {
            return new float[n];
        } catch (OutOfMemoryError e) {
            throw exhausted(dtype, shape, op, "the heap is too full at the moment");
        }
    }

    /** A new int buffer of {@code shape}'s size, for an array of {@code dtype} made by {@code op}. */
    static int[] ints(DType dtype, int[] shape, String op) {
        int n = Shapes.size(shape);
        requireHeap(dtype, shape, op);
        try {
            return new int[n];
        } catch (OutOfMemoryError e) {
            throw exhausted(dtype, shape, op, "the heap is too full at the moment");
        }
    }

    /** A new buffer of either kind, as {@link DataKernels#newBuffer} would make it. */
    static Object of(DType dtype, int[] shape, String op) {
        return dtype.isFloating() ? floats(dtype, shape, op) : ints(dtype, shape, op);
    }

    /**
     * @throws ResourceExhaustedException if an array of {@code shape} needs more bytes than the heap's limit
     */
    static void requireHeap(DType dtype, int[] shape, String op) {
        long max = Runtime.getRuntime().maxMemory();
        if (max != Long.MAX_VALUE && 4L * Shapes.size(shape) > max) {
            throw exhausted(dtype, shape, op, "that is more than the whole heap");
        }
    }

    private static ResourceExhaustedException exhausted(DType dtype, int[] shape, String op, String why) {
        long bytes = 4L * Shapes.size(shape);
        long max = Runtime.getRuntime().maxMemory();
        return new ResourceExhaustedException("RESOURCE_EXHAUSTED: Out of memory while trying to allocate " + bytes
                + " bytes for " + op + " of " + dtype.shortName() + java.util.Arrays.toString(shape).replace(" ", "")
                + " (4 bytes per element on the heap): " + why + ", whose limit is " + max
                + " bytes (-Xmx). Make the array smaller, or shard it so that each device holds a part.", bytes, max);
    }
}
