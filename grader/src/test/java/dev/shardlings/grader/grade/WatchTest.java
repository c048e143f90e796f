package dev.shardlings.grader.grade;

import dev.shardlings.grader.parts.Part;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The watch loop: a save of a course file is compiled and its parts regraded, their verdict printed with the
 * progress line and the next step, and results.json keeps the other parts; a file that does not compile shows
 * javac's message and is not graded.
 */
class WatchTest {

    /** The course's points and parts, whatever chapters it has. */
    private static final int TOTAL = Course.all().stream().mapToInt(Part::points).sum();
    private static final int PARTS = Course.all().size();

    /** Bounds hanging only (a fresh sandbox JVM, javac's first compile, a loaded machine): never speed. */
    private static final long PATIENCE_NANOS = java.time.Duration.ofMinutes(4).toNanos();

    @Test
    void aSaveIsRegradedAndABrokenFileShowsTheCompilerMessage(@TempDir Path dir) throws Exception {
        Path course = dir.resolve("course");
        // The grader's own stubs, not exercises/: in a student's release exercises/ holds the student's work.
        Path files = SubmissionGrading.writeStubs(course.resolve(SubmissionGrading.EXERCISES));
        Path results = dir.resolve("grade/results.json");
        // The last full grade of the same work: 0.1 passed.
        Map<String, Results.TestResult> earlier = new LinkedHashMap<>();
        for (Part p : Course.all()) {
            earlier.put(p.number(), Results.TestResult.of(p, p.number().equals("0.1"), "earlier report",
                    p.number().equals("0.1") ? "" : "not implemented yet: start at " + p.startAt()));
        }
        // Written as the grade profile writes it (the course's assignment), so the watch must merge with it.
        Results.of("exercises", earlier, 1, "", Map.of("submission", files.toAbsolutePath().normalize().toString(),
                "assignment", Assignments.COURSE)).write(results);

        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        Watch watch = new Watch(out);
        Thread loop = new Thread(() -> new CommandLine(watch).execute("--course=" + course,
                "--test-classes=" + Path.of("target/test-classes").toAbsolutePath(), "--results=" + results,
                "--only=Part11a*", "--poll-ms=20", "--debounce-ms=100", "--no-sandbox-user"), "watch-under-test");
        loop.start();
        try {
            awaitText(bytes, 0, "Watching ");
            Path problem1 = files.resolve("Problem1.java");
            String stub = Files.readString(problem1);
            String todo = "throw new ExerciseNotDone(\"1.1a\");";
            assertTrue(stub.contains(todo), stub);

            int mark = bytes.size();
            Files.writeString(problem1, stub.replace(todo, "return a"));
            String broken = awaitText(bytes, mark, "does not compile");
            long line = stub.substring(0, stub.indexOf(todo)).lines().count();
            assertTrue(broken.contains(files.resolve("Problem1.java").toAbsolutePath().normalize() + ":" + line
                    + ": error:"), "javac's message names the student's file and line: " + broken);
            assertFalse(broken.contains("Progress:"), "a file that does not compile is not graded: " + broken);

            mark = bytes.size();
            Files.writeString(problem1, stub.replace(todo, "return a; // wrong: the blocks are not reduced"));
            String verdict = awaitText(bytes, mark, "Next: ");
            assertTrue(verdict.contains("── 1.1a "), "the failing part's report: " + verdict);
            assertTrue(verdict.lines().anyMatch(l -> l.startsWith("1.1a ") && l.contains("FAIL")), verdict);
            assertFalse(verdict.lines().anyMatch(l -> l.startsWith("0.1 ")), "only the parts graded now: "
                    + verdict);
            assertTrue(verdict.contains("Progress: 1/" + TOTAL + " points, 1 of " + PARTS + " parts passing."), verdict);
            assertTrue(verdict.contains("Next: 0.2 "), verdict);

            Results merged = Results.read(results);
            Results.TestResult p11a = merged.tests().stream().filter(t -> t.number().equals("1.1a")).findFirst()
                    .orElseThrow();
            assertFalse(p11a.passed() || p11a.fromEarlierRun() || p11a.reason().startsWith("not implemented"),
                    "1.1a was graded now: " + p11a);
            Results.TestResult p01 = merged.tests().get(0);
            assertTrue(p01.passed() && p01.fromEarlierRun(), "0.1 keeps its earlier result: " + p01);
        } finally {
            watch.close();
            loop.join(PATIENCE_NANOS / 1_000_000);
        }
        assertFalse(loop.isAlive(), "the watch stops when closed");
    }

    /** The output from byte {@code from} on, once it holds {@code text}. */
    private static String awaitText(ByteArrayOutputStream bytes, int from, String text) throws InterruptedException {
        long end = System.nanoTime() + PATIENCE_NANOS;
        while (System.nanoTime() < end) {
            byte[] all = bytes.toByteArray();
            String since = new String(all, from, all.length - from, StandardCharsets.UTF_8);
            if (since.contains(text)) {
                return since;
            }
            Thread.sleep(50);
        }
        return fail("no \"" + text + "\" within the patience: " + bytes.toString(StandardCharsets.UTF_8));
    }
}
