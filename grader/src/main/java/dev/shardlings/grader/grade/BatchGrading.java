package dev.shardlings.grader.grade;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * Grades a folder of submissions, one sub-folder per student (a Gradescope or GitHub Classroom export): each in its
 * own {@link SubmissionGrading} JVM (a student's entry that is a symbolic link is graded too, and refused there, so
 * a link to a classmate's folder gets 0 with the reason, never the classmate's grade; names are printed printable),
 * a few at a time, writing {@code <out>/<student>/results.json}, {@code report.md} and {@code grading.log} (that
 * JVM's console: what was taken from the submission, refused, or graded as the stub and why, then the scores).
 * For the class it writes {@code <out>/gradebook.csv} (student folder, the export's student ids, score, max, each
 * part's points: {@link BatchReport}), and {@code <out>/report.md} with each part's pass rate, a score histogram
 * ({@code histogram.svg}) and the students without a grade.
 *
 * <p>A run that is stopped can be started again with the same arguments: a student whose results.json is already
 * there and readable is not graded again, unless named by {@code --regrade} or with {@code --force}. Stopping the
 * run (Ctrl-C, SIGTERM) stops the students' JVMs too: a shutdown hook ends each one and everything it started,
 * and each exits by itself when this JVM is killed outright. A student whose grading JVM fails (it should not:
 * SubmissionGrading writes a grade whatever the submission does) is listed with an empty score and the reason,
 * and the others go on. Each student gets the JVM heap and part limits of GradeOptions; {@code --jobs} bounds how
 * many run at once (default: half the cores, as each grade runs a judge and a sandbox JVM).
 *
 * <pre>
 * mvn -q -pl grader exec:java@grade-batch -Dsubmissions=/path/to/export -Dout=/path/to/grades [-Djobs=4]
 *     [-DstudentLimit=1800] [-DpartLimit=120] [-Dheap=2g] [-Donly='Part0*'] [-DnoSandboxUser=true]
 *     [-Dregrade=ada,bob] [-Dforce=true]
 * </pre>
 */
@Command(name = "grade-batch", mixinStandardHelpOptions = true,
        description = "Grades every sub-folder of a folder of submissions and writes a gradebook.")
public final class BatchGrading implements Callable<Integer> {

    /** The gradebook's file name in the output folder. */
    public static final String GRADEBOOK = "gradebook.csv";

    @Option(names = "--course", defaultValue = ".", description = "the course checkout (default: here)")
    Path course;

    @Option(names = "--submissions", required = true, description = "a folder with one sub-folder per student")
    Path submissions;

    @Option(names = "--out", required = true, description = "where each student's results and the gradebook go")
    Path out;

    @Option(names = "--jobs", defaultValue = "0",
            description = "students graded at once (default 0: half the cores, at least 1)")
    int jobs;

    @Option(names = "--student-limit", defaultValue = "1800", description = "seconds one student's grade may take")
    long studentLimitSeconds;

    @Option(names = "--regrade", defaultValue = "", description = "student folders to grade again although a"
            + " finished grade is there, comma-separated (default: none)")
    String regrade;

    @Option(names = "--force", arity = "0..1", defaultValue = "false",
            description = "grade every student again, finished or not")
    boolean force;

    /** The students' grading JVMs running now: what stopping the batch must stop (guarded by itself). */
    private final Set<Process> running = new LinkedHashSet<>();
    /** Set by the shutdown hook: no student's JVM starts after it (guarded by {@link #running}). */
    private boolean stopping;

    @picocli.CommandLine.Mixin
    GradeOptions options = new GradeOptions();

    public static void main(String[] args) {
        System.exit(new CommandLine(new BatchGrading()).execute(args));
    }

    /** One student's outcome: their grade, or why there is none. */
    record Outcome(String student, Results results, String error, boolean earlier) {
    }

    @Override
    public Integer call() throws IOException, InterruptedException {
        if (!Files.isDirectory(submissions)) {
            System.err.println("No folder of submissions at " + submissions + ".");
            return 2;
        }
        List<Path> students;
        try (Stream<Path> s = Files.list(submissions)) {
            // A link is listed too, not followed: grade-submission refuses it with a reason the student sees
            // (a link to a classmate's folder would otherwise get the classmate's grade).
            students = s.filter(p -> Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS) || Files.isSymbolicLink(p))
                    .sorted().toList();
        }
        if (students.isEmpty()) {
            System.err.println("No submissions in " + submissions + ": expected one folder per student.");
            return 2;
        }
        Set<String> again = new LinkedHashSet<>(regraded());
        students.forEach(p -> again.remove(p.getFileName().toString()));
        if (!again.isEmpty()) {
            System.err.println("--regrade names no student folder of " + submissions + ": "
                    + SubmissionGrading.printable(String.join(", ", again)) + ".");
            return 2;
        }
        try {
            // An unknown assignment or a --parts pattern that matches nothing: said once, before any student.
            options.assignmentsFrom(course);
            selection = options.assignment().name() + " " + options.selection();
            options.selectedParts();
        } catch (IllegalArgumentException e) {
            System.err.println("Nothing was graded: " + e.getMessage() + ".");
            return 2;
        }
        ExportMetadata ids;
        try {
            ids = ExportMetadata.read(submissions);
        } catch (IOException e) {
            System.err.println("Cannot read the export's metadata in " + SubmissionGrading.printable(
                    submissions.toString()) + " (" + SubmissionGrading.printable(String.valueOf(e.getMessage())
                    .lines().findFirst().orElse("")) + "): fix the file or move it out of the export, then run"
                    + " again.");
            return 2;
        }
        Files.createDirectories(out);
        Progress progress = new Progress(students.size());
        Thread stopper = new Thread(this::stopChildren, "grade-batch-stop-children");
        Runtime.getRuntime().addShutdownHook(stopper);
        ExecutorService pool = Executors.newFixedThreadPool(jobs > 0 ? jobs
                : Math.max(1, Runtime.getRuntime().availableProcessors() / 2));
        List<Outcome> outcomes = new ArrayList<>();
        try {
            List<Future<Outcome>> futures = new ArrayList<>();
            for (Path student : students) {
                futures.add(pool.submit(() -> {
                    Outcome o;
                    try {
                        o = grade(student);
                    } catch (IOException | RuntimeException e) {
                        // The batch's own trouble with one student (a folder it cannot write): the others go on.
                        o = new Outcome(student.getFileName().toString(), null, "the batch could not grade this"
                                + " student: " + SubmissionGrading.printable(String.valueOf(e)), false);
                    }
                    progress.done(o);
                    return o;
                }));
            }
            pool.shutdown();
            for (Future<Outcome> f : futures) {
                try {
                    outcomes.add(f.get());
                } catch (ExecutionException e) {
                    throw new IllegalStateException("grading a student failed in the batch itself", e.getCause());
                }
            }
        } finally {
            pool.shutdownNow();
            try {
                Runtime.getRuntime().removeShutdownHook(stopper);
            } catch (IllegalStateException shuttingDown) {
                // The hook is running: it stops the children.
            }
        }
        Path book = out.resolve(GRADEBOOK);
        BatchReport.writeGradebook(outcomes, ids, book);
        Files.writeString(out.resolve(BatchReport.HISTOGRAM), BatchReport.histogram(outcomes));
        Files.writeString(out.resolve(BatchReport.REPORT), BatchReport.report(outcomes));
        long failed = outcomes.stream().filter(o -> o.results() == null).count();
        System.out.println("Gradebook: " + book.toAbsolutePath().normalize() + " (" + outcomes.size() + " students"
                + (failed > 0 ? ", " + failed + " without a grade: see the error column" : "") + ")");
        System.out.println("Pass rates, histogram and who was not graded: "
                + out.resolve(BatchReport.REPORT).toAbsolutePath().normalize());
        // The machine is the same for every student: one grade tells which barriers it gave.
        outcomes.stream().filter(o -> o.results() != null).findFirst()
                .ifPresent(o -> System.out.print(ScoreTable.barrierWarning(o.results())));
        return 0;
    }

    /** The student folders {@code --regrade} names. */
    private Set<String> regraded() {
        return java.util.Arrays.stream(regrade.split(",")).map(String::strip).filter(s -> !s.isEmpty())
                .collect(java.util.stream.Collectors.toCollection(LinkedHashSet::new));
    }

    /**
     * Stops every student's grading JVM and what it started (the sandbox JVM, anything student code spawned): the
     * batch's shutdown hook. Each judge first gets SIGTERM, so its own hook kills what it started; whatever is left
     * of the tree seen before is then killed outright. Waits for them
     * all, so nothing writes into the output folder once the batch is gone.
     */
    void stopChildren() {
        List<Process> judges;
        synchronized (running) {
            stopping = true;
            judges = List.copyOf(running);
        }
        List<ProcessHandle> tree = new ArrayList<>();
        for (Process p : judges) {
            tree.addAll(p.descendants().toList()); // before the judge dies: then its children are no longer ours
            tree.add(p.toHandle());
        }
        judges.forEach(Process::destroy);
        waitFor(judges.stream().map(Process::toHandle).toList(), 5);
        tree.forEach(ProcessHandle::destroyForcibly);
        waitFor(tree, 10);
    }

    private static void waitFor(List<ProcessHandle> processes, long seconds) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        for (ProcessHandle h : processes) {
            try {
                h.onExit().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (TimeoutException | ExecutionException e) {
                return; // past the deadline: the JVM must still exit
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** What this run grades, as {@link #selectionOf} reads it back from a grade (set in {@link #call}). */
    private String selection = "";

    /** The assignment and the filters a grade was made for, as recorded in its extra_data. */
    private static String selectionOf(Results r) {
        Map<String, Object> extra = r.extraData() == null ? Map.of() : r.extraData();
        return extra.getOrDefault("assignment", "") + " " + extra.getOrDefault("selection", "");
    }

    /**
     * A student's grade: read back when a finished one of the same selection (assignment, --parts, --only) is
     * there, else graded in a new JVM.
     */
    private Outcome grade(Path student) throws IOException, InterruptedException {
        String name = student.getFileName().toString();
        Path dir = out.resolve(name);
        Path results = dir.resolve("results.json");
        Results done = force || regraded().contains(name) ? null : readable(results);
        if (done != null && !selection.equals(selectionOf(done))) {
            done = null; // graded for other parts (another assignment, -Dparts, -Donly): graded again
        }
        if (done != null) {
            return new Outcome(name, done, null, true);
        }
        Files.createDirectories(dir);
        // Written beside, then moved: a run stopped mid-write leaves no results.json that looks finished.
        Path partial = dir.resolve("results.json.partial");
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(SubmissionGrading.JUDGE_JVM_OPTIONS);
        command.addAll(List.of("-cp", judgeClassPath(), SubmissionGrading.class.getName(),
                "--course=" + course.toAbsolutePath().normalize(),
                "--submission=" + student.toAbsolutePath().normalize(), "--results=" + partial.toAbsolutePath()));
        command.addAll(options.asArguments());
        // Not --quiet: the log is the judge's console, with each file taken, refused or graded as its stub and why.
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(dir.resolve("grading.log").toFile());
        Process p;
        synchronized (running) {
            if (stopping) {
                return new Outcome(name, null, "the batch was stopped", false);
            }
            p = builder.start();
            running.add(p);
        }
        try {
            if (!p.waitFor(studentLimitSeconds, TimeUnit.SECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                return new Outcome(name, null, "grading took longer than " + studentLimitSeconds + " s", false);
            }
        } finally {
            synchronized (running) {
                running.remove(p);
            }
        }
        Results graded = readable(partial);
        if (p.exitValue() != 0 || graded == null) {
            return new Outcome(name, null, "the grader exited with " + p.exitValue() + " (see "
                    + SubmissionGrading.printable(dir.resolve("grading.log").toString()) + ")", false);
        }
        Files.move(partial, results, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        Path md = partial.resolveSibling(ScoreTable.MARKDOWN);
        if (!Files.isRegularFile(md)) {
            Files.writeString(md, ScoreTable.markdown(graded, "graded: " + SubmissionGrading.printable(name)));
        }
        return new Outcome(name, graded, null, false);
    }

    /**
     * The class path this grader was loaded from, for the students' judge JVMs. Under {@code exec:java} that is the
     * project's class loader, not {@code java.class.path} (which is Maven's own launcher).
     */
    static String judgeClassPath() {
        ClassLoader cl = BatchGrading.class.getClassLoader();
        if (cl instanceof java.net.URLClassLoader u && u.getURLs().length > 0) {
            List<String> entries = new ArrayList<>();
            for (java.net.URL url : u.getURLs()) {
                try {
                    entries.add(Path.of(url.toURI()).toString());
                } catch (java.net.URISyntaxException | IllegalArgumentException e) {
                    throw new IllegalStateException("cannot use the class path entry " + url, e);
                }
            }
            return String.join(java.io.File.pathSeparator, entries);
        }
        return System.getProperty("java.class.path");
    }

    private static Results readable(Path file) {
        if (!Files.isRegularFile(file)) {
            return null;
        }
        try {
            return Results.read(file);
        } catch (IOException e) {
            return null;
        }
    }

    /** A progress bar on standard error: one line per finished student. */
    static final class Progress {
        private final int total;
        private final AtomicInteger finished = new AtomicInteger();

        Progress(int total) {
            this.total = total;
        }

        void done(Outcome o) {
            int n = finished.incrementAndGet();
            int width = 30;
            int filled = (int) Math.round(width * (double) n / total);
            String grade = o.results() == null ? "no grade: " + o.error()
                    : BatchReport.points(o.results().score()) + "/" + BatchReport.points(o.results().maxScore())
                    + (o.earlier() ? " (graded in an earlier run)" : "");
            synchronized (System.err) {
                System.err.printf("[%s%s] %d/%d  %s  %s%n", "#".repeat(filled), ".".repeat(width - filled), n, total,
                        SubmissionGrading.printable(o.student()), grade);
            }
        }
    }
}
