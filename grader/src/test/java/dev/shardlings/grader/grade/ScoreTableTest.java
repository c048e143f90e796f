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
}
