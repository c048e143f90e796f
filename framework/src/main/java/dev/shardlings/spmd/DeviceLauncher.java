package dev.shardlings.spmd;

import dev.shardlings.array.NDArray;
import dev.shardlings.array.OpObservers;
import dev.shardlings.sharding.Mesh;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Runs a shardMap function on every device of a mesh at once and collects what each returned or threw. Device 0
 * runs on the calling thread, the others on {@link DeviceThreads}; the devices meet at collectives in one
 * {@link Exchange}. The call returns only after every device has finished.
 */
final class DeviceLauncher {

    /** What the devices returned (mesh order) and their contexts, which hold their traces. */
    record Run(List<List<NDArray>> outputs, DeviceContext[] contexts) {
    }

    private DeviceLauncher() {
    }

    /**
     * Runs {@code fn} on every device, device d on {@code args.get(d)}.
     *
     * @param groups   the axis groups cache of the shardMap (shared by its calls)
     * @param tracing  whether the devices record trace events
     * @param checkVma whether collectives check their operands' varying axes
     * @throws DeviceFailureException      if the function threw on a device (the first in mesh order)
     * @throws CollectiveMismatchException if the devices' collectives did not line up, or one waited too long
     * @throws IllegalStateException       if the calling thread was interrupted while waiting for the devices: the
     *                                     devices are interrupted in turn, and this is thrown once every one has
     *                                     stopped (a device that ignores its interrupt keeps the caller waiting)
     */
    static Run launch(ShardMap.DeviceFunction fn, String name, Mesh mesh, List<List<NDArray>> args,
                      long timeoutNanos, Map<List<String>, AxisGroups> groups, boolean tracing, boolean checkVma) {
        int n = mesh.size();
        Exchange exchange = new Exchange(mesh, timeoutNanos);
        DeviceContext[] contexts = new DeviceContext[n];
        @SuppressWarnings({"unchecked", "rawtypes"}) // an array of a generic type can only be made raw
        List<NDArray>[] results = new List[n];
        Throwable[] failures = new Throwable[n];
        Thread[] threads = new Thread[n];
        AtomicInteger running = new AtomicInteger(n);
        Thread caller = Thread.currentThread();
        Runnable[] tasks = new Runnable[n];
        for (int d = 0; d < n; d++) {
            List<NDArray> myArgs = args.get(d);
            DeviceContext ctx = new DeviceContext(mesh, d, exchange, groups, tracing, checkVma, myArgs);
            contexts[d] = ctx;
            int device = d;
            tasks[d] = () -> {
                try {
                    results[device] = runDevice(fn, ctx, myArgs);
                } catch (Throwable t) {
                    failures[device] = t;
                } finally {
                    // The decrement publishes this device's result to the caller (happens-before).
                    if (running.decrementAndGet() == 0 && Thread.currentThread() != caller) {
                        LockSupport.unpark(caller);
                    }
                }
            };
        }
        // The calling thread runs device 0 itself, which saves a hand-off each way.
        threads[0] = caller;
        long idleSpin = DeviceThreads.spinFor(n);
        for (int d = 1; d < n; d++) {
            threads[d] = DeviceThreads.start(tasks[d], idleSpin);
        }
        tasks[0].run();
        // Never return while a device still runs the function: a device thread that outlived its call would run
        // code no later call's trace covers (device code that interrupts its caller, then loops, would otherwise
        // keep a thread of the runtime's for itself). An interrupt is passed on to the devices, and the caller
        // goes on waiting for them to stop.
        InterruptedException interrupted = null;
        while (true) {
            try {
                DeviceThreads.await(() -> running.get() == 0, DeviceThreads.NO_DEADLINE);
                break;
            } catch (InterruptedException e) {
                if (interrupted == null) {
                    interrupted = e;
                    for (int d = 1; d < n; d++) {
                        DeviceThreads.interrupt(threads[d], tasks[d]);
                    }
                }
            }
        }
        if (interrupted != null) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the devices of shardMap (they were"
                    + " interrupted, and have stopped)", interrupted);
        }
        raiseFailures(name, mesh, exchange, failures);
        return new Run(Arrays.asList(results), contexts);
    }

    @SuppressWarnings("try") // the scope is used for its close(), not read
    private static List<NDArray> runDevice(ShardMap.DeviceFunction fn, DeviceContext ctx, List<NDArray> args) {
        ctx.bind();
        try (OpObservers.Scope ignored = OpObservers.install(ctx)) {
            List<NDArray> out;
            try {
                out = List.copyOf(ShardMapErrors.checkResultList(fn.apply(args)));
            } catch (Exchange.Aborted a) {
                throw a;
            } catch (Throwable t) {
                ctx.exchange.failed(ctx.flat, t);
                throw t;
            }
            ctx.exchange.returned(ctx.flat, ctx.steps());
            return out;
        } finally {
            DeviceContext.unbind();
        }
    }

    /** Throws the mismatch, else the first device's own failure, else the abort (a time limit); or nothing. */
    private static void raiseFailures(String name, Mesh mesh, Exchange exchange, Throwable[] failures) {
        int first = -1;
        int own = 0;
        for (int d = 0; d < failures.length; d++) {
            Throwable t = failures[d];
            if (t != null && !(t instanceof Exchange.Aborted)) {
                own++;
                if (first < 0) {
                    first = d;
                }
            }
        }
        SpmdException abort = exchange.abortCause();
        if (abort instanceof CollectiveMismatchException m) {
            throw m;
        }
        if (first >= 0) {
            throw ShardMapErrors.deviceFailure(name, mesh, mesh.devices().get(first), own - 1, failures[first]);
        }
        if (abort != null) {
            throw abort;
        }
    }
}
