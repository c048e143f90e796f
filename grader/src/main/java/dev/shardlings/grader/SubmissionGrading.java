package dev.shardlings.grader;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Grades a student's submission without trusting anything in it but the exercises: the course (framework,
 * grader, docs, poms) is copied from the instructor's pristine copy, and only the Java files of the exercises'
 * package {@code exercises/src/main/java/dev/shardlings/course/} are taken from the submission. Edits a submission
 * makes to the grader, the framework, the tests or the build have no effect. Then {@code mvn test -Pgrade} runs in
 * the copy and its results.json is written where asked; when the exercises do not compile, a results.json that
 * says so (with the compiler's messages) is written instead, so a grade always comes out.
 *
 * <pre>
 * mvn -q -pl grader exec:java@grade-submission -Dsubmission=/path/to/student/repo -Dresults=/path/to/results.json
 * </pre>
 */
@Command(name = "grade-submission", mixinStandardHelpOptions = true,
        description = "Grades only the exercises of a submission, in a pristine copy of the course.")
public final class SubmissionGrading implements Callable<Integer> {

    /** Where the exercises live, relative to the course root. */
    static final Path EXERCISES = Path.of("exercises", "src", "main", "java", "dev", "shardlings", "course");

    private static final Set<String> SKIPPED = Set.of("target", ".git", ".idea", ".vscode");

    @Option(names = "--course", defaultValue = ".", description = "the pristine course (default: this checkout)")
    Path course;

    @Option(names = "--submission", required = true, description = "the student's copy of the course, or just"
            + " the folder that holds their Problem*.java and Chapter0.java")
    Path submission;

    @Option(names = "--results", required = true, description = "where to write results.json")
    Path results;

    @Option(names = "--work", description = "where to build the graded copy (default: a new temporary folder)")
    Path work;

    @Option(names = "--maven", defaultValue = "mvn", description = "the Maven command")
    String maven;

    @Option(names = "--offline", description = "run Maven offline (-o)")
    boolean offline;

    @Option(names = "--timeout-minutes", defaultValue = "60", description = "longest the grade may take")
    long timeoutMinutes;

    public static void main(String[] args) {
        System.exit(new CommandLine(new SubmissionGrading()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        Path root = work != null ? work : Files.createTempDirectory("shardlings-grade-");
        List<String> taken = prepare(course.toAbsolutePath().normalize(), submission.toAbsolutePath().normalize(),
                root);
        System.out.println("Graded copy: " + root);
        System.out.println("Taken from the submission: " + (taken.isEmpty() ? "(nothing)" : String.join(", ", taken)));
        List<String> cmd = new ArrayList<>(List.of(maven, "-B", "test", "-Pgrade"));
        if (offline) {
            cmd.add(1, "-o");
        }
        Path log = root.resolve("grade.log");
        Process p = new ProcessBuilder(cmd).directory(root.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        boolean finished = p.waitFor(timeoutMinutes, TimeUnit.MINUTES);
        if (!finished) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
        Path produced = root.resolve("grader/target/grade/results.json");
        Files.createDirectories(results.toAbsolutePath().getParent());
        if (finished && Files.exists(produced)) {
            Files.copy(produced, results, StandardCopyOption.REPLACE_EXISTING);
        } else {
            String output = Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
            notGraded(finished ? "the exercises did not compile" : "the grade took longer than " + timeoutMinutes
                    + " minutes", output).write(results);
        }
        System.out.print(ScoreTable.format(Results.read(results), "graded: submission " + submission));
        return 0;
    }

    /**
     * Builds the graded copy in {@code root}: the course without build output and version control, with the
     * exercises' package replaced by the submission's Java files (regular files only, no links, nothing else).
     *
     * @return the names of the files taken from the submission
     * @throws IOException if a copy fails
     */
    public static List<String> prepare(Path course, Path submission, Path root) throws IOException {
        copyTree(course, root);
        Path target = root.resolve(EXERCISES);
        Path source = Files.isDirectory(submission.resolve(EXERCISES)) ? submission.resolve(EXERCISES) : submission;
        try (Stream<Path> old = Files.list(target)) {
            for (Path f : old.filter(f -> f.toString().endsWith(".java")).toList()) {
                Files.delete(f);
            }
        }
        List<String> taken = new ArrayList<>();
        try (Stream<Path> files = Files.list(source)) {
            for (Path f : files.sorted().toList()) {
                String name = f.getFileName().toString();
                if (name.endsWith(".java") && Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)) {
                    Files.copy(f, target.resolve(name), StandardCopyOption.REPLACE_EXISTING);
                    taken.add(name);
                }
            }
        }
        return taken;
    }

    private static void copyTree(Path from, Path to) throws IOException {
        Files.walkFileTree(from, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
                if (!dir.equals(from) && SKIPPED.contains(dir.getFileName().toString())) {
                    return FileVisitResult.SKIP_SUBTREE;
                }
                Files.createDirectories(to.resolve(from.relativize(dir).toString()));
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                if (attrs.isRegularFile()) {
                    Files.copy(file, to.resolve(from.relativize(file).toString()), StandardCopyOption.REPLACE_EXISTING);
                }
                return FileVisitResult.CONTINUE;
            }
        });
    }

    /** A grade of zero for every part, saying why nothing was graded, with the build's last output. */
    static Results notGraded(String why, String buildOutput) {
        List<String> lines = buildOutput.lines().filter(l -> l.contains("ERROR") || l.contains("error:")).toList();
        String shown = String.join("\n", lines.subList(0, Math.min(40, lines.size())));
        List<Results.TestResult> tests = new ArrayList<>();
        for (Part p : Parts.all()) {
            tests.add(Results.TestResult.of(p, false, "Nothing was graded: " + why + ".\n" + shown, why));
        }
        Map<String, Object> extra = new LinkedHashMap<>();
        extra.put("target", "submission");
        return new Results(0, 0, "Not graded: " + why + ".\n" + shown, extra, tests);
    }
}
