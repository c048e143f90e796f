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

    /**
     * {@link #matmul(int, int, int, DType)} of operands of dtype {@code operandDtype} (bfloat16 for a
     * float32-accumulating matmul of bfloat16 operands, also where they were widened to float32 for it); by
     * default that dtype is dropped.
     */
    default void matmul(int m, int k, int n, DType dtype, DType operandDtype) {
        matmul(m, k, n, dtype);
    }

    /**
     * {@link #matmul(int, int, int, DType, DType)} of a left operand of dtype {@code lhs} and a right one of
     * {@code rhs} (they differ in a bfloat16 × float32 dot); by default reported as of their promoted dtype.
     */
    default void matmul(int m, int k, int n, DType dtype, DType lhs, DType rhs) {
        matmul(m, k, n, dtype, DType.promoteTypes(lhs, rhs));
    }

    /**
     * Called once for every operation that made a new buffer (after {@link #allocated}, and after
     * {@link #matmul} for a matmul), with what the cost model needs: which arrays it read and how much work it
     * did. The id returned is carried by the result (and by views of it) and comes back in {@code inputs} of the
     * operations that read it, so an observer can rebuild the dataflow graph of a program.
     *
     * @param op     the operation: its family and name, and by its {@link LocalOp#kind()} how it is costed and
     *               whether it fuses into its consumer
     * @param dtype  the result's dtype
     * @param shape  the result's shape (a copy the observer may keep)
     * @param inputs the ids of the arrays read, in operand order; 0 for an array made while no observer gave ids
     * @param flops  arithmetic operations: 2·m·k·n for a matmul, one per result element for elementwise
     *               operations, one per operand element for reductions, 0 for data movement and creation
     * @param bytes  bytes read plus bytes written (data movement reads what it writes)
     * @return the id of the result, or 0 when this observer does not track the dataflow (the default)
     */
    default long op(LocalOp op, DType dtype, int[] shape, long[] inputs, long flops, long bytes) {
        return 0;
    }

    /**
     * Called when a differentiation tape on this thread starts or stops holding arrays for its backward pass
     * (residuals: the values a vjp rule reads), so an observer can model activation memory. Nothing is allocated:
     * the arrays exist already; what changes is how long they must stay.
     *
     * @param deltaBytes bytes newly held (positive) or released (negative)
     */
    default void residuals(long deltaBytes) {
    }

    /** Whose work the matmuls this thread runs now are, as the trace splits its FLOPs. */
    enum Work {
        /** The program's own code (also a pullback it handed a tape itself): the default. */
        PROGRAM,
        /** A differentiation tape's vjp rules, pulling cotangents back. */
        PULLBACK,
        /** A checkpointed block run forward again by the backward pass. */
        RECOMPUTE
    }

    /**
     * Called by the differentiation tapes as their backward pass enters and leaves their own rules and a
     * checkpoint's recomputation, so an observer can tell the autodiff's work from a backward pass written by hand
     * (only the framework reaches a device's observer: {@link OpObservers#current()} refuses course code).
     *
     * @param work what the matmuls that follow are part of
     * @return what they were part of before, to restore
     */
    default Work work(Work work) {
        return Work.PROGRAM;
    }
}
