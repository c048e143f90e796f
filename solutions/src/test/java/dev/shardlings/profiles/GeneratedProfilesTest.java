package dev.shardlings.profiles;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.shardlings.cost.CpuCalibration;
import dev.shardlings.cost.HardwareModel;
import org.apache.commons.text.StringEscapeUtils;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every file the profile command writes, written here in full — every reference solution on every hardware model,
 * this machine's calibrated one included, into {@code target/profiles-checked/} — and checked as a browser and
 * Perfetto would read it: the slices of each trace thread nest at whole nanoseconds, every label of every SVG (the
 * files, the pictures inside index.html and the copies docs/profiles.md shows) lies inside its picture, and
 * index.html links every file written.
 */
class GeneratedProfilesTest {

    private static final Path OUT = Path.of("target/profiles-checked");
    private static final Path DOCS_PICTURES = Path.of("../docs/profiles");
    /** The pages that quote the model's figures. */
    private static final List<Path> PAGES = List.of(Path.of("../docs/profiles.md"), Path.of("../docs/chapter-7.md"));
    /** A figure a page quotes: {@code <!--f:NAME-->VALUE}. */
    private static final Pattern QUOTED = Pattern.compile(
            "<!--f:([A-Za-z0-9_]+)-->(\\d{1,3}(?:,\\d{3})+(?:\\.\\d+)?|\\d+(?:\\.\\d+)?)");
    /**
     * A generated table in a page, with a blank line on either side: in GitHub's Markdown a line right after a
     * table's last row would be read as one more row.
     */
    private static final Pattern GENERATED = Pattern.compile(
            "(<!-- generated: ([a-z0-9-]+)[^\\n]*-->\\n\\n)(.*?)(\\n<!-- /generated -->)", Pattern.DOTALL);

    private static List<ReferenceProfiles.Result> results;

