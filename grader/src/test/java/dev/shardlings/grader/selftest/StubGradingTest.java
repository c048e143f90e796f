package dev.shardlings.grader.selftest;

import dev.shardlings.grader.grade.IsolatedGrading;
import dev.shardlings.grader.parts.Part;
import dev.shardlings.grader.grade.Results;
import dev.shardlings.grader.grade.IsolatedGrading;
import dev.shardlings.grader.grade.Results;
import dev.shardlings.grader.grade.Course;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The stubs a student starts from are graded as a student would grade them on day one: through the isolated
 * grading of {@code mvn test -Pgrade}, every part must read "not implemented yet" with 0 points. A signature that
 * drifted between exercises/ and the grader, a stub that does not compile against the framework, or a check that
 * fails a stub for another reason (and so would mislead a student) fails the build here.
 */
class StubGradingTest {

    @Test
    void everyPartOfTheStubsIsToDo(@TempDir Path dir) throws Exception {
        Path stubs = Path.of("..", "exercises", "target", "classes").toAbsolutePath().normalize();
        Assumptions.assumeTrue(Files.isDirectory(stubs.resolve("dev/shardlings/course")), "exercises/ is not built");
        Path results = dir.resolve("results.json");
        int status = new CommandLine(new IsolatedGrading()).execute("--test-classes="
                        + Path.of("target", "test-classes").toAbsolutePath(), "--course-classes=" + stubs,
                "--results=" + results, "--target=exercises", "--no-sandbox-user");
        assertEquals(0, status);
        Results r = Results.read(results);
        List<String> wrong = new ArrayList<>();
        for (Results.TestResult t : r.tests()) {
            if (t.passed() || !t.reason().startsWith("not implemented yet")) {
                wrong.add(t.number() + ": " + t.status() + ", " + t.reason());
            }
        }
        assertEquals(List.of(), wrong);
        assertEquals(Course.all().size(), r.tests().size());
        assertEquals(0.0, r.score());
    }
}
