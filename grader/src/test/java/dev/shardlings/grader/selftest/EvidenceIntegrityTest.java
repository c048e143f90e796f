package dev.shardlings.grader.selftest;

import dev.shardlings.grader.grade.BatchGrading;
import dev.shardlings.grader.grade.IsolatedGrading;
import dev.shardlings.grader.grade.Results;
import dev.shardlings.grader.grade.SubmissionGrading;
import dev.shardlings.grader.hostile.EvidenceAttacks;
import dev.shardlings.grader.hostile.EvidenceAttacks.Attack;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The second round of attacks ({@link EvidenceAttacks}: on the trace, the observers, the FLOP counts and the
 * threads) graded through the judge of {@code mvn test -Pgrade} and through grade-submission: every attack scores 0
 * with the reason of the barrier that stopped it, the parts left clean keep full marks; some of them also through
 * batch grading (beside a classmate who keeps full marks) and Gradescope's run_autograder.
 */
class EvidenceIntegrityTest {

    /** Seconds per part; the attacks fail at their first call, the clean parts need a few seconds. */
    private static final int PART_LIMIT = 60;

    private static final Path COURSE = Path.of("..").toAbsolutePath().normalize();
    private static final Path SOLUTIONS = COURSE.resolve("solutions/src/main/java/dev/shardlings/course");
    private static final Path EXERCISES = Path.of("exercises/src/main/java/dev/shardlings/course");
    private static final String ONLY = "{Part11a*,Part11b*,Part12a*,Part12b*,Part21*,Part22*,Part23a*,Part23b*,Part24*,"
            + "Part30All*,Part31All*,Part32Reduce*,Part40Bidi*,Part41Bidi*,Part42Bidi*,Part76*}";

    @BeforeAll
    static void needsTheSolutions() {
        assumeTrue(Files.isDirectory(SOLUTIONS), "the attacks are built from solutions/, which a student release"
                + " does not have");
    }

    @Test
    void theJudgeOfMvnTestPgradeRefusesEveryAttackOnTheEvidence(@TempDir Path dir) throws Exception {
        Path results = dir.resolve("out/results.json");
        Path sources = dir.resolve("src");
        EvidenceAttacks.write(SOLUTIONS, sources.resolve("dev/shardlings/course"));
        Path classes = dir.resolve("classes");
        assertEquals(Map.of(), SubmissionGrading.compile(sources, classes, COURSE.resolve("exercises/src/main/java/dev"
                + "/shardlings/course"), ""), "the attacks compile");
        int status = new CommandLine(new IsolatedGrading()).execute("--test-classes=" + testClasses(),
                "--course-classes=" + classes, "--results=" + results, "--only=" + ONLY, "--part-limit=" + PART_LIMIT,
                "--heap=512m", "--target=exercises");
        assertEquals(0, status);
        check(results);
    }

    @Test
    void gradeSubmissionRefusesEveryAttackOnTheEvidence(@TempDir Path dir) throws Exception {
        Path results = dir.resolve("out/results.json");
        EvidenceAttacks.write(SOLUTIONS, dir.resolve("submission").resolve(EXERCISES));
        int status = new CommandLine(new SubmissionGrading()).execute("--course=" + COURSE,
                "--test-classes=" + testClasses(), "--submission=" + dir.resolve("submission"), "--results=" + results,
                "--work=" + dir.resolve("graded"), "--only=" + ONLY, "--part-limit=" + PART_LIMIT, "--heap=512m",
                "--quiet");
        assertEquals(0, status);
        check(results);
    }

    /** Fewer parts for the batch and Gradescope runs: three attacks (reflection, a JDK thread, native code), a clean part. */
    private static final String SOME = "{Part11a*,Part12b*,Part21*,Part22*}";
    private static final List<Attack> SOME_ATTACKS = List.of(Attack.REFLECT_INTO_TRACE, Attack.CLEANER_THREAD,
            Attack.NATIVE_CODE);

