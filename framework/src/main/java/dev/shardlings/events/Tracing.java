package dev.shardlings.events;

import dev.shardlings.array.DType;
import dev.shardlings.array.OpObserver;
import dev.shardlings.array.OpObservers;
import dev.shardlings.internal.Callers;
import dev.shardlings.internal.Ids;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * Records what a piece of code did: every {@code shardMap} call it made (per device: collectives, matmuls,
 * largest allocation) and the matmuls and allocations it made on the calling thread outside shardMap.
 *
 * <p>This is how the grader checks structural rules ("no collectives", "one all-gather of A over X",
 * "never materialise an [S, D, F] array"): it runs the student's function under {@link #record(Supplier)} and
 * reads the {@link Trace}. Recording is per thread: only work started from the calling thread is seen.
 * Recordings nest; an inner recording's events are also seen by the outer one.
 *
 * <p>Thread safety: a recording belongs to the thread that started it. shardMap's device threads report to it
 * when the call finishes, from the calling thread.
 */
public final class Tracing {

    private static final ThreadLocal<Recorder> CURRENT = new ThreadLocal<>();

    private Tracing() {
    }

    /** The value a traced computation returned, with its trace. */
    public record Traced<T>(T value, Trace trace) {
        /** @throws NullPointerException if trace is null (value may be null: the body may return null) */
        public Traced {
            Objects.requireNonNull(trace, "trace");
        }
    }

    /**
     * Runs {@code body} on this thread and returns its result with everything it did.
     *
     * @throws NullPointerException   if body is null
     * @throws IllegalCallerException when called from outside the framework in a run where it is a named module
     *                                (the grader's sandbox, where the sandbox's own loop is part of that module)
     * @throws RuntimeException       whatever {@code body} throws, unchanged (the partial trace is dropped)
     */
    @SuppressWarnings("try") // the observer scope is used for its close(), not read
    public static <T> Traced<T> record(Supplier<T> body) {
        Callers.requireFramework(WALKER.getCallerClass(), "Tracing.record");
        Objects.requireNonNull(body, "body");
        Recorder recorder = new Recorder(CURRENT.get());
        CURRENT.set(recorder);
        try (OpObservers.Scope ignored = OpObservers.install(recorder)) {
            T value = body.get();
            return new Traced<>(value, recorder.toTrace());
        } finally {
            CURRENT.set(recorder.parent);
        }
    }

    private static final StackWalker WALKER = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE);

    /**
     * Called by the SPMD runtime when a shardMap call on this thread has finished: every recording open on this
     * thread receives it. Does nothing when nothing is recording.
     *
     * @throws IllegalCallerException when called from anywhere but the framework's {@code ShardMap}: a trace
     *                                records what the runtime did, so user code cannot add to it
     */
    public static void report(ShardMapTrace trace) {
        Class<?> caller = WALKER.getCallerClass();
        Callers.requireFramework(caller, "Tracing.report");
        // By name and loader, as the trace package does not depend on spmd: a class of that name from another
        // loader (or shadowed on a class path) is not the runtime.
        if (!caller.getName().equals("dev.shardlings.spmd.ShardMap")
                || caller.getClassLoader() != Tracing.class.getClassLoader()) {
            throw new IllegalCallerException("only the SPMD runtime (ShardMap) reports to a trace; " + caller.getName()
                    + " cannot");
        }
        for (Recorder r = CURRENT.get(); r != null; r = r.parent) {
            r.shardMaps.add(trace);
        }
    }

    /** True when some recording is open on this thread. */
    public static boolean isRecording() {
        return CURRENT.get() != null;
    }

    private static final class Recorder implements OpObserver {
        final Recorder parent;
        final List<ShardMapTrace> shardMaps = new ArrayList<>();
        final List<TraceEvent> hostEvents = new ArrayList<>();
        long largest;

        Recorder(Recorder parent) {
            this.parent = parent;
        }

        @Override
        public void allocated(DType dtype, int[] shape, long bytes) {
            for (Recorder r = this; r != null; r = r.parent) {
                r.largest = Math.max(r.largest, bytes);
            }
        }

        @Override
        public void matmul(int m, int k, int n, DType dtype) {
            TraceEvent e = new TraceEvent.MatmulEvent(m, k, n, dtype, 2L * m * k * n, 0, List.of());
            for (Recorder r = this; r != null; r = r.parent) {
                r.hostEvents.add(e);
            }
        }

        /**
         * Host operations get ids too (not events: the host's matmuls are its events), so that an array made on
         * the host during the recording can be told from one made before it, or off the recording's thread.
         */
        @Override
        public long op(dev.shardlings.array.LocalOp op, DType dtype, int[] shape, long[] inputs, long flops,
                       long bytes) {
            long id = Ids.next();
            // Arithmetic on the host is kept (data movement and creation are not: devicePut and block reads do
            // them), so a grader can tell work done on the host from work done on the devices.
            dev.shardlings.array.OpKind kind = op.kind();
            if (kind == dev.shardlings.array.OpKind.ELEMENTWISE || kind == dev.shardlings.array.OpKind.REDUCTION
                    || kind == dev.shardlings.array.OpKind.ADD_N) {
                List<Integer> dims = new ArrayList<>();
                for (int d : shape) {
                    dims.add(d);
                }
                List<Long> in = new ArrayList<>();
                for (long i : inputs) {
                    in.add(i);
                }
                TraceEvent e = new TraceEvent.LocalOpEvent(op, dtype, dims, flops, bytes, id, in);
                for (Recorder r = this; r != null; r = r.parent) {
                    r.hostEvents.add(e);
                }
            }
            return id;
        }

        Trace toTrace() {
            return new Trace(shardMaps, hostEvents, largest);
        }
    }
}
