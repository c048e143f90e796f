package dev.shardlings.grader.grade;

import dev.shardlings.grader.parts.Part;
import dev.shardlings.grader.checks.ModelledTime;
import dev.shardlings.grader.host.Sandbox;
import dev.shardlings.grader.judge.Guard;
import dev.shardlings.grader.judge.Report;

import dev.shardlings.grader.grade.GradedParts;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherConfig;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.time.Duration;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * The judge of {@code mvn test -Pgrade} (and of {@link SubmissionGrading}): it runs the graded parts' checks in
 * this JVM, one part after another in course order, and every call of a course method in a {@link Sandbox} JVM
 * that holds the course classes. This JVM never loads a course class, so student code cannot reach the checks,
 * the oracles, the verdicts or results.json; the sandbox has none of them on its class path. What a student's
 * code can do, and what stops it, is in docs/grading-integrity.md.
 *
 * <p>Nothing a part does can stop the grade: a call past its time limit, a part past {@code --part-limit}
 * seconds in all, a sandbox that exits, halts, runs out of memory or breaks the protocol fails that part only;
 * after every part the sandbox's process tree is killed (a part that left a process alive fails), and the next
 * part gets a fresh sandbox when this one is unclean. results.json is always written.
 *
 * <p>Grades do not depend on this isolation: each part's checks are the same as in a plain JUnit run, with fixed
 * seeds, so results.json is the same run after run apart from {@code execution_time}.
 */
@Command(name = "grade", mixinStandardHelpOptions = true,
        description = "Grades the parts, running student code in a sandbox JVM, and writes results.json.")
public final class IsolatedGrading implements Callable<Integer> {

    @Option(names = "--course-classes", required = true, description = "the compiled course classes under grade"
            + " (a class folder holding dev/shardlings/course)")
    Path courseClasses;

    @Option(names = "--results", required = true, description = "where to write results.json")
    Path results;

    @Option(names = "--target", defaultValue = "exercises", description = "what is graded, for the report:"
            + " exercises, solutions or submission")
    String target;

    @picocli.CommandLine.Mixin
    GradeOptions options = new GradeOptions();

    /** Parts that could not be graded before the run (e.g. their file did not compile), with their reason. */
    private Map<String, Results.TestResult> pregraded = Map.of();
    /** Extra lines for results.json's top-level output. */
    private String note = "";

    /**
     * The exit status when nothing was graded (no part matches the filter): results.json is left alone, and a file
     * {@link #NOTHING_GRADED} beside it tells the score-table step of {@code mvn test -Pgrade} to stop with
     * status 1 without a table. Not 1, so that the grade profile can treat it as expected (the reason was printed)
     * and Maven does not add its stack trace to the one line that says what to do.
     */
    public static final int NOTHING_GRADED_STATUS = 3;

    /** The file beside results.json that says the last run graded nothing (its text: why). */
    public static final String NOTHING_GRADED = "nothing-graded.txt";

    /**
     * Leaves the {@link #NOTHING_GRADED} marker beside {@code results} with {@code why} and returns
     * {@link #NOTHING_GRADED_STATUS}; results.json itself is not touched.
     */
    static int nothingGraded(Path results, String why) throws IOException {
        Path nothing = results.toAbsolutePath().resolveSibling(NOTHING_GRADED);
        Files.createDirectories(nothing.getParent());
        Files.writeString(nothing, why + "\n");
        return NOTHING_GRADED_STATUS;
    }

    /** Runs the command line; exits with 0 when results.json was written, whatever the score. */
    public static void main(String[] args) {
        System.exit(new CommandLine(new IsolatedGrading()).execute(args));
    }

    /** More extra_data for results.json (what was graded, e.g. the submission's path). */
    private Map<String, Object> extraData = Map.of();

