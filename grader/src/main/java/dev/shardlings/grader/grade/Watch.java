package dev.shardlings.grader.grade;

import dev.shardlings.grader.checks.ModelledTime;
import dev.shardlings.grader.host.ClassPathCopy;
import dev.shardlings.grader.host.Folders;
import dev.shardlings.grader.host.Sandbox;
import dev.shardlings.grader.parts.Part;
import dev.shardlings.grader.sandbox.CourseClasses;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import javax.tools.JavaCompiler;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import java.io.IOException;
import java.io.PrintStream;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

/**
 * A student's watch mode: it watches the eight course files and, each time one is saved, compiles that file and
 * regrades its parts, then prints their reports, the progress line and the next part to work on. The grade is the
 * grade profile's (the same checks, seeds and reports, merged into results.json with {@link Results#merged}); what
 * makes it fast is that this JVM stays up between saves: javac runs in it, warm, and the judge's classes (JUnit,
 * jqwik, the checks) are loaded once.
 *
 * <p>Isolation is kept: this JVM is the judge and never loads a course class (javac reads them, it does not run
 * them); every regrade starts a fresh {@link Sandbox} JVM on the newly compiled classes, so no state of an earlier
 * version of the code survives into the next grade. javac runs here rather than in a JVM of its own
 * ({@link CourseCompiler}) because this is the student's own machine grading the student's own files: the barriers
 * against a hostile file's compile are for grades that count.
 *
 * <p>Saves are found by polling the files' size and modification time (every {@code --poll-ms}) rather than with
 * {@link java.nio.file.WatchService}, which on macOS polls only every 10 s; a change is graded once the file has
 * been quiet for {@code --debounce-ms} (editors write a file more than once per save), and only when its content
 * differs from what was last compiled.
 *
 * <pre>
 * mvn -q install -DskipTests                 # once
 * mvn -q -pl grader exec:java@watch          # Ctrl+C stops
 * </pre>
 */
@Command(name = "watch", mixinStandardHelpOptions = true,
        description = "Regrades the parts of a course file each time it is saved.")
public final class Watch implements Callable<Integer>, AutoCloseable {

    @Option(names = "--course", defaultValue = ".", description = "the course checkout (default: here)")
    Path course;

    @Option(names = "--target", defaultValue = "exercises", description = "the module whose course files are"
            + " watched: exercises (default) or solutions")
    String target;

    @Option(names = "--results", description = "results.json to keep up to date (default:"
            + " <course>/grader/target/grade/results.json, the grade profile's)")
    Path results;

    @Option(names = "--poll-ms", defaultValue = "100", description = "how often the files are looked at, in ms")
    long pollMillis = 100;

    @Option(names = "--debounce-ms", defaultValue = "150", description = "how long a changed file must stay"
            + " unchanged before it is graded, in ms")
    long debounceMillis = 150;

    @picocli.CommandLine.Mixin
    GradeOptions options = new GradeOptions();

    private final PrintStream out;
    private volatile boolean stopped;
    /** The sandbox of the grade running now, for {@link #close()}. */
    private volatile Sandbox current;
    /** The next save's sandbox, its JVM started ahead ({@link #prepareNextSandbox()}); null while none is. */
    private volatile Sandbox spare;
    private final JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    private StandardJavaFileManager fileManager;
    private Path work;
    private Path folder;
    /** The folder of each course file's last classes that compiled (or of its stub's), by file name. */
    private final Map<String, Path> compiled = new LinkedHashMap<>();
    /** Each course file's size and modification time when last looked at. */
    private final Map<String, Object> seen = new LinkedHashMap<>();
    /** The content last compiled, by file name: a save that changes nothing is not graded again. */
    private final Map<String, byte[]> sources = new LinkedHashMap<>();
    private int generation;

    /** A watch that prints on standard output. */
    public Watch() {
        this(System.out);
    }

    /** A watch that prints on {@code out} (the grader's tests and the save-to-verdict benchmark read it). */
    /** The watch grades the whole course: its results merge with those of {@code mvn test -Pgrade}. */
    private static final Assignments.Assignment COURSE = Assignments.defaults().named(Assignments.COURSE);

    Watch(PrintStream out) {
        this.out = out;
    }

