package dev.shardlings.grader.selftest;

import dev.shardlings.grader.grade.SubmissionGrading;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The judge's JVM options ({@link SubmissionGrading#JUDGE_JVM_OPTIONS}) are written out again where no Java code
 * starts the judge — the grade profile of grader/pom.xml and Gradescope's run_autograder — and must not drift
 * from the constant ({@code BatchGrading} uses the constant itself).
 */
class JudgeJvmOptionsTest {

    private static final Path GRADER = Path.of("").toAbsolutePath();

    @Test
    void theGradeProfileStartsTheJudgeWithTheOptions() throws Exception {
        String pom = Files.readString(GRADER.resolve("pom.xml"));
        assertFalse(SubmissionGrading.JUDGE_JVM_OPTIONS.isEmpty());
        for (String option : SubmissionGrading.JUDGE_JVM_OPTIONS) {
            assertTrue(pom.contains("<argument>" + option + "</argument>"),
                    "grader/pom.xml's isolated-grade execution does not pass " + option);
        }
    }

    @Test
    void runAutograderStartsTheJudgeWithTheOptions() throws Exception {
        String script = Files.readString(GRADER.resolve("gradescope/run_autograder"));
        String javaLine = script.lines().filter(l -> l.startsWith("java ")).findFirst().orElseThrow();
        for (String option : SubmissionGrading.JUDGE_JVM_OPTIONS) {
            assertTrue(javaLine.contains(" " + option + " "), "run_autograder's java line does not pass " + option
                    + ": " + javaLine);
        }
    }
}
