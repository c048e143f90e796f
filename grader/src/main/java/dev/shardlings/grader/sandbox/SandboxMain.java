package dev.shardlings.grader.sandbox;

import dev.shardlings.ExerciseNotDone;
import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.array.OpObserver;
import dev.shardlings.array.OpObservers;
import dev.shardlings.internal.Ids;
import dev.shardlings.grader.sandbox.Wire.Reply;
import dev.shardlings.grader.sandbox.Wire.Request;
import dev.shardlings.grader.sandbox.Wire.Thrown;
import dev.shardlings.grader.sandbox.Wire.ThrownKind;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.spmd.CollectiveMismatchException;
import dev.shardlings.spmd.DeviceFailureException;
import dev.shardlings.spmd.ShardedArray;
import dev.shardlings.events.Trace;
import dev.shardlings.events.Tracing;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The sandbox JVM's main: it runs student code and nothing else. Its class path holds the framework, this package
 * and the course classes (last); no oracle, no check, no solution, no grade. It reads {@link Request}s from its
 * standard input, calls the named course method on the decoded arguments under {@link Tracing#record}, and writes
 * one {@link Reply} per request to its standard output. Student prints ({@code System.out} and
 * {@code System.err}) go to standard error, which the judge reads with a cap.
 *
 * <p>Nothing here decides a grade: the judge compares what comes back with its own oracles. A student who
 * replaces this loop (with code that writes to the pipe itself) can only answer the judge's questions, as their
 * methods could; see docs/grading-integrity.md.
 *
 * <p>Usage: {@code SandboxMain} (no arguments); it ends when its standard input closes.
 */
public final class SandboxMain {

    /** The course's package; the only classes a request may name. */
    static final String COURSE = "dev.shardlings.course.";
    /** The course classes a request may name. */
    static final Set<String> CLASSES = Set.copyOf(CourseClasses.NAMES);

    private static final Map<String, Class<?>> TYPES = Map.of("ShardedArray", ShardedArray.class,
            "NDArray", NDArray.class, "Mesh", Mesh.class, "int", int.class, "float", float.class, "List",
            java.util.List.class);

    private SandboxMain() {
    }

    public static void main(String[] args) throws Exception {
        // Keep the protocol's streams for ourselves before any student class is loaded; prints go to stderr.
        // Buffered: a frame is then one read and one write, not a system call (and a wake-up of the judge) a byte.
        InputStream requests = new BufferedInputStream(new FileInputStream(FileDescriptor.in), 1 << 16);
        OutputStream replies = new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 16);
        // Prints are buffered and flushed by a thread of ours a few milliseconds later, at the end of each call and
        // at exit: a submission that prints in small pieces (a line per write, autoflushed) made a system call and
        // a wake-up of the judge per line, and 200 MB of it took longer than a part's limit on a loaded machine.
        PrintStream prints = new PrintStream(new BufferedOutputStream(new FileOutputStream(FileDescriptor.err),
                PRINT_BUFFER), false, StandardCharsets.UTF_8);
        startPrintFlusher(prints);
        System.setOut(prints);
        System.setErr(prints);
        System.setIn(InputStream.nullInputStream());
        Class<?> deviceThread = Class.forName("dev.shardlings.spmd.DeviceThreads$Worker");
        startKernelCompilation();
        referenceThreads = referenceThreads();
        while (true) {
            byte[] frame = Wire.readFrame(requests);
            if (frame == null) {
                break;
            }
            // Every array made from here on carries an id above the floor: the arguments (made while decoding,
            // under ARGUMENTS) and whatever the framework makes during the call. An array the call returns with an
            // id at or below it was made before the call, or off any recording (on a thread of its own).
            long floor = Ids.last();
            Request r;
            try (OpObservers.Scope ignored = OpObservers.install(ARGUMENTS)) {
                r = Wire.decodeRequest(frame);
            }
            Set<Thread> before = liveThreads();
            Map<Thread, Long> cpuBefore = cpuTimes(before, deviceThread);
            long started = THREADS.getTotalStartedThreadCount();
            Reply reply = call(r);
            int own = ownThreadsStarted(before, started, deviceThread);
            String foreign = foreignWork(cpuBefore);
            List<String> left = new ArrayList<>();
            // A call that returned normally has no device still running its code (shardMap joins every device), so
            // only new threads need a look at their stacks; after an exception every thread gets one.
            boolean running = reply.thrown() == null && !anyNew(before, deviceThread) ? false
                    : leftovers(before, deviceThread, left);
            running |= own > 0; // a fresh JVM next time: no thread of this call may serve a later one
            if (own > 0 && left.isEmpty() && reply.thrown() == null) {
                // Started and finished: its work is invisible to the trace the structural rules read. (A thread
                // still alive is reported as left running, which says more.)
                reply = thrown(r.id(), new Thrown(ThrownKind.OWN_THREADS, "", "started " + own + " thread(s) of"
                        + " its own", "", "", ""));
            } else if (foreign != null && reply.thrown() == null) {
                running = true;
                reply = thrown(r.id(), new Thrown(ThrownKind.OWN_THREADS, "", foreign, "", "", ""));
            } else if (reply.thrown() == null && left.isEmpty()) { // a thread left running says more
                String untraced = untraced(reply.value(), floor);
                if (untraced != null) {
                    reply = thrown(r.id(), new Thrown(ThrownKind.UNTRACED_RESULT, "", untraced, "", "", ""));
                }
            }
            reply = new Reply(reply.id(), reply.value(), reply.thrown(), reply.trace(), left, running);
            byte[] out;
            try {
                out = Wire.encode(reply);
            } catch (java.io.IOException | RuntimeException e) {
                out = Wire.encode(new Reply(r.id(), null, new Thrown(ThrownKind.OTHER, e.getClass().getName(),
                        "the result could not be sent to the grader: " + e.getMessage(), e.getClass().getName(),
                        String.valueOf(e.getMessage()), ""), new Trace(List.of(), List.of(), 0), left, running));
            }
            prints.flush();
            Wire.writeFrame(replies, out);
        }
        prints.flush();
        Runtime.getRuntime().halt(0); // device threads and anything a student left must not keep the JVM alive
    }

    /**
     * Starts a daemon thread that runs products through the blocked matmul for a moment, so that C2 compiles its
     * micro-kernel now, while the first parts run, instead of at the performance parts. Why: the kernel is
     * written with the Vector API, which until C2 compiles it runs as method calls on vector objects — tens of
     * times slower than a scalar loop, and a storm of garbage — and the first book-size products (2 GFLOP each)
     * ran that way for the half second or more the compile takes. Framework code only, started before any
     * course class is loaded (so no call counts it as its own thread) and untraced (recording is per thread);
     * the products are below the size that is shared among cores, so it starts no other thread.
     */
    static void startKernelCompilation() {
        Thread t = warmUp = new Thread(() -> {
            // Every branch the graded products take, so C2 compiles the blocked loop once from a profile that has
            // seen them all: two k blocks (k = 2 · KC), as in the performance parts; 30 rows and 40 columns, a
            // ragged edge of rows and of columns at any vector width (edge tiles, zero-padded packing); and
            // either operand transposed, as the gradients of Chapter 6 read them. A branch the profile never saw
            // is compiled as a trap: met later (measured in a flight recording), it threw the compiled loop away
            // mid-grade and the kernel ran on the Vector API's slow path until C2 compiled it again.
            NDArray a = NDArray.ones(DType.FLOAT32, 30, 1024);
            NDArray at = NDArray.ones(DType.FLOAT32, 1024, 30);
            NDArray b = NDArray.ones(DType.FLOAT32, 1024, 40);
            NDArray bt = NDArray.ones(DType.FLOAT32, 40, 1024);
            for (int i = 0; i < KERNEL_WARM_UP_PRODUCTS; i++) {
                boolean ta = (i & 1) != 0;
                boolean tb = (i & 2) != 0;
                (ta ? at : a).matmul(ta, tb ? bt : b, tb);
            }
        }, "shardlings-kernel-warm-up");
        t.setDaemon(true);
        t.setPriority(Thread.MIN_PRIORITY);
        t.start();
    }

    /**
     * The JDK's reference handler and common cleaner, by identity, taken before any course class is loaded: they
     * run the JDK's own actions only (clearing references, freeing the JDK's native resources; course code cannot
     * give them any), and their work grows with the garbage collections a call causes (measured: 6 ms in a call
     * that collected two hundred times), so their CPU time says nothing about course code.
     */
    private static Set<Thread> referenceThreads = Set.of();

    private static Set<Thread> referenceThreads() {
        Set<Thread> out = new java.util.HashSet<>();
        for (Thread t : liveThreads()) {
            // By name, once, at start: no course code has run yet, so every thread alive is the JDK's or ours.
            if (t.getName().equals("Reference Handler") || t.getName().equals("Common-Cleaner")) {
                out.add(t);
            }
        }
        return Set.copyOf(out);
    }

    /** The warm-up thread: framework code only, so its CPU is not counted against a call. */
    private static Thread warmUp;

    /** Bytes of student prints buffered before a write reaches the pipe. */
    static final int PRINT_BUFFER = 1 << 16;

    /**
     * How long a print may wait in the buffer: short beside any part's limit, so that a call that hangs or is
     * killed still shows what it printed up to a few milliseconds before.
     */
    static final long PRINT_FLUSH_MILLIS = 20;

    /** The thread that flushes prints: framework code only (it flushes our stream, never System.out), not counted. */
    private static Thread printFlusher;

    /**
     * Starts the daemon thread that flushes {@code prints} every {@link #PRINT_FLUSH_MILLIS} ms, and a shutdown hook
     * that flushes them when course code calls {@code System.exit}. Started before any course class is loaded, so
     * no call counts it as its own; its CPU is not counted against a call ({@link #cpuTimes}). It holds our stream,
     * not {@code System.out}: course code that replaces System.out cannot give it work.
     */
    private static void startPrintFlusher(PrintStream prints) {
        Thread t = printFlusher = new Thread(() -> {
            while (true) {
                try {
                    Thread.sleep(PRINT_FLUSH_MILLIS);
                } catch (InterruptedException e) {
                    // only course code could interrupt it: flush, and go on
                }
                prints.flush();
            }
        }, "shardlings-print-flusher");
        t.setDaemon(true);
        t.start();
        Runtime.getRuntime().addShutdownHook(new Thread(prints::flush, "shardlings-print-flush-at-exit"));
    }

    /**
     * Products run by {@link #startKernelCompilation}: measured, C2's compile of the micro-kernel starts after
     * about 20 of them (thresholds as the sandbox sets them) and the products after 40 run on its code.
     */
    static final int KERNEL_WARM_UP_PRODUCTS = 60;

    private static Reply call(Request r) {
        Method m;
        try {
            m = lookUp(r);
        } catch (ReflectiveOperationException | IllegalArgumentException | LinkageError e) {
            return thrown(r.id(), new Thrown(ThrownKind.NO_SUCH_METHOD, e.getClass().getName(),
                    String.valueOf(e.getMessage()), e.getClass().getName(), String.valueOf(e.getMessage()), ""));
        }
        try {
            Tracing.Traced<Object> traced = Tracing.record(() -> {
                try {
                    return m.invoke(null, r.args().toArray());
                } catch (InvocationTargetException e) {
                    throw new Rethrown(e.getCause());
                } catch (IllegalAccessException e) {
                    throw new Rethrown(e);
                }
            });
            // which program made each returned array, worked out here where the arrays still carry their ids
            Trace trace = traced.trace().withResultPrograms(
                    dev.shardlings.spmd.ResultPrograms.of(traced.value(), traced.trace()));
            return new Reply(r.id(), traced.value(), null, trace, List.of(), false);
        } catch (Rethrown e) {
            return thrown(r.id(), describe(e.getCause()));
        } catch (RuntimeException | Error e) {
            return thrown(r.id(), describe(e));
        }
    }

    private static Method lookUp(Request r) throws ReflectiveOperationException {
        if (!CLASSES.contains(r.className())) {
            throw new IllegalArgumentException("not a course class: " + r.className());
        }
        Class<?>[] params = new Class<?>[r.paramTypes().size()];
        for (int i = 0; i < params.length; i++) {
            params[i] = TYPES.get(r.paramTypes().get(i));
            if (params[i] == null) {
                throw new IllegalArgumentException("not a parameter type of the course: " + r.paramTypes().get(i));
            }
        }
        Class<?> c = Class.forName(COURSE + r.className(), true, SandboxMain.class.getClassLoader());
        Method m = c.getMethod(r.method(), params);
        if (!Modifier.isStatic(m.getModifiers())) {
            throw new NoSuchMethodException(c.getSimpleName() + "." + r.method() + " must be static");
        }
        return m;
    }

    /** Carries a student's exception out of the traced lambda. */
    private static final class Rethrown extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Rethrown(Throwable cause) {
            super(cause);
        }
    }

    private static Reply thrown(long id, Thrown t) {
        return new Reply(id, null, t, new Trace(List.of(), List.of(), 0), List.of(), false);
    }

    private static Thrown describe(Throwable t) {
        Throwable root = t;
        if (t instanceof DeviceFailureException d && d.getCause() != null) {
            root = d.getCause();
        }
        ThrownKind kind = root instanceof ExerciseNotDone ? ThrownKind.NOT_DONE
                : t instanceof DeviceFailureException ? ThrownKind.DEVICE_FAILURE
                : t instanceof CollectiveMismatchException ? ThrownKind.COLLECTIVE_MISMATCH : ThrownKind.OTHER;
        StringWriter sw = new StringWriter();
        root.printStackTrace(new PrintWriter(sw));
        return new Thrown(kind, t.getClass().getName(), String.valueOf(t.getMessage()), root.getClass().getName(),
                root.getMessage() == null ? "" : root.getMessage(), sw.toString());
    }

    /**
     * Gives every array made while a request's arguments are decoded an id, so that an argument the call returns
     * unchanged (or a view of it) passes the provenance check.
     */
    private static final OpObserver ARGUMENTS = OpObservers.idsOnly();

    /**
     * The provenance check: every array in {@code value} (an NDArray, each shard of a ShardedArray, the elements of
     * a list) must have been made by the framework during the call, i.e. carry an id above {@code floor}.
     *
     * @return what is wrong, or null when every array passes
     */
    static String untraced(Object value, long floor) {
        if (value instanceof NDArray a) {
            long origin = OpObservers.originOf(a);
            return origin > floor ? null : "returned an array " + a.describe() + " that no operation of this call"
                    + " made (" + (origin == 0 ? "it was made where nothing records, e.g. on a thread of its own"
                    : "it was made before the call") + ")";
        }
        if (value instanceof ShardedArray s && !s.isTraced()) {
            for (ShardedArray.Shard shard : s.addressableShards()) {
                String wrong = untraced(shard.data(), floor);
                if (wrong != null) {
                    return wrong.replace("returned an array", "returned a ShardedArray whose shard on device "
                            + shard.device().id() + " is an array");
                }
            }
            return null;
        }
        if (value instanceof List<?> list) {
            for (Object o : list) {
                String wrong = untraced(o, floor);
                if (wrong != null) {
                    return wrong;
                }
            }
        }
        return null;
    }

    /**
     * CPU time of every live thread that course code could borrow: all but the calling thread and the device
     * threads (which the trace covers), the warm-up and print-flusher threads and the JDK's reference threads
     * ({@link #referenceThreads}), by identity.
     */
    private static Map<Thread, Long> cpuTimes(Set<Thread> threads, Class<?> deviceThread) {
        Map<Thread, Long> out = new java.util.HashMap<>();
        if (!THREADS.isThreadCpuTimeSupported()) {
            return out;
        }
        if (!THREADS.isThreadCpuTimeEnabled()) {
            THREADS.setThreadCpuTimeEnabled(true);
        }
        for (Thread t : threads) {
            if (t != Thread.currentThread() && t.getClass() != deviceThread && t != warmUp
                    && t != printFlusher
                    && !referenceThreads.contains(t)) {
                long cpu = THREADS.getThreadCpuTime(t.getId());
                if (cpu >= 0) {
                    out.put(t, cpu);
                }
            }
        }
        return out;
    }

    /**
     * CPU a thread that is not the caller's nor a device's may use during a call before the call fails: more than
     * the JVM's own threads use for housekeeping in a call (measured: none, or a few microseconds), less than any
     * graded work.
     */
    static final long FOREIGN_CPU_NANOS = 2_000_000;

    /** A thread of {@code before} that used more than {@link #FOREIGN_CPU_NANOS} of CPU since, described; or null. */
    private static String foreignWork(Map<Thread, Long> before) {
        if (!before.isEmpty() && !THREADS.isThreadCpuTimeEnabled()) {
            // Only course code can have turned it off (through java.management, by reflection): it hides work.
            THREADS.setThreadCpuTimeEnabled(true);
            return "turned off the JVM's measurement of thread CPU time, which the grader reads";
        }
        for (Map.Entry<Thread, Long> e : before.entrySet()) {
            long now = THREADS.getThreadCpuTime(e.getKey().getId());
            if (now - e.getValue() > FOREIGN_CPU_NANOS) {
                return String.format(java.util.Locale.ROOT, "ran %.1f ms of work on the thread '%s', which is"
                        + " neither the caller's nor a device's", (now - e.getValue()) / 1e6, e.getKey().getName());
            }
        }
        return null;
    }

    private static final java.lang.management.ThreadMXBean THREADS =
            java.lang.management.ManagementFactory.getThreadMXBean();

    /**
     * How many threads the call started besides the runtime's: every platform thread started since
     * {@code startedBefore} (the JVM's own count), less the new device threads and JDK-internal threads alive now.
     * A thread that was started and joined counts too: its work escaped the trace.
     */
    private static int ownThreadsStarted(Set<Thread> before, long startedBefore, Class<?> deviceThread) {
        long started = THREADS.getTotalStartedThreadCount() - startedBefore;
        if (started == 0) {
            return 0;
        }
        long runtime = 0;
        for (Thread t : liveThreads()) {
            if (!before.contains(t) && isRuntime(t, deviceThread)) {
                runtime++;
            }
        }
        return (int) Math.max(0, started - runtime);
    }

    /** Every live platform thread, without their stacks (cheap: no safepoint). */
    private static Set<Thread> liveThreads() {
        ThreadGroup root = Thread.currentThread().getThreadGroup();
        while (root.getParent() != null) {
            root = root.getParent();
        }
        Thread[] all = new Thread[root.activeCount() + 16];
        int n;
        while ((n = root.enumerate(all, true)) == all.length) {
            all = new Thread[all.length * 2];
        }
        return Set.of(Arrays.copyOf(all, n));
    }

    /** True when a thread that is not the runtime's was started since {@code before}. */
    private static boolean anyNew(Set<Thread> before, Class<?> deviceThread) {
        for (Thread t : liveThreads()) {
            if (!before.contains(t) && !isRuntime(t, deviceThread)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The framework's device threads: by class, which course code can neither name nor extend (it is private to a
     * package of a module that opens nothing). Every other new thread is the call's own, whatever its class: the
     * JDK's own threads (a cleaner, a process reaper, a timer, a virtual thread's carrier) run course code as well
     * as any, so none is exempt. Names prove nothing (any thread can take any name).
     */
    private static boolean isRuntime(Thread t, Class<?> deviceThread) {
        return t.getClass() == deviceThread;
    }

    /**
     * Threads that the call left behind, by identity: new since {@code before}, alive, and not a thread of the
     * framework's runtime or of the JDK ({@link #isRuntime}).
     *
     * @return true when some thread is still running course code
     */
    private static boolean leftovers(Set<Thread> before, Class<?> deviceThread, List<String> left) {
        long deadline = System.nanoTime() + 300_000_000L; // threads that are finishing get a moment
        while (true) {
            left.clear();
            boolean running = false;
            for (Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet()) {
                Thread t = e.getKey();
                if (t == Thread.currentThread() || !t.isAlive()) {
                    continue;
                }
                boolean course = Arrays.stream(e.getValue()).anyMatch(f -> f.getClassName().startsWith(COURSE));
                if (!before.contains(t) && !isRuntime(t, deviceThread)) {
                    left.add(t.getName());
                }
                running |= course;
            }
            if ((!running && left.isEmpty()) || System.nanoTime() > deadline) {
                return running || !left.isEmpty();
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                return true;
            }
        }
    }
}