    public static void main(String[] args) {
        Watch watch = new Watch();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            // Killed first: close() waits for a call in progress, and student code may be looping in one.
            ProcessHandle.current().descendants().forEach(ProcessHandle::destroyForcibly);
            watch.close();
            watch.removeWork();
        }, "watch-cleanup"));
        System.exit(new CommandLine(watch).execute(args));
    }

    @Override
    public Integer call() throws IOException, InterruptedException {
        if (javac == null) {
            System.err.println("The watch needs a JDK (javac), not a JRE: " + System.getProperty("java.home"));
            return 2;
        }
        try {
            start();
            loop();
            return 0;
        } finally {
            close();
            removeWork();
        }
    }

    /** Looks at the files every --poll-ms and grades each save once it is quiet, until {@link #close()}. */
    private void loop() throws IOException, InterruptedException {
        Map<String, Long> pending = new LinkedHashMap<>();
        while (!stopped) {
            Thread.sleep(pollMillis);
            long now = System.nanoTime();
            for (String f : CourseClasses.FILES) {
                Object s = stamp(f);
                if (!s.equals(seen.get(f))) {
                    seen.put(f, s);
                    pending.put(f, now);
                }
            }
            List<String> ready = pending.entrySet().stream()
                    .filter(e -> now - e.getValue() >= Duration.ofMillis(debounceMillis).toNanos())
                    .map(Map.Entry::getKey).toList();
            if (!ready.isEmpty()) {
                ready.forEach(pending::remove);
                try {
                    saved(ready);
                } catch (IOException | RuntimeException e) {
                    // Not the student's doing (a failing part is graded, not thrown): say so, and keep watching.
                    out.println("The watch could not grade this save (" + e + "); save again, or run"
                            + " mvn test -Pgrade.");
                    out.flush();
                }
            }
        }
    }

    /** Compiles every course file (a broken one as its stub), and says what is watched and where things stand. */
    private void start() throws IOException {
        IsolatedGrading.quietLogging(options.testClasses);
        ModelledTime.preload(); // limits are read before any student code runs
        folder = course.resolve(target).resolve(SubmissionGrading.EXERCISES.subpath(1,
                SubmissionGrading.EXERCISES.getNameCount())).toAbsolutePath().normalize();
        if (results == null) {
            results = course.resolve("grader/target/grade/results.json");
        }
        results = results.toAbsolutePath().normalize();
        work = Files.createTempDirectory("shardlings-watch-");
        fileManager = javac.getStandardFileManager(null, Locale.ROOT, StandardCharsets.UTF_8);
        Path stubs = SubmissionGrading.writeStubs(work.resolve("stubs"));
        for (String f : CourseClasses.FILES) {
            seen.put(f, stamp(f)); // before the file is read: a save from now on is seen
        }
        for (String f : CourseClasses.FILES) {
            byte[] bytes = read(f);
            Compile c = bytes == null ? null : compile(f, bytes);
            if (c != null && c.ok()) {
                compiled.put(f, c.classes());
            } else {
                out.println(bytes == null ? f + " is missing: its parts are graded as the stub."
                        : c.messages() + f + " does not compile: its parts are graded as the stub until it does.");
                Compile stub = compile(f, Files.readAllBytes(stubs.resolve(f)));
                if (!stub.ok()) {
                    throw new IllegalStateException("the grader's stub " + f + " does not compile:\n"
                            + stub.messages());
                }
                compiled.put(f, stub.classes());
            }
            if (bytes != null) {
                sources.put(f, bytes);
            }
        }
        Results last = last();
        if (last != null) {
            out.println(ScoreTable.progress(last));
            out.println(ScoreTable.nextStep(last));
        }
        prepareNextSandbox();
        out.println("Watching " + folder + ": save a course file to regrade its parts (Ctrl+C stops).");
        out.flush();
    }

    /** Compiles the saved files and, when they compile, regrades their parts. */
    private void saved(List<String> files) throws IOException {
        long t0 = System.nanoTime();
        Set<String> changed = new TreeSet<>();
        for (String f : files) {
            byte[] bytes = read(f);
            if (bytes == null || Arrays.equals(bytes, sources.get(f))) {
                continue; // deleted (an editor's save in two steps), or written again unchanged
            }
            sources.put(f, bytes);
            out.println("── " + f + " saved " + "─".repeat(Math.max(3, 70 - f.length())));
            Compile c = compile(f, bytes);
            if (!c.ok()) {
                out.print(c.messages());
                out.println(f + " does not compile; its parts keep their last grade.");
                out.flush();
                continue;
            }
            Path before = compiled.put(f, c.classes());
            if (before != null) {
                Folders.deleteRecursively(before);
            }
            changed.add(f.replace(".java", ""));
        }
        if (changed.isEmpty()) {
            return;
        }
        List<Part> parts = options.selectedParts().stream()
                .filter(p -> changed.contains(p.methods().get(0).className())).toList();
        if (parts.isEmpty()) {
            out.println("No graded part of " + String.join(", ", changed) + " matches --only " + options.only + ".");
            out.flush();
            return;
        }
        double compileSeconds = (System.nanoTime() - t0) / 1e9;
        Results graded = Results.merged(last(), grade(parts, t0), COURSE.parts());
        Files.deleteIfExists(results.toAbsolutePath().resolveSibling(IsolatedGrading.NOTHING_GRADED));
        graded.write(results);
        String label = "graded: " + target + " (watch)";
        Files.writeString(results.resolveSibling(ScoreTable.MARKDOWN), ScoreTable.markdown(graded, label));
        out.print(ScoreTable.console(graded, label));
        out.printf(Locale.ROOT, "(compiled in %.1f s, graded in %.1f s)%n", compileSeconds,
                (System.nanoTime() - t0) / 1e9 - compileSeconds);
        out.flush();
        prepareNextSandbox();
    }

    /** Grades {@code parts} on the current classes in a fresh sandbox JVM, as {@link IsolatedGrading} does. */
    private Results grade(List<Part> parts, long t0) throws IOException {
        Path classes = work.resolve("grade-" + (++generation));
        for (Path dir : compiled.values()) {
            copyTree(dir, classes);
        }
        Map<String, Results.TestResult> done = new LinkedHashMap<>();
        Map<String, Object> extra = new LinkedHashMap<>();
        extra.put("submission", folder.toString());
        extra.put("assignment", COURSE.name()); // as the grade profile writes it, so the two merge
        Sandbox before = null;
        Sandbox ready = spare;
        spare = null;
        try (Sandbox sandbox = ready != null ? ready : newSandbox(classes)) {
            if (ready != null) {
                sandbox.replaceCourseClasses(classes);
            }
            current = sandbox;
            before = Sandbox.install(sandbox);
            for (Part p : parts) {
                sandbox.beginPart();
                long tp = System.nanoTime();
                Results.TestResult r = IsolatedGrading.run(p);
                if (Boolean.getBoolean("grade.timing")) {
                    System.err.printf("part %s: %.2f s, %s%n", p.number(), (System.nanoTime() - tp) / 1e9,
                            sandbox.stats());
                }
                done.put(p.number(), IsolatedGrading.settle(p, r, sandbox.endPart()));
            }
            IsolatedGrading.putBarriers(extra, sandbox);
        } finally {
            current = null;
            Sandbox.install(before);
            Folders.deleteRecursively(classes);
        }
        return Results.of(target, COURSE.parts(), done, (System.nanoTime() - t0) / 1e9, "", extra);
    }

    private Sandbox newSandbox(Path classes) throws IOException {
        return new Sandbox(new Sandbox.Config(classes, options.heap, Duration.ofSeconds(options.partLimitSeconds),
                !options.noSandboxUser));
    }

    /**
     * Starts the sandbox JVM of the next save while the student reads this one's verdict; the save puts its own
     * classes in it before the first call ({@link Sandbox#replaceCourseClasses}), so each grade still loads the
     * newly compiled classes into a JVM that has run no course code.
     */
    private void prepareNextSandbox() throws IOException {
        Path classes = work.resolve("spare-" + (++generation));
        for (Path dir : compiled.values()) {
            copyTree(dir, classes);
        }
        try {
            Sandbox s = newSandbox(classes);
            s.prestart();
            spare = s;
        } finally {
            Folders.deleteRecursively(classes); // the sandbox keeps a copy of its own
        }
    }

    /** What javac made of one course file: its classes' folder, or its messages. */
    record Compile(boolean ok, Path classes, String messages) {
    }

    /**
     * Compiles one course file, alone, into a folder of its own, against the framework and the other course
     * files' current classes (a course file may use another's helpers). A file whose classes are not all in
     * package dev.shardlings.course does not compile.
     */
    private Compile compile(String name, byte[] bytes) throws IOException {
        Path dir = work.resolve("src-" + (++generation));
        Path source = dir.resolve(name);
        Files.createDirectories(dir);
        Files.write(source, bytes);
        Path classes = work.resolve("classes-" + generation);
        Files.createDirectories(classes);
        List<String> path = new ArrayList<>(ClassPathCopy.frameworkClassPath().stream().map(Path::toString).toList());
        compiled.forEach((f, d) -> {
            if (!f.equals(name)) {
                path.add(d.toString());
            }
        });
        List<String> javacOptions = List.of("--release", "17", "--add-modules", "jdk.incubator.vector",
                "-proc:none", "-implicit:none", "-nowarn", "-encoding", "UTF-8", "-d", classes.toString(),
                "-classpath", String.join(java.io.File.pathSeparator, path), "-sourcepath", "");
        StringWriter messages = new StringWriter();
        boolean ok = javac.getTask(messages, fileManager, null, javacOptions, null,
                fileManager.getJavaFileObjects(source)).call();
        // javac names the temporary copy: the student knows the file by its place in the course.
        String text = messages.toString().replace(source.toString(), folder.resolve(name).toString());
        Folders.deleteRecursively(dir);
        if (ok) {
            String outside = outsideThePackage(classes);
            if (outside != null) {
                ok = false;
                text = name + " must declare package " + CourseClasses.PACKAGE + " (javac wrote " + outside + ")\n";
            }
        }
        if (!ok) {
            Folders.deleteRecursively(classes);
            return new Compile(false, null, text);
        }
        return new Compile(true, classes, text);
    }

    /** The first class file not directly in dev/shardlings/course, or null. */
    private static String outsideThePackage(Path classes) throws IOException {
        Path pkg = classes.resolve(CourseClasses.PACKAGE.replace('.', '/'));
        try (Stream<Path> all = Files.walk(classes)) {
            return all.filter(Files::isRegularFile).filter(f -> !f.getParent().equals(pkg))
                    .map(f -> classes.relativize(f).toString()).findFirst().orElse(null);
        }
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> all = Files.walk(from)) {
            for (Path f : all.toList()) {
                Path dest = to.resolve(from.relativize(f).toString());
                if (Files.isDirectory(f)) {
                    Files.createDirectories(dest);
                } else {
                    Files.copy(f, dest, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
    }

    /** A course file's bytes, or null when it is not there. */
    private byte[] read(String name) throws IOException {
        Path f = folder.resolve(name);
        try {
            return Files.readAllBytes(f);
        } catch (java.nio.file.NoSuchFileException e) {
            return null;
        }
    }

    /** What tells a save: the file's size and modification time ("missing" when it is not there). */
    private Object stamp(String name) {
        try {
            BasicFileAttributes a = Files.readAttributes(folder.resolve(name), BasicFileAttributes.class);
            return List.of(a.size(), a.lastModifiedTime());
        } catch (IOException e) {
            return "missing";
        }
    }

    /** The last results.json, or null when there is none or it cannot be read. */
    private Results last() {
        try {
            return Files.isRegularFile(results) ? Results.read(results) : null;
        } catch (IOException e) {
            return null;
        }
    }

    /**
     * Stops the watch: the loop ends after the save it is grading, and a sandbox still running is closed (its
     * processes killed: on Ctrl+C, from the shutdown hook, nothing of the grade is left running).
     */
    @Override
    public void close() {
        stopped = true;
        for (Sandbox s : new Sandbox[] {current, spare}) {
            if (s != null) {
                s.close();
            }
        }
    }

    /** Removes the watch's folder of sources and classes. */
    private synchronized void removeWork() {
        try {
            if (fileManager != null) {
                fileManager.close();
            }
            if (work != null) {
                Folders.deleteRecursively(work);
            }
        } catch (IOException e) {
            System.err.println("Could not remove the watch's folder " + work + ": " + e);
        }
    }
}
