package dev.shardlings.grader.selftest;

import dev.shardlings.grader.Results;
import dev.shardlings.grader.SubmissionGrading;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A submission's edits outside the exercises have no effect; a submission that does not build still gets a grade. */
class SubmissionGradingTest {

    private static final Path COURSE_PKG = Path.of("exercises/src/main/java/dev/shardlings/course");

    private static void write(Path root, String rel, String text) throws Exception {
        Path f = root.resolve(rel);
        Files.createDirectories(f.getParent());
        Files.writeString(f, text);
    }

    private static Path course(Path dir) throws Exception {
        Path c = dir.resolve("course");
        write(c, "pom.xml", "pristine pom");
        write(c, "grader/src/main/java/Checks.java", "pristine grader");
        write(c, "framework/src/main/java/NDArray.java", "pristine framework");
        write(c, COURSE_PKG + "/Problem1.java", "stub");
        write(c, COURSE_PKG + "/Problem3.java", "stub");
        write(c, "grader/target/old.txt", "build output");
        return c;
    }

    @Test
    void onlyTheExercisesPackageIsTakenFromTheSubmission(@TempDir Path dir) throws Exception {
        Path course = course(dir);
        Path sub = dir.resolve("submission");
        write(sub, "pom.xml", "hacked pom");
        write(sub, "grader/src/main/java/Checks.java", "hacked grader: every part passes");
        write(sub, "framework/src/main/java/NDArray.java", "hacked framework");
        write(sub, COURSE_PKG + "/Problem1.java", "student's Problem1");
        write(sub, COURSE_PKG + "/Helpers.java", "student's helper class");
        write(sub, COURSE_PKG + "/notes.txt", "not Java");
        Files.createSymbolicLink(sub.resolve(COURSE_PKG + "/Link.java"), course.resolve("grader/src/main/java/Checks.java"));
        Path copy = dir.resolve("graded");
        assertEquals(java.util.List.of("Helpers.java", "Problem1.java"), SubmissionGrading.prepare(course, sub, copy));
        assertEquals("pristine pom", Files.readString(copy.resolve("pom.xml")));
        assertEquals("pristine grader", Files.readString(copy.resolve("grader/src/main/java/Checks.java")));
        assertEquals("pristine framework", Files.readString(copy.resolve("framework/src/main/java/NDArray.java")));
        assertEquals("student's Problem1", Files.readString(copy.resolve(COURSE_PKG + "/Problem1.java")));
        assertFalse(Files.exists(copy.resolve(COURSE_PKG + "/Problem3.java")), "the stub the student deleted is gone");
        assertFalse(Files.exists(copy.resolve(COURSE_PKG + "/Link.java")), "links are not followed");
        assertFalse(Files.exists(copy.resolve(COURSE_PKG + "/notes.txt")));
        assertFalse(Files.exists(copy.resolve("grader/target")), "no build output is copied");
    }

    @Test
    void aSubmissionThatDoesNotCompileStillGetsAGrade(@TempDir Path dir) throws Exception {
        Path course = course(dir);
        Path sub = dir.resolve("submission");
        write(sub, "Problem1.java", "class Problem1 { oops }");
        Path maven = dir.resolve("fake-mvn.sh");
        Files.writeString(maven, "#!/bin/sh\necho '[ERROR] Problem1.java:[1,17] error: <identifier> expected'\nexit 1\n");
        assertTrue(maven.toFile().setExecutable(true));
        Path results = dir.resolve("out/results.json");
        int status = new CommandLine(new SubmissionGrading()).execute("--course=" + course, "--submission=" + sub,
                "--results=" + results, "--work=" + dir.resolve("graded"), "--maven=" + maven);
        assertEquals(0, status);
        Results r = Results.read(results);
        assertEquals(0.0, r.score());
        assertTrue(r.tests().stream().allMatch(t -> t.reason().equals("the exercises did not compile")));
        assertTrue(r.output().contains("<identifier> expected"), r.output());
    }
}
