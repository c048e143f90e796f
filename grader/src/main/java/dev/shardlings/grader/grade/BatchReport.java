package dev.shardlings.grader.grade;

import dev.shardlings.grader.parts.Part;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvSchema;
import org.apache.commons.text.StringEscapeUtils;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What a batch grade writes about the whole class: the gradebook an LMS or a spreadsheet imports, and a report for
 * the instructor with each part's pass rate, a histogram of the scores (a picture) and the students without a grade.
 */
final class BatchReport {

    /** The batch report's file name in the output folder. */
    static final String REPORT = "report.md";
    /** The score histogram's file name in the output folder (the report shows it). */
    static final String HISTOGRAM = "histogram.svg";
    /** Bars of the histogram: ten, as a grade scale has. */
    private static final int BINS = 10;
    /** What {@link Results#of} records for a part that was not run (e.g. outside {@code --only}). */
    private static final String NOT_RUN = "not run";

    private BatchReport() {
    }

    /**
     * The gradebook: a row per submitter (a Gradescope group submission gives each member a row with the group's
     * grade), with the student folder, the export's identifier columns ({@link ExportMetadata}), score, max_score,
     * the points of each part the grades hold, in course order (an assignment's parts only), and why a student has
     * no grade. Text a student controls (folder, name,
     * email, ids) cannot start a spreadsheet formula: a cell starting with {@code = + - @}, a tab or a carriage
     * return is prefixed with an apostrophe, as OWASP's CSV-injection advice has it.
     */
    static void writeGradebook(List<BatchGrading.Outcome> outcomes, ExportMetadata ids, Path file)
            throws IOException {
        CsvSchema.Builder schema = CsvSchema.builder().addColumn("student");
        ids.columns().forEach(schema::addColumn);
        schema.addColumn("score").addColumn("max_score");
        // The parts the grades hold (an assignment's, in course order): an LMS import of one chapter's grades should
        // not carry 30 empty columns of the others.
        java.util.Set<String> graded = new java.util.HashSet<>();
        outcomes.stream().filter(o -> o.results() != null)
                .forEach(o -> o.results().tests().forEach(t -> graded.add(t.number())));
        for (Part p : Course.all()) {
            if (graded.isEmpty() || graded.contains(p.number())) {
                schema.addColumn(p.number());
            }
        }
        schema.addColumn("error");
        List<Map<String, Object>> rows = new ArrayList<>();
        for (BatchGrading.Outcome o : outcomes) {
            for (Map<String, String> who : ids.submitters(o.student())) {
                Map<String, Object> row = new LinkedHashMap<>();
                row.put("student", text(SubmissionGrading.printable(o.student())));
                for (String c : ids.columns()) {
                    row.put(c, text(SubmissionGrading.printable(who.getOrDefault(c, ""))));
                }
                if (o.results() != null) {
                    row.put("score", points(o.results().score()));
                    row.put("max_score", points(o.results().maxScore()));
                    for (Results.TestResult t : o.results().tests()) {
                        row.put(t.number(), points(t.score()));
                    }
                }
                row.put("error", o.error() == null ? "" : text(o.error()));
                rows.add(row);
            }
        }
        String csv = new CsvMapper().writer(schema.build().withHeader()).writeValueAsString(rows);
        Files.writeString(file, csv, StandardCharsets.UTF_8);
    }

    /** A text cell a spreadsheet shows as text: one that would start a formula gets a leading apostrophe. */
    static String text(String s) {
        return !s.isEmpty() && "=+-@\t\r".indexOf(s.charAt(0)) >= 0 ? "'" + s : s;
    }

