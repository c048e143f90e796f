package dev.shardlings.grader;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A grade in Gradescope's results.json schema: {@code score}, {@code execution_time} (seconds), {@code output},
 * {@code extra_data} (what was graded), and one entry
 * per part in {@code tests} with {@code name}, {@code number}, {@code score}, {@code max_score},
 * {@code status} ("passed" / "failed") and {@code output}.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Results(double score,
                      @JsonProperty("execution_time") double executionTime,
                      String output,
                      @JsonProperty("extra_data") java.util.Map<String, Object> extraData,
                      List<TestResult> tests) {

    /** The most points the graded parts can give (not a Gradescope key: derived from {@code tests}). */
    @com.fasterxml.jackson.annotation.JsonIgnore
    public double maxScore() {
        return tests.stream().mapToDouble(TestResult::maxScore).sum();
    }

    /** One part's result. */
    public record TestResult(String name, String number, double score,
                             @JsonProperty("max_score") double maxScore,
                             String status, String output,
                             @JsonProperty("extra_data") java.util.Map<String, String> extraData) {
        /** True when the part passed. */
        public boolean passed() {
            return "passed".equals(status);
        }

        /** A part's result: all its points when it passed, none otherwise. */
        public static TestResult of(Part p, boolean passed, String output, String reason) {
            return new TestResult(p.number() + " " + p.title(), p.number(), passed ? p.points() : 0, p.points(),
                    passed ? "passed" : "failed", output, java.util.Map.of("reason", reason));
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
     * @param extra   extra_data ({@code target} is added)
     */
    public static Results of(String target, java.util.Map<String, TestResult> byPart, double seconds, String note,
                             java.util.Map<String, Object> extra) {
        List<TestResult> tests = new java.util.ArrayList<>();
        double score = 0;
        for (Part p : Part.all()) {
            TestResult r = byPart.getOrDefault(p.number(), TestResult.of(p, false, "No test of this part ran.",
                    "not run"));
            tests.add(r);
            score += r.score();
        }
        java.util.Map<String, Object> data = new java.util.LinkedHashMap<>();
        data.put("target", target);
        data.putAll(extra);
        String points = score == Math.rint(score) ? Long.toString((long) score) : Double.toString(score);
        return new Results(score, Math.round(seconds * 100) / 100.0, "Graded " + target + ": " + points + " points."
                + note, data, tests);
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
