package dev.shardlings.spmd;

import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.events.Collective;
import dev.shardlings.sharding.Device;
import dev.shardlings.sharding.Mesh;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

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
class Exchange {

    /** What one device posts at a collective step. */
    record Post(Signature signature, NDArray operand) {
    }

    /**
     * What a device gets back from a step: every device's post (mesh order) and what the step's combiner made of
     * them (null without one). Valid until the step after next completes; read it before posting again.
     */
    record Arrival(Post[] posts, Object combined) {
    }

    /**
     * What a device calls at a collective step; devices agree when their signatures are equal. The text is built
     * only for messages (building it at every step would cost more than a small collective).
     */
    record Signature(Collective kind, List<String> axes, DType dtype, int[] shape,
                     dev.shardlings.events.CollectiveParams params) {
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
    /** How long a waiter yields before it parks ({@link DeviceThreads#spinFor}). */
    private final long spinNanos;
    /** Taken by the device that completes a step and on the rare paths (a return, a failure, an abort). */
    private final ReentrantLock lock = new ReentrantLock();
    /**
     * The posts of the step each slot is set up for. Slot 0 is set up for step 0 here; the device that completes
     * step k sets up the other slot for step k + 1 before it publishes the completion (nobody can have posted
     * k + 1 yet, and everybody has finished reading k − 1, which that slot held).
     */
    private final Post[][] slots = new Post[2][];
    /** What each slot's combiner made of its posts, written by the completer before it publishes the step. */
    private final Object[] combined = new Object[2];
    /** Posts so far in each slot's step; the device whose post makes it n completes the step. */
    private final AtomicIntegerArray arrived = new AtomicIntegerArray(2);
    /** The step each slot last completed (all devices posted and agreed); read by waiters without the lock. */
    private final AtomicLongArray completed = new AtomicLongArray(new long[] {-1, -1});
    /** Collectives each device has passed (written by the device itself, so no lock is needed to wake up). */
    private final AtomicIntegerArray passed;
    /** The thread of each device, as of its last post, to unpark at a step's end or an abort. */
    private final Thread[] threads;
    /**
     * Each device's state, written by the device itself before it posts or returns (so whoever sees its post or
     * return sees its state), read for the checks and the messages.
     */
    private final AtomicReferenceArray<State> states;
    private final AtomicIntegerArray stepOf;  // collectives completed (RUNNING/RETURNED) or the step waited on (WAITING)
    private final AtomicReferenceArray<Signature> waitingOn;  // signature while WAITING
    private final String[] failure;       // exception summary while FAILED (under the lock)
    /** The device whose post completed each slot's step: the root of that step's wake-up tree. */
    private final int[] completer = new int[2];
    /**
     * Devices that have returned from the function. A post reads it after counting itself in, and a return reads
     * the arrivals after counting itself here, so of a post and a return that race one always sees the other.
     */
    private final AtomicInteger returnedCount = new AtomicInteger();
    private volatile SpmdException abort;

    Exchange(Mesh mesh, long timeoutNanos) {
        this.mesh = mesh;
        this.n = mesh.size();
        this.timeoutNanos = timeoutNanos;
        this.spinNanos = DeviceThreads.spinFor(n);
        this.states = new AtomicReferenceArray<>(n);
        this.stepOf = new AtomicIntegerArray(n);
        this.waitingOn = new AtomicReferenceArray<>(n);
        this.failure = new String[n];
        this.passed = new AtomicIntegerArray(n);
        this.threads = new Thread[n];
        for (int i = 0; i < n; i++) {
            states.set(i, State.RUNNING);
        }
        slots[0] = new Post[n];
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
        return exchange(device, step, post, null).posts();
    }

    /**
     * {@link #exchange(int, int, Post)}, and {@code combine} (when not null) applied once to all the posts by the
     * device that completes the step, before any device goes on: work every device would otherwise repeat, such
     * as the sums of a psum, is done once. Every device must pass an equivalent combiner; the completer's runs.
     *
     * @throws Aborted if the run was aborted (the runtime reports the reason)
     * @throws RuntimeException whatever {@code combine} throws, on the device that ran it (the others are then
     *                          aborted when that device reports its failure)
     */
    Arrival exchange(int device, int step, Post post, Function<Post[], Object> combine) {
        if (abort != null) {
            throw new Aborted();
        }
        int s = step & 1;
        // Set up by the completer of step - 1, whose completion this device saw (or by the constructor).
        Post[] slot = slots[s];
        boolean completedHere = false;
        // Why no lock here: with hundreds of devices sharing two cores, a thread preempted while holding a
        // mesh-wide lock made every other poster queue behind it; each device writes only its own entries, and
        // the count of arrivals orders them for the device that completes the step.
        slot[device] = post;
        threads[device] = Thread.currentThread();
        waitingOn.set(device, post.signature());
        stepOf.set(device, step);
        states.set(device, State.WAITING);
        boolean last = arrived.incrementAndGet(s) == n;
        if (!last) {
            countedIn(device, step);
        }
        if (last) {
            lock.lock();
            try {
                if (abort == null) {
                    checkAgreement(step, slot);
                }
                if (abort == null) {
                    combined[s] = combine == null ? null : combine.apply(slot);
                    slots[s ^ 1] = new Post[n];
                    arrived.set(s ^ 1, 0);
                    completer[s] = device;
                    completed.set(s, step);
                    completedHere = true;
                }
            } finally {
                lock.unlock();
            }
        } else if (returnedCount.get() > 0) {
            lock.lock();
            try {
                if (abort == null) {
                    checkNobodyGone(step);
                }
            } finally {
                lock.unlock();
            }
        }
        if (!completedHere) {
            awaitStep(device, s, step);
        }
        if (abort != null) {
            throw new Aborted();
        }
        wakeChildren(device, s);
        passed.set(device, step + 1);
        return new Arrival(slot, combined[s]);
    }

    /**
     * Called on a device whose post counted itself in but did not complete the step, before it checks the returns:
     * the window in which the step can complete and a fast device can finish the function. Does nothing; the class
     * is not final so that a subclass in this package can hold the window open.
     */
    void countedIn(int device, int step) {
    }

    /** Waits, outside the lock, until step {@code step} completes, the run aborts, or the time limit passes. */
    private void awaitStep(int device, int s, int step) {
        long deadline = System.nanoTime() + timeoutNanos;
        try {
            if (DeviceThreads.await(() -> completed.get(s) == step || abort != null, deadline, spinNanos)) {
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

    /**
     * Passes a completed step's wake-up on: the devices form a binary tree rooted at the completer (in device order
     * from it), and each device, once past the step, unparks its two children. Why a tree: a thread that has
     * yielded long enough parks, and unparking one costs a system call; with hundreds of devices on two cores, one
     * thread unparking all the others made the wake-up of a step grow with the square of the devices (every
     * woken thread waited behind the whole list), while a tree spreads the calls over every core and every woken
     * thread, depth log2(n). Unparking a thread that is not parked only leaves it a permit: every wait is a loop.
     */
    private void wakeChildren(int device, int s) {
        int root = completer[s];
        int rel = Math.floorMod(device - root, n);
        for (int c = 2 * rel + 1; c <= 2 * rel + 2 && c < n; c++) {
            Thread t = threads[(root + c) % n];
            if (t != null && t != Thread.currentThread()) {
                LockSupport.unpark(t);
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
        stepOf.set(device, steps);
        states.set(device, State.RETURNED);
        returnedCount.incrementAndGet();
        // Only a device waiting in step `steps` can be left behind (no later step can complete without this
        // device); the slot of that step was set up when step steps - 1 completed, which this device passed.
        if (arrived.get(steps & 1) == 0) {
            return;
        }
        lock.lock();
        try {
            if (abort == null) {
                for (int i = 0; i < n; i++) {
                    // A device still marked WAITING on an earlier step has only not woken up yet: that barrier
                    // completed (this device took part in it). Waiting on a later step is a real mismatch.
                    if (states.get(i) == State.WAITING && stepOf.get(i) >= steps) {
                        abortWith("device " + describe(device) + " returned from the function after " + steps
                                + " collective(s) while other devices wait in collective #" + (stepOf.get(i) + 1)
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
            states.set(device, State.FAILED);
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
            // Only a device that returned before posting this step leaves it unfinished. One that returned after
            // more collectives took part in it: between this device counting itself in and reading the returns,
            // the step can complete and a fast device can finish the function.
            if (states.get(i) == State.RETURNED && stepOf.get(i) <= step) {
                abortWith("device " + describe(i) + " returned from the function after " + stepOf.get(i)
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
        return switch (states.get(i)) {
            // WAITING is set at a post; the device records passing the step separately.
            case WAITING -> passed.get(i) > stepOf.get(i)
                    ? "running after " + passed.get(i) + " collective(s)"
                    : "waits in collective #" + (stepOf.get(i) + 1) + ": " + waitingOn.get(i);
            case RUNNING -> "running after " + stepOf.get(i) + " collective(s)";
            case RETURNED -> "returned after " + stepOf.get(i) + " collective(s)";
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
