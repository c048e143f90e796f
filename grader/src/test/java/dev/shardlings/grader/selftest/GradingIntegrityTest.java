package dev.shardlings.grader.selftest;

import dev.shardlings.grader.grade.IsolatedGrading;
import dev.shardlings.grader.grade.Results;
import dev.shardlings.grader.host.SandboxSeam;
import dev.shardlings.grader.grade.SubmissionGrading;
import dev.shardlings.grader.hostile.HostileSubmission;
import dev.shardlings.grader.hostile.HostileSubmission.Attack;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The hostile submission ({@link HostileSubmission}) graded through both grading commands — the judge of
 * {@code mvn test -Pgrade} ({@link IsolatedGrading}) and grade-submission ({@link SubmissionGrading}): every attack
 * scores 0 with its own reason, every other part keeps full marks, results.json is the judge's own, nothing the
 * submission started is alive afterwards, and the run ends within a bound.
 *
 * <p>As root, the first run uses the unprivileged sandbox user (created like grader/gradescope/setup.sh does) and
 * attacks with the strongest escapes; the second never uses it, checking the barriers that hold without root.
 */
class GradingIntegrityTest {

    /**
     * Seconds per part. The attacks that loop end at this limit; the clean part needs about 1 s, so 20 s keeps it
     * passing on a machine loaded ten times over without making the looping parts too slow.
     */
    private static final int PART_LIMIT = 20;

    private static final Path COURSE = Path.of("..").toAbsolutePath().normalize();
    private static final Path SOLUTIONS = COURSE.resolve("solutions/src/main/java/dev/shardlings/course");
    private static final String ONLY = "{Part0*,Part10*,Part11a*,Part12a*,Part12b*}";

    @BeforeAll
    static void sandboxUserWhenRoot() throws Exception {
        assumeTrue(Files.isDirectory(SOLUTIONS), "the hostile submission is built from solutions/, which a student"
                + " release does not have");
        if (isRoot() && !SandboxSeam.sandboxUserAvailable()) {
            Process p = new ProcessBuilder("bash", COURSE.resolve("grader/gradescope/create-sandbox-user.sh")
                    .toString()).inheritIO().start();
            assertEquals(0, p.waitFor(), "create-sandbox-user.sh");
        }
    }

    @Test
    void theJudgeOfMvnTestPgradeWithstandsEveryAttack(@TempDir Path dir) throws Exception {
        boolean strong = SandboxSeam.sandboxUserAvailable();
        Path results = dir.resolve("out/results.json");
        Path secret = secret(dir);
        Path sources = dir.resolve("src");
        HostileSubmission.write(SOLUTIONS, sources.resolve("dev/shardlings/course"), results, secret, strong);
        Path classes = dir.resolve("classes");
        assertEquals(Map.of(), SubmissionGrading.compile(sources, classes, COURSE.resolve("exercises/src/main/java/dev"
                + "/shardlings/course"), ""), "the hostile submission compiles");
        long t0 = System.nanoTime();
        int status = new CommandLine(new IsolatedGrading()).execute("--test-classes=" + testClasses(),
                "--course-classes=" + classes, "--results=" + results, "--only=" + ONLY, "--part-limit=" + PART_LIMIT,
                "--heap=256m", "--target=exercises");
        assertEquals(0, status);
        double seconds = (System.nanoTime() - t0) / 1e9;
        assertTrue(seconds < 600, "the run ends within a bound: " + seconds + " s");
        checkGrade(results, secret, strong);
    }

    @Test
    void gradeSubmissionWithstandsEveryAttackWithoutTheSandboxUser(@TempDir Path dir) throws Exception {
        Path results = dir.resolve("out/results.json");
        Path secret = secret(dir);
        Path sub = dir.resolve("submission").resolve(EXERCISES);
        HostileSubmission.write(SOLUTIONS, sub, results, secret, false);
        // Not course files: a class named like one of the grader's libraries, and a helper.
        Files.writeString(sub.resolve("CommandLine.java"), "package picocli; public class CommandLine {"
                + " static { System.exit(42); } }");
        Files.writeString(sub.resolve("Helpers.java"), "package dev.shardlings.course; class Helpers { }");
        Path work = dir.resolve("graded");
        long t0 = System.nanoTime();
        int status = new CommandLine(new SubmissionGrading()).execute("--course=" + COURSE,
                "--test-classes=" + testClasses(), "--submission=" + dir.resolve("submission"), "--results=" + results,
                "--work=" + work, "--only=" + ONLY, "--part-limit=" + PART_LIMIT, "--heap=256m", "--no-sandbox-user", "--quiet");
        assertEquals(0, status);
        // A bound on hanging (a part whose limit did not stop it), not on speed: about 35 s on a quiet 2-core
        // machine and 70 s beside .ci/busy-grader-tests' busy loops, so it holds when loaded ten times over.
        double seconds = (System.nanoTime() - t0) / 1e9;
        assertTrue(seconds < 600, "the run ends within a bound: " + seconds + " s");
        assertFalse(Files.exists(work), "the graded copy is deleted");
        Results r = checkGrade(results, secret, false);
        assertTrue(r.output().contains(" are graded): exercises/src/main/java/dev/shardlings/course/CommandLine.java,"
                + " exercises/src/main/java/dev/shardlings/course/Helpers.java."), r.output());
        assertEquals("submission", r.extraData().get("target"));
    }

