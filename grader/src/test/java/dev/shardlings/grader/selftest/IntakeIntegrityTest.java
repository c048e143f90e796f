package dev.shardlings.grader.selftest;

import dev.shardlings.grader.grade.BatchGrading;
import dev.shardlings.grader.grade.Course;
import dev.shardlings.grader.grade.BatchGrading;
import dev.shardlings.grader.parts.Part;
import dev.shardlings.grader.grade.Results;
import dev.shardlings.grader.grade.ScoreTable;
import dev.shardlings.grader.grade.SubmissionGrading;
import dev.shardlings.grader.sandbox.CourseClasses;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Submission intake that cannot be steered (docs/grading-integrity.md): links to the instructor's solutions or to a
 * classmate's folder, files that javac reads differently from how a naive check would, files that crash javac or
 * keep it busy, and file names that write lines of their own — through grade-submission, Gradescope's
 * run_autograder and batch grading. Each attacking file costs its own parts, with its own reason; the other files
 * keep their points; every run ends with a results.json.
 *
 * <p>The hostile files are the reference solutions with one attack each, so any part they do not lose would get
 * full marks. Only a part or two per file is selected, and the parts of attacked files are decided before any
 * sandbox runs, so each grade is short.
 */
class IntakeIntegrityTest {

    private static final Path COURSE = Path.of("..").toAbsolutePath().normalize();
    private static final Path SOLUTIONS = COURSE.resolve("solutions/src/main/java/dev/shardlings/course");
    private static final Path EXERCISES = Path.of("exercises/src/main/java/dev/shardlings/course");

    /** One part per course file: 0.8 and 5.1 are clean files' parts (they must pass), the others are attacked. */
    private static final String ONLY = "Part{08RingShift,11aPerShardMean,21MoeLocal,40BidirectionalAllGatherMatmul,"
            + "51MatmulWithoutCommunication,61TrainDataParallel}Test";
    private static final int PART_LIMIT = 60;

    /** An extra file whose name would print a grade line of its own. */
    private static final String NEWLINE_NAME = "Notes\nScore: 88 of 88 points.java";
    private static final String NEWLINE_SHOWN = "Notes\\nScore: 88 of 88 points.java";

    @BeforeAll
    static void needsTheSolutionsAndLinks(@TempDir Path dir) {
        assumeTrue(Files.isDirectory(SOLUTIONS), "the hostile files are built from solutions/, which a student"
                + " release does not have");
        try {
            Files.createSymbolicLink(dir.resolve("link"), dir);
        } catch (IOException | UnsupportedOperationException e) {
            assumeTrue(false, "this file system has no symbolic links: " + e);
        }
    }

    /**
     * The hostile course files in {@code folder}: the solutions, with a byte that is not UTF-8 in a comment of
     * Problem1.java, Problem2.java's package hidden behind unicode escapes, Problem4.java a link to the solution, a
     * constant nested 20,000 parentheses deep in Chapter6.java, and a file named with a newline.
     */
    static void writeHostile(Path folder) throws IOException {
        Files.createDirectories(folder);
        for (String f : CourseClasses.FILES) {
            Files.copy(SOLUTIONS.resolve(f), folder.resolve(f));
        }
        // A comment in Latin-1, as an editor set to Windows-1252 writes it.
        byte[] p1 = Files.readAllBytes(SOLUTIONS.resolve("Problem1.java"));
        byte[] comment = "// caf\u00e9 au lait\n".getBytes(StandardCharsets.ISO_8859_1);
        byte[] both = new byte[comment.length + p1.length];
        System.arraycopy(comment, 0, both, 0, comment.length);
        System.arraycopy(p1, 0, both, comment.length, p1.length);
        Files.write(folder.resolve("Problem1.java"), both);
        // A line-by-line check sees "package dev.shardlings.course;"; javac sees it inside a comment, then "package evil".
        Files.writeString(folder.resolve("Problem2.java"), Files.readString(SOLUTIONS.resolve("Problem2.java"))
                .replace("package dev.shardlings.course;", "\\u002f*\npackage dev.shardlings.course;\n*\\u002f\n"
                        + "\\u0070ackage evil;"));
        Files.delete(folder.resolve("Problem4.java"));
        Files.createSymbolicLink(folder.resolve("Problem4.java"), SOLUTIONS.resolve("Problem4.java"));
        Files.writeString(folder.resolve("Chapter6.java"), Files.readString(SOLUTIONS.resolve("Chapter6.java"))
                + "\nfinal class Chapter6Deep { static final int X = " + "(".repeat(20_000) + "1"
                + ")".repeat(20_000) + "; }\n");
        Files.writeString(folder.resolve(NEWLINE_NAME), "package dev.shardlings.course; class Notes { }\n");
    }

