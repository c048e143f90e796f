package dev.shardlings.grader.hostile;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The second round of attacks on the grader (issue 33): each goes for the evidence the structural rules read — the
 * trace, the observers and FLOP counts, the threads — rather than for the judge. Like {@link HostileSubmission},
 * the submission is the reference solutions with one attack put at the start of one course method per part, and
 * each attack is written so that, if its barrier gave way, the part would get full marks (the attack then goes
 * on into the reference code, or returns the answer it computed where no trace sees it). A barrier that holds
 * fails the part with a reason the test names.
 *
 * <p>Not a test itself (the name does not end in Test): it writes Java sources.
 */
public final class EvidenceAttacks {

    /** The attacks, by the part they sit in, with the text the failing part's reason must contain. */
    public enum Attack {
        /** 1.1a: reflection into the recorder behind {@code Tracing}, to add a made-up shardMap record. */
        REFLECT_INTO_TRACE("1.1a", "Problem1", "perShardMean",
                "try { java.lang.reflect.Field f = Class.forName(\"dev.shardlings.events.Tracing\")"
                        + ".getDeclaredField(\"CURRENT\"); f.setAccessible(true); f.get(null); }"
                        + " catch (ReflectiveOperationException e) { throw new IllegalStateException(e); }",
                "threw InaccessibleObjectException"),
        /** 1.1b: a private lookup in the observers' class, to reach its per-thread observer. */
        PRIVATE_LOOKUP("1.1b", "Problem1", "perShardMeanGlobal",
                "try { java.lang.invoke.MethodHandles.privateLookupIn(Class.forName(\"dev.shardlings.array.OpObservers\"),"
                        + " java.lang.invoke.MethodHandles.lookup()); }"
                        + " catch (IllegalAccessException e) { throw new IllegalStateException(\"private lookup refused: \""
                        + " + e.getMessage()); }"
                        + " catch (ReflectiveOperationException e) { throw new IllegalStateException(e); }",
                "private lookup refused"),
        /** 1.2a: reflection into a device's context, to delete a forbidden all-gather from its event list. */
        DELETE_DEVICE_EVENT("1.2a", "Problem1", "rollWithinShards",
                "try { java.lang.reflect.Method m = Class.forName(\"dev.shardlings.spmd.DeviceContext\")"
                        + ".getDeclaredMethod(\"current\"); m.setAccessible(true); }"
                        + " catch (ReflectiveOperationException e) { throw new IllegalStateException(e); }",
                "threw InaccessibleObjectException"),
        /**
         * 1.2b: the answer computed on the JDK's own kind of thread (a {@code Cleaner}'s), with the reference code
         * run on the calling thread as a decoy for the trace.
         */
        CLEANER_THREAD("1.2b", "Problem1", "rollWithinShardsGlobal",
                "if (System.getProperty(\"hostile.cleaner\") == null) { System.setProperty(\"hostile.cleaner\", \"1\");"
                        + " try { final ShardedArray[] hidden = new ShardedArray[1]; final ShardedArray in = a;"
                        + " final int s = shift; java.lang.ref.Cleaner c = java.lang.ref.Cleaner.create();"
                        + " Object o = new Object(); c.register(o, () -> hidden[0] = rollWithinShardsGlobal(in, s));"
                        + " o = null; ShardedArray decoy = rollWithinShardsGlobal(a, shift);"
                        + " for (int i = 0; i < 200 && hidden[0] == null; i++) { System.gc(); try { Thread.sleep(5); }"
                        + " catch (InterruptedException e) { break; } }"
                        + " return hidden[0] != null ? hidden[0] : decoy; }"
                        + " finally { System.clearProperty(\"hostile.cleaner\"); } }",
                "started 1 thread(s) of its own|left 1 thread(s) running: Cleaner-"),
        /** 2.1: a native library loaded from a file the attack wrote. */
        NATIVE_CODE("2.1", "Problem2", "moeLocal",
                "try { java.nio.file.Path lib = java.nio.file.Files.createTempFile(\"hostile\", \".so\");"
                        + " java.nio.file.Files.write(lib, new byte[]{0x7f, 'E', 'L', 'F'}); System.load(lib.toString()); }"
                        + " catch (java.io.IOException e) { throw new java.io.UncheckedIOException(e); }"
                        + " catch (UnsatisfiedLinkError e) { /* the linker was reached: the barrier gave way */ }",
                null),
        /** 2.3a: the observer removed, so that a host gather goes unseen. */
        HIDE_FROM_OBSERVER("2.3a", "Problem2", "moeAllGather",
                "try (var hidden = dev.shardlings.array.OpObservers.install(null)) { a.gather(); }",
                "threw IllegalCallerException"),
        /** 2.3b: {@code sun.misc.Unsafe}, which writes any field of any object. */
        UNSAFE("2.3b", "Problem2", "moeAllToAll",
                "try { java.lang.reflect.Field f = Class.forName(\"sun.misc.Unsafe\").getDeclaredField(\"theUnsafe\");"
                        + " f.setAccessible(true); f.get(null); }"
                        + " catch (ReflectiveOperationException e) { throw new IllegalStateException(\"no Unsafe: \" + e); }",
                "no Unsafe: java.lang.ClassNotFoundException"),
        /** 2.4: reflection into the sandbox's own loop, for the request id of the pipe. */
        READ_REQUEST_ID("2.4", "Problem2", "moeTopKAllToAll",
                "try { for (java.lang.reflect.Field f : Class.forName(\"dev.shardlings.grader.sandbox.SandboxMain\")"
                        + ".getDeclaredFields()) { f.setAccessible(true); } }"
                        + " catch (ReflectiveOperationException e) { throw new IllegalStateException(e); }",
                "threw InaccessibleObjectException"),
        /** 3.0: work in a finalizer, which runs on the JVM's finalizer thread. */
        FINALIZER("3.0", "Problem3", "allGatherMatmul",
                "{ final boolean[] ran = {false}; class F { @Override @SuppressWarnings(\"deprecation\")"
                        + " protected void finalize() { ran[0] = true; } } new F();"
                        + " for (int i = 0; i < 20 && !ran[0]; i++) { System.gc(); try { Thread.sleep(10); }"
                        + " catch (InterruptedException e) { break; } }"
                        + " if (!ran[0]) { throw new IllegalStateException(\"the finalizer never ran\"); } }",
                "the finalizer never ran"),
        /** 3.1: the same, on the second finalizer thread that {@code Runtime.runFinalization} starts. */
        SECOND_FINALIZER_THREAD("3.1", "Problem3", "allReduceMatmul",
                "{ final boolean[] ran = {false}; class F { @Override @SuppressWarnings(\"deprecation\")"
                        + " protected void finalize() { ran[0] = true; } } new F(); System.gc();"
                        + " Runtime.getRuntime().runFinalization(); }",
                "started 1 thread(s) of its own"),
        /** 4.0: the recorder of the device's observer, to record made-up matmul FLOPs. */
        MADE_UP_FLOPS("4.0", "Problem4", "allGatherMatmul",
                "dev.shardlings.array.OpObservers.current();",
                "threw IllegalCallerException"),
        /** 4.1: the JVM's thread CPU time turned off, through java.management by reflection, to hide work. */
        THREAD_CPU_TIME_OFF("4.1", "Problem4", "allReduceMatmul",
                "try { Object mx = Class.forName(\"java.lang.management.ManagementFactory\")"
                        + ".getMethod(\"getThreadMXBean\").invoke(null);"
                        + " Class.forName(\"java.lang.management.ThreadMXBean\")"
                        + ".getMethod(\"setThreadCpuTimeEnabled\", boolean.class).invoke(mx, false); }"
                        + " catch (ReflectiveOperationException e) { throw new IllegalStateException(e); }",
                "turned off the JVM's measurement of thread CPU time"),
        /**
         * 4.2: a device thread kept for itself — device code interrupts its caller, so that shardMap gives up on
         * the devices, and goes on running where no later call's trace covers it (found by a red-team review).
         */
        DEVICE_THREAD_KEPT("4.2", "Problem4", "reduceScatterMatmul",
                "if (tmp.mesh().size() > 1) { final Thread main = Thread.currentThread();"
                        + " final java.util.concurrent.atomic.AtomicBoolean claimed = new java.util.concurrent.atomic.AtomicBoolean();"
                        + " final java.util.concurrent.atomic.AtomicBoolean alive = new java.util.concurrent.atomic.AtomicBoolean();"
                        + " try { shardMap(b -> { if (Thread.currentThread() != main && claimed.compareAndSet(false, true)) {"
                        + " alive.set(true); main.interrupt(); long until = System.nanoTime() + 300_000_000L;"
                        + " while (System.nanoTime() < until) { Thread.interrupted();"
                        + " java.util.concurrent.locks.LockSupport.parkNanos(1_000_000); } alive.set(false); } return b; },"
                        + " tmp.mesh(), P(\"X\", \"Y\"), P(\"X\", \"Y\")).apply(tmp); }"
                        + " catch (IllegalStateException e) { Thread.interrupted(); }"
                        + " if (!alive.get()) { throw new IllegalStateException(\"no device thread stayed behind\"); } }",
                "no device thread stayed behind"),
        /**
         * 7.6: the live tape turned off, so that a checkpointed block's second run would count as recomputed work
         * without being differentiated (reviewer F2): GradRecorders is the framework's own, as OpObservers is.
         */
        TAPE_TURNED_OFF("7.6", "Chapter7", "rematerialisedStep",
                "try (var off = dev.shardlings.array.GradRecorders.install(null)) { }",
                "threw IllegalCallerException");

