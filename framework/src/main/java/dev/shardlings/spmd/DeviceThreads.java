package dev.shardlings.spmd;

import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * The threads that run devices, and the one way every thread of the runtime waits for another.
 *
 * <p>Why not an executor: a shardMap call hands work to n threads, meets them at every collective and waits for
 * all of them at the end. With the devices of a mesh sharing two cores, a thread that parks at each of those
 * points pays a kernel wake-up (tens of µs on a virtual machine) every time, and the call costs several of them.
 * Here a waiting thread first gives its core away with {@link Thread#yield()} for a while — {@link #SPIN_NANOS},
 * or about one round of the mesh's threads ({@link #spinFor}) at a collective and between a big mesh's calls —
 * (the other devices are runnable, so they get the core, and the waiter sees the event at its next turn with no
 * wake-up), and only then parks until it is unparked. Idle device threads wait for their next task the same way,
 * so back-to-back calls find them awake. The calling thread runs device 0 itself (see {@link ShardMap}).
 *
 * <p>Why platform threads and not virtual threads (JDK 21+): measured on the 2-core machines this course targets
 * (docs/performance.md), a psum call on 8 virtual devices took 5 to 300 µs from run to run — a virtual thread's
 * wait either parks (and the carrier threads then sleep and wake through the kernel) or yields (and can starve
 * devices queued from outside the scheduler) — while these threads take a steady 18-20 µs on JDK 17 and 25
 * alike. Virtual threads are also not time-sliced: a device stuck in an endless loop would hold a carrier for
 * good, and with both carriers held no other device could reach its collective time limit to report it.
 * Platform threads are time-sliced by the operating system, so a stuck device slows the others but never
 * silences them.
 *
 * <p>Threads are daemons named {@code shardlings-device-N}; a thread idle for {@link #IDLE_RETIRE_SECONDS} ends.
 * A thread whose task never returns (student code in an endless loop) stays with that task; later calls get
 * other threads.
 */
final class DeviceThreads {

    /** How long a waiting thread yields its core before it parks, in nanoseconds. */
    static final long SPIN_NANOS = 100_000;
    /**
     * How long a device waiting at a collective yields, per device of the mesh, in nanoseconds (at least
     * {@link #SPIN_NANOS}, at most {@link #MAX_SPIN_NANOS}). Why it grows with the mesh: with hundreds of devices
     * on two cores a round of every runnable device takes longer than {@link #SPIN_NANOS}, so the first devices
     * would park before the last one posts and the step would end in hundreds of wake-ups through the kernel;
     * yielding for about one round keeps them runnable (measured: a psum call on 256 devices went from 3.3 ms to
     * 1.7 ms, docs/performance.md).
     */
    static final long SPIN_NANOS_PER_DEVICE = 4_000;
    /** The longest a waiter yields before it parks, in nanoseconds: a bound on the core time waiting can take. */
    static final long MAX_SPIN_NANOS = 2_000_000;
    /** A deadline meaning "wait as long as it takes" for {@link #await}. */
    static final long NO_DEADLINE = Long.MAX_VALUE;
    /** An idle device thread ends after this many seconds without work. */
    static final long IDLE_RETIRE_SECONDS = 60;

    private static final AtomicInteger COUNT = new AtomicInteger();
    /** Idle workers, most recently used first (their stacks and caches are warm). */
    private static final ConcurrentLinkedDeque<Worker> IDLE = new ConcurrentLinkedDeque<>();

    private DeviceThreads() {
    }

    /**
     * Runs {@code task} on an idle device thread (or a new one) and returns that thread, so the caller can
     * interrupt it. The task must not throw: it reports its own outcome.
     */
    static Thread start(Runnable task) {
        return start(task, SPIN_NANOS);
    }

    /**
     * {@link #start(Runnable)}, the thread then yielding for {@code idleSpinNanos} for its next task once this one
     * is done: a call on a big mesh takes longer than {@link #SPIN_NANOS}, and its threads would otherwise all
     * have parked by the time the next call hands them work, each then costing a wake-up through the kernel.
     */
    static Thread start(Runnable task, long idleSpinNanos) {
        Worker w;
        while ((w = IDLE.pollFirst()) != null) {
            if (w.state.compareAndSet(Worker.IDLE, Worker.BUSY)) {
                w.current = task;
                w.idleSpin = idleSpinNanos;
                w.task = task;
                LockSupport.unpark(w);
                return w;
            }
        }
        w = new Worker(task);
        w.idleSpin = idleSpinNanos;
        w.start();
        return w;
    }

    /**
     * Interrupts {@code thread} if it still runs {@code task}: an interrupt meant for a task that has finished must
     * not reach the next task the thread runs (a later shardMap call would see its device interrupted).
     */
    static void interrupt(Thread thread, Runnable task) {
        if (thread instanceof Worker w) {
            synchronized (w.interruptLock) {
                if (w.current == task) {
                    w.interrupt();
                }
            }
        } else {
            thread.interrupt();
        }
    }

    /**
     * Waits until {@code done} is true: yields the core for up to {@link #SPIN_NANOS}, then parks (woken by
     * {@link LockSupport#unpark} from whoever makes {@code done} true, or by the deadline).
     *
     * @param deadline a {@link System#nanoTime()} value after which to give up, or {@link #NO_DEADLINE}
     * @return true if done became true; false if the deadline passed first
     * @throws InterruptedException if the thread is interrupted while waiting (its interrupt status is cleared)
     */
    static boolean await(BooleanSupplier done, long deadline) throws InterruptedException {
        return await(done, deadline, SPIN_NANOS);
    }

    /** The spin before parking for a wait among {@code devices} devices (see {@link #SPIN_NANOS_PER_DEVICE}). */
    static long spinFor(int devices) {
        return Math.min(MAX_SPIN_NANOS, Math.max(SPIN_NANOS, devices * SPIN_NANOS_PER_DEVICE));
    }

    /**
     * {@link #await(BooleanSupplier, long)} yielding for {@code spinNanos} before it parks.
     *
     * @throws InterruptedException if the thread is interrupted while waiting (its interrupt status is cleared)
     */
    static boolean await(BooleanSupplier done, long deadline, long spinNanos) throws InterruptedException {
        long start = System.nanoTime();
        while (!done.getAsBoolean()) {
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            long now = System.nanoTime();
            long left = deadline == NO_DEADLINE ? Long.MAX_VALUE : deadline - now; // nanoTime may be negative
            if (left <= 0) {
                return false;
            }
            if (now - start < spinNanos) {
                Thread.yield();
            } else {
                // Bounded, so a lost unpark can only delay, never hang, and the deadline is honoured.
                LockSupport.parkNanos(Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)));
            }
        }
        return true;
    }

    /** A device thread: runs one task at a time, then waits for the next. */
    private static final class Worker extends Thread {
        static final int BUSY = 0;
        static final int IDLE = 1;
        static final int RETIRED = 2;

        final AtomicInteger state = new AtomicInteger(BUSY);
        volatile Runnable task;
        /** The task handed to this thread and not yet finished; {@link #interrupt(Thread, Runnable)} checks it. */
        volatile Runnable current;
        /** How long to yield for the next task before parking (set with each task, read after it). */
        volatile long idleSpin = SPIN_NANOS;
        /** Orders an interrupt against the end of a task (a lock of its own: a Thread's monitor is join's). */
        final Object interruptLock = new Object();

        Worker(Runnable first) {
            super("shardlings-device-" + COUNT.incrementAndGet());
            setDaemon(true); // a device stuck in student code must not keep the JVM alive
            this.task = first;
            this.current = first;
        }

        @Override
        public void run() {
            while (true) {
                Runnable t = task;
                task = null;
                try {
                    t.run();
                } catch (Throwable e) {
                    // Tasks report their own outcome; nothing should reach here, and the thread stays usable.
                }
                synchronized (interruptLock) {
                    // An interrupt aimed at the finished task must not hit the next one: from here on none is sent
                    // (current is no task), and one sent before is cleared.
                    current = null;
                    Thread.interrupted();
                }
                state.set(IDLE);
                DeviceThreads.IDLE.offerFirst(this);
                if (!awaitTask()) {
                    return;
                }
            }
        }

        /** Waits for the next task; false when retired after the idle limit. */
        private boolean awaitTask() {
            long retireAt = System.nanoTime() + TimeUnit.SECONDS.toNanos(IDLE_RETIRE_SECONDS);
            while (true) {
                try {
                    if (await(() -> task != null, retireAt, idleSpin)) {
                        return true;
                    }
                } catch (InterruptedException e) {
                    continue; // a stray interrupt: still idle
                }
                if (state.compareAndSet(IDLE, RETIRED)) {
                    DeviceThreads.IDLE.remove(this);
                    return false;
                }
                retireAt = NO_DEADLINE; // taken just now: the task is being handed over
            }
        }
    }
}
