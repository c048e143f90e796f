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

        /** True when the part had no test in its run ("not run"). */
        public boolean notRun() {
            return NOT_RUN.equals(reason());
        }

        /** True when this result was kept from an earlier run by {@link #merged}. */
        public boolean fromEarlierRun() {
            return extraData != null && extraData.containsKey(EARLIER_RUN);
        }

        /** The same result, marked as kept from an earlier run. */
        TestResult keptFromEarlierRun() {
            if (fromEarlierRun()) {
                return this;
            }
            java.util.Map<String, String> extra = new java.util.LinkedHashMap<>(
                    extraData == null ? java.util.Map.of() : extraData);
            extra.put(EARLIER_RUN, "true");
            return new TestResult(name, number, score, maxScore, status, output, tags, visibility,
                    java.util.Collections.unmodifiableMap(extra));
        }
    }

    /** The reason of a part that had no test in the run. */
    public static final String NOT_RUN = "not run";
    /** The key in a part's {@code extra_data} that marks a result kept from an earlier run ({@link #merged}). */
    public static final String EARLIER_RUN = "from_earlier_run";

    /**
     * The grade of a run of some parts laid over the last grade of the same work, so that grading one part keeps
     * the others' results: each part that ran in {@code now} takes its new result, every other part keeps
     * {@code earlier}'s (marked {@value #EARLIER_RUN}). Only a grade of the same {@code target} and
     * {@code submission} (extra_data) is merged, so no file ever mixes the grades of two submissions; otherwise
     * {@code now} is returned as it is. The summary line and score are recomputed; extra_data is {@code now}'s.
     *
     * @param earlier the last grade (null when there is none)
     * @param now     this run's grade, where a part that did not run reads {@value #NOT_RUN}
     */
    public static Results merged(Results earlier, Results now) {
        return merged(earlier, now, Course.all());
    }

    /**
     * {@link #merged(Results, Results)} for a grade of {@code parts} (an assignment's): only those parts are kept,
     * and only from an earlier grade of the same assignment.
     */
    public static Results merged(Results earlier, Results now, List<Part> parts) {
        if (earlier == null || !sameWork(earlier, now)) {
            return now;
        }
        java.util.Map<String, TestResult> byPart = new java.util.LinkedHashMap<>();
        for (TestResult t : earlier.tests()) {
            if (!t.notRun()) {
                byPart.put(t.number(), t.keptFromEarlierRun());
            }
        }
        for (TestResult t : now.tests()) {
            if (!t.notRun()) {
                byPart.put(t.number(), t);
            }
        }
        String summary = now.output().lines().findFirst().orElse("");
        String note = now.output().substring(Math.min(now.output().length(), summary.length()));
        java.util.Map<String, Object> extra = new java.util.LinkedHashMap<>(now.extraData());
        String target = String.valueOf(extra.remove("target"));
        extra.remove("course_version");
        extra.remove("jdk");
        byPart.keySet().retainAll(parts.stream().map(Part::number).toList());
        return of(target, parts, byPart, now.executionTime(), note, extra);
    }

    /** Both grades are of the same target and the same submission folder. */
    private static boolean sameWork(Results a, Results b) {
        java.util.Map<String, Object> x = a.extraData() == null ? java.util.Map.of() : a.extraData();
        java.util.Map<String, Object> y = b.extraData() == null ? java.util.Map.of() : b.extraData();
        return x.get("target") != null && java.util.Objects.equals(x.get("target"), y.get("target"))
                && java.util.Objects.equals(x.get("submission"), y.get("submission"))
                && java.util.Objects.equals(x.get("assignment"), y.get("assignment"));
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
                    NOT_RUN));
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
