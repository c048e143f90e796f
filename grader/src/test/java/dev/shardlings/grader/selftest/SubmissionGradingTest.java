package dev.shardlings.grader.selftest;

import dev.shardlings.grader.grade.Results;
import dev.shardlings.grader.grade.ScoreTable;
import dev.shardlings.grader.grade.SubmissionGrading;
import picocli.CommandLine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What grade-submission takes from a submission: exactly the course files, each a regular file declaring
 * package dev.shardlings.course; everything else is refused by name, and a course file that is missing, is not
 * taken or does not compile is graded as the stub, so one mistake costs only its own file's parts.
 */
class SubmissionGradingTest {

    private static final Path COURSE = Path.of("..").toAbsolutePath().normalize();
    private static final Path STUBS = COURSE.resolve("exercises/src/main/java/dev/shardlings/course");

    private static String course(String cls, String body) {
        return "package dev.shardlings.course;\n/* package elsewhere; */\npublic final class " + cls + " { " + body
                + " }\n";
    }

    @Test
    void onlyTheCourseFilesAreTaken(@TempDir Path dir) throws Exception {
        Path sub = dir.resolve("submission/exercises/src/main/java/dev/shardlings/course");
        Files.createDirectories(sub);
        Files.writeString(sub.resolve("Problem1.java"), "// the student's\n" + course("Problem1", ""));
        Files.writeString(sub.resolve("Chapter0.java"), "package picocli;\npublic final class Chapter0 { }\n");
        Files.writeString(sub.resolve("Helpers.java"), course("Helpers", ""));
        Files.writeString(sub.resolve("notes.txt"), "not Java");
        Files.createSymbolicLink(sub.resolve("Problem3.java"), STUBS.resolve("Problem3.java"));
        // A hard link reads like any file; it is a second name of another one (a solution, on a shared machine).
        Path elsewhere = dir.resolve("instructor/Problem4.java");
        Files.createDirectories(elsewhere.getParent());
        Files.writeString(elsewhere, course("Problem4", ""));
        Files.createLink(sub.resolve("Problem4.java"), elsewhere);
        Path out = dir.resolve("src");
        SubmissionGrading.Intake in = SubmissionGrading.prepare(STUBS, dir.resolve("submission"), out);
        assertEquals(List.of("Chapter0.java", "Problem1.java"), in.taken(), "what javac makes of them comes later");
        assertEquals(List.of("exercises/src/main/java/dev/shardlings/course/Helpers.java",
                "exercises/src/main/java/dev/shardlings/course/notes.txt"), List.copyOf(in.ignored().keySet()),
                "every file not taken is named, not only Java files");
        assertEquals("a symbolic link (upload the file itself)", in.replaced().get("Problem3.java"));
        assertEquals("a hard link, a second name of another file (upload a copy of the file)",
                in.replaced().get("Problem4.java"));
        assertEquals("not in the submission", in.replaced().get("Problem2.java"));
        assertEquals(null, in.refusal());
        Path pkg = out.resolve("dev/shardlings/course");
        assertTrue(Files.readString(pkg.resolve("Problem1.java")).startsWith("// the student's"));
        assertEquals(Files.readString(STUBS.resolve("Problem3.java")), Files.readString(pkg.resolve("Problem3.java")));
        try (var files = Files.list(pkg)) {
            assertEquals(dev.shardlings.grader.sandbox.CourseClasses.FILES.size(), files.count(), "the course files and nothing else");
        }
        // javac decides the package: Chapter0.java is graded as its stub.
        Map<String, SubmissionGrading.Stubbed> stubbed = SubmissionGrading.compile(out, dir.resolve("classes"), STUBS,
                "submission/", java.time.Duration.ofSeconds(120));
        assertEquals("Chapter0.java is not in package dev.shardlings.course", stubbed.get("Chapter0.java").reason());
        assertTrue(stubbed.get("Chapter0.java").details().contains("as package picocli"),
                stubbed.get("Chapter0.java").details());
        assertEquals(Files.readString(STUBS.resolve("Chapter0.java")), Files.readString(pkg.resolve("Chapter0.java")));
    }

    @Test
    void aFileThatDoesNotCompileIsGradedAsTheStubAndTheOthersAreKept(@TempDir Path dir) throws Exception {
        Path sub = dir.resolve("sub");
        Files.createDirectories(sub);
        Files.writeString(sub.resolve("Problem1.java"), "package dev.shardlings.course;\nclass Problem1 { oops }\n");
        Files.copy(STUBS.resolve("Problem2.java"), sub.resolve("Problem2.java"));
        Path src = dir.resolve("src");
        SubmissionGrading.prepare(STUBS, sub, src);
        Path classes = dir.resolve("classes");
        Map<String, String> broken = SubmissionGrading.compile(src, classes, STUBS, SubmissionGrading.shownFolder(sub));
        assertEquals(List.of("Problem1.java"), List.copyOf(broken.keySet()));
        String msg = broken.get("Problem1.java");
        assertTrue(msg.contains("sub/Problem1.java:2"), "the student's own folder: " + msg);
        assertFalse(msg.contains(dir.toString()), "no temporary folders in the message: " + msg);
        for (String c : dev.shardlings.grader.sandbox.CourseClasses.NAMES) {
            assertTrue(Files.exists(classes.resolve("dev/shardlings/course/" + c + ".class")), c);
        }
    }

