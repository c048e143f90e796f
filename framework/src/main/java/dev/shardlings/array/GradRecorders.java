package dev.shardlings.array;

import dev.shardlings.internal.Callers;

/**
 * The per-thread {@link GradRecorder}: which recorder (if any) sees the differentiable operations the current thread
 * runs. Per thread, like {@link OpObservers}, because each simulated device differentiates its own program.
 * Framework SPI for {@code dev.shardlings.autodiff}.
 */
public final class GradRecorders {
    private static final ThreadLocal<GradRecorder> CURRENT = new ThreadLocal<>();
    private static final StackWalker WALKER = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE);

    private GradRecorders() {
    }

    /**
     * Installs {@code r} on this thread until the scope is closed; the previous recorder is then restored.
     *
     * Framework code only where the framework is a named module (the grader's sandbox), as for
     * {@link OpObservers#install}: with the live tape in hand, graded code could record a node for a product that
     * never ran, or run recomputed work unrecorded.
     *
     * @param r the recorder, or null to record nothing inside the scope (the backward pass runs so)
     * @throws IllegalCallerException when called from outside the framework in a run where it is a named module
     */
    public static OpObservers.Scope install(GradRecorder r) {
        Callers.requireFramework(WALKER.getCallerClass(), "GradRecorders.install");
        final Thread owner = Thread.currentThread();
        final GradRecorder previous = CURRENT.get();
        set(r);
        return new OpObservers.Scope() {
            private boolean closed;

            @Override
            public void close() {
                if (closed) {
                    return;
                }
                if (Thread.currentThread() != owner) {
                    throw new IllegalStateException("a GradRecorders scope must be closed on the thread that opened it");
                }
                closed = true;
                set(previous);
            }
        };
    }

    /**
     * The recorder installed on this thread, or null (the common case: nothing is differentiated).
     *
     * @throws IllegalCallerException when called from outside the framework in a run where it is a named module:
     *                                the recorder is the live tape, which graded code must not write to
     */
    public static GradRecorder current() {
        Callers.requireFramework(WALKER.getCallerClass(), "GradRecorders.current");
        return CURRENT.get();
    }

    private static void set(GradRecorder r) {
        if (r == null) {
            CURRENT.remove();
        } else {
            CURRENT.set(r);
        }
    }
}