        private final String part;
        private final String file;
        private final String method;
        private final String code;
        private final String reason;

        Attack(String part, String file, String method, String code, String reason) {
            this.part = part;
            this.file = file;
            this.method = method;
            this.code = code;
            this.reason = reason;
        }

        /** The part the attack sits in. */
        public String part() {
            return part;
        }

        /**
         * What the part's failure reason must contain (one of the texts, split at '|': a thread still running
         * when the call returns is reported as left running, one that ended as started); for
         * {@link #NATIVE_CODE} it depends on the JDK (a security manager's refusal before JDK 24, the JVM's own
         * after).
         */
        public String reason() {
            if (this == NATIVE_CODE) {
                return Runtime.version().feature() < 24 ? "native code is not allowed in the grader's sandbox"
                        : "Illegal native access";
            }
            return reason;
        }
    }

    /** Parts this submission leaves as the reference wrote them: they keep full marks. */
    public static final List<String> CLEAN_PARTS = List.of("2.2", "3.2");

    private EvidenceAttacks() {
    }

    /**
     * Writes the course files with every attack into {@code dir}.
     *
     * @param solutions the reference solutions' package folder
     * @return the files written
     */
    public static List<Path> write(Path solutions, Path dir) throws IOException {
        Files.createDirectories(dir);
        List<Path> written = new ArrayList<>();
        for (String file : dev.shardlings.grader.sandbox.CourseClasses.FILES) {
            String src = Files.readString(solutions.resolve(file));
            for (Attack a : Attack.values()) {
                if (file.equals(a.file + ".java")) {
                    src = HostileSubmission.inject(src, a.method, a.code);
                }
            }
            Path out = dir.resolve(file);
            Files.writeString(out, src);
            written.add(out);
        }
        return written;
    }
}
