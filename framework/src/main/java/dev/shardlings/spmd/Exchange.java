package dev.shardlings.spmd;

import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.trace.Collective;
import dev.shardlings.sharding.Device;
import dev.shardlings.sharding.Mesh;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The rendezvous of one shardMap run. At each collective step every device posts what it calls and its operand,
 * waits until all devices of the mesh have posted the same step, and then reads its group members' operands.
 *
 * <p>Why a mesh-wide barrier rather than a per-group one: in SPMD every device runs the same program, so every
 * device must reach every collective; waiting for all of them lets the runtime check that they all called the
 * same thing and report a mismatch at once instead of hanging.
 *
 * <p>Two slots, by step parity, are enough: a device can post step k+2 only after every device has posted step
 * k+1, and a device posts k+1 only after it finished reading step k.
 *
 * <p>Failure: the first problem (a mismatch, a device that returned or threw while others wait, or the time
 * limit) aborts the run; every waiting device then throws {@link Aborted} and the runtime reports the problem.
 */
final class Exchange {

    /** What one device posts at a collective step. */
    record Post(Signature signature, NDArray operand) {
    }

    /**
     * What a device calls at a collective step; devices agree when their signatures are equal. The text is built
     * only for messages (building it at every step would cost more than a small collective).
     */
    record Signature(Collective kind, List<String> axes, DType dtype, int[] shape,
                     dev.shardlings.trace.CollectiveParams params) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Signature s && kind == s.kind && dtype == s.dtype && axes.equals(s.axes)
                    && Arrays.equals(shape, s.shape) && params.equals(s.params);
        }

        @Override
        public int hashCode() {
            return Objects.hash(kind, axes, dtype, Arrays.hashCode(shape), params);
        }

        @Override
        public String toString() {
            return kind.jaxName() + " over " + ShardMapErrors.tupleRepr(axes) + " of " + ShardMapErrors.typeString(dtype, shape)
                    + (params.text().isEmpty() ? "" : " (" + params.text() + ")");
        }
    }

    /** Thrown on devices that were waiting when the run was aborted because of something else. */
    static final class Aborted extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Aborted() {
            super("shardMap run aborted", null, false, false);
        }
    }

    private enum State { RUNNING, WAITING, RETURNED, FAILED }

    private final Mesh mesh;
    private final int n;
    private final long timeoutNanos;
    private final ReentrantLock lock = new ReentrantLock();
    private final Post[][] slots = new Post[2][];
    private final long[] slotStep = {-1, -1};
    private final int[] arrived = new int[2];
    /** The step each slot last completed (all devices posted and agreed); read by waiters without the lock. */
    private final AtomicLongArray completed = new AtomicLongArray(new long[] {-1, -1});
    /** Collectives each device has passed (written by the device itself, so no lock is needed to wake up). */
    private final AtomicIntegerArray passed;
    /** The thread of each device, as of its last post, to unpark at a step's end or an abort. */
    private final Thread[] threads;
    private final State[] states;
    private final int[] stepOf;           // collectives completed (RUNNING/RETURNED) or the step waited on (WAITING)
    private final Signature[] waitingOn;  // signature while WAITING
    private final String[] failure;       // exception summary while FAILED
    private volatile SpmdException abort;

    Exchange(Mesh mesh, long timeoutNanos) {
        this.mesh = mesh;
        this.n = mesh.size();
        this.timeoutNanos = timeoutNanos;
        this.states = new State[n];
        this.stepOf = new int[n];
        this.waitingOn = new Signature[n];
        this.failure = new String[n];
        this.passed = new AtomicIntegerArray(n);
        this.threads = new Thread[n];
        Arrays.fill(states, State.RUNNING);
    }

    /** The problem that aborted the run, or null. */
    SpmdException abortCause() {
        return abort;
    }

    /**
     * Posts this device's operand for collective number {@code step} and returns every device's post once all
     * have arrived and agree.
     *
     * @throws Aborted if the run was aborted (the runtime reports the reason)
     */
    Post[] exchange(int device, int step, Post post) {
        int s = step & 1;
        Post[] slot;
        Thread[] toWake = null;
        lock.lock();
        try {
            if (abort != null) {
                throw new Aborted();
            }
            if (slotStep[s] != step) {
                slotStep[s] = step;
                slots[s] = new Post[n];
                arrived[s] = 0;
            }
            slot = slots[s];
            slot[device] = post;
            arrived[s]++;
            states[device] = State.WAITING;
            stepOf[device] = step;
            waitingOn[device] = post.signature();
            threads[device] = Thread.currentThread();
            if (arrived[s] == n) {
                checkAgreement(step, slot);
                if (abort == null) {
                    completed.set(s, step);
                    toWake = threads.clone();
                }
            } else {
                checkNobodyGone(step);
            }
        } finally {
            lock.unlock();
        }
        if (toWake != null) {
            wake(toWake);
        } else {
            awaitStep(device, s, step);
        }
        if (abort != null) {
            throw new Aborted();
        }
        passed.set(device, step + 1);
        return slot;
    }

    /** Waits, outside the lock, until step {@code step} completes, the run aborts, or the time limit passes. */
    private void awaitStep(int device, int s, int step) {
        long deadline = System.nanoTime() + timeoutNanos;
        try {
            if (DeviceThreads.await(() -> completed.get(s) == step || abort != null, deadline)) {
                return;
            }
            lock.lock();
            try {
                if (abort == null && completed.get(s) != step) {
                    abortWith("devices waited more than " + TimeUnit.NANOSECONDS.toMillis(timeoutNanos)
                            + " ms in collective #" + (step + 1) + " for devices that never arrived (a device is"
                            + " slow, loops forever, or skipped this collective)");
                }
            } finally {
                lock.unlock();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            lock.lock();
            try {
                if (abort == null && completed.get(s) != step) {
                    abortWith("a device thread was interrupted while waiting in collective #" + (step + 1));
                }
            } finally {
                lock.unlock();
            }
        }
    }

    /** Unparks the threads that posted (a thread that is not parked keeps the permit; every wait is a loop). */
    private static void wake(Thread[] ts) {
        Thread self = Thread.currentThread();
        for (Thread t : ts) {
            if (t != null && t != self) {
                LockSupport.unpark(t);
            }
        }
    }

    /** Marks a device as returned from the function after {@code steps} collectives. */
    void returned(int device, int steps) {
        lock.lock();
        try {
            states[device] = State.RETURNED;
            stepOf[device] = steps;
            if (abort == null) {
                for (int i = 0; i < n; i++) {
                    // A device still marked WAITING on an earlier step has only not woken up yet: that barrier
                    // completed (this device took part in it). Waiting on a later step is a real mismatch.
                    if (states[i] == State.WAITING && stepOf[i] >= steps) {
                        abortWith("device " + describe(device) + " returned from the function after " + steps
                                + " collective(s) while other devices wait in collective #" + (stepOf[i] + 1)
                                + "; every device must call the same collectives in the same order");
                        break;
                    }
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /** Marks a device as failed with its own exception; waiting devices are released. */
    void failed(int device, Throwable t) {
        lock.lock();
        try {
            states[device] = State.FAILED;
            failure[device] = t.getClass().getSimpleName() + (t.getMessage() == null ? "" : ": " + firstLine(t.getMessage()));
            if (abort == null) {
                // Not a mismatch: the runtime reports the device's own exception, so this text is only a marker.
                abort = new SpmdException("device " + describe(device) + " failed", t);
                wake(threads);
            }
        } finally {
            lock.unlock();
        }
    }

    private void checkAgreement(int step, Post[] slot) {
        Signature first = slot[0].signature();
        boolean all = true;
        for (int i = 1; i < n && all; i++) {
            all = first.equals(slot[i].signature());
        }
        if (all) {
            return;
        }
        Map<Signature, List<Integer>> bySignature = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            bySignature.computeIfAbsent(slot[i].signature(), k -> new ArrayList<>()).add(i);
        }
        if (bySignature.size() > 1) {
            StringBuilder sb = new StringBuilder("devices called different collectives at collective #")
                    .append(step + 1).append(":");
            for (Map.Entry<Signature, List<Integer>> e : bySignature.entrySet()) {
                sb.append("\n  ").append(e.getKey()).append(" on device(s) ").append(ids(e.getValue()));
            }
            sb.append("\nEvery device must call the same collective, over the same axes, with the same operand shape,"
                    + " dtype and parameters, in the same order.");
            abortWith(sb.toString());
        }
    }

    private void checkNobodyGone(int step) {
        for (int i = 0; i < n; i++) {
            if (states[i] == State.RETURNED) {
                abortWith("device " + describe(i) + " returned from the function after " + stepOf[i]
                        + " collective(s), but other devices wait in collective #" + (step + 1)
                        + "; every device must call the same collectives in the same order");
                return;
            }
        }
    }

    private void abortWith(String reason) {
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            lines.add(describe(i) + ": " + stateText(i));
        }
        StringBuilder sb = new StringBuilder("shardMap collectives do not match: ").append(reason).append("\nDevices:");
        for (String l : lines) {
            sb.append("\n  ").append(l);
        }
        abort = new CollectiveMismatchException(sb.toString(), lines);
        wake(threads);
    }

    private String stateText(int i) {
        return switch (states[i]) {
            // WAITING is set under the lock at a post; the device itself records passing the step without it.
            case WAITING -> passed.get(i) > stepOf[i]
                    ? "running after " + passed.get(i) + " collective(s)"
                    : "waits in collective #" + (stepOf[i] + 1) + ": " + waitingOn[i];
            case RUNNING -> "running after " + stepOf[i] + " collective(s)";
            case RETURNED -> "returned after " + stepOf[i] + " collective(s)";
            case FAILED -> "failed: " + failure[i];
        };
    }

    private String describe(int flat) {
        Device d = mesh.devices().get(flat);
        return d.id() + " " + coordsText(mesh, d);
    }

    private String ids(List<Integer> flats) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < flats.size(); i++) {
            if (i > 0) {
                sb.append(", ");
            }
            sb.append(describe(flats.get(i)));
        }
        return sb.toString();
    }

    /** {@code (x=1, y=0)}: a device's coordinates with axis names. */
    static String coordsText(Mesh mesh, Device d) {
        StringBuilder sb = new StringBuilder("(");
        for (int a = 0; a < mesh.rank(); a++) {
            if (a > 0) {
                sb.append(", ");
            }
            sb.append(mesh.axisNames().get(a)).append('=').append(d.coords().get(a));
        }
        return sb.append(')').toString();
    }

    private static String firstLine(String s) {
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl) + " …";
    }
}
