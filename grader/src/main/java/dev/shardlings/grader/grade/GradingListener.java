package dev.shardlings.grader.grade;

import dev.shardlings.grader.parts.Part;
import dev.shardlings.grader.checks.ModelledTime;
import dev.shardlings.grader.judge.GradingFailure;

import dev.shardlings.grader.grade.Course;
import dev.shardlings.grader.grade.GradedParts;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.reporting.ReportEntry;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Turns the test results of the graded parts into a grade: registered with the JUnit Platform (through
 * {@code META-INF/services}), it collects the results of each part's tests ({@link GradedParts}), then writes
 * {@code results.json} (path from the {@code grade.results} system property); {@link ScoreTable} prints it.
 *
 * <p>A part passes when every test of its class passed; a test that did not run (aborted, skipped) fails the
 * part. Parts with no test in the run are listed as "not run". The report is written even when tests fail, and
 * when no graded test ran at all (then it lists every part as not run).
 */
public final class GradingListener implements TestExecutionListener {

    private final Map<String, PartState> parts = new LinkedHashMap<>();
    private final boolean writesResults;
    private long startNanos;

    /** The listener the JUnit Platform registers: it writes results.json when the test plan ends. */
    public GradingListener() {
        this(true);
    }

    /**
     * A listener that only collects, when {@code writesResults} is false: {@link IsolatedGrading} asks it for each part's
     * result with {@link #resultOf(Part)} instead.
     */
    public GradingListener(boolean writesResults) {
        this.writesResults = writesResults;
    }

    private static final class PartState {
        final List<String> notes = new ArrayList<>();
        String modelledUs;
        int tests;
        int passed;
        String firstReason;
        String firstReport;
        int rank = Integer.MAX_VALUE;
    }

    @Override
    public void testPlanExecutionStarted(TestPlan testPlan) {
        startNanos = System.nanoTime();
        plan = testPlan;
        for (Part p : Course.all()) {
            parts.putIfAbsent(p.number(), new PartState());
        }
        if (!writesResults) {
            return;
        }
        try {
            // A stale grade must never be shown for this run: if the run dies, the table step finds no file.
            java.nio.file.Files.deleteIfExists(resultsPath());
        } catch (IOException e) {
            System.err.println("Could not remove the old grade " + resultsPath() + ": " + e);
        }
        for (Part p : Course.all()) {
            parts.put(p.number(), new PartState());
        }
    }

    @Override
    public void executionStarted(TestIdentifier id) {
        if (id.isTest()) {
            running = partOf(id).orElse(null);
        }
    }

    @Override
    public void executionSkipped(TestIdentifier id, String reason) {
        partOf(id).ifPresent(s -> {
            if (id.isTest()) {
                s.tests++;
                note(s, -1, "skipped: " + reason, "skipped: " + reason);
            }
        });
    }

    @Override
    public void reportingEntryPublished(TestIdentifier id, ReportEntry entry) {
        // A part's test publishes through its test factory's reporter: the entry belongs to the part running.
        Optional<PartState> part = partOf(id).or(() -> Optional.ofNullable(running));
        String note = entry.getKeyValuePairs().get(GradedParts.NOTE);
        if (note != null) {
            part.ifPresent(s -> s.notes.add(note));
        }
        String us = entry.getKeyValuePairs().get(GradedParts.MODELLED_US);
        if (us != null) {
            part.ifPresent(s -> s.modelledUs = us);
        }
    }

    @Override
    public void executionFinished(TestIdentifier id, TestExecutionResult result) {
        if (!id.isTest()) {
            return;
        }
        partOf(id).ifPresent(s -> {
            s.tests++;
            if (result.getStatus() == TestExecutionResult.Status.SUCCESSFUL) {
                s.passed++;
                return;
            }
            Throwable t = result.getThrowable().orElse(null);
            GradingFailure g = findGradingFailure(t);
            if (g != null) {
                note(s, g.kind().ordinal(), g.reason(), g.getMessage());
            } else if (t != null) {
                String msg = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
                note(s, -1, "failed: " + msg.strip().lines().findFirst().orElse(""), t.getClass().getName() + ": " + msg);
            } else {
                note(s, -1, "aborted", "the test was aborted");
            }
        });
    }

    /**
     * Keeps the failure a student should see first: the most basic kind (not done, exception, shape, layout,
     * values, then structure — {@link GradingFailure.Kind} order; failures outside the grader's checks first of
     * all), and among equals the first that happened.
     */
    private static void note(PartState s, int rank, String reason, String report) {
        if (rank < s.rank) {
            s.rank = rank;
            s.firstReason = reason;
            s.firstReport = report;
        }
    }

    private static GradingFailure findGradingFailure(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof GradingFailure g) {
                return g;
            }
            for (Throwable sup : c.getSuppressed()) {
                if (sup instanceof GradingFailure g) {
                    return g;
                }
            }
        }
        return null;
    }

    private TestPlan plan;
    /** The part whose test runs now (null: none). */
    private PartState running;

    private Optional<PartState> partOf(TestIdentifier id) {
        // A part's tests sit in a container whose source names the part.
        for (TestIdentifier t = id; t != null; t = plan == null ? null : plan.getParent(t).orElse(null)) {
            Optional<PartState> s = partOfSource(t);
            if (s.isPresent()) {
                return s;
            }
        }
        return Optional.empty();
    }

    private Optional<PartState> partOfSource(TestIdentifier id) {
        return id.getSource().flatMap(GradedParts::partNumber).map(parts::get);
    }

    @Override
    public void testPlanExecutionFinished(TestPlan testPlan) {
        if (!writesResults) {
            return;
        }
        String target = System.getProperty("grade.target", "exercises");
        Map<String, Results.TestResult> byPart = new LinkedHashMap<>();
        for (Part p : Course.all()) {
            byPart.put(p.number(), resultOf(p));
        }
        Results results = Results.of(target, byPart, (System.nanoTime() - startNanos) / 1e9, "", Map.of());
        Path where = resultsPath();
        try {
            results.write(where);
        } catch (IOException e) {
            // The table step reports a missing file; say why here, where the cause is known.
            System.err.println("Could not write the grade to " + where + ": " + e);
        }
    }

    /** The result of one part from the tests seen so far: passed when every test of its class passed. */
    public Results.TestResult resultOf(Part p) {
        PartState s = parts.get(p.number());
        boolean ran = s != null && s.tests > 0;
        boolean passed = ran && s.passed == s.tests;
        String reason = !ran ? "not run" : passed ? (s.notes.isEmpty() ? "" : s.notes.get(0)) : s.firstReason;
        String output = !ran ? "No test of this part ran." : passed
                ? "All " + s.tests + " checks passed." + (s.notes.isEmpty() ? "" : "\n" + String.join("\n",
                s.notes)) : s.firstReport;
        Map<String, String> extra = new LinkedHashMap<>();
        extra.put("reason", reason);
        if (passed && s.modelledUs != null) {
            extra.put(Results.MODELLED_US, s.modelledUs);
        }
        return Results.TestResult.of(p, passed, output, extra);
    }

    private static Path resultsPath() {
        return Path.of(System.getProperty("grade.results", "target/grade/results.json"));
    }
}