    @Test
    void batchGradingRefusesTheAttacksOfOneStudentAndGradesTheNext(@TempDir Path dir) throws Exception {
        Path subs = dir.resolve("export");
        EvidenceAttacks.write(SOLUTIONS, subs.resolve("eve"));
        Files.createDirectories(subs.resolve("ada"));
        for (String f : dev.shardlings.grader.sandbox.CourseClasses.FILES) {
            Files.copy(SOLUTIONS.resolve(f), subs.resolve("ada").resolve(f));
        }
        Path out = dir.resolve("grades");
        assertEquals(0, new CommandLine(new BatchGrading()).execute("--course=" + COURSE, "--test-classes="
                + testClasses(), "--submissions=" + subs, "--out=" + out, "--jobs=1", "--only=" + SOME,
                "--heap=512m", "--no-sandbox-user"));
        Map<String, Results.TestResult> eve = byPart(Results.read(out.resolve("eve/results.json")));
        for (Attack a : SOME_ATTACKS) {
            assertRefused(eve, a);
        }
        assertTrue(eve.get("2.2").passed(), eve.get("2.2").output());
        Map<String, Results.TestResult> ada = byPart(Results.read(out.resolve("ada/results.json")));
        for (String n : List.of("1.1a", "1.2b", "2.1", "2.2")) {
            assertTrue(ada.get(n).passed(), "the next student keeps full marks: " + ada.get(n).output());
        }
    }

    @Test
    void runAutograderRefusesTheAttacks(@TempDir Path dir) throws Exception {
        EvidenceAttacks.write(SOLUTIONS, dir.resolve("submission"));
        ProcessBuilder pb = new ProcessBuilder("bash", COURSE.resolve("grader/gradescope/run_autograder").toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("stdout").toFile());
        Map<String, String> env = pb.environment();
        env.put("AUTOGRADER_ROOT", dir.toString());
        env.put("SHARDLINGS_COURSE", COURSE.toString());
        env.put("SHARDLINGS_CLASSPATH", System.getProperty("java.class.path"));
        env.put("GRADE_ONLY", SOME);
        env.put("SHARDLINGS_GRADE_ARGS", "--heap=512m --no-sandbox-user");
        Process p = pb.start();
        assertTrue(p.waitFor(600, TimeUnit.SECONDS), "run_autograder finishes");
        assertEquals(0, p.exitValue(), Files.readString(dir.resolve("stdout")));
        Map<String, Results.TestResult> t = byPart(Results.read(dir.resolve("results/results.json")));
        for (Attack a : SOME_ATTACKS) {
            assertRefused(t, a);
        }
        assertTrue(t.get("2.2").passed(), t.get("2.2").output());
    }

    private static Map<String, Results.TestResult> byPart(Results r) {
        return r.tests().stream().collect(Collectors.toMap(Results.TestResult::number, Function.identity()));
    }

    private static void assertRefused(Map<String, Results.TestResult> t, Attack a) {
        Results.TestResult part = t.get(a.part());
        assertFalse(part.passed(), a + " must fail its part: " + part.output());
        assertEquals(0.0, part.score(), a.toString());
        assertTrue(java.util.Arrays.stream(a.reason().split("\\|")).anyMatch(part.reason()::contains),
                a + ": " + part.reason() + "\n" + part.output());
    }

    private static void check(Path results) throws Exception {
        Results r = Results.read(results);
        Map<String, Results.TestResult> t = byPart(r);
        for (Attack a : Attack.values()) {
            assertRefused(t, a);
        }
        for (String clean : EvidenceAttacks.CLEAN_PARTS) {
            assertTrue(t.get(clean).passed(), clean + " keeps full marks: " + t.get(clean).output());
        }
        @SuppressWarnings("unchecked")
        Map<String, Boolean> barriers = (Map<String, Boolean>) r.extraData().get("barriers");
        if (barriers != null) {
            assertEquals(Boolean.TRUE, barriers.get("framework_a_module_course_code_cannot_open"), barriers.toString());
        }
    }

    private static Path testClasses() throws URISyntaxException {
        return Path.of(EvidenceIntegrityTest.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    }
}