    @BeforeAll
    static void generate() throws IOException {
        if (Files.exists(OUT)) {
            try (Stream<Path> old = Files.walk(OUT)) {
                for (Path p : old.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
        List<HardwareModel> models = new ArrayList<>();
        for (String name : HardwareModel.BUILT_IN) {
            models.add(HardwareModel.builtIn(name));
        }
        models.add(CpuCalibration.measure());
        results = ReferenceProfiles.write(OUT, ReferenceProfiles.programs(), models, ProfilePage.PerformanceSetting.read(
                Optional.of(Path.of("../grader/src/main/resources/dev/shardlings/grader/checks/reference-times.json"))));
    }

    /**
     * With {@code -Dprofiles.updateDocs=true}, writes the generated tables and figures into the pages first (what
     * an instructor runs after changing the model on purpose); the checks below then hold them.
     */
    private static void updateIfAsked(Map<String, String> tables, Map<String, String> figures) throws IOException {
        if (!Boolean.getBoolean("profiles.updateDocs")) {
            return;
        }
        for (Path page : PAGES) {
            String text = Files.readString(page);
            text = GENERATED.matcher(text).replaceAll(m -> Matcher.quoteReplacement(m.group(1)
                    + tables.getOrDefault(m.group(2), m.group(3)) + m.group(4)));
            text = QUOTED.matcher(text).replaceAll(m -> Matcher.quoteReplacement("<!--f:" + m.group(1) + "-->"
                    + figures.getOrDefault(m.group(1), m.group(2))));
            Files.writeString(page, text);
        }
    }

    private static Map<String, String> tables() {
        Map<String, String> t = new java.util.LinkedHashMap<>();
        for (DocsTables.Table table : DocsTables.tables(results)) {
            t.put(table.name(), table.markdown());
        }
        return t;
    }

    /** What differs between a page and the generated tables and figures, one line each. */
    static List<String> stale(String page, String text, Map<String, String> tables, Map<String, String> figures) {
        List<String> problems = new ArrayList<>();
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            if (lines[i].strip().startsWith("<!--f:") || lines[i].strip().startsWith("<!--g:")) {
                // GitHub's Markdown starts an HTML block there, which cuts the paragraph and shows the rest raw
                problems.add(page + ":" + (i + 1) + ": a figure's marker begins the line; join it to the line before");
            }
        }
        Matcher g = GENERATED.matcher(text);
        while (g.find()) {
            String want = tables.get(g.group(2));
            if (want == null) {
                problems.add(page + ": no generated table named " + g.group(2));
            } else if (!want.equals(g.group(3))) {
                problems.add(page + ": the table " + g.group(2) + " differs from the profile command's tables/"
                        + g.group(2) + ".md:\n" + want);
            }
        }
        Matcher q = QUOTED.matcher(text);
        while (q.find()) {
            String want = figures.get(q.group(1));
            if (want == null) {
                problems.add(page + ": no generated figure named " + q.group(1));
            } else if (!want.equals(q.group(2))) {
                int line = text.substring(0, q.start()).split("\n", -1).length;
                problems.add(page + ":" + line + ": figure " + q.group(1) + " says " + q.group(2) + ", the model now "
                        + want);
            }
        }
        return problems;
    }

    /**
     * The figures of profiles.md's "Modelled against measured on one H100" table: the model now on each measured
     * per-chip program, its ratio to the measurement (measurements/matmuls/h100-2026-11-27-*.json), and how much of
     * the measured grid it holds within ±25 %.
     */
    private static Map<String, String> measuredFigures() throws IOException {
        Map<String, String> f = new java.util.LinkedHashMap<>();
        ObjectMapper json = new ObjectMapper();
        Path dir = Path.of("..", "measurements", "matmuls");
        HardwareModel h100 = HardwareModel.builtIn("h100-8-nvlink");
        JsonNode table = json.readTree(dir.resolve("h100-2026-11-27-table.json").toFile());
        String[] names = {"1", "4", "8", "big"};
        int i = 0;
        for (JsonNode row : table.get("rows")) {
            double model = 1e6 * dev.shardlings.cost.MatmulStep.modelledSeconds(h100,
                    dev.shardlings.cost.ModelDtype.of(row.get("dtype").asText()), row.get("m").asInt(),
                    row.get("K").asInt(), row.get("chunks").asInt());
            f.put("h_m" + names[i], model >= 1000 ? grouped(model) : DocsTables.f1(model));
            f.put("h_r" + names[i], DocsTables.f2(model / row.get("measured_us").asDouble()));
            i++;
        }
        for (JsonNode p : table.get("programs")) {
            String program = p.get("program").asText();
            double measured = p.get("measured_us").asDouble();
            if (program.equals("seed-001-mlp-step")) {
                String name = p.get("variant").asText().startsWith("8-way") ? "8" : "42";
                ReferenceProfiles.Result r = DocsTables.find(results, program, p.get("variant").asText(),
                        "h100-8-nvlink").orElseThrow();
                double compute = r.timeline().computeSeconds(0) * 1e6;
                f.put("h_s" + name, grouped(compute));
                f.put("h_rs" + name, DocsTables.f2(compute / measured));
            } else if (program.equals("stream")) {
                double model = streamMicros(h100);
                f.put("h_stream", DocsTables.f0(model));
                f.put("h_rstream", DocsTables.f2(model / measured));
            }
        }
        JsonNode grid = json.readTree(dir.resolve("h100-2026-11-27-grid.json").toFile()).get("rows");
        int within = 0;
        double sum = 0;
        for (JsonNode row : grid) {
            double model = 1e6 * dev.shardlings.cost.MatmulStep.modelledSeconds(h100,
                    dev.shardlings.cost.ModelDtype.of(row.get("dtype").asText()), row.get("m").asInt(),
                    row.get("K").asInt(), row.get("chunks").asInt());
            double err = Math.abs(model / row.get("measured_us").asDouble() - 1);
            sum += err;
            within += err <= 0.25 ? 1 : 0;
        }
        f.put("h_grid_in", Integer.toString(within));
        f.put("h_grid_mean", DocsTables.f0(100 * sum / grid.size()));
        return f;
    }

    private static String grouped(double v) {
        return String.format(java.util.Locale.ROOT, "%,.0f", v);
    }

    /** x · 1.5 + 1 over 1 GiB of float32 on one chip: a multiply and an add, one fused kernel (as the chip ran it). */
    private static double streamMicros(HardwareModel h100) {
        int n = 256 * 1024 * 1024;
        List<dev.shardlings.events.TraceEvent> events = List.of(
                new dev.shardlings.events.TraceEvent.LocalOpEvent(dev.shardlings.array.BinaryOp.MUL,
                        dev.shardlings.array.DType.FLOAT32, List.of(n), n, 8L * n + 4, 1, List.of(0L)),
                new dev.shardlings.events.TraceEvent.LocalOpEvent(dev.shardlings.array.BinaryOp.ADD,
                        dev.shardlings.array.DType.FLOAT32, List.of(n), n, 8L * n + 4, 2, List.of(1L)));
        dev.shardlings.events.DeviceTrace device = new dev.shardlings.events.DeviceTrace(0, List.of(0), events,
                4L * n, 8L * n, 4L * n);
        dev.shardlings.events.Trace trace = new dev.shardlings.events.Trace(List.of(
                new dev.shardlings.events.ShardMapTrace("stream", dev.shardlings.sharding.Mesh.makeMesh(new int[]{1},
                        "chip"), List.of(dev.shardlings.sharding.PartitionSpec.P()),
                        List.of(dev.shardlings.sharding.PartitionSpec.P()), List.of(device))), List.of(), 0);
        return dev.shardlings.cost.CostModel.schedule(trace, h100, dev.shardlings.cost.ModelDtype.FLOAT32).seconds()
                * 1e6;
    }

    @Test
    void everyTableAndFigureThePagesQuoteIsTheGeneratedOne() throws IOException {
        Map<String, String> tables = tables();
        Map<String, String> figures = new java.util.LinkedHashMap<>(DocsTables.figures(results));
        figures.putAll(measuredFigures());
        updateIfAsked(tables, figures);
        List<String> problems = new ArrayList<>();
        Set<String> quoted = new TreeSet<>();
        Set<String> shown = new TreeSet<>();
        for (Path page : PAGES) {
            String text = Files.readString(page);
            problems.addAll(stale(page.getFileName().toString(), text, tables, figures));
            QUOTED.matcher(text).results().forEach(m -> quoted.add(m.group(1)));
            GENERATED.matcher(text).results().forEach(m -> shown.add(m.group(2)));
        }
        assertEquals(List.of(), problems, "after a change to the model or a solution on purpose, run the profiles"
                + " (mvn -B -Pprofile verify) or this test with -Dprofiles.updateDocs=true to rewrite the pages");
        Set<String> unquoted = new TreeSet<>(figures.keySet());
        unquoted.removeAll(quoted);
        assertEquals(Set.of(), unquoted, "generated figures no page quotes");
        assertEquals(tables.keySet(), shown, "every generated table is shown in a page");
    }

    private static double us(String problem, String variant, String chip) {
        return DocsTables.find(results, problem, variant, chip).orElseThrow().timeline().micros();
    }

    /**
     * The comparisons docs/profiles.md draws in words ("loses on both TPUs", "wins on every model", "the last device
     * sets the time"): each one, as the model has it now. A model change that turns one round fails here, so the
     * sentence is rewritten, not only its numbers.
     */
    @Test
    void theConclusionsThePagesDrawHold() {
        List<String> tpus = List.of("tpu-v5e", "tpu-v4");
        List<String> chips = List.of("tpu-v5e", "tpu-v4", "h100-8-nvlink");
        String agF = "all-gather-matmul-f" + ReferenceProfiles.LARGER_F;
        String rsF = "reduce-scatter-matmul-f" + ReferenceProfiles.LARGER_F;
        for (String chip : tpus) {
            assertTrue(us("all-gather-matmul", "bidirectional", chip) > us("all-gather-matmul", "collective", chip),
                    "on a line the bidirectional all-gather matmul loses: " + chip);
            assertTrue(us("reduce-scatter-matmul", "bidirectional", chip) < us("reduce-scatter-matmul", "collective",
                    chip), "the bidirectional reduce-scatter matmul is the exception: " + chip);
            assertTrue(us("all-gather-matmul", "collective", chip) < us("all-gather-matmul", "naive", chip),
                    "overlap helps on a TPU: " + chip);
        }
        for (String chip : chips) {
            assertTrue(us(agF, "bidirectional", chip) > us(agF, "collective", chip)
                    && us(rsF, "bidirectional", chip) > us(rsF, "collective", chip),
                    "at F × 4 the bidirectional versions lose on every chip: " + chip);
            assertTrue(us("seed-001-mlp-step", "4x2-data-tensor-parallel", chip)
                    < us("seed-001-mlp-step", "8-way-data-parallel", chip), "tensor parallelism wins: " + chip);
        }
        double[] cube = DocsTables.cubeAllGatherMatmuls();
        assertTrue(cube[1] < cube[0], "on a wrapping 64-chip v4 slice the bidirectional all-gather matmul wins: "
                + cube[1] + " against " + cube[0] + " µs");
        String h100 = "h100-8-nvlink";
        assertTrue(us("all-gather-matmul", "naive", h100) < us("all-gather-matmul", "collective", h100)
                && us(agF, "naive", h100) < us(agF, "collective", h100), "on an H100 the naive all-gather matmul wins");
        assertTrue(us("all-reduce-matmul", "bidirectional", h100) < us("all-reduce-matmul", "collective-4-tiles", h100)
                && tpus.stream().allMatch(c -> us("all-reduce-matmul", "bidirectional", c)
                > us("all-reduce-matmul", "collective-4-tiles", c)), "4.1's ring wins only on 8×H100");
        assertTrue(Math.abs(us("pipeline", "1f1b", "tpu-v5e") / us("pipeline", "gpipe", "tpu-v5e") - 1) < 0.05,
                "1F1B takes about GPipe's time");
        ReferenceProfiles.Result causal = DocsTables.find(results, "ring-attention", "causal", "tpu-v5e").orElseThrow();
        assertEquals(causal.timeline().seconds(), causal.timeline().computeSeconds(7), 1e-9,
                "the causal ring's last device computes for the whole time");
        ReferenceProfiles.Result remat = DocsTables.find(results, "rematerialised-step", "checkpoint-every-layer",
                "tpu-v5e").orElseThrow();
        assertTrue(remat.timeline().computeSeconds(0) < 0.5 * remat.timeline().seconds(),
                "7.6's recomputation hides behind its links");
    }

    /**
     * Part 7.5's lesson, as its timelines show it: each bfloat16 all-gather takes at most 0.7× the time of a float32
     * reduce-scatter of the same weights, on both TPUs and on 8×H100 (each collective timed by its own bytes).
     */
    @Test
    void sevenFivesBfloat16GathersTakeAtMostSevenTenthsOfItsFloat32ReduceScatters() {
        for (String chip : List.of("tpu-v5e", "tpu-v4", "h100-8-nvlink")) {
            ReferenceProfiles.Result r = results.stream().filter(x -> x.program().problem().equals("mixed-precision-step")
                    && x.model().name().equals(chip)).findFirst().orElseThrow();
            double gather = 0;
            double scatter = Double.MAX_VALUE;
            for (dev.shardlings.cost.Timeline.Span s : r.timeline().spans()) {
                if (s.category().equals("collective") && s.name().startsWith("all_gather ")) {
                    gather = Math.max(gather, s.seconds());
                } else if (s.category().equals("collective") && s.name().startsWith("psum_scatter ")) {
                    scatter = Math.min(scatter, s.seconds());
                }
            }
            assertTrue(gather > 0 && gather <= 0.7 * scatter, chip + ": the longest bf16 all-gather " + gather
                    + " s against the shortest f32 reduce-scatter " + scatter + " s");
        }
    }

    @Test
    void aFigureThatDriftsFromTheModelIsCaught() {
        Map<String, String> figures = Map.of("x", "438.1");
        Map<String, String> tables = Map.of("t", "| a |\n| --- |\n| 1.0 |\n");
        String page = "busy 100 of the <!--f:x-->438.1 µs\n<!-- generated: t -->\n\n| a |\n| --- |\n| 1.0 |\n"
                + "\n<!-- /generated -->\n";
        assertEquals(List.of(), stale("p.md", page, tables, figures));
        List<String> drifted = stale("p.md", page.replace("438.1", "356.6").replace("| 1.0 |", "| 1.1 |"), tables,
                figures);
        assertEquals(2, drifted.size(), drifted.toString());
        assertTrue(drifted.get(0).startsWith("p.md: the table t differs"), drifted.toString());
        assertEquals("p.md:1: figure x says 356.6, the model now 438.1", drifted.get(1));
        assertEquals(List.of("p.md:2: a figure's marker begins the line; join it to the line before"),
                stale("p.md", "busy 100 of the\n  <!--f:x-->438.1 µs\n", Map.of(), figures));
    }

    @Test
    void everyTraceThreadHasNestedSlicesAtWholeNanoseconds() throws IOException {
        List<Path> traces = files(OUT.resolve("perfetto"), ".json");
        assertEquals(files(OUT.resolve("svg"), ".svg").size(), traces.size(), "a trace per picture");
        assertTrue(traces.size() >= 100, "every program on every model: " + traces.size());
        List<String> problems = new ArrayList<>();
        for (Path trace : traces) {
            problems.addAll(overlaps(new ObjectMapper().readTree(trace.toFile()), trace.getFileName().toString()));
        }
        assertEquals(List.of(), problems, "slices of one thread that partly overlap");
    }

    @Test
    void theNestingCheckCatchesAPartialOverlap() throws IOException {
        // The book's v5e case before issue 36: two ppermutes on one link thread, [0, 26.30] and [24.30, 50.60] µs.
        JsonNode bad = new ObjectMapper().readTree("{\"traceEvents\": ["
                + "{\"ph\": \"X\", \"pid\": 3, \"tid\": 1, \"ts\": 0, \"dur\": 26.3, \"name\": \"a\"},"
                + "{\"ph\": \"X\", \"pid\": 3, \"tid\": 1, \"ts\": 24.3, \"dur\": 26.3, \"name\": \"b\"},"
                + "{\"ph\": \"X\", \"pid\": 3, \"tid\": 2, \"ts\": 0, \"dur\": 10, \"name\": \"outer\"},"
                + "{\"ph\": \"X\", \"pid\": 3, \"tid\": 2, \"ts\": 2, \"dur\": 3, \"name\": \"inner\"}]}");
        assertEquals(List.of("x: device 3, thread 1: b [24300, 50600] ns overlaps a [0, 26300] ns"),
                overlaps(bad, "x"));
    }

    @Test
    void everySvgLabelLiesInsideItsPicture() throws IOException {
        List<String> problems = new ArrayList<>();
        int pictures = 0;
        List<Path> svgs = new ArrayList<>(files(OUT.resolve("svg"), ".svg"));
        svgs.addAll(files(DOCS_PICTURES, ".svg"));
        for (Path svg : svgs) {
            problems.addAll(labelsOutside(Files.readString(svg), svg.toString()));
            pictures++;
        }
        Matcher inline = Pattern.compile("<svg .*?</svg>", Pattern.DOTALL)
                .matcher(Files.readString(OUT.resolve("index.html")));
        while (inline.find()) {
            problems.addAll(labelsOutside(inline.group(), "index.html, picture " + pictures++));
        }
        assertTrue(pictures > 100, "pictures checked: " + pictures);
        assertEquals(List.of(), problems, "labels outside their picture");
    }

    @Test
    void theDocsShowTheGeneratorsPictures() throws IOException {
        List<String> stale = new ArrayList<>();
        for (Path copy : files(DOCS_PICTURES, ".svg")) {
            Path fresh = OUT.resolve("svg").resolve(copy.getFileName());
            if (!Files.exists(fresh) || !Files.readString(fresh).equals(Files.readString(copy))) {
                stale.add(copy.getFileName().toString());
            }
        }
        assertEquals(List.of(), stale, "docs/profiles/ pictures that differ from what the profile command draws now;"
                + " after `mvn -B -Pprofile verify`, copy them from solutions/target/profiles/svg/");
    }

    @Test
    void theLabelCheckCatchesACutLabel() {
        // Two labels of the pictures before issue 36: the last tick, centred on the right edge, and a lane label
        // right-aligned at x = 184 that needs more than 184 pixels.
        String svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"1000\" height=\"100\" font-size=\"11\">"
                + "<text x=\"980.0\" y=\"90\" text-anchor=\"middle\">296.6 µs</text>"
                + "<text x=\"184\" y=\"40\" text-anchor=\"end\">device 0 (batch=0, model=0) compute</text>"
                + "<text x=\"4\" y=\"16\" font-size=\"13\" font-weight=\"bold\">fits</text></svg>";
        List<String> problems = labelsOutside(svg, "x");
        assertEquals(2, problems.size(), problems.toString());
        assertTrue(problems.get(0).startsWith("x: \"296.6 µs\" spans"), problems.toString());
    }

    @Test
    void theIndexLinksEveryFileItWroteAndExplainsEveryColumn() throws IOException {
        String html = Files.readString(OUT.resolve("index.html"));
        Set<String> linked = new TreeSet<>();
        Matcher m = Pattern.compile("href=\"([^\"#][^\"]*)\"").matcher(html);
        while (m.find()) {
            linked.add(StringEscapeUtils.unescapeHtml4(m.group(1)));
        }
        Set<String> written = new TreeSet<>();
        try (Stream<Path> all = Files.walk(OUT)) {
            all.filter(Files::isRegularFile).map(p -> OUT.relativize(p).toString().replace('\\', '/'))
                    .filter(p -> !p.equals("index.html")).forEach(written::add);
        }
        written.removeAll(linked);
        assertEquals(Set.of(), written, "files index.html does not link");
        assertTrue(html.contains("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"));
        Matcher header = Pattern.compile("<h2 id=\"table\">.*?<tr>(.*?)</tr>", Pattern.DOTALL).matcher(html);
        assertTrue(header.find());
        Matcher th = Pattern.compile("<th>([^<]*)</th>").matcher(header.group(1));
        String explained = html.substring(html.indexOf("<dl>", header.end()));
        while (th.find()) {
            String column = StringEscapeUtils.unescapeHtml4(th.group(1));
            boolean chip = HardwareModel.BUILT_IN.contains(column) || column.equals("cpu-local");
            assertTrue(chip ? explained.contains("<dt>one column per hardware model</dt>")
                    : explained.contains("<dt>" + column) || explained.contains(", " + column + "</dt>"),
                    "column " + column + " is explained");
        }
        assertTrue(html.contains("ui.perfetto.dev") && html.contains("Open trace file"), "how to open a trace");
        assertTrue(!html.contains("press <em>Load</em>"), "chrome://tracing no longer opens these traces: not offered");
        assertTrue(html.contains("No device work recorded"), "an empty timeline says why");
        Matcher zero = Pattern.compile(">0\\.0+ (µs|ms|s)</(a|td)>").matcher(html);
        assertTrue(!zero.find(), "a table shows a time under a tenth of its unit in a smaller one: " + html);
    }

    /** The partial overlaps of a trace's slices, thread by thread, at whole nanoseconds (as Perfetto reads them). */
    static List<String> overlaps(JsonNode trace, String name) {
        Map<String, List<long[]>> threads = new HashMap<>();
        Map<String, List<String>> names = new HashMap<>();
        for (JsonNode e : trace.get("traceEvents")) {
            if (!e.get("ph").asText().equals("X")) {
                continue;
            }
            String thread = "device " + e.get("pid").asInt() + ", thread " + e.get("tid").asInt();
            long ts = Math.round(e.get("ts").asDouble() * 1000);
            threads.computeIfAbsent(thread, k -> new ArrayList<>())
                    .add(new long[]{ts, ts + Math.round(e.get("dur").asDouble() * 1000), names.computeIfAbsent(
                            thread, k -> new ArrayList<>()).size()});
            names.get(thread).add(e.get("name").asText());
        }
        List<String> out = new ArrayList<>();
        for (Map.Entry<String, List<long[]>> t : new java.util.TreeMap<>(threads).entrySet()) {
            List<long[]> slices = new ArrayList<>(t.getValue());
            slices.sort(Comparator.<long[]>comparingLong(s -> s[0]).thenComparingLong(s -> -s[1]));
            List<long[]> open = new ArrayList<>();
            for (long[] s : slices) {
                while (!open.isEmpty() && open.get(open.size() - 1)[1] <= s[0]) {
                    open.remove(open.size() - 1);
                }
                if (!open.isEmpty() && s[1] > open.get(open.size() - 1)[1]) {
                    long[] o = open.get(open.size() - 1);
                    out.add(name + ": " + t.getKey() + ": " + names.get(t.getKey()).get((int) s[2]) + " [" + s[0] + ", "
                            + s[1] + "] ns overlaps " + names.get(t.getKey()).get((int) o[2]) + " [" + o[0] + ", "
                            + o[1] + "] ns");
                }
                open.add(s);
            }
        }
        return out;
    }

    /** The text labels of an SVG that reach outside it, by a conservative estimate of their width. */
    static List<String> labelsOutside(String svg, String name) {
        Matcher root = Pattern.compile("<svg [^>]*width=\"([0-9.]+)\" height=\"([0-9.]+)\"[^>]*font-size=\"([0-9.]+)\"")
                .matcher(svg);
        assertTrue(root.find(), name + " has a width, a height and a font size");
        double width = Double.parseDouble(root.group(1));
        double height = Double.parseDouble(root.group(2));
        double rootFont = Double.parseDouble(root.group(3));
        List<String> out = new ArrayList<>();
        Matcher text = Pattern.compile("<text ([^>]*)>([^<]*)</text>").matcher(svg);
        while (text.find()) {
            String attrs = text.group(1);
            String label = StringEscapeUtils.unescapeXml(text.group(2));
            double x = Double.parseDouble(attr(attrs, "x").orElse("0"));
            double y = Double.parseDouble(attr(attrs, "y").orElse("0"));
            double size = Double.parseDouble(attr(attrs, "font-size").orElse(String.valueOf(rootFont)));
            double w = width(label, size, attr(attrs, "font-weight").filter(v -> v.equals("bold")).isPresent());
            String anchor = attr(attrs, "text-anchor").orElse("start");
            double left = anchor.equals("middle") ? x - w / 2 : anchor.equals("end") ? x - w : x;
            // A baseline at y: ascenders reach about 0.8 em above it, descenders 0.25 em below.
            if (left < 0 || left + w > width || y - 0.8 * size < 0 || y + 0.25 * size > height) {
                out.add(String.format(java.util.Locale.ROOT, "%s: \"%s\" spans x [%.1f, %.1f], y [%.1f, %.1f] of"
                        + " %.0f × %.0f", name, label, left, left + w, y - 0.8 * size, y + 0.25 * size, width, height));
            }
        }
        return out;
    }

    private static Optional<String> attr(String attrs, String name) {
        Matcher m = Pattern.compile("(?:^|\\s)" + Pattern.quote(name) + "=\"([^\"]*)\"").matcher(attrs);
        return m.find() ? Optional.of(m.group(1)) : Optional.empty();
    }

    /**
     * An upper bound on a label's width: per character the advance of DejaVu Sans (the widest usual sans-serif;
     * Arial and Helvetica are narrower) rounded up per class of characters, in em; bold 15 % wider.
     */
    private static double width(String label, double size, boolean bold) {
        double em = 0;
        for (int c : label.codePoints().toArray()) {
            if (" .,:;'|!ilIjft()[]-/·".indexOf(c) >= 0) {
                em += 0.45;
            } else if ("mwMW".indexOf(c) >= 0) {
                em += 1.0;
            } else if (Character.isLowerCase(c) && c < 128 || Character.isDigit(c) || c == 'µ') {
                em += 0.65;
            } else if (Character.isUpperCase(c) && c < 128) {
                em += 0.8;
            } else if ("=+<>→×~#&".indexOf(c) >= 0) {
                em += 0.85;
            } else {
                em += 1.0;
            }
        }
        return em * size * (bold ? 1.15 : 1);
    }

    private static List<Path> files(Path dir, String suffix) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.toString().endsWith(suffix)).sorted().toList();
        }
    }
}
