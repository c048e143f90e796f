package dev.shardlings.grader.selftest;

import dev.shardlings.grader.IsolatedGrading;
import dev.shardlings.grader.Results;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.nio.file.Path;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The isolated grade run against hostile fixtures (package {@code hostile}): a part that calls System.exit, one
 * that calls Runtime.halt, an endless loop, an OutOfMemoryError, a thread left running, then a passing part and a
 * failing one. Each broken part gets its own reason, the parts after it are still graded, and results.json is
 * written.
 */
class IsolatedGradingTest {

    @Test
    void everyMisbehaviourIsReportedPerPartAndTheRestIsGraded(@TempDir Path dir) throws Exception {
        Path testClasses = Path.of(IsolatedGradingTest.class.getProtectionDomain().getCodeSource().getLocation()
                .toURI());
        Path results = dir.resolve("results.json");
        long t0 = System.nanoTime();
        int status = new CommandLine(new IsolatedGrading()).execute("--test-classes=" + testClasses,
                "--results=" + results, "--packages=dev.shardlings.grader.hostile", "--part-limit=3", "--heap=64m",
                "--target=fixtures");
        assertEquals(0, status);
        assertTrue((System.nanoTime() - t0) / 1e9 < 60, "the run ends");
        Map<String, Results.TestResult> r = Results.read(results).tests().stream()
                .collect(Collectors.toMap(Results.TestResult::number, Function.identity()));
        assertReason(r, "0.1", "exited with status 3");
        assertReason(r, "0.2", "exited with status 4");
        assertReason(r, "0.3", "ran longer than 3 s in all");
        assertReason(r, "0.4", "ran out of memory");
        assertReason(r, "0.5", "left 1 thread(s) running");
        assertTrue(r.get("0.6").passed(), "a part after all of these still passes: " + r.get("0.6").output());
        assertReason(r, "0.7", "a student's bug");
        assertEquals("not run", r.get("1.1a").reason());
        assertTrue(r.get("0.1").output().contains("System.exit"), r.get("0.1").output());
    }

    private static void assertReason(Map<String, Results.TestResult> r, String part, String text) {
        Results.TestResult t = r.get(part);
        assertFalse(t.passed(), part);
        assertEquals(0.0, t.score());
        assertTrue(t.reason().contains(text), part + ": " + t.reason() + "\n" + t.output());
    }
}
