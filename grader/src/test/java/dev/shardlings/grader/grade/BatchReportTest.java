package dev.shardlings.grader.grade;

import dev.shardlings.grader.chapter0.Chapter0Checks;
import dev.shardlings.grader.parts.Part;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvSchema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The class-wide files of a batch grade: a gradebook with the export's student ids that a spreadsheet imports
 * without running student text as a formula, and a report with pass rates, a histogram and who was not graded.
 */
class BatchReportTest {

    /** A grade where part 0.8 passed or failed, the other parts not run (as under --only). */
    private static BatchGrading.Outcome graded(String student, boolean ringShift) {
        return new BatchGrading.Outcome(student, Results.of("submission", Map.of("0.8",
                Results.TestResult.of(Chapter0Checks.P0_8, ringShift, "", ringShift ? "" : "wrong values")), 1, "",
                Map.of()), null, false);
    }

    private static List<Map<String, String>> read(Path csv) throws Exception {
        List<Map<String, String>> rows = new ArrayList<>();
        try (MappingIterator<Map<String, String>> it = new CsvMapper().readerForMapOf(String.class)
                .with(CsvSchema.emptySchema().withHeader()).readValues(csv.toFile())) {
            while (it.hasNextValue()) {
                rows.add(it.nextValue());
            }
        }
        return rows;
    }