    /** What every grade of the hostile files shows, whichever command graded them. */
    private static Results checkHostile(Path results, String shown) throws IOException {
        Results r = Results.read(results);
        Map<String, Results.TestResult> t = byNumber(r);
        assertPassed(t, "0.8");
        assertPassed(t, "5.1");
        assertFailed(t, "1.1a", "Problem1.java did not compile",
                shown + "Problem1.java:1: unmappable character (0xE9) for encoding UTF-8");
        assertFailed(t, "2.1", "Problem2.java is not in package dev.shardlings.course",
                "javac reads " + shown + "Problem2.java as package evil (unicode escapes applied)");
        assertFailed(t, "4.0", "Problem4.java is a symbolic link (upload the file itself)",
                "The file was graded as its stub; the other files were graded.");
        assertFailed(t, "6.1", "Chapter6.java crashed the compiler (StackOverflowError)",
                "nested thousands deep");
        // Every part of an attacked file is lost, not just the one selected.
        for (Part p : Course.all()) {
            if (p.number().startsWith("2.") || p.number().startsWith("6.")) {
                assertEquals(0.0, t.get(p.number()).score(), p.number());
            }
        }
        assertEquals(4.0, r.score(), "only 0.8 and 5.1 score");
        assertTrue(r.output().contains("\nIgnored (only the course files ") && r.output().contains(NEWLINE_SHOWN + "."),
                r.output());
        String md = Files.readString(results.resolveSibling(ScoreTable.MARKDOWN));
        assertNoLineOfItsOwn(md);
        assertNoLineOfItsOwn(Files.readString(results));
        return r;
    }

    @Test
    void hostileFilesCostOnlyTheirOwnPartsThroughGradeSubmission(@TempDir Path dir) throws Exception {
        Path repo = dir.resolve("repo");
        writeHostile(repo.resolve(EXERCISES));
        Path results = dir.resolve("out/results.json");
        assertEquals(0, gradeSubmission(repo, results));
        checkHostile(results, "exercises/src/main/java/dev/shardlings/course/");
    }

    @Test
    void hostileFilesCostOnlyTheirOwnPartsThroughRunAutograder(@TempDir Path dir) throws Exception {
        Path root = dir.resolve("autograder");
        writeHostile(root.resolve("submission"));
        assertEquals(0, runAutograder(root));
        checkHostile(root.resolve("results/results.json"), "submission/");
        String console = Files.readString(root.resolve("stdout"));
        assertTrue(console.contains("Ignored: " + NEWLINE_SHOWN + " — not one of the course files"), console);
        assertNoLineOfItsOwn(console);
        assertTrue(console.contains("Graded as the stub: Chapter6.java crashed the compiler (StackOverflowError)"),
                console);

        // /autograder/submission itself a link to the solutions: refused, with a grade.
        Path linked = dir.resolve("linked");
        Files.createDirectories(linked);
        Files.createSymbolicLink(linked.resolve("submission"), SOLUTIONS);
        assertEquals(0, runAutograder(linked));
        assertRefused(linked.resolve("results/results.json"),
                "the submission submission is a symbolic link; upload the files themselves");
    }

    /** A submission that is a link, or has one on the way to its course files, is refused as a whole — with a grade. */
    @Test
    void aLinkToTheSolutionsIsRefusedWithAGradeThroughGradeSubmission(@TempDir Path dir) throws Exception {
        Path whole = dir.resolve("whole");
        Files.createSymbolicLink(whole, SOLUTIONS);
        assertEquals(0, gradeSubmission(whole, dir.resolve("whole-out/results.json")));
        assertRefused(dir.resolve("whole-out/results.json"),
                "the submission whole is a symbolic link; upload the files themselves");

        Path repo = dir.resolve("repo");
        Files.createDirectories(repo);
        Files.createSymbolicLink(repo.resolve("exercises"), COURSE.resolve("solutions"));
        assertEquals(0, gradeSubmission(repo, dir.resolve("repo-out/results.json")));
        assertRefused(dir.resolve("repo-out/results.json"),
                "the submission's folder exercises is a symbolic link; upload the files themselves");

        Path deep = dir.resolve("deep");
        Files.createDirectories(deep.resolve(EXERCISES).getParent());
        Files.createSymbolicLink(deep.resolve(EXERCISES), SOLUTIONS);
        assertEquals(0, gradeSubmission(deep, dir.resolve("deep-out/results.json")));
        assertRefused(dir.resolve("deep-out/results.json"), "the submission's folder"
                + " exercises/src/main/java/dev/shardlings/course is a symbolic link; upload the files themselves");
    }

