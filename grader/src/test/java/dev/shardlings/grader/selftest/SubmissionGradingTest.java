package dev.shardlings.grader.selftest;

import dev.shardlings.grader.SubmissionGrading;
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
 * What grade-submission takes from a submission: exactly the five course files, each a regular file declaring
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
    void onlyTheFiveCourseFilesAreTaken(@TempDir Path dir) throws Exception {
        Path sub = dir.resolve("submission/exercises/src/main/java/dev/shardlings/course");
        Files.createDirectories(sub);
        Files.writeString(sub.resolve("Problem1.java"), "// the student's\n" + course("Problem1", ""));
        Files.writeString(sub.resolve("Chapter0.java"), "package picocli;\npublic final class Chapter0 { }\n");
        Files.writeString(sub.resolve("Helpers.java"), course("Helpers", ""));
        Files.writeString(sub.resolve("notes.txt"), "not Java");
        Files.createSymbolicLink(sub.resolve("Problem3.java"), STUBS.resolve("Problem3.java"));
        Path out = dir.resolve("src");
        SubmissionGrading.Intake in = SubmissionGrading.prepare(COURSE, dir.resolve("submission"), out);
        assertEquals(List.of("Problem1.java"), in.taken());
        assertEquals(List.of("Helpers.java"), List.copyOf(in.refused().keySet()));
        assertEquals("declares package picocli, not dev.shardlings.course", in.replaced().get("Chapter0.java"));
        assertEquals("not a regular file (links are not followed)", in.replaced().get("Problem3.java"));
        assertEquals("not in the submission", in.replaced().get("Problem2.java"));
        Path pkg = out.resolve("dev/shardlings/course");
        assertTrue(Files.readString(pkg.resolve("Problem1.java")).startsWith("// the student's"));
        assertEquals(Files.readString(STUBS.resolve("Chapter0.java")), Files.readString(pkg.resolve("Chapter0.java")));
        try (var files = Files.list(pkg)) {
            assertEquals(5, files.count(), "the five course files and nothing else");
        }
    }

    @Test
    void aFileThatDoesNotCompileIsGradedAsTheStubAndTheOthersAreKept(@TempDir Path dir) throws Exception {
        Path sub = dir.resolve("sub");
        Files.createDirectories(sub);
        Files.writeString(sub.resolve("Problem1.java"), "package dev.shardlings.course;\nclass Problem1 { oops }\n");
        Files.copy(STUBS.resolve("Problem2.java"), sub.resolve("Problem2.java"));
        Path src = dir.resolve("src");
        SubmissionGrading.prepare(COURSE, sub, src);
        Path classes = dir.resolve("classes");
        Map<String, String> broken = SubmissionGrading.compile(src, classes, STUBS);
        assertEquals(List.of("Problem1.java"), List.copyOf(broken.keySet()));
        String msg = broken.get("Problem1.java");
        assertTrue(msg.contains("Problem1.java:2"), msg);
        assertFalse(msg.contains(dir.toString()), "no temporary folders in the message: " + msg);
        for (String c : List.of("Chapter0", "Problem1", "Problem2", "Problem3", "Problem4")) {
            assertTrue(Files.exists(classes.resolve("dev/shardlings/course/" + c + ".class")), c);
        }
    }

    @Test
    void thePackageDeclarationIsReadPastComments() {
        assertEquals("dev.shardlings.course", SubmissionGrading.packageOf(
                "/* package evil; */\n// package evil;\npackage dev . shardlings.course ;\n"));
        assertEquals("evil", SubmissionGrading.packageOf("package evil; /* package dev.shardlings.course; */"));
        assertEquals(null, SubmissionGrading.packageOf("class NoPackage {}"));
    }
}
