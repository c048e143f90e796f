package dev.shardlings.grader.grade;

import dev.shardlings.grader.parts.Part;

import dev.shardlings.grader.grade.Course;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvSchema;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * Grades a folder of submissions, one sub-folder per student (a Gradescope or GitHub Classroom export): each in its
 * own {@link SubmissionGrading} JVM (a student's entry that is a symbolic link is graded too, and refused there, so
 * a link to a classmate's folder gets 0 with the reason, never the classmate's grade; names are printed printable), a few at a time, writing {@code <out>/<student>/results.json} and
 * {@code report.md}, and a gradebook {@code <out>/gradebook.csv} (student, score, max, then each part's points).
 *
 * <p>A run that is stopped can be started again with the same arguments: a student whose results.json is already
 * there and readable is not graded again. A student whose grading JVM fails (it should not: SubmissionGrading
 * writes a grade whatever the submission does) is listed with an empty score and the reason, and the others go on.
 * Each student gets the JVM heap and part limits of GradeOptions; {@code --jobs} bounds how many run at once
 * (default: half the cores, as each grade runs a judge and a sandbox JVM).
 *
 * <pre>
 * mvn -q -pl grader exec:java@grade-batch -Dsubmissions=/path/to/export -Dout=/path/to/grades
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

    @Option(names = "--jobs", description = "students graded at once (default: half the cores, at least 1)")
    int jobs = Math.max(1, Runtime.getRuntime().availableProcessors() / 2);

    @Option(names = "--student-limit", defaultValue = "1800", description = "seconds one student's grade may take")
    long studentLimitSeconds;

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
        Files.createDirectories(out);
        Progress progress = new Progress(students.size());
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, jobs));
        List<Future<Outcome>> futures = new ArrayList<>();
        for (Path student : students) {
            futures.add(pool.submit(() -> {
                Outcome o = grade(student);
                progress.done(o);
                return o;
            }));
        }
        pool.shutdown();
        List<Outcome> outcomes = new ArrayList<>();
        for (Future<Outcome> f : futures) {
            try {
                outcomes.add(f.get());
            } catch (java.util.concurrent.ExecutionException e) {
                throw new IllegalStateException("grading a student failed in the batch itself", e.getCause());
            }
        }
        Path book = out.resolve(GRADEBOOK);
        writeGradebook(outcomes, book);
        long failed = outcomes.stream().filter(o -> o.results() == null).count();
        System.out.println("Gradebook: " + book.toAbsolutePath().normalize() + " (" + outcomes.size() + " students"
                + (failed > 0 ? ", " + failed + " without a grade: see the error column" : "") + ")");
        return 0;
    }

    /** A student's grade: read back when a finished one is there, else graded in a new JVM. */
    private Outcome grade(Path student) throws IOException, InterruptedException {
        String name = student.getFileName().toString();
        Path dir = out.resolve(name);
        Path results = dir.resolve("results.json");
        Results done = readable(results);
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
                "--submission=" + student.toAbsolutePath().normalize(), "--results=" + partial.toAbsolutePath(),
                "--quiet"));
        command.addAll(options.asArguments());
        Process p = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(dir.resolve("grading.log").toFile()).start();
        if (!p.waitFor(studentLimitSeconds, TimeUnit.SECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            return new Outcome(name, null, "grading took longer than " + studentLimitSeconds + " s", false);
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

    /** The gradebook: a row per student, a column per part, in course order. */
    static void writeGradebook(List<Outcome> outcomes, Path file) throws IOException {
        CsvSchema.Builder schema = CsvSchema.builder().addColumn("student").addColumn("score").addColumn("max_score");
        for (Part p : Course.all()) {
            schema.addColumn(p.number());
        }
        schema.addColumn("error");
        List<Map<String, Object>> rows = new ArrayList<>();
        for (Outcome o : outcomes) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("student", SubmissionGrading.printable(o.student()));
            if (o.results() != null) {
                row.put("score", points(o.results().score()));
                row.put("max_score", points(o.results().maxScore()));
                for (Results.TestResult t : o.results().tests()) {
                    row.put(t.number(), points(t.score()));
                }
            }
            row.put("error", o.error() == null ? "" : o.error());
            rows.add(row);
        }
        String csv = new CsvMapper().writer(schema.build().withHeader()).writeValueAsString(rows);
        Files.writeString(file, csv, StandardCharsets.UTF_8);
    }

    private static String points(double p) {
        return p == Math.rint(p) ? Long.toString((long) p) : String.format(Locale.ROOT, "%s", p);
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
                    : points(o.results().score()) + "/" + points(o.results().maxScore())
                    + (o.earlier() ? " (graded in an earlier run)" : "");
            synchronized (System.err) {
                System.err.printf("[%s%s] %d/%d  %s  %s%n", "#".repeat(filled), ".".repeat(width - filled), n, total,
                        SubmissionGrading.printable(o.student()), grade);
            }
        }
    }
}
