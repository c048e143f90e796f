package dev.shardlings.array;

/**
 * The per-thread {@link GradRecorder}: which recorder (if any) sees the differentiable operations the current thread
 * runs. Per thread, like {@link OpObservers}, because each simulated device differentiates its own program.
 * Framework SPI for {@code dev.shardlings.autodiff}.
 */
public final class GradRecorders {
    private static final ThreadLocal<GradRecorder> CURRENT = new ThreadLocal<>();

    private GradRecorders() {
    }

    /**
     * Installs {@code r} on this thread until the scope is closed; the previous recorder is then restored.
     *
     * @param r the recorder, or null to record nothing inside the scope (the backward pass runs so)
     */
    public static OpObservers.Scope install(GradRecorder r) {
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

    /** The recorder installed on this thread, or null (the common case: nothing is differentiated). */
    public static GradRecorder current() {
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