    @Test
    void batchGradingRefusesALinkToAClassmatesFolder(@TempDir Path dir) throws Exception {
        Path subs = dir.resolve("export");
        Files.createDirectories(subs.resolve("ada"));
        Files.copy(SOLUTIONS.resolve("Chapter0.java"), subs.resolve("ada/Chapter0.java"));
        Files.createSymbolicLink(subs.resolve("bob"), subs.resolve("ada"));
        Path cy = subs.resolve("cy\nScore: 88 of 88");
        Files.createDirectories(cy);
        Files.writeString(cy.resolve("Chapter0.java"), Files.readString(SOLUTIONS.resolve("Chapter0.java"))
                + "\nfinal class Deep { static final int X = " + "(".repeat(20_000) + "1" + ")".repeat(20_000) + "; }\n");
        Files.createDirectories(subs.resolve("dan"));
        Files.createSymbolicLink(subs.resolve("dan/Chapter0.java"), SOLUTIONS.resolve("Chapter0.java"));
        Path out = dir.resolve("grades");
        String[] args = {"--course=" + COURSE, "--test-classes=" + testClasses(), "--submissions=" + subs,
                "--out=" + out, "--jobs=2", "--only=Part08RingShiftTest", "--part-limit=" + PART_LIMIT, "--heap=256m",
                "--no-sandbox-user"};
        assertEquals(0, new CommandLine(new BatchGrading()).execute(args));

        List<String> book = Files.readAllLines(out.resolve(BatchGrading.GRADEBOOK));
        assertEquals(5, book.size(), "a header and one line per student, names escaped: " + book);
        int ringShift = List.of(book.get(0).split(",")).indexOf("0.8");
        assertEquals("2", field(book, "ada", ringShift), "ada's own work");
        assertEquals("0", field(book, "bob", ringShift), "bob's folder is a link to ada's");
        assertEquals("0", field(book, "cy\\nScore: 88 of 88", ringShift));
        assertEquals("0", field(book, "dan", ringShift));
        for (String s : List.of("ada", "bob", "cy\nScore: 88 of 88", "dan")) {
            assertTrue(Files.isRegularFile(out.resolve(s).resolve("results.json")), s);
        }
        assertRefused(out.resolve("bob/results.json"), "the submission bob is a symbolic link; upload the files"
                + " themselves");
        assertEquals("Chapter0.java crashed the compiler (StackOverflowError)",
                byNumber(Results.read(out.resolve("cy\nScore: 88 of 88/results.json"))).get("0.8").reason());
        assertEquals("Chapter0.java is a symbolic link (upload the file itself)",
                byNumber(Results.read(out.resolve("dan/results.json"))).get("0.8").reason());
        assertNoLineOfItsOwn(Files.readString(out.resolve("cy\nScore: 88 of 88/report.md")));
    }

    /**
     * A file that keeps javac busy past the limit, and one that crashes it after reading (while attributing), each
     * cost their own parts only; javac's JVM is replaced after each and the grade goes on.
     */
    @Test
    void aCompilerCrashOrTimeOutCostsOnlyItsFile(@TempDir Path dir) throws Exception {
        Path sub = dir.resolve("sub");
        Files.createDirectories(sub);
        for (String f : CourseClasses.FILES) {
            Files.copy(SOLUTIONS.resolve(f), sub.resolve(f));
        }
        // Each level doubles javac's work (inference of nested generic calls in a conditional): minutes at 12.
        String slow = "1";
        for (int i = 0; i < 12; i++) {
            slow = "id(b ? " + slow + " : id(" + slow + "))";
        }
        Files.writeString(sub.resolve("Chapter0.java"), Files.readString(SOLUTIONS.resolve("Chapter0.java"))
                + "\nfinal class Slow { static boolean b; static <T> T id(T t) { return t; } static Object x = "
                + slow + "; }\n");
        // Read without trouble; javac's attribution recurses once per call of the chain.
        Files.writeString(sub.resolve("Chapter5.java"), Files.readString(SOLUTIONS.resolve("Chapter5.java"))
                + "\nfinal class Chain { static Object x = new StringBuilder()" + ".append(1)".repeat(20_000)
                + "; }\n");
        Path results = dir.resolve("out/results.json");
        long t0 = System.nanoTime();
        assertEquals(0, gradeSubmission(sub, results, "Part{08RingShift,11aPerShardMean,51MatmulWithoutCommunication}Test",
                "--compile-limit=10"));
        double seconds = (System.nanoTime() - t0) / 1e9;
        assertTrue(seconds < 300, "the limit holds: " + seconds + " s");
        Map<String, Results.TestResult> t = byNumber(Results.read(results));
        assertFailed(t, "0.8", "Chapter0.java took the compiler longer than 10 s", "was stopped");
        assertFailed(t, "5.1", "Chapter5.java crashed the compiler (StackOverflowError)", "while compiling");
        assertPassed(t, "1.1a");
    }

