package dev.shardlings.array;

/**
 * Sees the work that {@link NDArray} operations do on the current thread: every new data buffer and every
 * matrix multiplication. The SPMD runtime and the grader's trace install one per device thread with
 * {@link OpObservers#install(OpObserver)} to count memory and FLOPs.
 *
 * <p>Calls arrive synchronously on the thread that runs the operation, so an implementation used by one thread
 * needs no synchronisation.
 */
public interface OpObserver {
    /**
     * Called once for every new NDArray buffer: bytes = elements * dtype.byteSize(). Views that share a buffer
     * (reshape, withVaryingAxes, pvary, ...) are not reported.
     *
     * @param dtype the element type of the new buffer
     * @param shape the shape of the new array (a copy the observer may keep)
     * @param bytes {@code size * dtype.byteSize()}
     */
    void allocated(DType dtype, int[] shape, long bytes);

    /**
     * Called once per matmul [m,k]·[k,n]; FLOPs = 2·m·k·n.
     *
     * @param m rows of the left operand
     * @param k contracting dimension
     * @param n columns of the right operand
     * @param dtype dtype of the result
     */
    void matmul(int m, int k, int n, DType dtype);
}
