package dev.shardlings.grader.grade;

import dev.shardlings.grader.parts.Part;
import dev.shardlings.grader.judge.Report;

import dev.shardlings.grader.grade.Course;
import dev.shardlings.grader.problem2.Problem2Checks;
import dev.shardlings.grader.chapter0.Chapter0Checks;
import dev.shardlings.grader.problem3.Problem3Checks;
import dev.shardlings.grader.problem1.Problem1Checks;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What a grade shows: failing reports above the table, whole titles, Gradescope's keys, a safe report.md. */
class ScoreTableTest {

    /** The course's points and parts, whatever chapters it has. */
    private static final int TOTAL = Course.all().stream().mapToInt(Part::points).sum();
    private static final int PARTS = Course.all().size();

    private static Results grade() {
        Map<String, Results.TestResult> byPart = new LinkedHashMap<>();
        byPart.put("0.1", Results.TestResult.of(Chapter0Checks.P0_1, true, "All 3 checks passed.", ""));
        byPart.put("1.2a", Results.TestResult.of(Problem1Checks.P1_2A, false, Report.of(Problem1Checks.P1_2A, "computed wrong values")
                .about("Case: <b>mesh</b> | ```x```").paragraph("index (0, 0): expected 1.0, got 2.0").text(),
                "2 of 8 values wrong <script>"));
        byPart.put("2.3b", Results.TestResult.of(Problem2Checks.P2_3B, false, "Part 2.3b is not implemented yet.",
                "not implemented yet: start at Problem2.java → moeAllToAll"));
        byPart.put("3.0p", Results.TestResult.of(Problem3Checks.P3_0P, true, "All 1 checks passed.",
                Map.of("reason", "modelled 12.5 µs", Results.MODELLED_US, "12.5")));
        return Results.of("exercises", byPart, 1.0, "", Map.of());
    }

    /** An instructor is told which OS-level barriers a grade ran without, and why; nothing when all held. */
    @Test
    void aGradeWithoutTheOsBarriersSaysSo() {
        Map<String, Object> weak = Map.of("barriers", Map.of("no_network", false, "nothing_left_behind", true,
                "proc_self_mem_not_writable", false, "unprivileged_sandbox_user", true), "barriers_missing",
                "no network namespace or seccomp filter");
        String w = ScoreTable.barrierWarning(Results.of("submission", Map.of(), 1.0, "", weak));
        assertTrue(w.startsWith("Warning: on this machine student code ran without no_network,"
                + " proc_self_mem_not_writable (no network namespace or seccomp filter)."), w);
        assertTrue(w.contains("docs/grading-integrity.md, section \"OS-level barriers\""), w);
        Map<String, Object> strong = Map.of("barriers", Map.of("no_network", true, "nothing_left_behind", true,
                "proc_self_mem_not_writable", true, "unprivileged_sandbox_user", true));
        assertEquals("", ScoreTable.barrierWarning(Results.of("submission", Map.of(), 1.0, "", strong)));
        assertEquals("", ScoreTable.barrierWarning(grade()), "a grade that names no barrier warns of nothing");
    }

    @Test
    void theConsoleShowsEachFailingReportAboveTheTable() {
        String out = ScoreTable.console(grade(), "graded: exercises");
        int report = out.indexOf("index (0, 0): expected 1.0, got 2.0");
        int table = out.indexOf("Shardlings grade");
        assertTrue(report >= 0 && report < table, out);
        assertFalse(out.contains("Part 2.3b is not implemented yet."), "a stub still to write needs no report: " + out);
        assertTrue(out.contains("── 1.2a " + Problem1Checks.P1_2A.title() + ": 0/3"), out);
    }

