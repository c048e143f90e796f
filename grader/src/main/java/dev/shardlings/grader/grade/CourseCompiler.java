package dev.shardlings.grader.grade;

import dev.shardlings.grader.host.ClassPathCopy;
import dev.shardlings.grader.host.Folders;
import dev.shardlings.grader.judge.Guard;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * Compiles a submission's course files so that no file costs more than its own parts. javac runs in a JVM of its
 * own ({@link JavacWorker}), given each request a time limit: a file that crashes javac (a {@link StackOverflowError}
 * on an expression nested 20,000 deep, any {@link Throwable}), or keeps it busy past the limit, is graded as its
 * stub, and that process is replaced; the judge never sees the crash.
 *
 * <ol>
 *   <li>javac reads the files, as the compile will (UTF-8, unicode escapes applied), and says each one's package
 *   (all at once; one at a time when that crashed or timed out): a file it does not place in
 *   {@code dev.shardlings.course} is graded as its stub.</li>
 *   <li>The files are compiled together; a file with errors is replaced by its stub and the rest compiled again.</li>
 *   <li>When a compile crashes, times out, or fails only in the course's own stubs, the files are added to the stubs
 *   one at a time, in course order, and a file whose addition fails is graded as its stub.</li>
 * </ol>
 *
 * <p>A byte that is not UTF-8 is javac's error "unmappable character … for encoding UTF-8", as in the course's own
 * Maven build (which compiles in UTF-8): the file does not compile and costs its own parts.
 */
final class CourseCompiler implements AutoCloseable {

    /** The default time javac may take for one request (reading a file, or compiling the course). */
    static final Duration LIMIT = Duration.ofSeconds(60);

    /** javac's JVM: the stack javac has when run as {@code javac} or by Maven, and a heap of its own. */
    private static final List<String> JVM_OPTIONS = List.of("-Xss1m", "-Xmx768m", "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1");

    /** The lines of compiler messages kept per file. */
    private static final int MESSAGE_LINES = 30;

    private static final String TIMEOUT = "timeout";
    private static final String COURSE_PACKAGE = dev.shardlings.grader.sandbox.CourseClasses.PACKAGE;

    /** javac's answer to one request: for a parse, the package of each file (in request order; "" for none). */
    record Answer(String outcome, List<String> packages, String crash, List<Diag> errors) {
        boolean ok() {
            return JavacWorker.OK.equals(outcome);
        }
    }

    /**
     * One error: the file's name ("" for none), its line, javac's message, and the source line around the error
     * with the error's offset in it ("" and -1 when javac gave no position).
     */
    record Diag(String file, long line, String message, String code, int caret) {
    }

