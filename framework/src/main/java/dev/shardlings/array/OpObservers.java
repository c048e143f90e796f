package dev.shardlings.array;

import dev.shardlings.internal.Callers;

/**
 * The per-thread {@link OpObserver} registry: which observer (if any) sees the operations run by the current
 * thread. Per thread because every simulated device runs on its own thread and must be accounted separately.
 *
 * <pre>{@code
 * try (OpObservers.Scope s = OpObservers.install(myObserver)) {
 *     a.matmul(b);              // myObserver.matmul(...) and myObserver.allocated(...)
 * }                             // previous observer restored
 * }</pre>
 */
public final class OpObservers {
    private static final ThreadLocal<OpObserver> CURRENT = new ThreadLocal<>();

    private OpObservers() {
    }

    /**
     * A region during which an observer is installed; closing it restores the observer that was installed
     * before. {@link #close()} throws no checked exception so it fits try-with-resources without a catch.
     */
    public interface Scope extends AutoCloseable {
        /**
         * Restores the previously installed observer. Closing twice is a no-op.
         *
         * @throws IllegalStateException if called from a thread other than the one that installed the observer
         */
        @Override
        void close();
    }

    /**
     * Installs {@code o} for the current thread until the returned Scope is closed (restores the previous one).
     * Scopes nest: close them in reverse order of installation (try-with-resources does this). Framework code
     * only where the framework is a named module (the grader's sandbox): an observer sees and ids every
     * operation, so installing one is how a trace is written.
     *
     * @param o the observer, or {@code null} to observe nothing inside the scope
     * @return the scope to close
     * @throws IllegalCallerException when called from outside the framework in a run where it is a named module
     */
    public static Scope install(OpObserver o) {
        Callers.requireFramework(WALKER.getCallerClass(), "OpObservers.install");
        final Thread owner = Thread.currentThread();
        final OpObserver previous = CURRENT.get();
        set(o);
        return new Scope() {
            private boolean closed;

            @Override
            public void close() {
                if (closed) {
                    return;
                }
                if (Thread.currentThread() != owner) {
                    throw new IllegalStateException("OpObservers scope installed on thread '" + owner.getName()
                            + "' must be closed on that thread, not on '" + Thread.currentThread().getName()
                            + "': observers are per thread");
                }
                closed = true;
                set(previous);
            }
        };
    }

    /**
     * The observer installed on the current thread; may be null.
     *
     * @throws IllegalCallerException when called from outside the framework in a run where it is a named module
     *                                (the grader's sandbox): the observer is the trace's recorder
     */
    public static OpObserver current() {
        Callers.requireFramework(WALKER.getCallerClass(), "OpObservers.current");
        return CURRENT.get();
    }

    private static final OpObserver IDS_ONLY = new OpObserver() {
        @Override
        public void allocated(DType dtype, int[] shape, long bytes) {
        }

        @Override
        public void matmul(int m, int k, int n, DType dtype) {
        }

        @Override
        public long op(LocalOp op, DType dtype, int[] shape, long[] inputs, long flops, long bytes) {
            return dev.shardlings.internal.Ids.next();
        }
    };

    /**
     * An observer that records nothing and gives every array made under it a fresh id: for framework code that
     * makes arrays outside any recording's view but during a call (laying out or assembling blocks, decoding a
     * call's arguments), so that the grader's provenance check knows them as made during the call.
     */
    public static OpObserver idsOnly() {
        return IDS_ONLY;
    }

    /** {@link #current()} for this package's hot paths (every operation asks), without the caller check. */
    static OpObserver observer() {
        return CURRENT.get();
    }

    private static final StackWalker WALKER = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE);

    private static void set(OpObserver o) {
        if (o == null) {
            CURRENT.remove(); // do not leave entries behind on pooled threads
        } else {
            CURRENT.set(o);
        }
    }

    /** Reports a new buffer of {@code shape} elements of {@code dtype} to the installed observer, if any. */
    static void allocated(DType dtype, int[] shape) {
        OpObserver o = observer();
        if (o != null) {
            long elements = 1;
            for (int d : shape) {
                elements *= d;
            }
            o.allocated(dtype, shape.clone(), elements * dtype.byteSize());
        }
    }

    /** Reports an operation to the installed observer, if any; the id its result carries (0 without one). */
    static long op(LocalOp op, DType dtype, int[] shape, long[] inputs, long flops, long bytes) {
        OpObserver o = observer();
        return o == null ? 0 : o.op(op, dtype, shape.clone(), inputs, flops, bytes);
    }

    /**
     * The id of the operation that produced {@code x}'s buffer, as returned by {@link OpObserver#op} when it was
     * made (views share it); 0 when it was made while no observer gave ids.
     *
     * @throws NullPointerException if x is null
     */
    public static long originOf(NDArray x) {
        return java.util.Objects.requireNonNull(x, "x").origin();
    }

    /** Reports a matmul [m,k]·[k,n] with result dtype {@code dtype} to the installed observer, if any. */
    static void matmul(int m, int k, int n, DType dtype) {
        matmul(m, k, n, dtype, dtype);
    }

    /** As {@link #matmul(int, int, int, DType)}, of operands the caller passed in {@code operandDtype}. */
    static void matmul(int m, int k, int n, DType dtype, DType operandDtype) {
        matmul(m, k, n, dtype, operandDtype, operandDtype);
    }

    /** As {@link #matmul(int, int, int, DType)}, of a left operand in {@code lhs} and a right one in {@code rhs}. */
    static void matmul(int m, int k, int n, DType dtype, DType lhs, DType rhs) {
        OpObserver o = observer();
        if (o != null) {
            o.matmul(m, k, n, dtype, lhs, rhs);
        }
    }
}