    @Test
    void theGradersCopyOfTheStubsIsTheExercises(@TempDir Path dir) throws Exception {
        Path copy = SubmissionGrading.writeStubs(dir);
        for (String f : dev.shardlings.grader.sandbox.CourseClasses.FILES) {
            assertEquals(Files.readString(STUBS.resolve(f)), Files.readString(copy.resolve(f)), f + ": the grader's resources"
                    + " are stale: rebuild the grader");
        }
    }

    @Test
    void compilerMessagesNameTheStudentsOwnFolder(@TempDir Path dir) throws Exception {
        Path repo = dir.resolve("their-repo");
        Files.createDirectories(repo.resolve(SubmissionGrading.EXERCISES));
        assertEquals("exercises/src/main/java/dev/shardlings/course/", SubmissionGrading.shownFolder(repo));
        assertEquals("exercises/src/main/java/dev/shardlings/course/",
                SubmissionGrading.shownFolder(repo.resolve(SubmissionGrading.EXERCISES)));
        assertEquals("upload/", SubmissionGrading.shownFolder(dir.resolve("upload")));
    }

    /**
     * What {@code mvn test -Pgrade} does with a student's working copy: a file that does not compile costs only
     * its own parts, the others are graded, the run exits 0 and writes results.json and report.md.
     */
    @Test
    void aBrokenFileInTheWorkingCopyCostsOnlyItsOwnParts(@TempDir Path dir) throws Exception {
        Path sub = dir.resolve("repo/exercises/src/main/java/dev/shardlings/course");
        Files.createDirectories(sub);
        for (String f : dev.shardlings.grader.sandbox.CourseClasses.FILES.stream()
                .filter(n -> !n.equals("Problem1.java")).toList()) {
            Files.copy(COURSE.resolve("solutions/src/main/java/dev/shardlings/course").resolve(f), sub.resolve(f));
        }
        Files.writeString(sub.resolve("Problem1.java"), Files.readString(STUBS.resolve("Problem1.java"))
                .replaceFirst("throw new ExerciseNotDone", "return oops; // throw new ExerciseNotDone"));
        Path results = dir.resolve("out/results.json");
        Path testClasses = Path.of(SubmissionGradingTest.class.getProtectionDomain().getCodeSource().getLocation()
                .toURI());
        int status = new CommandLine(new SubmissionGrading()).execute("--course=" + COURSE,
                "--test-classes=" + testClasses, "--submission=" + sub, "--results=" + results,
                "--target=exercises", "--only=Part{08RingShift,11aPerShardMean}Test", "--heap=256m",
                "--no-sandbox-user", "--quiet");
        assertEquals(0, status, "a compile error is part of the grade, not a failure of the run");
        Results r = Results.read(results);
        Results.TestResult p11a = r.tests().stream().filter(x -> x.number().equals("1.1a")).findFirst().orElseThrow();
        assertEquals("Problem1.java did not compile", p11a.reason());
        assertTrue(p11a.output().contains("exercises/src/main/java/dev/shardlings/course/Problem1.java:"),
                "the student's path: " + p11a.output());
        assertFalse(p11a.output().contains(dir.toString()), "no temporary folder: " + p11a.output());
        assertTrue(r.tests().stream().filter(x -> x.number().equals("0.8")).findFirst().orElseThrow().passed());
        assertEquals("exercises", r.extraData().get("target"));
        assertEquals(sub.toString(), r.extraData().get("submission"));
        assertTrue(Files.readString(results.resolveSibling(ScoreTable.MARKDOWN)).contains("did not compile"));
    }

    /** The package is javac's: comments are comments, spaces between names are allowed, unicode escapes count. */
    @Test
    void thePackageIsTheOneJavacReads(@TempDir Path dir) throws Exception {
        Path pkg = dir.resolve("src/dev/shardlings/course");
        Files.createDirectories(pkg);
        for (String f : dev.shardlings.grader.sandbox.CourseClasses.FILES) {
            Files.copy(STUBS.resolve(f), pkg.resolve(f));
        }
        String p1 = Files.readString(STUBS.resolve("Problem1.java"));
        Files.writeString(pkg.resolve("Problem1.java"), "/* package evil; */\n// package evil;\n"
                + p1.replace("package dev.shardlings.course;", "package dev . shardlings.course ;"));
        Files.writeString(pkg.resolve("Problem2.java"), Files.readString(STUBS.resolve("Problem2.java"))
                .replace("package dev.shardlings.course;", "\\u0070ackage evil;"));
        Files.writeString(pkg.resolve("Problem3.java"), Files.readString(STUBS.resolve("Problem3.java"))
                .replace("package dev.shardlings.course;", ""));
        Map<String, SubmissionGrading.Stubbed> stubbed = SubmissionGrading.compile(dir.resolve("src"),
                dir.resolve("classes"), STUBS, "sub/", java.time.Duration.ofSeconds(120));
        assertEquals(List.of("Problem2.java", "Problem3.java"), List.copyOf(stubbed.keySet()));
        assertTrue(stubbed.get("Problem2.java").details().contains("sub/Problem2.java as package evil"),
                stubbed.get("Problem2.java").details());
        assertTrue(stubbed.get("Problem3.java").details().contains("declaring no package"),
                stubbed.get("Problem3.java").details());
    }

    @Test
    void namesArePrintedOnOneLine() {
        assertEquals("Evil\\nScore: 88/88.java", SubmissionGrading.printable("Evil\nScore: 88/88.java"));
        assertEquals("a\\tb\\r\\u0007\\u202Ec\\u2028d", SubmissionGrading.printable("a\tb\r\u0007\u202Ec\u2028d"));
        assertEquals("Problème 1 – 素.java", SubmissionGrading.printable("Problème 1 – 素.java"));
    }
}
