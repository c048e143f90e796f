package dev.shardlings.grader.tools;

import dev.shardlings.grader.grade.Assignments;
import dev.shardlings.grader.grade.SubmissionGrading;
import dev.shardlings.grader.host.Folders;
import dev.shardlings.grader.sandbox.CourseClasses;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Writes the course as students get it: a new folder (and, where git is installed, a new repository with one
 * commit and no history) with no solutions, {@code grade.target} set to exercises, a README for students, the
 * grader's self-tests that need the solutions left out, and a {@code mvn -B verify} that passes on the untouched
 * stubs (the graded parts run only under {@code mvn test -Pgrade} there).
 *
 * <pre>
 * mvn -q install -DskipTests                                        # once, so the grader is built
 * mvn -q -pl grader exec:java@student-release -Drelease=/path/to/new/folder
 * </pre>
 *
 * <p>What is left out, and why ({@link #LEFT_OUT}): {@code solutions/} (the answers); every {@code target/}
 * (compiled classes of the solutions among them); {@code .git} (the history holds every solution); the grader's
 * {@code selftest} and {@code hostile} test packages (they grade the solutions); {@code grader/gradescope} (the
 * instructor's packaging; the Classroom workflow is put where GitHub reads it, {@code .github/workflows/});
 * {@code DEVELOPERS.md} and {@code .ci/} (the instructor's repository and its tools); {@code docs/performance/}
 * (benchmark reports of the solutions); the framework's {@code JitTest} (it jits a mixture-of-experts program
 * equal to part 2.2's answer) and the tours that hold a part's answer ({@link #ANSWER_TOURS}), with their
 * transcripts and JAX scripts: Tour 7 lays out the training step as parts 6.2 … 6.5 ask, Tours 9 to 13 write
 * the programs of parts 7.1 and 7.3 to 7.6. The instructor's pages ({@link #INSTRUCTOR_PAGES}) are replaced by a page that says so,
 * and every block of a docs page between {@code <!-- instructor-only -->} and {@code <!-- /instructor-only -->}
 * is dropped. The release is checked before it is written out as done: no file of it is a solution's, the course
 * files are the stubs, the root pom names no solutions module, and nothing instructor-only is in it.
 */
@Command(name = "student-release", mixinStandardHelpOptions = true,
        description = "Writes the course without solutions, ready to hand to students.")
public final class StudentRelease implements Callable<Integer> {

    /** Relative paths (with '/') left out of a release, with everything under them. */
    public static final List<String> LEFT_OUT = List.of(".git", "solutions", ".idea", ".vscode", ".jqwik-database",
            "grader/src/test/java/dev/shardlings/grader/selftest", "grader/src/test/java/dev/shardlings/grader/hostile",
            "grader/src/test/resources/golden", "grader/gradescope", "DEVELOPERS.md", ".ci", "docs/performance",
            "framework/src/test/java/dev/shardlings/jit/JitTest.java",
            "docs/src/main/java/dev/shardlings/tours/Tour07Training.java",
            "docs/src/test/resources/tours/Tour07Training.txt",
            "docs/src/test/resources/jax-checks/seed001_explicit.py",
            "docs/src/main/java/dev/shardlings/tours/Tour09FsdpTp.java",
            "docs/src/test/resources/tours/Tour09FsdpTp.txt",
            "docs/src/test/resources/jax-checks/tour09_fsdp_tp.py",
            "docs/src/main/java/dev/shardlings/tours/Tour10RingAttention.java",
            "docs/src/test/resources/tours/Tour10RingAttention.txt",
            "docs/src/test/resources/jax-checks/tour10_ring_attention.py",
            "docs/src/main/java/dev/shardlings/tours/Tour11Zero.java",
            "docs/src/test/resources/tours/Tour11Zero.txt",
            "docs/src/test/resources/jax-checks/tour11_zero.py",
            "docs/src/main/java/dev/shardlings/tours/Tour12MixedPrecision.java",
            "docs/src/test/resources/tours/Tour12MixedPrecision.txt",
            "docs/src/test/resources/jax-checks/tour12_mixed_precision.py",
            "docs/src/main/java/dev/shardlings/tours/Tour13Remat.java",
            "docs/src/test/resources/tours/Tour13Remat.txt",
            "docs/src/test/resources/jax-checks/tour13_remat.py");

    /** The tours left out of a release because each writes a graded part's program; its ToursTest skips them. */
    public static final List<String> ANSWER_TOURS = List.of("Tour07Training", "Tour09FsdpTp", "Tour10RingAttention",
            "Tour11Zero", "Tour12MixedPrecision", "Tour13Remat");

    /** Pages for instructors: a release has a page in their place that says so (links to them still resolve). */
    public static final List<String> INSTRUCTOR_PAGES = List.of("docs/classroom.md", "docs/grading-integrity.md",
            "docs/performance.md");

    /** The lines around a block of a docs page that a release drops. */
    public static final String INSTRUCTOR_ONLY = "<!-- instructor-only -->";
    public static final String INSTRUCTOR_ONLY_END = "<!-- /instructor-only -->";

    /** What replaces an instructor page in a release, after its title. */
    static final String INSTRUCTOR_PAGE_NOTE = "This page is for instructors and is not part of the students' copy"
            + " of the course.\n";

    /** Where the Classroom workflow is kept in the course, and where the release puts it. */
    static final String RELEASE_WORKFLOW = ".github/workflows/classroom.yml";

    @Option(names = "--course", defaultValue = ".", description = "the course checkout (default: here)")
    Path course;

    @Option(names = "--out", required = true, description = "the new folder (must not exist, or be empty)")
    Path out;

    @Option(names = "--no-git", description = "do not make a git repository of the release")
    boolean noGit;

    @Option(names = "--assignment", defaultValue = "", description = "the assignment its Classroom workflow grades"
            + " (default: the whole course); .github/classroom-workflows/ holds one for every assignment")
    String assignment = "";

    @Option(names = "--grader", defaultValue = "", description = "OWNER/REPOSITORY@TAG-OR-COMMIT: the Classroom"
            + " workflows fetch the grader from there (e.g. this release pushed as the assignment's template) and"
            + " check its checksum, instead of trusting the student's copy")
    String grader = "";

    public static void main(String[] args) {
        System.exit(new CommandLine(new StudentRelease()).execute(args));
    }

    @Override
    public Integer call() throws IOException, InterruptedException {
        Path from = course.toAbsolutePath().normalize();
        Path to = out.toAbsolutePath().normalize();
        if (!Files.isRegularFile(from.resolve("pom.xml")) || !Files.isDirectory(from.resolve(SubmissionGrading.EXERCISES))) {
            System.err.println("Not a Shardlings course: " + from + " has no pom.xml and exercises/. Pass --course.");
            return 2;
        }
        if (Files.exists(to) && (!Files.isDirectory(to) || isNonEmpty(to))) {
            System.err.println("The release folder " + to + " exists and is not empty; choose a new one.");
            return 2;
        }
        if (to.startsWith(from)) {
            System.err.println("The release folder " + to + " is inside the course; choose one outside it.");
            return 2;
        }
        Assignments.Assignment chosen;
        try {
            Assignments all = Assignments.of(from);
            chosen = all.named(assignment.startsWith("${") ? "" : assignment);
            if (!grader.isBlank() && !grader.startsWith("${")) {
                ClassroomWorkflow.GraderSource.parse(grader, "");
            }
        } catch (IllegalArgumentException e) {
            System.err.println("No release written: " + e.getMessage() + ".");
            return 2;
        }
        write(from, to);
        writeWorkflows(from, to, chosen, grader.isBlank() || grader.startsWith("${") ? null : grader);
        List<String> problems = check(from, to);
        if (!problems.isEmpty()) {
            System.err.println("The release in " + to + " is not fit to hand out:\n  " + String.join("\n  ", problems));
            return 1;
        }
        String git = noGit ? "no git repository (--no-git)" : initGit(to);
        System.out.println("Wrote the student release to " + to + " (" + git + ").");
        System.out.println("Its Classroom workflow grades " + chosen.name() + " (" + chosen.points() + " points) "
                + (grader.isBlank() || grader.startsWith("${") ? "with the student's own copy of the grader; pass"
                + " -Dgrader=OWNER/REPO@TAG to grade with yours (docs/classroom.md)"
                : "with the grader at " + grader + ": push this release there, and tag it, before students start")
                + ".");
        System.out.println("Check it: cd " + to + " && mvn test -Pgrade && mvn -B verify");
        return 0;
    }

    /** Where a release keeps the workflow of every assignment, for an instructor to put in place. */
    static final String WORKFLOWS = ".github/classroom-workflows";

    /**
     * Writes the Classroom workflows: the one GitHub runs (for {@code active}) and one per assignment in
     * {@link #WORKFLOWS}, each grading with {@code grader} ({@code owner/name@ref}; the release's checksum) or,
     * when null, with the student's copy.
     */
    static void writeWorkflows(Path from, Path to, Assignments.Assignment active, String grader) throws IOException {
        java.util.Optional<ClassroomWorkflow.GraderSource> source = grader == null ? java.util.Optional.empty()
                : java.util.Optional.of(ClassroomWorkflow.GraderSource.parse(grader, ClassroomWorkflow.checksum(to)));
        Files.createDirectories(to.resolve(RELEASE_WORKFLOW).getParent());
        Files.writeString(to.resolve(RELEASE_WORKFLOW), ClassroomWorkflow.yaml(active, source));
        Files.createDirectories(to.resolve(WORKFLOWS));
        for (Assignments.Assignment a : Assignments.of(from).all()) {
            Files.writeString(to.resolve(WORKFLOWS).resolve(a.name() + ".yml"), ClassroomWorkflow.yaml(a, source));
        }
    }

    /**
     * Copies the course into {@code to} as a release: left-out paths skipped, instructor pages and blocks replaced,
     * the poms and README rewritten. Writes no workflow ({@link #writeWorkflows}).
     */
    static void write(Path from, Path to) throws IOException {
        Files.createDirectories(to);
        try (Stream<Path> files = Files.walk(from)) {
            for (Path f : files.sorted().toList()) {
                String rel = from.relativize(f).toString().replace(f.getFileSystem().getSeparator(), "/");
                if (rel.isEmpty() || leftOut(rel) || Files.isSymbolicLink(f)) {
                    continue;
                }
                Path dest = to.resolve(rel);
                if (Files.isDirectory(f, LinkOption.NOFOLLOW_LINKS)) {
                    Files.createDirectories(dest);
                } else {
                    Files.copy(f, dest, StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
        }
        rewrite(to.resolve("pom.xml"), "    <module>solutions</module>\n", "");
        rewrite(to.resolve("pom.xml"), "<grade.target>solutions</grade.target>", "<grade.target>exercises</grade.target>");
        rewrite(to.resolve("grader/pom.xml"), "<grader.verify.excludes>**/NoTestIsExcluded</grader.verify.excludes>",
                "<grader.verify.excludes>**/GradedPartsTest.java</grader.verify.excludes>");
        // The student edits exercises/: the grader's copy of the stubs is frozen as they are now.
        Path stubs = Files.createDirectories(to.resolve("grader/src/stubs"));
        for (String name : dev.shardlings.grader.sandbox.CourseClasses.FILES) {
            Files.copy(to.resolve(SubmissionGrading.EXERCISES).resolve(name), stubs.resolve(name));
        }
        rewrite(to.resolve("grader/pom.xml"), "<grader.stubs.dir>${project.basedir}/../exercises/src/main/java/dev/"
                + "shardlings/course</grader.stubs.dir>", "<grader.stubs.dir>${project.basedir}/src/stubs</grader.stubs.dir>");
        Files.writeString(to.resolve("README.md"), resource("release/README.md"));
        // The answer tours are left out: their test no longer runs them.
        Path tours = to.resolve("docs/src/test/java/dev/shardlings/docs/ToursTest.java");
        if (Files.isRegularFile(tours)) {
            for (String tour : ANSWER_TOURS) {
                rewrite(tours, ", \"" + tour + "\"", "");
            }
        }
        for (String page : INSTRUCTOR_PAGES) {
            Path p = to.resolve(page);
            if (Files.isRegularFile(p)) {
                String title = Files.readString(p).lines().findFirst().orElse("# For instructors");
                Files.writeString(p, title + "\n\n" + INSTRUCTOR_PAGE_NOTE);
            }
        }
        try (Stream<Path> pages = Files.isDirectory(to.resolve("docs")) ? Files.walk(to.resolve("docs")) : Stream.of()) {
            for (Path p : pages.filter(f -> f.toString().endsWith(".md")).toList()) {
                String text = Files.readString(p);
                if (text.contains(INSTRUCTOR_ONLY)) {
                    Files.writeString(p, withoutInstructorBlocks(text, to.relativize(p).toString()));
                }
            }
        }
    }

    /**
     * A page without its instructor-only blocks (the marker lines included).
     *
     * @throws IllegalStateException naming the page when a block is not closed
     */
    static String withoutInstructorBlocks(String text, String page) {
        StringBuilder out = new StringBuilder();
        boolean inside = false;
        for (String line : text.split("\n", -1)) {
            if (line.strip().equals(INSTRUCTOR_ONLY)) {
                inside = true;
            } else if (line.strip().equals(INSTRUCTOR_ONLY_END)) {
                inside = false;
            } else if (!inside) {
                out.append(line).append('\n');
            }
        }
        if (inside) {
            throw new IllegalStateException(page + " opens an " + INSTRUCTOR_ONLY + " block it never closes");
        }
        return out.substring(0, out.length() - 1);
    }

    /** True when a path relative to the course root is left out of a release. */
    static boolean leftOut(String rel) {
        for (String p : LEFT_OUT) {
            if (rel.equals(p) || rel.startsWith(p + "/")) {
                return true;
            }
        }
        // Build output anywhere: compiled solutions live there too.
        return rel.equals("target") || rel.startsWith("target/") || rel.contains("/target/") || rel.endsWith("/target");
    }

    /**
     * What would make the release unfit to hand out: a file of {@code solutions/}, a compiled class, a course file
     * that is not the stub, a solutions module in the root pom.
     *
     * @return the problems found, empty when the release is fit
     */
    static List<String> check(Path course, Path release) throws IOException {
        List<String> problems = new ArrayList<>();
        if (Files.exists(release.resolve("solutions"))) {
            problems.add("solutions/ is in the release");
        }
        try (Stream<Path> files = Files.walk(release)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                String name = f.getFileName().toString();
                if (name.endsWith(".class") || name.endsWith(".jar")) {
                    problems.add("compiled code in the release: " + release.relativize(f));
                }
            }
        }
        Path stubs = Files.createTempDirectory("shardlings-stubs-");
        try {
            SubmissionGrading.writeStubs(stubs);
            for (String name : CourseClasses.FILES) {
                Path mine = release.resolve(SubmissionGrading.EXERCISES).resolve(name);
                if (!Files.isRegularFile(mine) || !Files.readString(mine).equals(Files.readString(stubs.resolve(name)))) {
                    problems.add(SubmissionGrading.EXERCISES.resolve(name) + " is not the stub");
                }
                Path solution = course.resolve("solutions/src/main/java/dev/shardlings/course").resolve(name);
                if (Files.isRegularFile(solution) && Files.isRegularFile(mine)
                        && Files.readString(mine).equals(Files.readString(solution))) {
                    problems.add(SubmissionGrading.EXERCISES.resolve(name) + " is the solution");
                }
            }
        } finally {
            Folders.deleteRecursively(stubs);
        }
        for (String p : LEFT_OUT) {
            if (Files.exists(release.resolve(p), LinkOption.NOFOLLOW_LINKS)) {
                problems.add(p + " is in the release (it must never ship)");
            }
        }
        for (String p : INSTRUCTOR_PAGES) {
            Path page = release.resolve(p);
            if (Files.isRegularFile(page) && !Files.readString(page).endsWith(INSTRUCTOR_PAGE_NOTE)) {
                problems.add(p + " is an instructor's page");
            }
        }
        try (Stream<Path> pages = Files.isDirectory(release.resolve("docs")) ? Files.walk(release.resolve("docs"))
                : Stream.of()) {
            for (Path p : pages.filter(f -> f.toString().endsWith(".md")).toList()) {
                String text = Files.readString(p);
                if (text.contains(INSTRUCTOR_ONLY) || text.contains("solutions/")) {
                    problems.add(release.relativize(p) + " holds instructor-only text (solutions/ or an "
                            + INSTRUCTOR_ONLY + " block)");
                }
            }
        }
        String pom = Files.readString(release.resolve("pom.xml"));
        if (pom.contains("<module>solutions</module>")) {
            problems.add("the root pom still builds the solutions module");
        }
        if (!pom.contains("<grade.target>exercises</grade.target>")) {
            problems.add("the root pom does not grade exercises");
        }
        return problems;
    }

    /** A new repository with the release as its one commit; or why there is none. */
    private static String initGit(Path to) throws IOException, InterruptedException {
        try {
            run(to, "git", "init", "-q");
            // Bytes as written (no line-ending rewrite), so the commit holds what the workflow's checksum was
            // computed over.
            run(to, "git", "-c", "core.autocrlf=false", "add", "-A");
            run(to, "git", "-c", "user.name=Shardlings", "-c", "user.email=shardlings@localhost", "-c",
                    "core.autocrlf=false", "commit", "-q", "-m", "The Shardlings course");
            String ignored = output(to, "git", "ls-files", "--others", "--ignored", "--exclude-standard");
            if (!ignored.isBlank()) {
                // Files the checksum covers but the commit leaves out: the workflow's check would fail for everyone.
                return "a new git repository with one commit, which leaves out files its .gitignore names although"
                        + " a -Dgrader workflow's checksum covers them (remove them before pushing, or its check fails"
                        + " for every student): " + ignored.strip().replace('\n', ' ');
            }
            return "a new git repository with one commit";
        } catch (IOException e) {
            return "no git repository: " + e.getMessage();
        }
    }

    private static void run(Path dir, String... command) throws IOException, InterruptedException {
        output(dir, command);
    }

    private static String output(Path dir, String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException(String.join(" ", command) + " did not finish");
        }
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + " failed: " + output.strip());
        }
        return output;
    }

    private static boolean isNonEmpty(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.findAny().isPresent();
        }
    }

    private static void rewrite(Path file, String from, String to) throws IOException {
        String text = Files.readString(file);
        if (!text.contains(from)) {
            throw new IllegalStateException(file + " has no '" + from.strip() + "' to rewrite for the release");
        }
        Files.writeString(file, text.replace(from, to));
    }

    private static String resource(String name) throws IOException {
        try (InputStream in = StudentRelease.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IOException("the grader has no resource " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
