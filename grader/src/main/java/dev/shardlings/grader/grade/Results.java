package dev.shardlings.grader.grade;

import dev.shardlings.grader.parts.Part;

import dev.shardlings.grader.grade.Course;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A grade in Gradescope's results.json schema (https://gradescope-autograders.readthedocs.io/en/latest/specs/):
 * {@code score}, {@code execution_time} (seconds), {@code output}, {@code visibility} and
 * {@code stdout_visibility}, {@code output_format} and {@code test_output_format} ("text": the reports' sharding
 * pictures need a monospaced font), {@code extra_data} (what was graded, with which course and JDK), a
 * {@code leaderboard} of the modelled µs of the performance parts that passed, and one entry per part in
 * {@code tests} with {@code name}, {@code number}, {@code score}, {@code max_score}, {@code status} ("passed" /
 * "failed"), {@code output}, {@code tags} (chapter, topic) and {@code visibility}.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Results(double score,
                      @JsonProperty("execution_time") double executionTime,
                      String output,
                      String visibility,
                      @JsonProperty("stdout_visibility") String stdoutVisibility,
                      @JsonProperty("output_format") String outputFormat,
                      @JsonProperty("test_output_format") String testOutputFormat,
                      @JsonProperty("extra_data") java.util.Map<String, Object> extraData,
                      List<LeaderboardEntry> leaderboard,
                      List<TestResult> tests) {

    /** Every report is shown to the student at once: the grade is the feedback. */
    static final String VISIBLE = "visible";
    /** The judge's console is for the instructor: what student code printed is in each part's report already. */
    static final String STDOUT_HIDDEN = "hidden";
    /** Reports are preformatted text (pictures drawn with box characters). */
    static final String TEXT = "text";
    /** The key of a performance part's modelled time in its {@code extra_data}, in µs. */
    public static final String MODELLED_US = "modelled_us";

    /** The most points the graded parts can give (not a Gradescope key: derived from {@code tests}). */
    @com.fasterxml.jackson.annotation.JsonIgnore
    public double maxScore() {
        return tests.stream().mapToDouble(TestResult::maxScore).sum();
    }

    /** One column of Gradescope's leaderboard: lower modelled time ranks higher ({@code order} "asc"). */
    public record LeaderboardEntry(String name, double value, String order) {
    }

    /** One part's result. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record TestResult(String name, String number, double score,
                             @JsonProperty("max_score") double maxScore,
                             String status, String output,
                             List<String> tags,
                             String visibility,
                             @JsonProperty("extra_data") java.util.Map<String, String> extraData) {
        /** True when the part passed. */
        public boolean passed() {
            return "passed".equals(status);
        }

        /** A part's result: all its points when it passed, none otherwise. */
        public static TestResult of(Part p, boolean passed, String output, String reason) {
            return of(p, passed, output, java.util.Map.of("reason", reason));
        }

        /** {@link #of(Part, boolean, String, String)} with more extra data ({@code reason} must be among it). */
        public static TestResult of(Part p, boolean passed, String output, java.util.Map<String, String> extra) {
            return new TestResult(p.number() + " " + p.title(), p.number(), passed ? p.points() : 0, p.points(),
                    passed ? "passed" : "failed", output, p.tags(), VISIBLE,
                    java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(extra)));
        }

        /** The same result with {@code more} appended to its report. */
        public TestResult withOutput(String more) {
            return new TestResult(name, number, score, maxScore, status, output + more, tags, visibility, extraData);
        }

        /** The one-line reason of a failed part ("" when it passed). */
        public String reason() {
            return extraData == null ? "" : extraData.getOrDefault("reason", "");
        }
    }

    /**
     * The grade of a run: one result per part in course order (a part with no result reads "not run"), the score
     * their sum, and the summary line {@code Graded <target>: <score> points.<note>}. The one place a grade is
     * assembled, so every command writes the same document.
     *
     * @param target  what was graded (exercises, solutions, submission)
     * @param byPart  results by part number
     * @param seconds wall time of the run
     * @param note    appended to the summary line ("" for none)
     * @param extra   extra_data ({@code target}, {@code course_version} and {@code jdk} are added)
     */
    public static Results of(String target, java.util.Map<String, TestResult> byPart, double seconds, String note,
                             java.util.Map<String, Object> extra) {
        return of(target, Course.all(), byPart, seconds, note, extra);
    }

    /**
     * The grade of a run of an assignment: as {@link #of(String, java.util.Map, double, String, java.util.Map)},
     * with one result for each of {@code parts} only, so that max_score is the sum of their points.
     */
    public static Results of(String target, List<Part> parts, java.util.Map<String, TestResult> byPart,
                             double seconds, String note, java.util.Map<String, Object> extra) {
        List<TestResult> tests = new java.util.ArrayList<>();
        List<LeaderboardEntry> board = new java.util.ArrayList<>();
        double score = 0;
        for (Part p : parts) {
            TestResult r = byPart.getOrDefault(p.number(), TestResult.of(p, false, "No test of this part ran.",
                    "not run"));
            tests.add(r);
            score += r.score();
            String us = r.extraData() == null ? null : r.extraData().get(MODELLED_US);
            if (r.passed() && us != null) {
                board.add(new LeaderboardEntry(p.number() + " modelled µs", Double.parseDouble(us), "asc"));
            }
        }
        java.util.Map<String, Object> data = new java.util.LinkedHashMap<>();
        data.put("target", target);
        data.put("course_version", courseVersion());
        data.put("jdk", System.getProperty("java.vendor", "?") + " " + Runtime.version());
        data.putAll(extra);
        String points = score == Math.rint(score) ? Long.toString((long) score) : Double.toString(score);
        return new Results(score, Math.round(seconds * 100) / 100.0, "Graded " + target + ": " + points + " points."
                + note, VISIBLE, STDOUT_HIDDEN, TEXT, TEXT, data, board.isEmpty() ? null : List.copyOf(board), tests);
    }

    /**
     * The grader's version and commit, e.g. {@code 0.1.0-SNAPSHOT (commit 3d2b8e2)}: both written into
     * {@code git.properties} when the grader is built (git-commit-id-maven-plugin), so a grade names the grader that
     * gave it. Built outside a git checkout, the version alone; without that file (the grader run from an IDE's
     * classes), "unknown".
     */
    static String courseVersion() {
        java.util.Properties props = new java.util.Properties();
        try (java.io.InputStream in = Results.class.getResourceAsStream("/dev/shardlings/grader/git.properties")) {
            if (in != null) {
                props.load(in);
            }
        } catch (IOException e) {
            // A version is a label: its absence must not stop a grade.
        }
        String version = props.getProperty("git.build.version", "unknown");
        String commit = props.getProperty("git.commit.id.abbrev", "");
        return commit.isBlank() ? version : version + " (commit " + commit + ")";
    }

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    /**
     * Writes this grade as JSON, creating parent directories.
     *
     * @throws IOException if the file cannot be written
     */
    public void write(Path file) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        JSON.writeValue(file.toFile(), this);
    }

    /** Reads a grade written by {@link #write(Path)}. @throws IOException if it cannot be read or parsed */
    public static Results read(Path file) throws IOException {
        return JSON.readValue(file.toFile(), Results.class);
    }
}
