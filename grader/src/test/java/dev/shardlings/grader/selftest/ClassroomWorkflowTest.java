package dev.shardlings.grader.selftest;

import dev.shardlings.grader.tools.ClassroomWorkflow;
import dev.shardlings.grader.parts.Part;
import dev.shardlings.grader.grade.Results;
import dev.shardlings.grader.grade.Assignments;
import dev.shardlings.grader.grade.Course;
import dev.shardlings.grader.problem1.Problem1Checks;
import dev.shardlings.grader.problem3.Problem3Checks;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * GitHub Classroom gives the grader's points: the workflow of an assignment, written from its parts, has one step
 * per part, worth the part's points, and each step's command passes exactly when its part passed in results.json;
 * the judge runs as root with the sandbox user, and a workflow with the instructor's grader fetches it and checks
 * its checksum as the release computed it.
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
        assertTrue(ClassroomWorkflow.yaml().contains("dev.shardlings.grader.grade.SubmissionGrading --course=submission"
                + " --test-classes=submission/grader/target/test-classes --submission=submission"
                + " --results=results/results.json --assignment=course"), "grade-submission on the course files");
    }

    @Test
    void eachAssignmentsWorkflowHasAStepPerPartOfItsOwnAndItsPoints() {
        for (Assignments.Assignment a : Assignments.defaults().all()) {
            String yaml = ClassroomWorkflow.yaml(a, Optional.empty());
            Matcher m = Pattern.compile("max-score: (\\d+)").matcher(yaml);
            int total = 0;
            while (m.find()) {
                total += Integer.parseInt(m.group(1));
            }
            assertEquals(a.points(), total, a.name());
            for (Part p : Course.all()) {
                assertEquals(a.holds(p), yaml.contains("id: " + "part-" + p.number().replace('.', '-') + "\n"),
                        a.name() + " / " + p.number());
            }
            assertTrue(yaml.contains("--assignment=" + a.name() + "\n"), yaml);
        }
    }

    @Test
    void theJudgeRunsAsRootWithStudentCodeAsTheSandboxUser() {
        String yaml = ClassroomWorkflow.yaml();
        int user = yaml.indexOf("sudo bash submission/grader/gradescope/create-sandbox-user.sh");
        int grade = yaml.indexOf("sudo \"$JAVA_HOME/bin/java\"");
        assertTrue(user > 0 && grade > user, "the users are made, then the judge runs as root: " + yaml);
        assertTrue(yaml.contains("chmod -R go-rwx submission ~/.m2"), "the grader is unreadable by the sandbox user");
    }

    @Test
    void aWorkflowWithTheInstructorsGraderFetchesItAndChecksItsChecksum(@TempDir Path dir) throws Exception {
        Files.createDirectories(dir.resolve("grader/src"));
        Files.writeString(dir.resolve("pom.xml"), "<project/>\n");
        Files.writeString(dir.resolve("grader/src/A b.java"), "class A {}\n");
        Files.writeString(dir.resolve("grader/src/Z.java"), "class Z {}\n");
        Files.createDirectories(dir.resolve(".github/workflows"));
        Files.writeString(dir.resolve(".github/workflows/classroom.yml"), "not covered: it holds the checksum\n");
        String sum = ClassroomWorkflow.checksum(dir);
        Assignments.Assignment p1 = Assignments.defaults().named("problem-1");
        String yaml = ClassroomWorkflow.yaml(p1, Optional.of(ClassroomWorkflow.GraderSource.parse(
                "my-org/shardlings-template@grader-2026", sum)));
        assertTrue(yaml.contains("repository: my-org/shardlings-template\n          ref: 'grader-2026'\n"
                + "          path: grader-of-record\n"), yaml);
        // No Maven cache (the student's repository owns it, and could seed it with a tampered library): a
        // repository of the run's own.
        assertFalse(yaml.contains("cache: maven"), yaml);
        assertTrue(yaml.contains("-Dmaven.repo.local=\"$RUNNER_TEMP/m2\"") && !yaml.contains("~/.m2"), yaml);
        assertTrue(yaml.indexOf("Verify the grader's checksum") < yaml.indexOf("Build the grader"), yaml);
        assertTrue(yaml.contains("--course=grader-of-record") && yaml.contains("--submission=submission"), yaml);
        assertFalse(yaml.contains("submission/grader"), "nothing of the student's grader is used: " + yaml);
        // The workflow's own shell line computes the same checksum as the release did.
        String line = yaml.lines().filter(l -> l.strip().startsWith("sum=$(")).findFirst().orElseThrow().strip();
        Process p = new ProcessBuilder("bash", "-c", line + "; printf %s \"$sum\"").directory(dir.toFile())
                .redirectErrorStream(true).start();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS));
        assertEquals(sum, new String(p.getInputStream().readAllBytes()).strip());
        Files.writeString(dir.resolve("grader/src/Z.java"), "class Z { int edited; }\n");
        assertNotEquals(sum, ClassroomWorkflow.checksum(dir), "an edited grader has another checksum");
        assertThrows(IllegalArgumentException.class, () -> ClassroomWorkflow.GraderSource.parse("no-ref", sum));
        assertThrows(IllegalArgumentException.class,
                () -> ClassroomWorkflow.GraderSource.parse("a/b@x; rm -rf /", sum));
    }

    @Test
    void eachStepPassesExactlyWhenItsPartPassed(@TempDir Path dir) throws Exception {
        Map<String, Results.TestResult> byPart = new LinkedHashMap<>();
        byPart.put("1.2a", Results.TestResult.of(Problem1Checks.P1_2A, true, "All checks passed.", ""));
        byPart.put("3.0p", Results.TestResult.of(Problem3Checks.P3_0P, true, "All checks passed.", ""));
        byPart.put("1.2b", Results.TestResult.of(Problem1Checks.P1_2B, false, "report", "2 of 8 values wrong"));
        Results.of("exercises", byPart, 1, "", Map.of()).write(dir.resolve(ClassroomWorkflow.RESULTS));
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