    /**
     * The batch report (Markdown): how many were graded, the mean and median score, the histogram, each part's
     * pass rate among the students it was run for, and the students without a grade with the reason.
     */
    static String report(List<BatchGrading.Outcome> outcomes) {
        List<Results> graded = outcomes.stream().map(BatchGrading.Outcome::results)
                .filter(java.util.Objects::nonNull).toList();
        StringBuilder md = new StringBuilder("# Batch grade\n\n");
        md.append(outcomes.size()).append(" students, ").append(graded.size()).append(" graded");
        if (!graded.isEmpty()) {
            double[] scores = graded.stream().mapToDouble(Results::score).sorted().toArray();
            double median = scores.length % 2 == 1 ? scores[scores.length / 2]
                    : (scores[scores.length / 2 - 1] + scores[scores.length / 2]) / 2;
            md.append(String.format(Locale.ROOT, ": mean %.1f, median %s of %s points.%n%n",
                    java.util.Arrays.stream(scores).average().orElse(0), points(median),
                    points(graded.get(0).maxScore())));
            md.append("![Scores: how many students in each range](").append(HISTOGRAM).append(")\n\n");
            md.append("## Pass rate per part\n\n| Part | Title | Points | Passed | Rate |\n|---|---|---:|---:|---:|\n");
            for (Part p : Course.all()) {
                int ran = 0;
                int passed = 0;
                for (Results r : graded) {
                    for (Results.TestResult t : r.tests()) {
                        if (t.number().equals(p.number()) && !NOT_RUN.equals(t.reason())) {
                            ran++;
                            passed += t.passed() ? 1 : 0;
                        }
                    }
                }
                if (ran > 0) {
                    md.append(String.format(Locale.ROOT, "| %s | %s | %d | %d of %d | %.0f%% |%n", p.number(),
                            cell(p.title()), p.points(), passed, ran, 100.0 * passed / ran));
                }
            }
        } else {
            md.append(".\n");
        }
        List<BatchGrading.Outcome> failed = outcomes.stream().filter(o -> o.results() == null).toList();
        md.append("\n## Not graded\n\n");
        if (failed.isEmpty()) {
            md.append("The grader graded every student.\n");
        } else {
            md.append("The grader could not grade these students (their grading.log says more):\n\n");
            failed.forEach(o -> md.append("- ").append(cell(SubmissionGrading.printable(o.student()))).append(": ")
                    .append(cell(o.error())).append('\n'));
        }
        return md.toString();
    }

    /**
     * The histogram of the graded students' scores as an SVG picture: at most {@value #BINS} bars, each a range of
     * whole points of equal width from 0 up to the maximum score, with how many students scored in it.
     */
    static String histogram(List<BatchGrading.Outcome> outcomes) {
        List<Results> graded = outcomes.stream().map(BatchGrading.Outcome::results)
                .filter(java.util.Objects::nonNull).toList();
        int max = graded.isEmpty() ? 0 : (int) Math.ceil(graded.get(0).maxScore());
        int binWidth = Math.max(1, (max + BINS - 1) / BINS);
        int bins = Math.min(BINS, max / binWidth + 1);
        int[] counts = new int[bins];
        for (Results r : graded) {
            counts[Math.min(bins - 1, (int) Math.floor(r.score() / binWidth))]++;
        }
        int most = Math.max(1, java.util.Arrays.stream(counts).max().orElse(1));
        int left = 40;
        int bottom = 260;
        int barWidth = 56;
        int width = left + bins * barWidth + 20;
        StringBuilder svg = new StringBuilder(String.format(Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"320\" font-family=\"sans-serif\""
                        + " font-size=\"12\">%n<title>Scores of %d graded students, of %d points</title>%n"
                        + "<text x=\"%d\" y=\"20\" font-size=\"14\">Scores of %d graded students, of %d points"
                        + "</text>%n", width, graded.size(), max, left, graded.size(), max));
        for (int i = 0; i < bins; i++) {
            int h = (int) Math.round(200.0 * counts[i] / most);
            int x = left + i * barWidth;
            int low = i * binWidth;
            int high = Math.min(max, low + binWidth - 1);
            svg.append(String.format(Locale.ROOT,
                    "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#4c78a8\"/>%n"
                            + "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%d</text>%n"
                            + "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>%n",
                    x + 2, bottom - h, barWidth - 4, h, x + barWidth / 2, bottom - h - 4, counts[i],
                    x + barWidth / 2, bottom + 16, low == high ? low : low + "–" + high));
        }
        svg.append(String.format(Locale.ROOT,
                "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>%n"
                        + "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">score (points)</text>%n</svg>%n",
                left, bottom, left + bins * barWidth, bottom, left + bins * barWidth / 2, bottom + 40));
        return svg.toString();
    }

    /** A Markdown table cell or list item: HTML escaped (student text may hold tags), on one line. */
    private static String cell(String s) {
        return StringEscapeUtils.escapeHtml4(s).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ");
    }

    static String points(double p) {
        return p == Math.rint(p) ? Long.toString((long) p) : String.format(Locale.ROOT, "%s", p);
    }
}
