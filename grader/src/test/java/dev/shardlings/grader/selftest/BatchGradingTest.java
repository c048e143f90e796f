package dev.shardlings.grader.selftest;

import dev.shardlings.grader.grade.BatchGrading;
import dev.shardlings.grader.grade.Course;
import dev.shardlings.grader.grade.BatchGrading;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A folder of submissions becomes a gradebook: one row per student with each part's points, a grade per student,
 * and a second run with the same arguments grades no one again.
 */
class BatchGradingTest {

    private static final Path COURSE = Path.of("..").toAbsolutePath().normalize();
    private static final Path SOLUTIONS = COURSE.resolve("solutions/src/main/java/dev/shardlings/course");
    private static final String ONLY = "Part08RingShiftTest";

    @Test
    void aFolderOfSubmissionsBecomesAGradebookAndAStoppedRunResumes(@TempDir Path dir) throws Exception {
        Path subs = dir.resolve("export");
        Files.createDirectories(subs.resolve("ada"));
        Files.copy(SOLUTIONS.resolve("Chapter0.java"), subs.resolve("ada/Chapter0.java"));
        Files.createDirectories(subs.resolve("bob"));
        Files.writeString(subs.resolve("bob/Chapter0.java"), "package dev.shardlings.course;\nclass Chapter0 { x }\n");
        Files.createDirectories(subs.resolve("cy")); // submitted nothing
        Path out = dir.resolve("grades");
        Path testClasses = Path.of(BatchGradingTest.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        String[] args = {"--course=" + COURSE, "--test-classes=" + testClasses, "--submissions=" + subs,
                "--out=" + out, "--jobs=2", "--only=" + ONLY, "--heap=256m", "--no-sandbox-user"};
        assertEquals(0, new CommandLine(new BatchGrading()).execute(args));

        List<String> book = Files.readAllLines(out.resolve(BatchGrading.GRADEBOOK));
        assertEquals(4, book.size(), "a header and a row per student: " + book);
        List<String> header = List.of(book.get(0).split(","));
        assertEquals(List.of("student", "score", "max_score"), header.subList(0, 3));
        int ringShift = header.indexOf("0.8");
        assertTrue(ringShift > 0, book.get(0));
        assertEquals("2", field(book, "ada", ringShift), "ada's ring shift passes");
        assertEquals("0", field(book, "bob", ringShift), "bob's file does not compile");
        assertEquals("0", field(book, "cy", ringShift), "cy submitted nothing");
        assertEquals(String.valueOf(Course.all().stream().mapToInt(dev.shardlings.grader.parts.Part::points).sum()),
                field(book, "ada", header.indexOf("max_score")));
        for (String s : List.of("ada", "bob", "cy")) {
            assertTrue(Files.isRegularFile(out.resolve(s).resolve("results.json")), s);
            assertTrue(Files.isRegularFile(out.resolve(s).resolve("report.md")), s);
        }
        assertTrue(Files.readString(out.resolve("bob/results.json")).contains("Chapter0.java did not compile"));

        // Resume: finished students are read back, not graded again. Their files are not rewritten (evidence that
        // holds on a loaded machine, where a time bound on the second run would not).
        java.util.Map<Path, FileTime> before = new java.util.HashMap<>();
        for (String s : List.of("ada", "bob", "cy")) {
            for (String f : List.of("results.json", "report.md")) {
                before.put(out.resolve(s).resolve(f), Files.getLastModifiedTime(out.resolve(s).resolve(f)));
            }
        }
        Files.delete(out.resolve(BatchGrading.GRADEBOOK));
        assertEquals(0, new CommandLine(new BatchGrading()).execute(args));
        for (java.util.Map.Entry<Path, FileTime> e : before.entrySet()) {
            assertEquals(e.getValue(), Files.getLastModifiedTime(e.getKey()), "nothing graded again: " + e.getKey());
        }
        assertEquals(book, Files.readAllLines(out.resolve(BatchGrading.GRADEBOOK)));
    }

    private static String field(List<String> book, String student, int column) {
        return book.stream().filter(l -> l.startsWith(student + ",")).findFirst().orElseThrow().split(",", -1)[column];
    }
}
