package dev.shardlings.grader.checks;

import dev.shardlings.grader.parts.TimedResult;
import dev.shardlings.grader.parts.TimedSetting;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.shardlings.cost.CostModel;
import dev.shardlings.cost.HardwareModel;
import dev.shardlings.cost.ModelDtype;
import dev.shardlings.cost.PerfettoTrace;
import dev.shardlings.cost.Timeline;
import dev.shardlings.cost.TimelineSvg;
import dev.shardlings.grader.parts.Check;
import dev.shardlings.grader.parts.CheckLog;
import dev.shardlings.grader.parts.Part;
import dev.shardlings.grader.judge.CaseRun;
import dev.shardlings.grader.judge.GradingFailure;
import dev.shardlings.grader.judge.Guard;
import dev.shardlings.grader.judge.Report;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * Performance points: a part's program, run at a fixed size, modelled on a named accelerator by the framework's
 * {@link CostModel}, must come within {@link #LIMIT} times the modelled time of the reference solution.
 *
 * <p>The reference times are data ({@code reference-times.json} beside this class), never computed by calling
 * solutions/ during a grade. When the graded target is the reference solutions themselves (the build),
 * {@link #requireFresh} checks that they are exactly the solutions' current times and writes the current ones next
 * to results.json, ready to copy when a solution changes on purpose.
 */
public final class ModelledTime {

    /** How far above the reference a student's modelled time may be. */
    public static final double LIMIT = 1.25;

    /** Time limit of the one measured run of a performance part. */
    static final java.time.Duration MEASURED_RUN_LIMIT = java.time.Duration.ofSeconds(60);

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    private static final String RESOURCE = "reference-times.json";

    private ModelledTime() {
    }

    /**
     * Checks a part's modelled time.
     *
     * @param part      the performance part
     * @param base      the part whose correctness it builds on
     * @param baseCheck that part's check on one small case; it must pass first
     * @param setting   model, dtype and case
     * @param program   runs the implementation at the setting's sizes
     * @return both times, and the line for the report
     * @throws GradingFailure when the base check fails (its kind, with a reason that names the base part), the
     *                        program fails, or the modelled time is above the limit ({@code PERFORMANCE})
     */
    public static TimedResult check(Part part, Part base, Runnable baseCheck, TimedSetting setting, Supplier<Object> program) {
        return check(part, base, baseCheck, setting, program, run -> {
        });
    }

    /**
     * {@link #check(Part, Part, Runnable, TimedSetting, Supplier)} that also requires the measured run itself to be
     * right: {@code verify} sees the case, the run's value and its trace before its time is modelled, and
     * throws a {@link GradingFailure} when the answer or the work is wrong (a program that returned early, or did
     * its work where the model cannot see it, must not be timed).
     */
    public static TimedResult check(Part part, Part base, Runnable baseCheck, TimedSetting setting, Supplier<Object> program,
                               java.util.function.Consumer<CaseRun<Object>> verify) {
        try {
            baseCheck.run();
        } catch (GradingFailure f) {
            // A stub still to write keeps its "not implemented yet" reason, so the table shows the part as TO DO.
            String reason = f.kind() == GradingFailure.Kind.NOT_DONE ? f.reason()
                    : "needs part " + base.number() + " first: " + f.reason();
            // The base part's report already ends with where its code and docs are.
            throw Report.of(part, "is graded once part " + base.number() + " passes")
                    .about("Part " + base.number() + " does not pass yet:").paragraph(f.getMessage().strip())
                    .noHint().noPointers().failure(f.kind(), reason, f);
        }
        String text = "Case: " + setting.caseText() + "; modelled on " + setting.hardware() + " in "
                + setting.dtype().jaxName();
        // The measured run is the largest of the course (gigaFLOPs on a busy 2-core machine): allow more than the
        // per-call default, still well inside the grade's per-part limit.
        CaseRun<Object> outcome = Guard.run(part, text, program, MEASURED_RUN_LIMIT);
        verify.accept(outcome);
        CheckLog.ran(Check.MODELLED_TIME);
        Timeline t = CostModel.schedule(outcome.trace(), MODELS.computeIfAbsent(setting.hardware(), HardwareModel::builtIn), setting.dtype());
        double us = t.micros();
        Double ref = reference(part);
        if (ref == null) {
            if ("solutions".equals(System.getProperty("grade.target"))) {
                // a new part: write the solution's time beside results.json, ready to copy as the message says
                record(part, setting, us);
            }
            throw Report.of(part, "has no reference time").about("reference-times.json has no entry for part "
                            + part.number() + ". Grade the reference solutions (mvn test -Pgrade"
                            + " -Dgrade.target=solutions) and copy " + written() + " to grader/src/main/resources/"
                            + "dev/shardlings/grader/checks/" + RESOURCE + ".").noHint().noPointers()
                    .failure(GradingFailure.Kind.EXCEPTION, "no reference time for part " + part.number());
        }
        String numbers = String.format(Locale.ROOT, "modelled %.2f µs on %s, reference %.2f µs (limit %.2f× = %.2f µs)",
                us, setting.hardware(), ref, LIMIT, LIMIT * ref);
        if (us > LIMIT * ref) {
            Path files = save(part, t);
            throw outcome.report("is correct but slower than the reference on the modelled hardware")
                    .paragraph(numbers + ".")
                    .lines(breakdown(t))
                    .paragraph("Your timeline: " + files.resolveSibling(files.getFileName() + ".svg")
                            + " (open in a browser) and " + files.resolveSibling(files.getFileName() + ".json")
                            + " (open at ui.perfetto.dev).")
                    .lines("Look for work the reference does not do: extra copies or concatenations, products"
                            + " computed at full size and then sliced, or transfers that wait for a matmul they do"
                            + " not need.")
                    .failure(GradingFailure.Kind.PERFORMANCE, String.format(Locale.ROOT,
                            "modelled %.1f µs, %.2f× the reference %.1f µs (limit %.2f×)", us, us / ref, ref, LIMIT));
        }
        return new TimedResult(us, ref, numbers);
    }

    /** Where the device time went: compute and link busy time of the busiest device. */
    private static String breakdown(Timeline t) {
        int busiest = -1;
        double most = -1;
        for (Timeline.Device d : t.devices()) {
            double c = t.computeSeconds(d.id());
            if (c > most) {
                most = c;
                busiest = d.id();
            }
        }
        StringBuilder sb = new StringBuilder("Busiest device: ");
        int id = busiest;
        String label = t.devices().stream().filter(d -> d.id() == id).findFirst().map(Timeline.Device::label)
                .orElse("device " + id);
        sb.append(label).append(String.format(Locale.ROOT, ", compute busy %.2f µs of %.2f µs", most * 1e6,
                t.micros()));
        double links = t.spans().stream().filter(s -> s.device() == id && !s.track().equals(Timeline.COMPUTE))
                .mapToDouble(Timeline.Span::seconds).sum();
        sb.append(String.format(Locale.ROOT, "; its links busy %.2f µs in all.%n", links * 1e6));
        long elementwise = t.spans().stream().filter(s -> s.device() == id && s.category().equals("elementwise"))
                .count();
        sb.append("Its compute spans: ").append(t.spans().stream().filter(s -> s.device() == id
                && s.track().equals(Timeline.COMPUTE)).count()).append(" (").append(elementwise)
                .append(" of them not matmuls).\n");
        return sb.toString();
    }

    private static Path save(Part part, Timeline t) {
        Path dir = gradeDir().resolve("profiles");
        Path base = dir.resolve("part-" + part.number());
        PerfettoTrace.write(t, "part " + part.number(), base.resolveSibling(base.getFileName() + ".json"));
        try {
            Files.writeString(base.resolveSibling(base.getFileName() + ".svg"),
                    TimelineSvg.render(t, "part " + part.number(), 1100));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return base;
    }

    private static Path gradeDir() {
        Path results = Path.of(System.getProperty("grade.results", "target/grade/results.json"));
        return results.toAbsolutePath().getParent();
    }

    /** Where {@link #record} writes the current times: beside results.json. */
    public static Path written() {
        return gradeDir().resolve(RESOURCE);
    }

    /** The stored reference time of a part, in µs, or null. */
    public static Double reference(Part part) {
        return REFERENCES.get(part.number());
    }

    /**
     * The reference times and hardware models, read once, when this class is first used: {@code IsolatedGrading}
     * does that before the sandbox runs any student code, so nothing the sandbox writes can change a limit.
     */
    private static final java.util.Map<String, Double> REFERENCES = loadReferences();
    private static final java.util.Map<String, HardwareModel> MODELS = new java.util.concurrent.ConcurrentHashMap<>();

    /** Reads the reference times and built-in hardware models now (see {@link #REFERENCES}). */
    public static void preload() {
        for (String name : HardwareModel.BUILT_IN) {
            MODELS.computeIfAbsent(name, HardwareModel::builtIn);
        }
    }

    private static java.util.Map<String, Double> loadReferences() {
        try (InputStream in = ModelledTime.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                return java.util.Map.of();
            }
            java.util.Map<String, Double> out = new java.util.LinkedHashMap<>();
            JSON.readTree(in).fields().forEachRemaining(e -> out.put(e.getKey(), e.getValue().get("modelled_us")
                    .asDouble()));
            return java.util.Map.copyOf(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * When the graded target is solutions/ (system property {@code grade.target}): records the time beside
     * results.json and requires it to equal the stored reference exactly. Does nothing for any other target.
     *
     * @throws AssertionError naming the file to copy when the stored time is stale
     */
    public static void requireFresh(Part part, TimedSetting setting, TimedResult r) {
        if (!"solutions".equals(System.getProperty("grade.target"))) {
            return;
        }
        record(part, setting, r.micros());
        if (r.micros() != r.reference()) {
            throw new AssertionError("part " + part.number() + ": the reference solution now models " + r.micros()
                    + " µs but reference-times.json says " + r.reference() + " µs. If the solution changed on"
                    + " purpose, copy " + written() + " to grader/src/main/resources/dev/shardlings/grader/checks/"
                    + RESOURCE + ".");
        }
    }

    /** Adds a part's current time to the reference file written beside results.json ({@link #written()}). */
    static synchronized void record(Part part, TimedSetting setting, double us) {
        Path file = written();
        try {
            Files.createDirectories(file.getParent());
            ObjectNode root = Files.exists(file) ? (ObjectNode) JSON.readTree(file.toFile()) : JSON.createObjectNode();
            root.putObject(part.number()).put("hardware", setting.hardware()).put("dtype", setting.dtype().jaxName())
                    .put("case", setting.caseText()).put("modelled_us", us);
            Files.writeString(file, JSON.writeValueAsString(root));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }
}