    private final Duration limit;
    private final ExecutorService reader = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "javac-answers");
        t.setDaemon(true);
        return t;
    });
    private Process process;
    private DataOutputStream toJavac;
    private DataInputStream fromJavac;

    CourseCompiler(Duration limit) {
        this.limit = limit;
    }

    /**
     * Compiles the course files in {@code sources} (a source tree holding dev/shardlings/course) into
     * {@code classes}; a file that cannot be graded is replaced there by its stub from {@code stubs}.
     *
     * @param shown where the messages say each file is (its path in the student's own folder, never the temporary
     *              copy), by its name
     * @param replaced the files already graded as their stub at intake (missing, a link …), with why: named when
     *                 a file that uses them does not compile
     * @return the files replaced by their stub, with why (those of {@code replaced} among them)
     * @throws IOException           if a file cannot be read or written, or javac cannot be started
     * @throws IllegalStateException if even the stubs do not compile
     */
    Map<String, SubmissionGrading.Stubbed> compile(Path sources, Path classes, Path stubs,
                                                   Function<String, String> shown,
                                                   Map<String, SubmissionGrading.Stubbed> replaced)
            throws IOException {
        Path pkg = sources.resolve("dev/shardlings/course");
        Files.createDirectories(classes);
        List<String> options = options(classes);
        Map<String, SubmissionGrading.Stubbed> stubbed = new TreeMap<>(replaced);
        // 1. The package, as javac reads each file; all at once, then one at a time when that crashed.
        List<String> read = SubmissionGrading.COURSE_FILES.stream().filter(f -> !isStubQuietly(pkg, stubs, f))
                .toList();
        Answer all = read.isEmpty() ? null : ask(JavacWorker.PARSE, options, read.stream().map(pkg::resolve).toList());
        for (int i = 0; i < read.size(); i++) {
            String name = read.get(i);
            Answer a = all.packages().size() == read.size() || read.size() == 1 ? all
                    : ask(JavacWorker.PARSE, options, List.of(pkg.resolve(name)));
            String declared = a.packages().size() == read.size() ? a.packages().get(i)
                    : a.packages().size() == 1 ? a.packages().get(0) : "";
            List<Diag> errors = byFile(a.errors()).getOrDefault(name, List.of());
            SubmissionGrading.Stubbed why = switch (a.outcome()) {
                case TIMEOUT -> timedOut(name, "reading");
                case JavacWorker.CRASH -> crashed(name, a, "reading");
                default -> COURSE_PACKAGE.equals(declared) ? null
                        : !errors.isEmpty() ? didNotCompile(name, errors, shown)
                        : new SubmissionGrading.Stubbed(name + " is not in package " + COURSE_PACKAGE,
                        "javac reads " + shown.apply(name) + " as " + (declared.isEmpty() ? "declaring no package"
                                : "package " + SubmissionGrading.printable(declared)) + " (unicode escapes"
                                + " applied), not " + COURSE_PACKAGE + ".");
            };
            if (why != null) {
                stubbed.put(name, why);
                Files.copy(stubs.resolve(name), pkg.resolve(name), StandardCopyOption.REPLACE_EXISTING);
            }
        }
        // 2. Together; a file with errors is replaced and the rest compiled again.
        for (int attempt = 0; attempt <= SubmissionGrading.COURSE_FILES.size(); attempt++) {
            Answer a = compileAll(pkg, classes, options);
            if (a.ok()) {
                requireOnlyCourseClasses(classes);
                return stubbed;
            }
            Map<String, List<Diag>> byFile = byFile(a.errors());
            List<String> theirs = byFile.keySet().stream().filter(SubmissionGrading.COURSE_FILES::contains)
                    .filter(f -> !isStubQuietly(pkg, stubs, f)).toList();
            if (!JavacWorker.ERRORS.equals(a.outcome()) || theirs.isEmpty()) {
                break; // 3.
            }
            for (String f : theirs) {
                stubbed.put(f, usingStubs(didNotCompile(f, byFile.get(f), shown), byFile.get(f), stubbed));
                Files.copy(stubs.resolve(f), pkg.resolve(f), StandardCopyOption.REPLACE_EXISTING);
            }
        }
        // 3. One at a time, onto the stubs.
        Map<String, byte[]> theirs = new LinkedHashMap<>();
        for (String name : SubmissionGrading.COURSE_FILES) {
            if (!isStub(pkg, stubs, name)) {
                theirs.put(name, Files.readAllBytes(pkg.resolve(name)));
                Files.copy(stubs.resolve(name), pkg.resolve(name), StandardCopyOption.REPLACE_EXISTING);
            }
        }
        boolean lastOk = false;
        for (Map.Entry<String, byte[]> e : theirs.entrySet()) {
            String name = e.getKey();
            Files.write(pkg.resolve(name), e.getValue());
            Answer a = compileAll(pkg, classes, options);
            lastOk = a.ok();
            if (lastOk) {
                continue;
            }
            Map<String, List<Diag>> byFile = byFile(a.errors());
            stubbed.put(name, switch (a.outcome()) {
                case TIMEOUT -> timedOut(name, "compiling");
                case JavacWorker.CRASH -> crashed(name, a, "compiling");
                default -> byFile.containsKey(name)
                        ? usingStubs(didNotCompile(name, byFile.get(name), shown), byFile.get(name), stubbed)
                        : new SubmissionGrading.Stubbed(name + " did not compile", "With " + name + " added, javac"
                        + " reports errors in the course's other files:\n" + messages(a.errors(), shown));
            });
            Files.copy(stubs.resolve(name), pkg.resolve(name), StandardCopyOption.REPLACE_EXISTING);
        }
        if (!lastOk) {
            Answer a = compileAll(pkg, classes, options);
            if (!a.ok()) {
                throw new IllegalStateException("the course's own stubs do not compile: " + a);
            }
        }
        requireOnlyCourseClasses(classes);
        return stubbed;
    }

    private Answer compileAll(Path pkg, Path classes, List<String> options) throws IOException {
        Folders.deleteRecursively(classes);
        Files.createDirectories(classes);
        return ask(JavacWorker.COMPILE, options, SubmissionGrading.COURSE_FILES.stream().map(pkg::resolve).toList());
    }

    private SubmissionGrading.Stubbed timedOut(String name, String doing) {
        return new SubmissionGrading.Stubbed(name + " took the compiler longer than " + limit.toSeconds() + " s",
                "javac was still " + doing + " " + name + " after " + limit.toSeconds() + " s and was stopped. Code"
                        + " that javac needs that long to check (e.g. deeply nested generic calls) cannot be graded.");
    }

    private static SubmissionGrading.Stubbed crashed(String name, Answer a, String doing) {
        String what = a.crash().isEmpty() ? "an error" : a.crash().substring(a.crash().lastIndexOf('.') + 1);
        String advice = what.equals("StackOverflowError") ? " An expression or a block nested thousands deep"
                + " overflows javac's stack: write it flatter." : what.equals("OutOfMemoryError")
                ? " javac ran out of memory on it." : "";
        return new SubmissionGrading.Stubbed(name + " crashed the compiler (" + Guard.clip(what, 100) + ")",
                "javac stopped with " + Guard.clip(a.crash(), 300) + " while " + doing + " " + name + "." + advice);
    }

    /**
     * {@code why} with a paragraph naming the files graded as their stub that the errors mention (by their class, in
     * the message or the source line), and why each was: a file that uses a helper of another course file does not
     * compile once that file is its stub. The course's rule, stated in every stub, is that each course file stands
     * alone (the framework, the JDK and its own class), so that one broken file never costs another's points.
     */
    private static SubmissionGrading.Stubbed usingStubs(SubmissionGrading.Stubbed why, List<Diag> errors,
                                                       Map<String, SubmissionGrading.Stubbed> stubbed) {
        List<String> used = stubbed.keySet().stream().filter(f -> {
            java.util.regex.Pattern cls = java.util.regex.Pattern.compile("\\b" + f.replace(".java", "") + "\\b");
            return errors.stream().anyMatch(d -> cls.matcher(d.message()).find() || cls.matcher(d.code()).find());
        }).toList();
        if (used.isEmpty()) {
            return why;
        }
        StringBuilder sb = new StringBuilder(why.details()).append("This file uses ")
                .append(String.join(" and ", used.stream().map(f -> f.replace(".java", "")).toList()))
                .append(", which ").append(used.size() == 1 ? "was" : "were").append(" replaced by the stub (");
        sb.append(String.join("; ", used.stream().map(f -> stubbed.get(f).reason()).toList()));
        sb.append("), so what it uses from ").append(used.size() == 1 ? "that file" : "them").append(" is not"
                + " there. Each course file must stand alone (the framework, the JDK and its own class): copy a"
                + " helper you need from another course file into this one.\n");
        return new SubmissionGrading.Stubbed(why.reason(), sb.toString());
    }

    private static SubmissionGrading.Stubbed didNotCompile(String name, List<Diag> errors,
                                                           Function<String, String> shown) {
        return new SubmissionGrading.Stubbed(name + " did not compile", messages(errors, shown));
    }

    /**
     * Compiler messages as javac prints them, naming the student's own file: the message's first line, the source
     * line with a caret under the error, then the message's other lines (e.g. "symbol:", "location:"); at most
     * {@value #MESSAGE_LINES} lines a file.
     */
    private static String messages(List<Diag> errors, Function<String, String> shown) {
        Map<String, StringBuilder> byFile = new LinkedHashMap<>();
        for (Diag d : errors) {
            StringBuilder sb = byFile.computeIfAbsent(d.file(), x -> new StringBuilder());
            if (sb.toString().lines().count() < MESSAGE_LINES) {
                List<String> message = Guard.clip(d.message(), 300).lines().toList();
                sb.append("  ").append(d.file().isEmpty() ? "" : shown.apply(d.file()) + ':' + d.line() + ": ")
                        .append(message.isEmpty() ? "" : message.get(0)).append('\n');
                if (d.caret() >= 0) {
                    String code = tabsExpanded(d.code());
                    int at = tabsExpanded(d.code().substring(0, Math.min(d.caret(), d.code().length()))).length();
                    sb.append("  ").append(SubmissionGrading.printable(code).stripTrailing()).append('\n')
                            .append("  ").append(" ".repeat(SubmissionGrading.printable(code.substring(0,
                                    Math.min(at, code.length()))).length())).append("^\n");
                }
                message.stream().skip(1).forEach(l -> sb.append("    ").append(l.strip()).append('\n'));
            }
        }
        return String.join("", byFile.values());
    }

    /** {@code s} with each tab replaced by the spaces up to the next multiple of 8, as javac places its caret. */
    private static String tabsExpanded(String s) {
        StringBuilder b = new StringBuilder();
        for (char c : s.toCharArray()) {
            if (c == '\t') {
                b.append(" ".repeat(8 - b.length() % 8));
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }

    private static Map<String, List<Diag>> byFile(List<Diag> errors) {
        Map<String, List<Diag>> byFile = new LinkedHashMap<>();
        for (Diag d : errors) {
            byFile.computeIfAbsent(d.file(), x -> new ArrayList<>()).add(d);
        }
        return byFile;
    }

    private static boolean isStub(Path pkg, Path stubs, String name) throws IOException {
        return Arrays.equals(Files.readAllBytes(pkg.resolve(name)), Files.readAllBytes(stubs.resolve(name)));
    }

    private static boolean isStubQuietly(Path pkg, Path stubs, String name) {
        try {
            return isStub(pkg, stubs, name);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static List<String> options(Path classes) {
        return List.of("--release", "17", "--add-modules", "jdk.incubator.vector", "-proc:none", "-implicit:none",
                "-nowarn", "-encoding", "UTF-8", "-d", classes.toString(), "-classpath",
                String.join(java.io.File.pathSeparator, ClassPathCopy.frameworkClassPath().stream().map(Path::toString)
                        .toList()), "-sourcepath", "");
    }

    /** A course file can only declare classes of its own package; this holds whatever javac was given. */
    private static void requireOnlyCourseClasses(Path classes) throws IOException {
        try (Stream<Path> all = Files.walk(classes)) {
            for (Path f : all.filter(Files::isRegularFile).toList()) {
                if (!classes.relativize(f).toString().replace('\\', '/').startsWith("dev/shardlings/course/")) {
                    throw new IllegalStateException("a class outside dev.shardlings.course was compiled: " + f);
                }
            }
        }
    }

    /**
     * One request to javac's JVM, started when none is running: its answer, or a crash when the JVM ended, or
     * {@code timeout} (the JVM is killed) when no answer came within the limit.
     */
    Answer ask(int op, List<String> options, List<Path> files) throws IOException {
        if (process == null) {
            start();
        }
        try {
            toJavac.writeInt(op);
            JavacWorker.writeStrings(toJavac, options);
            JavacWorker.writeStrings(toJavac, files.stream().map(Path::toString).toList());
            toJavac.flush();
        } catch (IOException e) {
            return ended();
        }
        DataInputStream in = fromJavac; // this process's: a read left from a killed one must not take the next's
        Future<Answer> answer = reader.submit(() -> read(in));
        try {
            Answer a = answer.get(limit.toMillis(), TimeUnit.MILLISECONDS);
            if (JavacWorker.CRASH.equals(a.outcome())) {
                stop(); // it exits after a crash; a fresh one answers the next request
            }
            return a;
        } catch (TimeoutException e) {
            stop();
            answer.cancel(true);
            return new Answer(TIMEOUT, List.of(), "", List.of());
        } catch (ExecutionException e) {
            return ended();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stop();
            throw new IOException("interrupted while javac ran", e);
        }
    }

    /** The answer when javac's JVM ended without one (killed for its memory, or a crash of the JVM itself). */
    private Answer ended() {
        Process p = process;
        stop();
        String status = p == null || p.isAlive() ? "" : " with status " + p.exitValue();
        return new Answer(JavacWorker.CRASH, List.of(), "the compiler's JVM ended" + status, List.of());
    }

    private static Answer read(DataInputStream in) throws IOException {
        String outcome = JavacWorker.readString(in, 64);
        List<String> packages = JavacWorker.readStrings(in);
        String crash = JavacWorker.readString(in, 1 << 16);
        int n = in.readInt();
        if (n < 0 || n > JavacWorker.MAX_ERRORS) {
            throw new IOException("javac's answer has " + n + " errors");
        }
        List<Diag> errors = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            errors.add(new Diag(JavacWorker.readString(in, 1 << 12), in.readLong(), JavacWorker.readString(in, 1 << 16),
                    JavacWorker.readString(in, 1 << 12), in.readInt()));
        }
        return new Answer(outcome, List.copyOf(packages), crash, List.copyOf(errors));
    }

    private void start() throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(JVM_OPTIONS);
        command.addAll(List.of("-cp", location(JavacWorker.class).toString(), JavacWorker.class.getName()));
        process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        toJavac = new DataOutputStream(new BufferedOutputStream(process.getOutputStream()));
        fromJavac = new DataInputStream(new BufferedInputStream(process.getInputStream()));
    }

    private void stop() {
        Process p = process;
        process = null;
        if (p == null) {
            return;
        }
        p.destroyForcibly();
        try {
            p.waitFor(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            p.getInputStream().close();
            p.getOutputStream().close();
        } catch (IOException e) {
            // gone
        }
    }

    private static Path location(Class<?> c) {
        try {
            return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException("cannot locate " + c, e);
        }
    }

    @Override
    public void close() {
        if (process != null) {
            try {
                toJavac.writeInt(JavacWorker.EXIT);
                toJavac.flush();
                process.waitFor(5, TimeUnit.SECONDS);
            } catch (IOException e) {
                // it ends below either way
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            stop();
        }
        reader.shutdownNow();
    }
}
