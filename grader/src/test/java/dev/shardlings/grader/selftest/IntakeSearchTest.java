package dev.shardlings.grader.selftest;

import dev.shardlings.grader.grade.Results;
import dev.shardlings.grader.grade.ScoreTable;
import dev.shardlings.grader.grade.SubmissionGrading;
import dev.shardlings.grader.sandbox.CourseClasses;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Where grade-submission finds the course files (issue 34): wherever an upload puts them — the submission itself,
 * its exercises/src/main/java/dev/shardlings/course/, the same below one or two wrapping folders (a zipped folder,
 * GitHub's repo-main/) — and what the student is told about every file it did not take or graded as its stub:
 * in the console, in results.json (each part's output and the top-level output) and in report.md.
 *
 * <p>One mixed submission is graded once for the reasons ({@link #mixed}); only the parts of the files that
 * compile run in a sandbox, so the grade is short.
 */
class IntakeSearchTest {

    private static final Path COURSE = Path.of("..").toAbsolutePath().normalize();
    private static final Path SOLUTIONS = COURSE.resolve("solutions/src/main/java/dev/shardlings/course");
    private static final Path STUBS = COURSE.resolve("exercises/src/main/java/dev/shardlings/course");
    private static final String WAY = "exercises/src/main/java/dev/shardlings/course/";

    /** Problem3.java of the solutions with an error javac reports on a line of its own. */
    private static final String BROKEN_LINE = "int broken = \"text\";";

    @TempDir
    static Path shared;

    /** The mixed submission's grade: results, report.md and the console of a run without --quiet. */
    private static Results mixed;
    private static String mixedReport;
    private static String mixedConsole;

    @BeforeAll
    static void gradeTheMixedSubmissionOnce() throws Exception {
        assumeTrue(Files.isDirectory(SOLUTIONS), "built from solutions/, which a student release does not have");
        // The solutions, two folders down, with one mistake per file; Problem4.java and Chapter5.java untouched.
        Path repo = shared.resolve("sub/upload/shardlings-students");
        Path course = repo.resolve(WAY);
        copySolutions(course);
        Files.writeString(course.resolve("Chapter0.java"), Files.readString(SOLUTIONS.resolve("Chapter0.java"))
                .replace("package dev.shardlings.course;", "package dev.shardlings.chapter0;"));
        Files.copy(SOLUTIONS.resolve("Problem1.java"), repo.resolve("Problem1.java")); // and in exercises/ too
        Files.delete(course.resolve("Problem2.java"));
        Files.writeString(course.resolve("Problem3.java"), brokenProblem3());
        Files.writeString(repo.resolve("NOTES.md"), "# my notes\n");
        Files.createDirectories(repo.resolve("extra"));
        Files.writeString(repo.resolve("extra/Helper.java"), "package dev.shardlings.course; class Helper { }\n");
        Files.createDirectories(repo.resolve("old"));
        Files.copy(STUBS.resolve("Chapter5.java"), repo.resolve("old/Chapter5.java"));
        Files.writeString(repo.resolve("README.md"), "the course's own README, counted but not named\n");
        Path results = shared.resolve("out/results.json");
        PrintStream was = System.out;
        ByteArrayOutputStream console = new ByteArrayOutputStream();
        int status;
        try (PrintStream capture = new PrintStream(console, true, StandardCharsets.UTF_8)) {
            System.setOut(capture);
            status = new CommandLine(new SubmissionGrading()).execute("--course=" + COURSE,
                    "--test-classes=" + testClasses(), "--submission=" + shared.resolve("sub"),
                    "--results=" + results, "--only=Part{08RingShift,11aPerShardMean,21MoeLocal,30AllGatherMatmul,"
                            + "40BidirectionalAllGatherMatmul,41BidirectionalAllReduceMatmul,"
                            + "42BidirectionalReduceScatterMatmul,51MatmulWithoutCommunication}Test",
                    "--part-limit=60", "--heap=256m", "--no-sandbox-user");
        } finally {
            System.setOut(was);
        }
        assertEquals(0, status);
        mixed = Results.read(results);
        mixedReport = Files.readString(results.resolveSibling(ScoreTable.MARKDOWN));
        mixedConsole = console.toString(StandardCharsets.UTF_8);
    }

    // --- where the files are found ---

    @Test
    void aCopyOfTheCourseOneOrTwoFoldersDownIsTakenWhole(@TempDir Path dir) throws Exception {
        for (String wrapping : List.of("shardlings-students/", "upload/shardlings-students/", "")) {
            Path sub = dir.resolve("sub" + wrapping.length());
            copySolutions(sub.resolve(wrapping + WAY));
            SubmissionGrading.Intake in = SubmissionGrading.prepare(STUBS, COURSE, sub, dir.resolve("src"
                    + wrapping.length()));
            assertEquals(CourseClasses.FILES, in.taken(), wrapping);
            assertEquals(Map.of(), in.replaced(), wrapping);
            assertEquals(List.of(wrapping + WAY), in.from(), wrapping);
            assertEquals(wrapping + WAY + "Problem1.java", in.shown().get("Problem1.java"),
                    "compiler messages name the file where the student has it");
        }
        // The course folder zipped on its own, and the files uploaded as they are.
        Path zipped = dir.resolve("zipped");
        copySolutions(zipped.resolve("my-upload/course"));
        assertEquals(CourseClasses.FILES, SubmissionGrading.prepare(STUBS, COURSE, zipped, dir.resolve("z")).taken());
        Path flat = dir.resolve("flat");
        copySolutions(flat);
        assertEquals(CourseClasses.FILES, SubmissionGrading.prepare(STUBS, COURSE, flat, dir.resolve("f")).taken());
    }

    /** GitHub's "Download ZIP": one folder, repo-main/, holding the whole repository, .git-less. */
    @Test
    void githubsDownloadLayoutIsTakenAndTheCoursesOwnFilesAreNotNamed(@TempDir Path dir) throws Exception {
        Path repo = dir.resolve("submission/shardlings-main");
        copySolutions(repo.resolve(WAY));
        for (String own : List.of("README.md", "pom.xml", "exercises/pom.xml", "framework/pom.xml",
                "docs/chapter-0.md")) {
            Files.createDirectories(repo.resolve(own).getParent());
            Files.writeString(repo.resolve(own), "the course's own\n");
        }
        Files.createDirectories(repo.resolve(".github/workflows"));
        Files.writeString(repo.resolve(".github/workflows/classroom.yml"), "on: push\n");
        Files.writeString(repo.resolve("NOTES.md"), "mine\n");
        Files.createDirectories(dir.resolve("submission/__MACOSX/shardlings-main"));
        Files.writeString(dir.resolve("submission/__MACOSX/shardlings-main/._Problem1.java"), "resource fork");
        SubmissionGrading.Intake in = SubmissionGrading.prepare(STUBS, COURSE, dir.resolve("submission"),
                dir.resolve("src"));
        assertEquals(CourseClasses.FILES, in.taken());
        assertEquals(List.of("__MACOSX/", "shardlings-main/.github/", "shardlings-main/NOTES.md"),
                List.copyOf(in.ignored().keySet()), "hidden folders are named, not searched; the course's own"
                        + " files are counted");
        assertEquals(5, in.courseOwn());
    }

    @Test
    void aLinkOnTheWayBelowAWrappingFolderIsRefusedAsAWhole(@TempDir Path dir) throws Exception {
        assumeTrue(links(dir));
        Path sub = dir.resolve("sub");
        Files.createDirectories(sub.resolve("repo-main"));
        Files.createSymbolicLink(sub.resolve("repo-main/exercises"), COURSE.resolve("solutions"));
        SubmissionGrading.Intake in = SubmissionGrading.prepare(STUBS, COURSE, sub, dir.resolve("src"));
        assertEquals("the submission's folder repo-main/exercises is a symbolic link; upload the files themselves",
                in.refusal());
        assertEquals(List.of(), in.taken());
    }

    /** A million folders cost a moment: the search stops after a bounded number of entries, and at a bounded depth. */
    @Test
    void theSearchIsBounded(@TempDir Path dir) throws Exception {
        Path wide = dir.resolve("wide");
        for (int i = 0; i <= 20_000; i++) {
            Files.createDirectories(wide.resolve("d" + i));
        }
        copySolutions(wide.resolve("d0"));
        SubmissionGrading.Intake in = SubmissionGrading.prepare(STUBS, COURSE, wide, dir.resolve("w"));
        assertTrue(in.refusal() != null && in.refusal().startsWith("the submission has more than 20000 files and"
                + " folders"), String.valueOf(in.refusal()));

        Path deep = dir.resolve("deep");
        Path at = deep;
        for (int i = 0; i < 60; i++) {
            at = at.resolve("d");
        }
        copySolutions(at);
        SubmissionGrading.Intake d = SubmissionGrading.prepare(STUBS, COURSE, deep, dir.resolve("d"));
        assertEquals(List.of(), d.taken(), "files 60 folders down are not looked for");
        assertEquals("not in the submission", d.replaced().get("Problem1.java"));
        assertEquals(1, d.ignored().size(), "one folder, named by its own name past the depth files are listed to: "
                + d.ignored());
        assertTrue(d.ignored().keySet().iterator().next().matches("d(/d){3,10}/"), d.ignored().toString());
    }

    // --- what the student is told (the mixed submission) ---

    @Test
    void aCopyTwoFoldersDownGetsItsPoints() {
        Map<String, Results.TestResult> t = byNumber(mixed);
        for (String part : List.of("4.0", "4.1", "4.2", "5.1")) {
            assertTrue(t.get(part).passed(), part + ": " + t.get(part).output());
        }
        assertTrue(mixed.output().contains("\nCourse files taken from upload/shardlings-students/ and"
                + " upload/shardlings-students/" + WAY + "."), mixed.output());
    }

    @Test
    void twoCandidatesForOneFileAreRefusedWithTheirPlaces() {
        Results.TestResult p = byNumber(mixed).get("1.1a");
        assertEquals(0.0, p.score());
        assertEquals("Problem1.java is in the submission more than once", p.reason());
        assertTrue(p.output().contains("It is at upload/shardlings-students/Problem1.java and at"
                + " upload/shardlings-students/" + WAY + "Problem1.java. The grader does not guess which one you"
                + " meant"), p.output());
    }

    @Test
    void aMissingFileSaysSoInResultsJsonReportMdAndTheConsole() {
        Results.TestResult p = byNumber(mixed).get("2.1");
        assertEquals("Problem2.java is not in the submission", p.reason(), "not \"not implemented yet\"");
        assertTrue(p.output().contains("The other course files were taken from upload/shardlings-students/ and"
                + " upload/shardlings-students/" + WAY + ", and Problem2.java is not there."), p.output());
        assertTrue(mixed.output().contains("\nGraded as the stub (its parts score 0): Problem2.java is not in the"
                + " submission."), mixed.output());
        assertTrue(mixedReport.contains("Problem2.java is not in the submission"), mixedReport);
        assertTrue(mixedConsole.contains("Graded as the stub: Problem2.java is not in the submission"), mixedConsole);
    }

    @Test
    void aWrongPackageSaysWhichPackageJavacRead() {
        Results.TestResult p = byNumber(mixed).get("0.8");
        assertEquals("Chapter0.java is not in package dev.shardlings.course", p.reason());
        assertTrue(p.output().contains("javac reads upload/shardlings-students/" + WAY + "Chapter0.java as package"
                + " dev.shardlings.chapter0"), p.output());
        assertTrue(mixedConsole.contains("Graded as the stub: Chapter0.java is not in package dev.shardlings.course"),
                mixedConsole);
    }

    @Test
    void aCompileErrorQuotesTheSourceLineWithACaret() {
        Results.TestResult p = byNumber(mixed).get("3.0");
        assertEquals("Problem3.java did not compile", p.reason());
        String shown = "upload/shardlings-students/" + WAY + "Problem3.java:";
        List<String> lines = p.output().lines().toList();
        int at = -1;
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains(shown) && lines.get(i).contains("incompatible types")) {
                at = i;
            }
        }
        assertTrue(at >= 0, p.output());
        assertEquals("          " + BROKEN_LINE, lines.get(at + 1), "the source line, as javac prints it");
        assertEquals(" ".repeat(10 + BROKEN_LINE.indexOf('"')) + "^", lines.get(at + 2), "the caret under the error");
        assertFalse(p.output().contains(shared.toString()), "no temporary folder: " + p.output());
        assertTrue(mixedReport.contains(BROKEN_LINE), "report.md");
        assertTrue(mixedConsole.contains(BROKEN_LINE), "the console, which the batch log captures");
    }

    /** The trial: Problem3.java not compiling cost a reference-style Problem4 ten points. No more. */
    @Test
    void aBrokenProblem3CostsProblem4Nothing() {
        Map<String, Results.TestResult> t = byNumber(mixed);
        for (String part : List.of("4.0", "4.1", "4.2")) {
            assertEquals(t.get(part).maxScore(), t.get(part).score(), part + ": " + t.get(part).output());
        }
        assertEquals("Problem3.java did not compile", t.get("3.0").reason());
    }

    @Test
    void everyIgnoredFileIsNamed() {
        String base = "upload/shardlings-students/";
        assertTrue(mixed.output().contains("\nIgnored (only the course files " + String.join(", ", CourseClasses.FILES)
                + " are graded): " + base + "NOTES.md, " + base + "extra/Helper.java, " + base + "old/Chapter5.java;"
                + " and 1 of the course's own files."), mixed.output());
        assertTrue(mixedConsole.contains("Ignored: " + base + "old/Chapter5.java — a course file outside the folder"
                + " the course files are taken from"), mixedConsole);
        assertTrue(mixedConsole.contains("Ignored: " + base + "NOTES.md — not one of the course files"), mixedConsole);
        assertTrue(mixedReport.contains(base + "extra/Helper.java") || mixed.output().contains(base
                + "extra/Helper.java"));
    }

    /** A file that uses another course file's helper is told that file was replaced, and why. */
    @Test
    void aFileUsingAReplacedFilesHelperIsToldWhy(@TempDir Path dir) throws Exception {
        Path pkg = dir.resolve("src/dev/shardlings/course");
        copySolutions(pkg);
        Files.writeString(pkg.resolve("Problem3.java"), brokenProblem3());
        // Problem4 written as the reference once was: Problem3's ring shifts imported.
        Files.writeString(pkg.resolve("Problem4.java"), Files.readString(SOLUTIONS.resolve("Problem4.java"))
                .replace("private static int[][] up(", "private static int[][] ownUp(")
                .replace("private static int[][] down(", "private static int[][] ownDown(")
                .replace("import dev.shardlings.array.NDArray;", "import dev.shardlings.array.NDArray;\nimport static"
                        + " dev.shardlings.course.Problem3.down;\nimport static dev.shardlings.course.Problem3.up;"));
        Map<String, SubmissionGrading.Stubbed> stubbed = SubmissionGrading.compile(dir.resolve("src"),
                dir.resolve("classes"), STUBS, "sub/", java.time.Duration.ofSeconds(120));
        assertEquals(List.of("Problem3.java", "Problem4.java"), List.copyOf(stubbed.keySet()));
        String why = stubbed.get("Problem4.java").details();
        assertTrue(why.contains("This file uses Problem3, which was replaced by the stub (Problem3.java did not"
                + " compile), so what it uses from that file is not there."), why);
        assertTrue(why.contains("sub/Problem4.java:"), why);
    }

    // --- helpers ---

    private static String brokenProblem3() throws IOException {
        String src = Files.readString(SOLUTIONS.resolve("Problem3.java"));
        String head = "public static ShardedArray allGatherMatmul(ShardedArray a, ShardedArray w) {\n";
        assertTrue(src.contains(head));
        return src.replace(head, head + "        " + BROKEN_LINE + "\n");
    }

    private static void copySolutions(Path folder) throws IOException {
        Files.createDirectories(folder);
        for (String f : CourseClasses.FILES) {
            Files.copy(SOLUTIONS.resolve(f), folder.resolve(f));
        }
    }

    private static boolean links(Path dir) {
        try {
            Files.createSymbolicLink(dir.resolve("probe"), dir);
            Files.delete(dir.resolve("probe"));
            return true;
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        }
    }

    private static Path testClasses() throws Exception {
        return Path.of(IntakeSearchTest.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    }

    private static Map<String, Results.TestResult> byNumber(Results r) {
        return r.tests().stream().collect(Collectors.toMap(Results.TestResult::number, Function.identity()));
    }
}