    @Test
    void titlesAreNeverCutAndModelledTimeIsExplained() {
        String table = ScoreTable.format(grade(), "graded: exercises");
        for (Part p : Course.all()) {
            assertTrue(table.contains(p.title()), "whole title of " + p.number() + ": " + table);
        }
        assertTrue(table.contains("Parts ending in p"), table);
        assertTrue(table.contains("TO DO") && table.contains("FAIL") && table.contains("PASS"), table);
    }

    @Test
    void resultsCarryGradescopesDisplayKeysTagsAndLeaderboard(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("results.json");
        grade().write(file);
        JsonNode root = new ObjectMapper().readTree(file.toFile());
        assertEquals("visible", root.get("visibility").asText());
        assertEquals("hidden", root.get("stdout_visibility").asText());
        assertEquals("text", root.get("output_format").asText());
        assertEquals("text", root.get("test_output_format").asText());
        assertEquals("exercises", root.get("extra_data").get("target").asText());
        assertTrue(root.get("extra_data").get("jdk").asText().contains(Runtime.version().toString()));
        // The build writes the grader's version and, in a git checkout (this one), its commit.
        String version = root.get("extra_data").get("course_version").asText();
        assertTrue(version.matches("\\d+\\.\\d+\\.\\d+\\S* \\(commit [0-9a-f]{7,}\\)"), version);
        JsonNode board = root.get("leaderboard");
        assertEquals(1, board.size(), "only passed performance parts rank: " + board);
        assertEquals("3.0p modelled µs", board.get(0).get("name").asText());
        assertEquals(12.5, board.get(0).get("value").asDouble());
        assertEquals("asc", board.get(0).get("order").asText());
        for (JsonNode t : root.get("tests")) {
            assertEquals("visible", t.get("visibility").asText());
            assertTrue(t.get("tags").size() >= 2, "chapter and topic: " + t);
        }
        assertEquals(List.of("problem 3", "collective matmul", "modelled time"), Problem3Checks.P3_0P.tags());
        assertEquals(List.of("chapter 0", "collectives"), Chapter0Checks.P0_1.tags());
        assertEquals(grade().tests(), Results.read(file).tests(), "read gives back what was written");
    }

    @Test
    void reportMdEscapesStudentTextAndFencesEachReport() {
        String md = ScoreTable.markdown(grade(), "graded: exercises");
        assertFalse(md.contains("<script>"), md);
        assertTrue(md.contains("&lt;script&gt;"), md);
        assertTrue(md.contains("## 1.2a " + Problem1Checks.P1_2A.title()), md);
        // The report holds three backticks in a row, so its fence has four: the student text cannot close it.
        assertTrue(md.contains("````text\nPart 1.2a"), md);
    }

    /** Every part graded, as a full run of one submission writes it: 0.1 passed, the rest still to do. */
    private static Results fullGrade(String target, String submission) {
        Map<String, Results.TestResult> byPart = new LinkedHashMap<>();
        for (Part p : Course.all()) {
            byPart.put(p.number(), Results.TestResult.of(p, p == Chapter0Checks.P0_1, "report of " + p.number(),
                    p == Chapter0Checks.P0_1 ? "" : "not implemented yet: start at " + p.startAt()));
        }
        return Results.of(target, byPart, 30, "", Map.of("submission", submission));
    }

    /** A run of part 1.2a alone, which failed. */
    private static Results singlePart(String target, String submission) {
        return Results.of(target, Map.of("1.2a", Results.TestResult.of(Problem1Checks.P1_2A, false,
                "Part 1.2a computed wrong values.", "2 of 8 values wrong")), 2, "", Map.of("submission", submission));
    }

