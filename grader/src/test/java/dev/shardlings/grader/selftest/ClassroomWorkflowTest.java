package dev.shardlings.grader.selftest;

import dev.shardlings.grader.tools.ClassroomWorkflow;
import dev.shardlings.grader.parts.Part;
import dev.shardlings.grader.grade.Results;
import dev.shardlings.grader.grade.Course;
import dev.shardlings.grader.problem1.Problem1Checks;
import dev.shardlings.grader.problem3.Problem3Checks;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * GitHub Classroom gives the grader's points: the workflow written from the parts has one step per part, worth the
 * part's points, and each step's command passes exactly when its part passed in results.json.
 */
class ClassroomWorkflowTest {

    @Test
    void theWorkflowHasOneStepPerPartWorthItsPoints() throws Exception {
        Matcher m = Pattern.compile("max-score: (\\d+)").matcher(ClassroomWorkflow.yaml());
        int total = 0;
        int steps = 0;
        while (m.find()) {
            total += Integer.parseInt(m.group(1));
            steps++;
        }
        assertEquals(Course.all().size(), steps);
        assertEquals(Course.all().stream().mapToInt(Part::points).sum(), total);
        assertTrue(ClassroomWorkflow.yaml().contains("run: mvn -B test -Pgrade"), "the students' own command");
    }

    @Test
    void eachStepPassesExactlyWhenItsPartPassed(@TempDir Path dir) throws Exception {
        Map<String, Results.TestResult> byPart = new LinkedHashMap<>();
        byPart.put("1.2a", Results.TestResult.of(Problem1Checks.P1_2A, true, "All checks passed.", ""));
        byPart.put("3.0p", Results.TestResult.of(Problem3Checks.P3_0P, true, "All checks passed.", ""));
        byPart.put("1.2b", Results.TestResult.of(Problem1Checks.P1_2B, false, "report", "2 of 8 values wrong"));
        Results.of("exercises", byPart, 1, "", Map.of()).write(dir.resolve("grader/target/grade/results.json"));
        for (Part p : Course.all()) {
            boolean passed = p == Problem1Checks.P1_2A || p == Problem3Checks.P3_0P;
            Process proc = new ProcessBuilder("bash", "-c", ClassroomWorkflow.CHECK + " " + p.number())
                    .directory(dir.toFile()).redirectErrorStream(true).start();
            // A bound on hanging: a python3 start is under a second on a quiet machine, but through a version
            // manager's shim (pyenv) about 10 s beside .ci/busy-grader-tests' busy loops.
            assertTrue(proc.waitFor(120, TimeUnit.SECONDS), p.number() + ": the check ends");
            assertEquals(passed ? 0 : 1, proc.exitValue(), p.number() + ": "
                    + new String(proc.getInputStream().readAllBytes()));
        }
    }
}