    /** Adds to results.json's extra_data. */
    IsolatedGrading withExtra(Map<String, Object> extra) {
        this.extraData = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(extra));
        return this;
    }

    /** Whether a run of some parts keeps the other parts' last results (see {@link #keepingOtherParts()}). */
    private boolean keepOtherParts;

    /**
     * A run of some parts (--only) keeps the other parts' results from the last results.json of the same target
     * and submission ({@link Results#merged}) instead of writing them as not run: a student's single-part runs
     * (the grade profile). Never for an instructor's or a platform's grade, which is always whole.
     */
    IsolatedGrading keepingOtherParts() {
        this.keepOtherParts = true;
        return this;
    }

    /** Results for some parts decided before the run (they are not run), and a note for the report. */
    IsolatedGrading withPregraded(Map<String, Results.TestResult> parts, String note) {
        this.pregraded = Map.copyOf(parts);
        this.note = note;
        return this;
    }

    @Override
    public Integer call() throws IOException {
        long t0 = System.nanoTime();
        quietLogging();
        ModelledTime.preload(); // limits are read before any student code runs
        Assignments.Assignment assignment;
        List<Part> parts;
        try {
            assignment = options.assignment();
            parts = discover();
        } catch (IllegalArgumentException e) {
            System.err.println("Nothing was graded: " + e.getMessage() + ". results.json was not changed.");
            return nothingGraded(results, e.getMessage());
        }
        Map<String, Results.TestResult> done = new LinkedHashMap<>(pregraded);
        Map<String, Object> extra = new LinkedHashMap<>(extraData);
        extra.put("assignment", assignment.name());
        extra.put("selection", options.selection()); // -Dparts/-Dtest narrowing it ("" for none): a batch reuses only the same
        if (parts.isEmpty()) {
            String why = "no graded part matches " + options.selection();
            System.err.println("Nothing was graded: " + why + ". results.json was not changed.");
            return nothingGraded(results, why);
        }
        Files.deleteIfExists(results.toAbsolutePath().resolveSibling(NOTHING_GRADED));
        Sandbox before = null;
        try (Sandbox sandbox = new Sandbox(new Sandbox.Config(courseClasses, options.heap,
                Duration.ofSeconds(options.partLimitSeconds), !options.noSandboxUser))) {
            before = Sandbox.install(sandbox);
            for (Part p : parts) {
                if (done.containsKey(p.number())) {
                    continue;
                }
                sandbox.beginPart();
                long tp = System.nanoTime();
                Results.TestResult r = run(p);
                if (Boolean.getBoolean("grade.timing")) {
                    System.err.printf("part %s: %.2f s, %s%n", p.number(), (System.nanoTime() - tp) / 1e9,
                            sandbox.stats());
                }
                Sandbox.PartEnd end = sandbox.endPart();
                done.put(p.number(), settle(p, r, end));
            }
            // After the parts: a sandbox start that got fewer barriers than the probe has lowered them.
            putBarriers(extra, sandbox);
        } finally {
            Sandbox.install(before);
        }
        Results now = Results.of(target, assignment.parts(), done, (System.nanoTime() - t0) / 1e9, note, extra);
        if (keepOtherParts && parts.size() < assignment.parts().size()) {
            now = Results.merged(lastResults(), now, assignment.parts());
        }
        now.write(results);
        return 0;
    }

    /**
     * results.json's {@code barriers} (each barrier, true where it held in this run) and, when an OS-level one did not
     * hold, {@code barriers_missing}: what was missing, in words.
     */
    static void putBarriers(Map<String, Object> extra, Sandbox sandbox) {
        extra.put("barriers", new java.util.TreeMap<>(sandbox.barriers()));
        String why = sandbox.osBarriers().why();
        if (!why.isEmpty()) {
            extra.put("barriers_missing", why);
        }
    }

    /** The results.json this run replaces, or null when there is none or it cannot be read (it is then replaced). */
    private Results lastResults() {
        try {
            return Files.isRegularFile(results) ? Results.read(results) : null;
        } catch (IOException e) {
            return null;
        }
    }

    /** The test classes' logging settings (jqwik's start-up notice would print once per part otherwise). */
    private void quietLogging() {
        quietLogging(options.testClasses);
    }

    /** Reads {@code testClasses}/logging.properties unless logging is configured already. */
    static void quietLogging(Path testClasses) {
        Path conf = testClasses.resolve("logging.properties");
        if (System.getProperty("java.util.logging.config.file") == null && Files.isRegularFile(conf)) {
            try (java.io.InputStream in = Files.newInputStream(conf)) {
                java.util.logging.LogManager.getLogManager().readConfiguration(in);
            } catch (IOException e) {
                System.err.println("Could not read " + conf + ": " + e);
            }
        }
    }

    /** One part's checks, in this JVM; the course methods they call run in the sandbox. */
    static Results.TestResult run(Part part) {
        GradingListener listener = new GradingListener(false);
        Launcher launcher = LauncherFactory.create(LauncherConfig.builder()
                .enableTestExecutionListenerAutoRegistration(false).build());
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(DiscoverySelectors.selectClass(GradedParts.class)).build();
        GradedParts.select(List.of(part));
        try {
            launcher.execute(request, listener);
        } finally {
            GradedParts.select(null);
        }
        return listener.resultOf(part);
    }

    /**
     * The part's result given how it ended: a part that left processes running fails; a failed part's report
     * shows what it printed (capped).
     */
    static Results.TestResult settle(Part p, Results.TestResult r, Sandbox.PartEnd end) {
        if (!end.killedProcesses().isEmpty()) {
            List<String> k = end.killedProcesses();
            return Results.TestResult.of(p, false, Report.of(p, "left processes running").about("These"
                    + " processes were started by the part's code and were still running when the part ended: "
                    + Guard.clip(k.toString(), 500) + ". They were killed. Code under grading must not start"
                    + " processes that outlive it.").noHint().text(), "left " + k.size()
                    + " process(es) running: " + Guard.clip(String.join(", ", k), 100));
        }
        if (r.passed() || end.outputBytes() == 0) {
            return r;
        }
        String printed = "\nWhat your code printed (" + end.outputBytes() + " bytes"
                + (end.outputBytes() > 2L * Sandbox.OUTPUT_KEEP ? "; the start and the end are kept" : "") + "):\n"
                + end.output();
        return r.withOutput(printed);
    }

    /**
     * The parts to grade, in course order: the assignment's (--assignment; every part by default), narrowed by
     * --parts (part numbers or globs) and --only (Surefire's -Dtest pattern, e.g. {@code 'Part12a*'}).
     *
     * @throws IllegalArgumentException an unknown assignment, or a --parts pattern that matches no part
     */
    List<Part> discover() throws IOException {
        return options.selectedParts();
    }
}