    @Test
    void aSinglePartRunKeepsTheOtherPartsOfTheSameWorkOnly() {
        Results merged = Results.merged(fullGrade("exercises", "/a"), singlePart("exercises", "/a"));
        Results.TestResult p01 = merged.tests().get(0);
        assertTrue(p01.passed() && p01.fromEarlierRun(), "0.1 keeps its last result, marked: " + p01);
        Results.TestResult p12a = merged.tests().stream().filter(t -> t.number().equals("1.2a")).findFirst()
                .orElseThrow();
        assertEquals("2 of 8 values wrong", p12a.reason());
        assertFalse(p12a.fromEarlierRun());
        assertEquals(Chapter0Checks.P0_1.points(), merged.score());
        assertTrue(merged.tests().stream().noneMatch(Results.TestResult::notRun), "the file stays whole");
        assertEquals("/a", merged.extraData().get("submission"));

        // Another submission's or another target's grade is never merged in.
        for (Results other : List.of(fullGrade("exercises", "/b"), fullGrade("solutions", "/a"))) {
            Results alone = Results.merged(other, singlePart("exercises", "/a"));
            assertEquals(singlePart("exercises", "/a").tests(), alone.tests(), "not merged with " + other.extraData());
        }
        assertEquals(singlePart("exercises", "/a").tests(), Results.merged(null, singlePart("exercises", "/a")).tests());
    }

    @Test
    void aSinglePartRunShowsItsPartsThenProgressAndTheNextStep() {
        String out = ScoreTable.console(singlePart("exercises", "/a"), "graded: exercises");
        assertFalse(out.contains(Results.NOT_RUN), "no rows of parts that did not run: " + out);
        assertTrue(out.lines().anyMatch(l -> l.startsWith("1.2a ") && l.contains("FAIL")), out);
        assertTrue(out.contains("Progress: 0/" + TOTAL + " points, 0 of " + PARTS + " parts passing. " + (PARTS - 1) + " parts have no grade yet"), out);
        assertTrue(out.contains("Next: 0.1 " + Chapter0Checks.P0_1.title() + " (no grade yet) — "
                + Chapter0Checks.P0_1.startAt()), out);

        String merged = ScoreTable.console(Results.merged(fullGrade("exercises", "/a"), singlePart("exercises", "/a")),
                "graded: exercises");
        assertFalse(merged.lines().anyMatch(l -> l.startsWith("0.1 ")), "a kept part is not shown again: " + merged);
        assertTrue(merged.contains("Progress: 1/" + TOTAL + " points, 1 of " + PARTS + " parts passing. " + (PARTS - 1) + " parts keep their result from"
                + " an earlier run."), merged);
        assertTrue(merged.contains("Next: 0.2 "), merged);

        String full = ScoreTable.console(fullGrade("exercises", "/a"), "graded: exercises");
        assertTrue(full.lines().anyMatch(l -> l.startsWith("total ")), "a full run has its total: " + full);
        assertTrue(full.contains("Progress: 1/" + TOTAL + " points, 1 of " + PARTS + " parts passing.\nNext: 0.2 "), full);
    }

    @Test
    void outputToAFileOrAPipeHoldsNoEscapeCodes(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("results.json");
        Results.merged(fullGrade("exercises", "/a"), singlePart("exercises", "/a")).write(file);
        // ScoreTable as the grade profile runs it, its standard output a pipe (as under mvn -q … | less, or CI).
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                System.getProperty("java.class.path"), ScoreTable.class.getName(), file.toString())
                .redirectErrorStream(true).start();
        String printed = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), printed);
        assertTrue(printed.contains("Progress: "), printed);
        assertFalse(printed.contains("\u001b"), "no escape code on a pipe: " + printed);
        assertFalse(java.nio.file.Files.readString(dir.resolve(ScoreTable.MARKDOWN)).contains("\u001b"));
    }

    @Test
    void mavenIsToldNotToResetTheTerminalOnExit() throws Exception {
        // Maven 3.8's jansi writes ESC[0m on exit even under -q -B with output piped; .mvn/jvm.config turns it off
        // for every Maven run in the course (and in a student release, which copies .mvn/).
        String config = java.nio.file.Files.readString(Path.of("..", ".mvn", "jvm.config"));
        assertTrue(config.contains("-Djansi.noreset=true"), config);
    }
}