    private static final Path EXERCISES = Path.of("exercises/src/main/java/dev/shardlings/course");

    /** What every run must show, whichever command graded it. */
    private static Results checkGrade(Path results, Path secret, boolean strong) throws Exception {
        Results r = Results.read(results);
        Map<String, Results.TestResult> t = r.tests().stream()
                .collect(Collectors.toMap(Results.TestResult::number, Function.identity()));
        assertReason(t, Attack.EXIT, "exited with status 3");
        assertReason(t, Attack.HALT, "exited with status 4");
        assertReason(t, Attack.ENDLESS, "ran longer than");
        assertReason(t, Attack.OUT_OF_MEMORY, "ran out of memory");
        assertReason(t, Attack.DISGUISED_THREAD, "left 1 thread(s) running: ForkJoinPool.commonPool-worker-1");
        assertReason(t, Attack.LEFT_PROCESSES, "process(es) running");
        assertReason(t, Attack.FORGED_PROTOCOL, "broke the grader's protocol");
        assertReason(t, Attack.STEAL_ANSWERS, "nothing to steal");
        assertReason(t, Attack.FLOOD, "wrong on purpose");
        assertReason(t, Attack.LEAK_FILE, "threw");
        assertReason(t, Attack.LAUNDERED_WORK, "started 1 thread(s) of its own: graded work must run where it is"
                + " traced");
        // The trace package is not exported to course code in the sandbox: the call does not even link.
        assertReason(t, Attack.FORGED_TRACE, "threw IllegalAccessError");
        assertTrue(t.get(HostileSubmission.CLEAN_PART).passed(), "a part after every attack keeps full marks: "
                + t.get(HostileSubmission.CLEAN_PART).output());
        assertEquals(2.0, r.score(), "only the clean part scores");

        // Prints are buffered in the sandbox: what a part printed before it exited or hung still reaches its report.
        assertTrue(t.get(Attack.EXIT.part()).output().contains(HostileSubmission.EXIT_PRINT),
                t.get(Attack.EXIT.part()).output());
        assertTrue(t.get(Attack.ENDLESS.part()).output().contains(HostileSubmission.ENDLESS_PRINT),
                t.get(Attack.ENDLESS.part()).output());
        Results.TestResult flood = t.get(Attack.FLOOD.part());
        assertTrue(flood.output().contains("bytes of output dropped"), "output is capped: " + flood.output().length());
        assertTrue(Files.size(results) < 512 * 1024, "results.json stays small: " + Files.size(results));
        String leak = t.get(Attack.LEAK_FILE.part()).output();
        assertTrue(leak.length() < 12_000, "a student's exception text is capped: " + leak.length());
        String token = Files.readString(secret).lines().findFirst().orElseThrow();
        if (strong) {
            assertFalse(Files.readString(results).contains(token), "the sandbox user cannot read the secret");
            assertTrue(leak.contains("AccessDeniedException"), leak);
        }

        // The processes started by the attack would write FORGED at +3 s: give them the time, then look.
        Thread.sleep(4000);
        assertFalse(Files.readString(results, StandardCharsets.UTF_8).contains("FORGED"), "results are the judge's");
        assertEquals(List.of(), aliveFromTheAttack(results), "nothing the submission started is alive");
        assertEquals(r, Results.read(results));
        return r;
    }

    private static void assertReason(Map<String, Results.TestResult> t, Attack a, String text) {
        Results.TestResult r = t.get(a.part());
        assertFalse(r.passed(), a + " must fail its part");
        assertEquals(0.0, r.score());
        assertTrue(r.reason().contains(text), a + ": " + r.reason() + "\n" + r.output());
    }

    /** A file with a secret first line and 200 KB after it, in a folder only its owner may enter. */
    private static Path secret(Path dir) throws IOException {
        Path d = dir.resolve("secret");
        Files.createDirectories(d);
        Files.setPosixFilePermissions(d, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
        Path f = d.resolve("secret.txt");
        Files.writeString(f, "SECRET-" + UUID.randomUUID() + "\n" + "y".repeat(200_000));
        return f;
    }

    /**
     * Processes whose command line is one this run's attack started: they name this run's results.json or sleep
     * for this run's own time ({@link HostileSubmission#sleepArgument}), so that the hostile processes of another
     * grade or build on the same machine are not taken for this one's.
     */
    private static List<String> aliveFromTheAttack(Path results) throws IOException {
        String forged = "echo FORGED > '" + results + "'";
        String sleep = "sleep " + HostileSubmission.sleepArgument(results);
        List<String> out = new ArrayList<>();
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            for (Path p : procs.toList()) {
                try {
                    String cmd = new String(Files.readAllBytes(p.resolve("cmdline")), StandardCharsets.UTF_8)
                            .replace('\0', ' ');
                    if (cmd.contains(forged) || cmd.strip().equals(sleep)) {
                        out.add(p.getFileName() + ": " + cmd);
                    }
                } catch (IOException e) {
                    // gone
                }
            }
        }
        return out;
    }

    private static Path testClasses() throws URISyntaxException {
        return Path.of(GradingIntegrityTest.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    }

    private static boolean isRoot() {
        try {
            return Integer.valueOf(0).equals(Files.getAttribute(Path.of("/proc/self"), "unix:uid"));
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }
}