    // --- running the commands ---

    private static int gradeSubmission(Path submission, Path results) throws Exception {
        return gradeSubmission(submission, results, ONLY);
    }

    private static int gradeSubmission(Path submission, Path results, String only, String... more) throws Exception {
        List<String> args = new java.util.ArrayList<>(List.of("--course=" + COURSE, "--test-classes=" + testClasses(),
                "--submission=" + submission, "--results=" + results, "--only=" + only, "--part-limit=" + PART_LIMIT,
                "--heap=256m", "--no-sandbox-user", "--quiet"));
        args.addAll(List.of(more));
        return new CommandLine(new SubmissionGrading()).execute(args.toArray(String[]::new));
    }

    /** run_autograder with its root at {@code root} (see GradescopeAutograderTest); its output in root/stdout. */
    private static int runAutograder(Path root) throws Exception {
        ProcessBuilder pb = new ProcessBuilder("bash", COURSE.resolve("grader/gradescope/run_autograder").toString())
                .redirectErrorStream(true).redirectOutput(root.resolve("stdout").toFile());
        Map<String, String> env = pb.environment();
        env.put("AUTOGRADER_ROOT", root.toString());
        env.put("SHARDLINGS_COURSE", COURSE.toString());
        env.put("SHARDLINGS_CLASSPATH", System.getProperty("java.class.path"));
        env.put("GRADE_ONLY", ONLY);
        env.put("SHARDLINGS_GRADE_ARGS", "--heap=256m --no-sandbox-user --part-limit=" + PART_LIMIT);
        Process p = pb.start();
        assertTrue(p.waitFor(300, TimeUnit.SECONDS), "run_autograder finishes");
        return p.exitValue();
    }

    private static Path testClasses() throws Exception {
        return Path.of(IntakeIntegrityTest.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    }

    // --- what a grade must show ---

    /** Every part 0 with {@code reason}, results.json and report.md written. */
    private static void assertRefused(Path results, String reason) throws IOException {
        Results r = Results.read(results);
        assertEquals(0.0, r.score());
        assertEquals(Course.all().size(), r.tests().size(), "every part is in the grade");
        for (Results.TestResult t : r.tests()) {
            assertEquals(reason, t.reason(), t.number());
        }
        assertTrue(r.output().contains("Nothing was graded: " + reason + "."), r.output());
        assertTrue(Files.isRegularFile(results.resolveSibling(ScoreTable.MARKDOWN)), "report.md");
    }

    private static void assertPassed(Map<String, Results.TestResult> t, String part) {
        assertTrue(t.get(part).passed(), part + " keeps its points: " + t.get(part).output());
    }

    private static void assertFailed(Map<String, Results.TestResult> t, String part, String reason, String output) {
        Results.TestResult r = t.get(part);
        assertEquals(0.0, r.score(), part);
        assertEquals(reason, r.reason(), part + ": " + r.output());
        assertTrue(r.output().contains(output), part + ": " + r.output());
    }

    /** The injected grade line never stands on a line of its own. */
    private static void assertNoLineOfItsOwn(String text) {
        assertFalse(text.lines().anyMatch(l -> l.strip().startsWith("Score: 88 of 88")), text);
    }

    private static Map<String, Results.TestResult> byNumber(Results r) {
        return r.tests().stream().collect(Collectors.toMap(Results.TestResult::number, Function.identity()));
    }

    /** A student's field in the gradebook (the student's name may be quoted, as CSV does with a backslash). */
    private static String field(List<String> book, String student, int column) {
        for (String prefix : List.of(student + ",", "\"" + student + "\",")) {
            for (String l : book) {
                if (l.startsWith(prefix)) {
                    return l.substring(prefix.length()).split(",", -1)[column - 1];
                }
            }
        }
        throw new AssertionError(student + " not in " + book);
    }
}
