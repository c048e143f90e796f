package dev.shardlings.grader.host;

import dev.shardlings.grader.sandbox.SandboxMain;
import dev.shardlings.grader.sandboxboot.SandboxBoot;
import dev.shardlings.grader.sandbox.Wire;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The judge's handle on the sandbox: a child JVM ({@link SandboxMain}) that holds the course classes under grade
 * and runs them, and nothing from which a grade or an answer can be made. The judge — the process that owns this
 * object, runs the checks and writes results.json — never loads a course class.
 *
 * <p>What the sandbox gets: a private copy of its class path (the framework and its libraries, the sandbox package,
 * then the course classes last, so they shadow nothing), an empty working directory, an environment with nothing
 * but {@code PATH}, {@code HOME} and {@code LANG}, a heap limit, and — when the judge runs as root and the user
 * {@value SandboxUsers#SANDBOX_USER} exists — another, unprivileged user ({@code setpriv}, no new privileges).
 * What it does not get: the grader's classes, the solutions, the results' path, the reference times.
 *
 * <p>Failures of the sandbox are failures of the part that was running: a call past its time limit or past the
 * part's budget, a JVM that exits, halts or runs out of memory, a reply that breaks the protocol or answers no
 * request. The sandbox is then killed, and every later call of the same part fails the same way at once (so a
 * part that kills its JVM costs one JVM start, not one per shrinking step); the next part starts a fresh sandbox.
 * After every part the sandbox's whole process tree is killed ({@link #endPart()}).
 *
 * <p>Thread safety: calls are serialised; one part runs at a time.
 */
public final class Sandbox implements AutoCloseable {

    /**
     * The time limit of one call of student code unless the caller sets its own ({@code -Dgrade.timeLimitSeconds},
     * 10 s by default).
     */
    public static final Duration DEFAULT_CALL_LIMIT = Duration.ofSeconds(Long.getLong("grade.timeLimitSeconds", 10));
    /**
     * How long a fresh sandbox JVM may take to boot (start, module layer, guard) before it is started once more, and
     * then before the call fails (-Dgrade.bootLimitSeconds). Boot time is not the student's: neither a call's limit
     * nor the part's budget counts it, so a loaded machine (a CI runner, a class graded at once) does not turn a JVM
     * start into a "ran longer than 10 s".
     */
    public static final Duration BOOT_LIMIT = Duration.ofSeconds(Long.getLong("grade.bootLimitSeconds", 120));
    /** Bytes of student output kept per part: this many from the start and this many from the end. */
    public static final int OUTPUT_KEEP = 8 * 1024;

    /** How a sandbox failed; every kind fails the part that was running. */
    public enum FailureKind {
        /** One call ran past its time limit. */
        CALL_TIMEOUT,
        /** The part as a whole ran past its budget. */
        PART_TIMEOUT,
        /** The JVM exited (System.exit, Runtime.halt, a crash). */
        EXITED,
        /**
         * The sandbox JVM did not finish its boot within {@link #BOOT_LIMIT}: the machine is overloaded or broken;
         * no course code had run yet.
         */
        BOOT_TIMEOUT,
        /** The JVM ran out of memory. */
        OUT_OF_MEMORY,
        /** The sandbox wrote something that is not a reply to the request it was sent. */
        PROTOCOL,
        /** A call returned but left threads running (their names are the message). */
        LEFT_THREADS,
        /** A call started threads of its own, whose work the trace cannot see (the message says how many). */
        OWN_THREADS,
        /** A call returned an array that no operation of the call made: computed off the trace, or before it. */
        UNTRACED_RESULT
    }

    /** The sandbox failed while running a part; the judge's {@code Guard} turns it into a report. */
    public static final class SandboxFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final FailureKind kind;
        private final String output;
        private final Duration limit;

            /**
         * @param output the end of what the student's code printed before it happened ("" when nothing)
         * @param limit  the time limit that was passed, or null when none was
         */
        public SandboxFailure(FailureKind kind, String message, String output, Duration limit) {
            super(message);
            this.kind = kind;
            this.output = output;
            this.limit = limit;
        }

        /** What happened. */
        public FailureKind kind() {
            return kind;
        }

        /** The end of what the student's code printed before it happened. */
        public String output() {
            return output;
        }

        /** The time limit that was passed (for the timeouts). */
        public Duration limit() {
            return limit;
        }
    }

    /** What the end of a part found: processes still alive (now killed) and what the part printed (capped). */
    public record PartEnd(List<String> killedProcesses, String output, long outputBytes) {
    }

    /**
     * How to run the sandbox.
     *
     * @param courseClasses the compiled course classes under grade (a class folder holding dev/shardlings/course)
     * @param heap          the sandbox's maximum heap, e.g. {@code "2g"}
     * @param partBudget    how long one part may take in all
     * @param useSandboxUser run as {@value SandboxUsers#SANDBOX_USER} when the judge is root and the user exists
     *                       (false: never, e.g. to test the barriers that hold without it)
     */
    public record Config(Path courseClasses, String heap, Duration partBudget, boolean useSandboxUser,
                         Set<OsBarriers.Layer> without) {

        /** @param without OS-level layers left out: none in a grade; the grader's tests take one away at a time */
        public Config {
            without = Set.copyOf(without);
        }

        /** A sandbox with every OS-level barrier this machine allows. */
        public Config(Path courseClasses, String heap, Duration partBudget, boolean useSandboxUser) {
            this(courseClasses, heap, partBudget, useSandboxUser, Set.of());
        }
    }

    private static volatile Sandbox shared;

    private final Config config;
    private final List<String> command;
    private boolean commandBoots;
    private final Path dir;
    private final List<String> classPath;
    private final Path home;
    /** The sandbox's folders as the launcher knows them (home, the private /tmp, /var/tmp and /dev/shm). */
    private final OsBarriers.Folders folders;
    /** The launcher of the OS-level barriers, or empty where this machine cannot run one. */
    private final Optional<OsBarriers> os;
    /** What held: from the probe, lowered by any start that got less. */
    private volatile OsBarriers.Held held;
    private final Optional<String> user;
    /** The user held for this sandbox's lifetime (null without one): no other grader's sandbox runs as it. */
    private final SandboxUsers.Lease lease;
    private final boolean setsid;
    private final ProcessTree processes;
    private final Map<String, Boolean> barriers = new LinkedHashMap<>();

    private Process process;
    private OutputStream requests;
    private LinkedBlockingQueue<Object> replies;
    private volatile CappedOutput output = new CappedOutput(OUTPUT_KEEP); // read by the output thread, unlocked
    private SandboxFailure poison;
    private boolean restart;
    private CountDownLatch booted = new CountDownLatch(0);
    private long partDeadline = Long.MAX_VALUE;

    /**
     * Prepares a sandbox (its private class path); the JVM starts at the first call.
     *
     * @throws IOException              if the copy fails
     * @throws IllegalArgumentException if {@code courseClasses} holds no course class
     */
    public Sandbox(Config config) throws IOException {
        this(config, null);
    }

    /**
     * A sandbox whose other end of the pipe is {@code command} instead of the sandbox JVM: for the grader's own
     * tests of the channel (a process that writes whatever bytes the test wants).
     */
    static Sandbox withCommand(Config config, List<String> command) throws IOException {
        return new Sandbox(config, List.copyOf(command));
    }

    /** Like {@link #withCommand}, for a command that prints the boot's marker on standard error when it is ready. */
    static Sandbox withBootingCommand(Config config, List<String> command) throws IOException {
        Sandbox s = new Sandbox(config, List.copyOf(command));
        s.commandBoots = true;
        return s;
    }

    /** True when this JVM runs as root and the sandbox user and {@code setpriv} are there (see {@link Config}). */
    static boolean sandboxUserAvailable() {
        return OsProbes.isRoot() && OsProbes.userExists(SandboxUsers.SANDBOX_USER) && OsProbes.onPath("setpriv");
    }

    private Sandbox(Config config, List<String> command) throws IOException {
        this.config = config;
        this.command = command;
        if (!Files.isDirectory(config.courseClasses().resolve("dev/shardlings/course"))) {
            throw new IllegalArgumentException("no compiled course classes in " + config.courseClasses()
                    + " (expected dev/shardlings/course/*.class): compile the exercises first (mvn compile)");
        }
        if (config.useSandboxUser() && sandboxUserAvailable()) {
            try {
                this.lease = SandboxUsers.lease(Path.of(System.getProperty("java.io.tmpdir"),
                        "shardlings-sandbox-users"), OsProbes::userExists);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while waiting for a free sandbox user", e);
            }
            this.user = Optional.of(lease.user());
        } else {
            this.lease = null;
            this.user = Optional.empty();
        }
        this.setsid = OsProbes.onPath("setsid");
        this.processes = new ProcessTree(user, setsid);
        // A fresh folder of the system's temp folder, so that the sandbox's user can reach it without any folder
        // above it (a home folder, the course) being opened up.
        this.dir = Files.createTempDirectory("shardlings-sandbox-");
        Path cp = dir.resolve("classpath");
        this.classPath = ClassPathCopy.copy(cp, config.courseClasses());
        this.home = dir.resolve("home");
        Files.createDirectories(home);
        this.folders = new OsBarriers.Folders(dir, home, dir.resolve("private"));
        for (Path d : folders.privateDirs()) {
            Files.createDirectories(d);
        }
        // The class path copies are read-only (for the sandbox's own user too, as far as the file system lets a
        // user be kept from their own files); the home folder and the private temporary folders are the sandbox's.
        Folders.readOnly(dir.resolve("classpath"));
        if (user.isPresent()) {
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
            UserPrincipal u = dir.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName(user.get());
            Files.setOwner(home, u);
        }
        resetPrivateDirs(true);
        Optional<OsBarriers> found = command != null ? Optional.empty() : OsBarriers.find(user.isPresent());
        OsBarriers.Held h = OsBarriers.Held.none(user.isPresent(), command != null ? "a stand-in command, no launcher"
                : "no python3 that the sandbox can run (or not Linux): the sandbox starts without its launcher");
        if (found.isPresent()) {
            h = found.get().probe(user, folders, config.without(), environment());
        }
        // A launcher that failed its probe is not used: the grade runs, and barriers says what is missing.
        this.os = h.launcher() ? found : Optional.empty();
        this.held = h;
        barriers.put("judge_never_loads_course_classes", true);
        barriers.put("oracles_and_solutions_off_the_sandbox_class_path", true);
        barriers.put("course_classes_last_on_the_class_path", true);
        barriers.put("framework_a_module_course_code_cannot_open", true);
        barriers.put("no_unsafe_no_native_code", true);
        barriers.put("finalizers_never_run", true);
        barriers.put("threads_counted_without_exemptions", true);
        barriers.put("returned_arrays_made_during_the_call", true);
        barriers.put("replies_checked_against_requests", true);
        barriers.put("process_tree_killed_after_every_part", true);
        barriers.put("new_session_per_sandbox", setsid);
        barriers.put("unprivileged_sandbox_user", user.isPresent());
        barriers.put("own_temporary_folders_emptied_after_every_part", true);
    }

    /** What the OS-level barriers did on this machine ({@link OsBarriers}), as the probe and the starts so far found. */
    public OsBarriers.Held osBarriers() {
        return held;
    }

    /** The sandbox the graded tests use: from system properties, or the one {@link #install} set. */
    public static synchronized Sandbox shared() {
        if (shared == null) {
            String classes = System.getProperty("grade.classes");
            if (classes == null || classes.isBlank()) {
                throw new IllegalStateException("grade.classes is not set: the graded course classes are run in a"
                        + " sandbox JVM, and the judge needs their folder (e.g. exercises/target/classes)");
            }
            try {
                Sandbox s = new Sandbox(new Config(Path.of(classes), System.getProperty("grade.heap", "2g"),
                        Duration.ofSeconds(Long.getLong("grade.partLimitSeconds", 120)), true));
                Runtime.getRuntime().addShutdownHook(new Thread(s::close, "sandbox-cleanup"));
                shared = s;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return shared;
    }

    /**
     * Makes {@code s} the sandbox of {@link #shared()} (a grade run's own), or with null lets the next call make
     * one from the system properties.
     *
     * @return the sandbox it replaces (to put back), or null
     */
    public static synchronized Sandbox install(Sandbox s) {
        Sandbox before = shared;
        shared = s;
        return before;
    }

    /**
     * What the sandbox may load, as folders (private copies, deleted by {@link #close()}): the framework, the
     * sandbox package, the boot class, the course classes (last).
     */
    List<String> classPath() {
        return classPath;
    }

    /**
     * Starts the sandbox JVM now rather than at the first call, so that its start-up (the JVM, the module layer,
     * the kernels' warm-up) is paid while nobody waits: the watch mode starts the next save's sandbox as soon as a
     * grade is shown.
     *
     * @throws IOException if the JVM cannot be started
     */
    public synchronized void prestart() throws IOException {
        if (process == null) {
            start();
        }
    }

    /**
     * Puts the classes of {@code courseClasses} (a class folder holding dev/shardlings/course) in place of those
     * given at construction, in a sandbox that has answered no call yet: its JVM, even if {@link #prestart()
     * started}, has loaded no course class ({@link SandboxBoot} reads a course class's file when the class is first
     * loaded, and only a call loads one), so the first call runs these. Grading is then as fresh as in a new
     * sandbox.
     *
     * @throws IllegalStateException if the sandbox has answered a call already
     * @throws IOException           if the copy fails
     */
    public synchronized void replaceCourseClasses(Path courseClasses) throws IOException {
        if (calls > 0) {
            throw new IllegalStateException("the sandbox has answered calls: its JVM may hold course classes");
        }
        if (!Files.isDirectory(courseClasses.resolve("dev/shardlings/course"))) {
            throw new IllegalArgumentException("no compiled course classes in " + courseClasses);
        }
        ClassPathCopy.replaceCourse(Path.of(classPath.get(3)), courseClasses);
    }

    /** Which barriers are active in this run, for results.json's {@code extra_data}. */
    public Map<String, Boolean> barriers() {
        Map<String, Boolean> all = new LinkedHashMap<>(barriers);
        all.putAll(held.barriers());
        return Map.copyOf(all);
    }

    /** Starts a part: its budget starts now, its output is collected apart, an earlier part's failure is gone. */
    public synchronized void beginPart() {
        partDeadline = System.nanoTime() + config.partBudget().toNanos();
        output = new CappedOutput(OUTPUT_KEEP);
        poison = null;
    }

    /**
     * Ends a part: kills every process the sandbox started (the sandbox JVM itself too when the part left it
     * unclean), and returns what was killed and what the part printed.
     */
    public synchronized PartEnd endPart() {
        List<String> killed = new ArrayList<>();
        if (process != null) {
            killed.addAll(processes.othersAlive(process.toHandle()));
            processes.kill(process.toHandle(), false);
            if (restart || poison != null || !killed.isEmpty() || !process.isAlive()) {
                stop();
            }
        }
        poison = null;
        partDeadline = Long.MAX_VALUE;
        clearLeftovers();
        CappedOutput out = output;
        output = new CappedOutput(OUTPUT_KEEP);
        return new PartEnd(List.copyOf(killed), out.text(), out.total());
    }

    /**
     * Removes what the part left on disk: the sandbox's home and private /tmp, /var/tmp and /dev/shm are emptied (the
     * folder where the launcher mounts the sandbox's own folder inside its private /tmp is spared), and, as the
     * sandbox user without Landlock (which refuses such writes outright), that user's files are swept from the
     * folders everyone may write to. Called with no course code running: a sandbox JVM kept for the next part has
     * answered its call and has no thread of course code left (one that had is killed).
     */
    private void clearLeftovers() {
        try {
            Optional<Path> spare = mountedSandbox();
            resetPrivateDirs(false);
            Leftovers.empty(home, Optional.empty());
            for (Path d : folders.privateDirs()) {
                Leftovers.empty(d, spare);
            }
            if (user.isPresent() && !held.layers().writesConfined()) {
                Leftovers.sweep(user.get(), Leftovers.SHARED, List.of(dir));
            }
        } catch (IOException e) {
            System.err.println("Could not clear the sandbox's files after the part: " + e);
        }
    }

    /**
     * Gives the sandbox's own folders their permissions (again, after a part: course code may have changed those of
     * the folders it owns): the home folder the sandbox user's, rwx------; with a sandbox user, the private /tmp,
     * /var/tmp and /dev/shm as the machine's are, the judge's with every user allowed to write and the sticky bit
     * (rwxrwxrwt, set once: the sandbox user cannot change them), so that the sandbox user can neither rename nor
     * delete the folders the launcher made in them; without one, rwx------.
     */
    private void resetPrivateDirs(boolean first) throws IOException {
        if (!java.nio.file.FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
            return;
        }
        for (Path d : folders.privateDirs()) {
            if (user.isEmpty()) {
                Files.setPosixFilePermissions(d, PosixFilePermissions.fromString("rwx------"));
            } else if (first) {
                // Java cannot set the sticky bit; chmod can (the judge runs as root here, so it is there).
                try {
                    new ProcessBuilder("chmod", "1777", d.toString()).redirectErrorStream(true)
                            .redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor(10,
                                    java.util.concurrent.TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
        Files.setPosixFilePermissions(home, PosixFilePermissions.fromString("rwx------"));
        if (user.isPresent()) {
            Files.setOwner(home, home.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName(
                    user.get()));
        }
    }

    /** Where the sandbox's folder appears in its private /tmp (the launcher mounts it there when /tmp is private). */
    private Optional<Path> mountedSandbox() throws IOException {
        Path real = dir.toRealPath();
        Path tmp = Path.of("/tmp");
        return real.startsWith(tmp) && !real.equals(tmp) ? Optional.of(folders.tmp().resolve(tmp.relativize(real)))
                : Optional.empty();
    }

    /**
     * Sends one request and waits for its reply.
     *
     * @param limit the call's own time limit (the part's remaining budget may be shorter)
     * @throws SandboxFailure when the sandbox fails in any way (see the class comment)
     */
    public synchronized Wire.Reply call(Wire.Request request, Duration limit) {
        long t0 = System.nanoTime();
        try {
            return call0(request, limit);
        } finally {
            callNanos += System.nanoTime() - t0;
            calls++;
        }
    }

    private long callNanos;
    private int calls;
    private int starts;

    /** Calls, sandbox JVM starts and time spent in calls so far (for {@code -Dgrade.timing=true}). */
    public synchronized String stats() {
        return calls + " calls, " + starts + " sandbox starts, " + callNanos / 1_000_000 + " ms in calls";
    }

    private Wire.Reply call0(Wire.Request request, Duration limit) {
        if (poison != null) {
            throw poison;
        }
        long now = System.nanoTime();
        if (now >= partDeadline) {
            throw poison(new SandboxFailure(FailureKind.PART_TIMEOUT, "ran longer than "
                    + config.partBudget().toSeconds() + " s in all", output.text(), config.partBudget()));
        }
        try {
            long t0 = System.nanoTime();
            boolean fresh = process == null || restart || !process.isAlive();
            if (fresh) {
                stop();
                start();
            }
            if (fresh || booted.getCount() > 0) { // a prestarted JVM may still be booting
                boolean up = awaitBoot();
                if (!up) { // once more, in a fresh JVM: a stalled start is the machine's, never the student's
                    stop();
                    start();
                    up = awaitBoot();
                }
                if (!up) {
                    throw kill(FailureKind.BOOT_TIMEOUT, "the sandbox JVM did not start within "
                            + BOOT_LIMIT.toSeconds() + " s", BOOT_LIMIT);
                }
                // The call's limit and the part's budget start after the boot: its time was not the student's.
                long boot = System.nanoTime() - t0;
                now += boot;
                if (partDeadline != Long.MAX_VALUE) {
                    partDeadline += boot;
                }
            }
            if (!replies.isEmpty()) {
                throw kill(FailureKind.PROTOCOL, "the sandbox wrote a message nobody asked for");
            }
            Wire.writeFrame(requests, Wire.encode(request));
        } catch (IOException e) {
            // The request could not be delivered: the JVM is gone (see why below) or the pipe broke.
            return awaitDeath();
        }
        long wait = Math.min(limit.toNanos(), partDeadline - now);
        Object got;
        try {
            got = replies.poll(wait, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw kill(FailureKind.CALL_TIMEOUT, "interrupted");
        }
        if (got == null) {
            boolean budget = partDeadline - now <= limit.toNanos();
            Duration d = budget ? config.partBudget() : limit;
            throw kill(budget ? FailureKind.PART_TIMEOUT : FailureKind.CALL_TIMEOUT, "ran longer than "
                    + d.toSeconds() + " s" + (budget ? " in all" : "") + memoryNote(), d);
        }
        if (got == END) {
            return awaitDeath();
        }
        if (got instanceof Wire.ProtocolException p) {
            try {
                if (process.waitFor(2, TimeUnit.SECONDS)) {
                    return awaitDeath(); // it died (and wrote its last words where replies go)
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            throw kill(FailureKind.PROTOCOL, p.getMessage());
        }
        byte[] payload = (byte[]) got;
        // The id first: nothing of a reply to another request is decoded.
        if (payload.length < Long.BYTES || java.nio.ByteBuffer.wrap(payload).getLong() != request.id()) {
            throw kill(FailureKind.PROTOCOL, "a reply to a request that was never sent");
        }
        Wire.Reply reply;
        try {
            reply = Wire.decodeReply(payload);
        } catch (Wire.ProtocolException p) {
            throw kill(FailureKind.PROTOCOL, p.getMessage());
        } catch (OutOfMemoryError e) {
            // Decoding is bounded; this is the last line, so that a reply can never take the judge down.
            throw kill(FailureKind.PROTOCOL, "a reply too large to read");
        }
        restart |= reply.stillRunning() || !reply.leftThreads().isEmpty();
        if (reply.thrown() != null && reply.thrown().kind() == Wire.ThrownKind.OWN_THREADS) {
            // Like a death: the rest of the part fails at once, instead of a fresh JVM per shrinking step.
            throw poison(new SandboxFailure(FailureKind.OWN_THREADS, reply.thrown().message(), output.text(), null));
        }
        if (reply.thrown() != null && reply.thrown().kind() == Wire.ThrownKind.UNTRACED_RESULT) {
            throw poison(new SandboxFailure(FailureKind.UNTRACED_RESULT, reply.thrown().message(), output.text(),
                    null));
        }
        if (!reply.leftThreads().isEmpty()) {
            throw poison(new SandboxFailure(FailureKind.LEFT_THREADS, String.join(", ", reply.leftThreads()),
                    output.text(), null));
        }
        return reply;
    }

    /**
     * When a call runs out of time with the sandbox's memory near its heap limit, says so: filling the heap touches
     * every page of it, and where fresh memory is slow to hand out (a virtual machine whose host lends pages lazily:
     * the CI machine took over 10 s for 256 MB) an allocation without end reaches the time limit before the
     * {@code OutOfMemoryError}. Empty when the memory is not known (no /proc) or not near the limit.
     */
    private String memoryNote() {
        long heap = heapBytes(config.heap());
        long resident = process == null ? -1 : OsProbes.residentBytes(process.pid());
        if (heap <= 0 || resident < heap * 9 / 10) {
            return "";
        }
        return " (its memory had grown to " + (resident >> 20) + " MB, near the heap's limit of " + config.heap()
                + ": is something allocating without end?)";
    }

    /** Bytes in a JVM heap size such as {@code "256m"} or {@code "2g"}; -1 when it is not one. */
    static long heapBytes(String size) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?i)(\\d+)([kmg]?)").matcher(size.strip());
        if (!m.matches()) {
            return -1;
        }
        int shift = switch (m.group(2).toLowerCase(java.util.Locale.ROOT)) {
            case "k" -> 10;
            case "m" -> 20;
            case "g" -> 30;
            default -> 0;
        };
        try {
            return Math.multiplyExact(Long.parseLong(m.group(1)), 1L << shift);
        } catch (ArithmeticException | NumberFormatException e) {
            return -1;
        }
    }

    /** Waits for the boot's marker (or the end of its standard error); false after {@link #BOOT_LIMIT}. */
    private boolean awaitBoot() {
        try {
            return booted.await(BOOT_LIMIT.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private Wire.Reply awaitDeath() {
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                throw kill(FailureKind.PROTOCOL, "the sandbox closed its output but did not exit");
            }
            for (Thread t : readers) {
                t.join(2000);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        int status = process.exitValue();
        String out = output.text();
        boolean oom = out.contains("OutOfMemoryError") || status == 3 && out.contains("Java heap space");
        processes.kill(process.toHandle(), true);
        throw poison(new SandboxFailure(oom ? FailureKind.OUT_OF_MEMORY : FailureKind.EXITED,
                oom ? "ran out of memory" : "exited with status " + status, out, null));
    }

    private SandboxFailure kill(FailureKind kind, String message) {
        return kill(kind, message, null);
    }

    private SandboxFailure kill(FailureKind kind, String message, Duration limit) {
        stop();
        return poison(new SandboxFailure(kind, message, output.text(), limit));
    }

    private SandboxFailure poison(SandboxFailure f) {
        poison = f;
        return f;
    }

    /**
     * The JDK modules the sandbox JVM has ({@code --limit-modules}): no {@code jdk.unsupported}
     * ({@code sun.misc.Unsafe}), no attach API, no incubating foreign-memory API, no compiler.
     */
    static final String SANDBOX_MODULES = "java.base,java.management,jdk.incubator.vector";

    private static final Object END = new Object();
    /**
     * What the sandbox wrote on standard error before the boot's marker ({@link SandboxBoot#READY}): the launcher's
     * report of its barriers, the JVM's notices.
     *
     * @param unclaimed what goes on into the part's output: nothing when the marker came; everything read when no
     *                  marker came in the first 16 KB (or before the stream ended), so nothing is hidden that did not
     *                  come from the boot's start
     * @param beforeMarker the text read before the marker (all of it when none came)
     */
    record BootOutput(byte[] unclaimed, String beforeMarker) {
    }

    /** Reads the sandbox's standard error up to and including the boot's marker line (see {@link BootOutput}). */
    static BootOutput readBootOutput(InputStream in) throws IOException {
        byte[] marker = (SandboxBoot.READY + "\n").getBytes(StandardCharsets.UTF_8);
        byte[] seen = new byte[16 * 1024];
        int n = 0;
        for (int b; n < seen.length && (b = in.read()) >= 0; ) {
            seen[n++] = (byte) b;
            if (b == '\n' && n >= marker.length
                    && java.util.Arrays.equals(seen, n - marker.length, n, marker, 0, marker.length)) {
                return new BootOutput(new byte[0], new String(seen, 0, n - marker.length, StandardCharsets.UTF_8));
            }
        }
        return new BootOutput(java.util.Arrays.copyOf(seen, n), new String(seen, 0, n, StandardCharsets.UTF_8));
    }

    private List<Thread> readers = List.of();

    private void start() throws IOException {
        List<String> jvm = new ArrayList<>();
        jvm.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--add-modules", "jdk.incubator.vector", "--limit-modules", SANDBOX_MODULES,
                "-Xmx" + config.heap(), "-Xss4m",
                "-XX:+ExitOnOutOfMemoryError", "-XX:ErrorFile=" + home.resolve("hs_err.log"),
                "-XX:+DisableAttachMechanism", "-XX:-UsePerfData", "-XX:-UseDynamicNumberOfCompilerThreads",
                // The JIT's thresholds are set for servers that run for hours; a sandbox lives for one grade (tens
                // of seconds, thousands of methods each called a few hundred times), and C2 took 10-11 s of CPU
                // there, on the core the judge needed. Ten times the thresholds compile only what stays hot;
                // the kernels, which the Vector API makes slow until C2 compiles them, keep theirs low. Measured:
                // the grade of the solutions 2 s faster (docs/performance.md, "The grade run"). "quiet" first:
                // a CompileCommand otherwise prints itself on standard output, which is the protocol's.
                "-XX:CompileThresholdScaling=10", "-XX:CompileCommand=quiet",
                "-XX:CompileCommand=CompileThresholdScaling,dev.shardlings.array.Kernels::*,0.05",
                // No common-pool workers: parallel streams run on the calling thread, async tasks on new threads
                // (which SandboxMain counts), so no work hides from the trace in a pool.
                "-Djava.util.concurrent.ForkJoinPool.common.parallelism=0", "-Djava.io.tmpdir=" + folders.tmp(),
                "-Duser.home=" + home,
                "-Dfile.encoding=UTF-8", "-Dstdout.encoding=UTF-8", "-Dstderr.encoding=UTF-8",
                // JDK 17-23: the boot installs a security manager against native code; 24+: the JVM refuses it.
                Runtime.version().feature() < 24 ? "-Djava.security.manager=allow" : "--illegal-native-access=deny",
                "-Djava.library.path=",
                "-cp", classPath.get(2), SandboxBoot.class.getName(), classPath.get(0), classPath.get(1),
                classPath.get(3)));
        List<String> cmd = new ArrayList<>();
        if (setsid) {
            cmd.add("setsid"); // a session of its own: every process it starts can be found and killed
        }
        if (os.isPresent()) {
            // The launcher puts up the OS-level barriers, becomes the sandbox user and then the JVM (execv).
            cmd.addAll(os.get().wrap(user, folders, config.without(), jvm));
        } else {
            user.ifPresent(u -> cmd.addAll(List.of("setpriv", "--reuid=" + u, "--regid=" + u, "--clear-groups",
                    "--no-new-privs", "--")));
            cmd.addAll(jvm);
        }
        ProcessBuilder pb = new ProcessBuilder(command != null ? command : cmd).directory(home.toFile());
        Map<String, String> env = pb.environment();
        env.clear(); // no JAVA_TOOL_OPTIONS, no MAVEN_OPTS, no tokens of the CI or the grading service
        env.putAll(environment());
        process = pb.start();
        starts++;
        processes.started(process.toHandle());
        requests = process.getOutputStream();
        replies = new LinkedBlockingQueue<>();
        restart = false;
        Process p = process;
        LinkedBlockingQueue<Object> q = replies;
        // A test's stand-in command prints no boot marker unless it says so: it is ready at once.
        CountDownLatch boot = new CountDownLatch(command != null && !commandBoots ? 0 : 1);
        booted = boot;
        Thread stdout = new Thread(() -> {
            try (InputStream in = p.getInputStream()) {
                while (true) {
                    byte[] frame;
                    try {
                        frame = Wire.readFrame(in);
                    } catch (Wire.ProtocolException e) {
                        // What broke the protocol is output too (the JVM itself prints "Terminating due to
                        // java.lang.OutOfMemoryError" there): keep it, and the rest, for the report.
                        byte[] read = e.read();
                        output.write(read, read.length);
                        q.add(e);
                        drain(in);
                        return;
                    }
                    if (frame == null) {
                        break;
                    }
                    q.add(frame);
                }
            } catch (IOException e) {
                // the pipe closed under us: the same as an end
            }
            q.add(END);
        }, "sandbox-replies");
        Thread stderr = new Thread(() -> {
            byte[] buf = new byte[1 << 16];
            try (InputStream in = p.getErrorStream()) {
                // What the JVM and the boot print before the boot's marker (the Vector API's notice, JDK 17-23's
                // warning about the security manager) is not the student's output: no course code has run yet.
                byte[] first;
                try {
                    BootOutput b = readBootOutput(in);
                    first = b.unclaimed();
                    // Every start reports its barriers: one that got fewer than the probe lowers what the run says.
                    OsBarriers.Layers.find(b.beforeMarker()).ifPresent(l -> held = held.weakenedTo(l));
                } finally {
                    boot.countDown(); // booted, or the stream ended: either way the call may go on
                }
                output.write(first, first.length);
                for (int n; (n = in.read(buf)) > 0; ) {
                    output.write(buf, n); // the part now running: the reader outlives parts
                }
            } catch (IOException e) {
                // the pipe closed: nothing more to read
            }
        }, "sandbox-output");
        stdout.setDaemon(true);
        stderr.setDaemon(true);
        stdout.start();
        stderr.start();
        readers = List.of(stdout, stderr);
    }

    /**
     * The sandbox's whole environment: {@code PATH}, its own {@code HOME} and {@code TMPDIR}, {@code LANG}, and the
     * marker that finds its processes; nothing of the judge's (no {@code JAVA_TOOL_OPTIONS}, no {@code MAVEN_OPTS},
     * no tokens of the CI or the grading service).
     */
    private Map<String, String> environment() {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
        env.put("HOME", home.toString());
        env.put("TMPDIR", folders.tmp().toString());
        env.put("LANG", "C.UTF-8");
        env.put(ProcessTree.MARKER, processes.marker());
        return env;
    }

    /** Reads what is left of a stream into the part's output (capped there). */
    private void drain(InputStream in) {
        byte[] buf = new byte[1 << 16];
        try {
            for (int n; (n = in.read(buf)) > 0; ) {
                output.write(buf, n);
            }
        } catch (IOException e) {
            // closed: nothing more
        }
    }

    private void stop() {
        if (process == null) {
            return;
        }
        try {
            requests.close();
        } catch (IOException e) {
            // already closed
        }
        processes.kill(process.toHandle(), true);
        process = null;
    }

    @Override
    public synchronized void close() {
        stop();
        processes.killMarked();
        if (lease != null) {
            lease.close(); // only now: no process of the user is left
        }
        try {
            Folders.deleteRecursively(dir);
        } catch (IOException e) {
            System.err.println("Could not remove the sandbox folder " + dir + ": " + e);
        }
    }

}