    @Test
    void gradescopeIdsGiveEachSubmitterARowAndNoCellStartsAFormula(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve(ExportMetadata.GRADESCOPE), """
                submission_1:
                  :submitters:
                  - :name: Ada Lovelace
                    :sid: '1815'
                    :email: ada@example.edu
                  :created_at: 2026-01-01 10:00:00.000000000 -08:00
                  :score: !ruby/object:BigDecimal 18:0.0
                submission_2:
                  :submitters:
                  - :name: "=HYPERLINK(\\"http://x\\",\\"y\\")"
                    :sid: '+2'
                    :email: "@bob"
                  - :name: Cy, Jr.
                    :sid: '-3'
                    :email: cy@example.edu
                """);
        ExportMetadata ids = ExportMetadata.read(dir);
        Path book = dir.resolve("gradebook.csv");
        BatchReport.writeGradebook(List.of(graded("submission_1", true), graded("submission_2", false),
                new BatchGrading.Outcome("=cmd|'/c calc'!A0", null, "the grader exited with 1", false),
                graded("submission_9", true)), ids, book);
        List<Map<String, String>> rows = read(book);
        assertEquals(List.of("student", "name", "sid", "email", "score", "max_score", "0.1"),
                List.copyOf(rows.get(0).keySet()).subList(0, 7));
        assertEquals(5, rows.size(), "a row per submitter: " + rows);
        assertEquals(Map.of("student", "submission_1", "name", "Ada Lovelace", "sid", "1815", "score", "2"),
                pick(rows.get(0), "student", "name", "sid", "score"));
        assertEquals(Map.of("name", "'=HYPERLINK(\"http://x\",\"y\")", "sid", "'+2", "email", "'@bob"),
                pick(rows.get(1), "name", "sid", "email"), "a group's members each get the group's grade");
        assertEquals(Map.of("name", "Cy, Jr.", "sid", "'-3", "score", "0", "0.8", "0"),
                pick(rows.get(2), "name", "sid", "score", "0.8"));
        assertEquals(Map.of("student", "'=cmd|'/c calc'!A0", "score", "", "error", "the grader exited with 1"),
                pick(rows.get(3), "student", "score", "error"));
        assertEquals(Map.of("student", "submission_9", "name", "", "score", "2"),
                pick(rows.get(4), "student", "name", "score"), "a folder the metadata does not name");
        for (String line : Files.readAllLines(book)) {
            for (String cell : line.split(",")) {
                assertFalse(cell.matches("\"?[=+\\-@].*"), "a formula cell: " + line);
            }
        }
    }

    @Test
    void anAssignmentsGradebookHasOnlyItsPartsColumns(@TempDir Path dir) throws Exception {
        Assignments.Assignment chapter0 = Assignments.defaults().named("chapter-0");
        Results r = Results.of("submission", chapter0.parts(), Map.of("0.8", Results.TestResult.of(Chapter0Checks.P0_8,
                true, "", "")), 1, "", Map.of());
        Path book = dir.resolve("gradebook.csv");
        BatchReport.writeGradebook(List.of(new BatchGrading.Outcome("ada", r, null, false)), ExportMetadata.NONE, book);
        List<String> columns = List.copyOf(read(book).get(0).keySet());
        List<String> expected = new ArrayList<>(List.of("student", "score", "max_score"));
        chapter0.parts().forEach(p -> expected.add(p.number()));
        expected.add("error");
        assertEquals(expected, columns);
    }

    @Test
    void aClassroomGradesCsvGivesGithubUsernames(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("grades.csv"), """
                assignment_name,assignment_url,starter_code_url,github_username,roster_identifier,\
                student_repository_name,student_repository_url,submission_timestamp,points_awarded,points_available
                shardlings,https://x,https://y,octocat,ada@example.edu,shardlings-octocat,https://z,,88,88
                """);
        ExportMetadata ids = ExportMetadata.read(dir);
        assertEquals(ExportMetadata.CLASSROOM_COLUMNS, ids.columns());
        assertEquals(List.of(Map.of("github_username", "octocat", "roster_identifier", "ada@example.edu")),
                ids.submitters("shardlings-octocat"));
        Files.writeString(dir.resolve("grades.csv"), "a,b\n1,2\n");
        assertEquals(ExportMetadata.NONE, ExportMetadata.read(dir), "a CSV of something else is no metadata");
        Files.writeString(dir.resolve("grades.csv"), "a,b\n1,2,3,4\n");
        assertEquals(ExportMetadata.NONE, ExportMetadata.read(dir), "nor is a ragged one: the batch goes on");
        Files.writeString(dir.resolve("grades.csv"), "github_username,roster_identifier,student_repository_name\n"
                + "ada,ada@example.edu,team-1\nbob,bob@example.edu,team-1\n");
        assertEquals(2, ExportMetadata.read(dir).submitters("team-1").size(), "a group repository: each member");
    }

    @Test
    void theReportHasPassRatesAHistogramAndWhoWasNotGraded() throws Exception {
        List<BatchGrading.Outcome> outcomes = List.of(graded("ada", true), graded("bob", false), graded("cy", true),
                new BatchGrading.Outcome("<b>dee</b>", null, "grading took longer than 1800 s", false));
        String md = BatchReport.report(outcomes);
        // The course's total, whatever chapters it has.
        int total = Course.all().stream().mapToInt(Part::points).sum();
        assertTrue(md.contains("4 students, 3 graded: mean 1.3, median 2 of " + total + " points."), md);
        assertTrue(md.contains("| 0.8 | ring shift with ppermute | 2 | 2 of 3 | 67% |"), md);
        assertFalse(md.contains("| 0.1 |"), "a part run for no one has no rate: " + md);
        assertTrue(md.contains("](" + BatchReport.HISTOGRAM + ")"), md);
        assertTrue(md.contains("- &lt;b&gt;dee&lt;/b&gt;: grading took longer than 1800 s"), md);

        String svg = BatchReport.histogram(outcomes);
        Document doc = javax.xml.parsers.DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
        assertEquals("svg", doc.getDocumentElement().getTagName());
        assertEquals(10, doc.getElementsByTagName("rect").getLength(), "ten ranges of 0.." + total + ": " + svg);
        List<String> labels = new ArrayList<>();
        for (int i = 0; i < doc.getElementsByTagName("text").getLength(); i++) {
            labels.add(doc.getElementsByTagName("text").item(i).getTextContent());
        }
        assertEquals("3", labels.get(1), "scores 2, 0 and 2 are in the first range: " + labels);
        assertTrue(labels.get(2).startsWith("0–"), labels.toString());
        assertEquals("0", labels.get(labels.size() - 3), svg);
        assertTrue(labels.get(labels.size() - 2).endsWith("–" + total), "the last range ends at the total: " + svg);
        assertTrue(svg.contains("Scores of 3 graded students, of " + total + " points"), svg);
    }

    private static Map<String, String> pick(Map<String, String> row, String... keys) {
        Map<String, String> m = new java.util.HashMap<>();
        for (String k : keys) {
            m.put(k, row.get(k));
        }
        return m;
    }
}
