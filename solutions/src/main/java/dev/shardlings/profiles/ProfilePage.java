package dev.shardlings.profiles;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.shardlings.cost.HardwareModel;
import dev.shardlings.cost.TimelineSvg;
import org.apache.commons.text.StringEscapeUtils;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

/**
 * The reference profiles' {@code index.html}: what an instructor opens. Every figure on it is computed from the
 * results it is given (the lead changes the hardware models; nothing here names a winner or a time): which variant
 * wins per problem and chip, the cases where the variant the course teaches as the better one loses, the chips'
 * ratios, the full table with its columns explained, the performance parts' settings (read from the grader's
 * {@code reference-times.json}), links to every file written, how to open a trace with and without a network, and
 * the timelines on one model as pictures that scale to the window.
 */
final class ProfilePage {

    /**
     * Variants of one problem that the page compares: the fastest one wins on a chip.
     *
     * @param problem  the problem, e.g. {@code "all-gather-matmul"}
     * @param variants the variants compared; when {@code ordered}, from the one the course expects to be slowest to
     *                 the one it teaches as the fastest
     * @param ordered  whether the course claims an order, so that a later variant slower than an earlier one is
     *                 flagged
     */
    record Comparison(String problem, List<String> variants, boolean ordered) {
        Comparison {
            variants = List.copyOf(variants);
        }
    }

    /**
     * The comparisons the course makes. The book's unsharded baseline is a bound (no communication at all), Problem
     * 2's top-2 routing does twice the work, and chapter 0's and Problem 1's programs are different exercises:
     * none of them is compared.
     */
    static final List<Comparison> COMPARISONS = List.of(
            new Comparison("collective-matmul-book", List.of("jit-allgather", "collective"), true),
            new Comparison("mixture-of-experts", List.of("all-gather", "ragged-all-to-all"), true),
            new Comparison("all-gather-matmul", List.of("naive", "collective", "bidirectional"), true),
            new Comparison("all-reduce-matmul", List.of("collective-4-tiles", "bidirectional"), true),
            new Comparison("reduce-scatter-matmul", List.of("collective", "bidirectional"), true),
            new Comparison("all-gather-matmul-f32768", List.of("naive", "collective", "bidirectional"), true),
            new Comparison("reduce-scatter-matmul-f32768", List.of("collective", "bidirectional"), true),
            new Comparison("transformer-block", List.of("jit", "naive", "collective"), true),
            new Comparison("seed-001-mlp-step", List.of("8-way-data-parallel", "4x2-data-tensor-parallel"), false),
            // the same bubble: 1F1B saves activation memory, not time
            new Comparison("pipeline", List.of("gpipe", "1f1b"), false));

    /**
     * The commit the page was made from and when.
     *
     * @param commit     the abbreviated commit id, or {@code "unknown"} outside a git checkout
     * @param commitTime the commit's date as git-commit-id-maven-plugin writes it, or empty
     * @param dirty      whether the working tree had uncommitted changes
     * @param madeAt     when the page was written
     */
    record MadeFrom(String commit, String commitTime, boolean dirty, Instant madeAt) {

        /** From the {@code git.properties} the profile build writes beside this class (unknown without it). */
        static MadeFrom read(Instant madeAt) {
            Properties p = new Properties();
            try (InputStream in = ProfilePage.class.getResourceAsStream("git.properties")) {
                if (in != null) {
                    p.load(in);
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read git.properties", e);
            }
            return new MadeFrom(p.getProperty("git.commit.id.abbrev", "unknown"),
                    p.getProperty("git.commit.time", ""), Boolean.parseBoolean(p.getProperty("git.dirty", "false")),
                    madeAt);
        }

        String text() {
            String when = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'", Locale.ROOT)
                    .format(madeAt.atOffset(ZoneOffset.UTC));
            String commitText = commit.equals("unknown") ? "an unknown commit (no git.properties: built outside the"
                    + " profile build or outside a git checkout)" : "commit " + commit
                    + (commitTime.isEmpty() ? "" : " of " + commitTime) + (dirty ? ", with uncommitted changes" : "");
            return "Made on " + when + " from " + commitText + ".";
        }
    }

    /**
     * A performance part's setting, as the grader's {@code reference-times.json} gives it.
     *
     * @param part        e.g. {@code "3.0p"}
     * @param hardware    the hardware model's name
     * @param dtype       the modelled dtype
     * @param caseText    the mesh and sizes in words
     * @param referenceUs the reference solution's modelled time in µs
     */
    record PerformanceSetting(String part, String hardware, String dtype, String caseText, double referenceUs) {

        /** The settings in the file, in its order; empty when the file is absent. */
        static List<PerformanceSetting> read(Optional<Path> file) throws IOException {
            List<PerformanceSetting> out = new ArrayList<>();
            if (file.isEmpty() || !Files.isRegularFile(file.get())) {
                return out;
            }
            JsonNode root = new ObjectMapper().readTree(file.get().toFile());
            root.fields().forEachRemaining(e -> out.add(new PerformanceSetting(e.getKey(),
                    e.getValue().get("hardware").asText(), e.getValue().get("dtype").asText(),
                    e.getValue().get("case").asText(), e.getValue().get("modelled_us").asDouble())));
            return out;
        }
    }

    private ProfilePage() {
    }

    /** Where each result's files are, relative to the page. */
    static String trace(ReferenceProfiles.Result r) {
        return "perfetto/" + r.program().key() + "--" + r.model().name() + ".json";
    }

    static String picture(ReferenceProfiles.Result r) {
        return "svg/" + r.program().key() + "--" + r.model().name() + ".svg";
    }

    // Text stays at a readable width; tables may use the whole window, so that at 1400 px no column hides.
    private static final String STYLE = "body{font-family:sans-serif;margin:1em auto;padding:0 1em;line-height:1.4}"
            + "p,ul,dl,h1,h2,h3{max-width:1100px}"
            + ".scroll{overflow-x:auto;max-width:100%}"
            + "table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:3px 8px;"
            + "text-align:right;vertical-align:top}th,td.name{text-align:left}"
            // A figure and its unit, or a chip's name, stay on one line; names of programs may wrap.
            + "td:not(.name),td a{white-space:nowrap}"
            + ".loses{color:#a4000f}"
            // A timeline keeps its full size (labels stay readable on a phone) and scrolls sideways in its box.
            + ".timeline{overflow-x:auto;max-width:100%}.timeline svg{display:block}"
            + "dt{font-weight:bold}dd{margin:0 0 .5em 1.5em}code{font-size:95%}";

    /**
     * The page.
     *
     * @param results  every program on every model, the models in {@code models} order within each program
     * @param models   the hardware models, in column order
     * @param pictured the model whose timelines are drawn on the page
     * @param settings the performance parts' settings (may be empty)
     */
    static String html(List<ReferenceProfiles.Result> results, List<HardwareModel> models, String pictured,
                       MadeFrom madeFrom, List<PerformanceSetting> settings) {
        List<List<ReferenceProfiles.Result>> rows = new ArrayList<>();
        for (int r = 0; r < results.size(); r += models.size()) {
            rows.add(results.subList(r, r + models.size()));
        }
        StringBuilder sb = new StringBuilder("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                + "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                + "<title>Shardlings reference profiles</title><style>" + STYLE + "</style></head><body>\n"
                + "<h1>Shardlings reference profiles</h1>\n");
        sb.append("<p>").append(esc(madeFrom.text())).append("</p>\n");
        sb.append("<p>Every reference solution, run once (or, for seed 001's step, only lowered) and modelled on each"
                + " hardware model below by the cost model (docs/profiles.md explains it). The times are modelled,"
                + " not measured, except the <em>wall</em> column. Sections: <a href=\"#chips\">hardware models</a>,"
                + " <a href=\"#wins\">which variant wins</a>, <a href=\"#ratios\">chips compared</a>,"
                + " <a href=\"#table\">all results</a>, <a href=\"#performance-parts\">what the performance parts"
                + " grade with</a>, <a href=\"#files\">files and how to open a trace</a>,"
                + " <a href=\"#timelines\">timelines on ").append(esc(pictured)).append("</a>.</p>\n");
        chips(sb, models);
        fidelity(sb, results);
        wins(sb, rows, models);
        ratios(sb, rows, models, pictured);
        table(sb, rows, models);
        performanceParts(sb, settings);
        files(sb, rows, models);
        timelines(sb, results, pictured);
        return sb.append("</body></html>\n").toString();
    }

    private static void chips(StringBuilder sb, List<HardwareModel> models) {
        sb.append("<h2 id=\"chips\">Hardware models</h2>\n<dl>\n");
        for (HardwareModel m : models) {
            sb.append("<dt>").append(esc(m.name())).append("</dt><dd>").append(esc(m.description()))
                    .append("</dd>\n");
        }
        sb.append("</dl>\n");
    }

    private static void fidelity(StringBuilder sb, List<ReferenceProfiles.Result> results) {
        Map<String, Double> book = ReferenceProfiles.bookTimes(results);
        if (book.size() < 3) {
            return;
        }
        sb.append(String.format(Locale.ROOT, "<h2>Fidelity: the book's collective matmul on %s</h2>%n<p>Book: 311 /"
                        + " 244 / 224 µs (jit all-gather / collective / unsharded baseline). Model: %s / %s / %s."
                        + " Ratios jit/collective %.3f (book %.3f), collective/baseline %.3f (book %.3f).</p>%n",
                esc(ReferenceProfiles.PRIMARY), TimelineSvg.duration(book.get("jit-allgather") / 1e6),
                TimelineSvg.duration(book.get("collective") / 1e6),
                TimelineSvg.duration(book.get("unsharded-baseline") / 1e6),
                book.get("jit-allgather") / book.get("collective"), 311.0 / 244,
                book.get("collective") / book.get("unsharded-baseline"), 244.0 / 224));
    }

    private static void wins(StringBuilder sb, List<List<ReferenceProfiles.Result>> rows, List<HardwareModel> models) {
        sb.append("<h2 id=\"wins\">Which variant wins</h2>\n<p>Per problem and chip, the variant with the shortest"
                + " modelled time, and why it wins (from the timelines of the winner and the runner-up: its busiest"
                + " device's kernels and compute time, or how long that device waits for its links). Variants within"
                + String.format(Locale.ROOT, " %.0f %%", 100 * Winners.TIE) + " of the fastest tie: the model's"
                + " fixed costs are choices of that order. Where the course teaches the variants in an order (each"
                + " one meant to improve on the one before), a variant more than that slower than one before it is"
                + " flagged in red, with how much slower: there the \"better\" variant loses on that chip at these"
                + " sizes. cpu-local is measured on every run and never flagged. Seed 001's two layouts and chapter"
                + " 7's two pipeline schedules are alternatives, not an order.</p>\n"
                + "<div class=\"scroll\"><table><tr><th>problem</th><th>variants compared</th>");
        for (HardwareModel m : models) {
            sb.append("<th>").append(esc(m.name())).append("</th>");
        }
        sb.append("</tr>\n");
        for (Comparison c : COMPARISONS) {
            List<List<ReferenceProfiles.Result>> compared = new ArrayList<>();
            for (String v : c.variants()) {
                rows.stream().filter(row -> row.get(0).program().problem().equals(c.problem())
                        && row.get(0).program().variant().equals(v)).findFirst().ifPresent(compared::add);
            }
            if (compared.size() < 2) {
                continue;
            }
            sb.append("<tr><td class=\"name\">").append(esc(c.problem())).append("</td><td class=\"name\">")
                    .append(esc(String.join(c.ordered() ? " → " : ", ",
                            compared.stream().map(row -> row.get(0).program().variant()).toList()))).append("</td>");
            for (int m = 0; m < models.size(); m++) {
                List<ReferenceProfiles.Result> onChip = new ArrayList<>();
                for (List<ReferenceProfiles.Result> row : compared) {
                    onChip.add(row.get(m));
                }
                List<ReferenceProfiles.Result> best = Winners.winners(onChip);
                sb.append("<td class=\"name\">");
                for (int w = 0; w < best.size(); w++) {
                    sb.append(w == 0 ? "" : " = ").append("<b>").append(esc(best.get(w).program().variant()))
                            .append("</b> ").append(esc(TimelineSvg.duration(best.get(w).timeline().seconds())));
                }
                String reason = Winners.reason(onChip);
                sb.append("<br><small>").append(esc(reason.isEmpty() ? (best.size() > 1 ? "a tie" : "") : reason))
                        .append("</small>");
                if (c.ordered()) {
                    for (ReferenceProfiles.Result[] loss : Winners.losses(onChip)) {
                        sb.append("<br><span class=\"loses\">⚠ ").append(esc(loss[0].program().variant() + " "
                                + TimelineSvg.duration(loss[0].timeline().seconds()) + " loses to "
                                + loss[1].program().variant() + " " + TimelineSvg.duration(loss[1].timeline().seconds())
                                + String.format(Locale.ROOT, " (+%.1f %%)",
                                100 * (loss[0].timeline().seconds() / loss[1].timeline().seconds() - 1))))
                                .append("</span>");
                    }
                }
                sb.append("</td>");
            }
            sb.append("</tr>\n");
        }
        sb.append("</table></div>\n");
    }

    private static void ratios(StringBuilder sb, List<List<ReferenceProfiles.Result>> rows, List<HardwareModel> models,
                               String pictured) {
        int base = 0;
        for (int m = 0; m < models.size(); m++) {
            if (models.get(m).name().equals(pictured)) {
                base = m;
            }
        }
        sb.append("<h2 id=\"ratios\">Chips compared</h2>\n<p>Each program's modelled time on a chip divided by its time"
                + " on ").append(esc(pictured)).append(": below 1 the chip is faster.</p>\n<div class=\"scroll\">"
                + "<table><tr><th>problem</th><th>variant</th>");
        for (int m = 0; m < models.size(); m++) {
            if (m != base) {
                sb.append("<th>").append(esc(models.get(m).name() + " ÷ " + pictured)).append("</th>");
            }
        }
        sb.append("</tr>\n");
        for (List<ReferenceProfiles.Result> row : rows) {
            sb.append("<tr><td class=\"name\">").append(esc(row.get(0).program().problem()))
                    .append("</td><td class=\"name\">").append(esc(row.get(0).program().variant())).append("</td>");
            double t0 = row.get(base).timeline().seconds();
            for (int m = 0; m < models.size(); m++) {
                if (m != base) {
                    sb.append("<td>").append(t0 > 0 ? String.format(Locale.ROOT, "%.2f",
                            row.get(m).timeline().seconds() / t0) : "—").append("</td>");
                }
            }
            sb.append("</tr>\n");
        }
        sb.append("</table></div>\n");
    }

    private static void table(StringBuilder sb, List<List<ReferenceProfiles.Result>> rows, List<HardwareModel> models) {
        sb.append("<h2 id=\"table\">All results</h2>\n<div class=\"scroll\"><table><tr><th>problem</th>"
                + "<th>variant</th><th>part</th><th>dtype</th><th>how</th>");
        for (HardwareModel m : models) {
            sb.append("<th>").append(esc(m.name())).append("</th>");
        }
        sb.append("<th>FLOPs</th><th>sent</th><th>peak / device</th><th>wall</th></tr>\n");
        for (List<ReferenceProfiles.Result> row : rows) {
            ReferenceProfiles.Result first = row.get(0);
            ReferenceProfiles.Program p = first.program();
            sb.append("<tr><td class=\"name\">").append(esc(p.problem())).append("</td><td class=\"name\"><a href=\"#")
                    .append(esc(p.key())).append("\">").append(esc(p.variant())).append("</a></td><td class=\"name\">")
                    .append(esc(p.part())).append("</td><td class=\"name\">").append(esc(p.dtype().jaxName()))
                    .append("</td><td class=\"name\">").append(p.lowered() != null ? "modelled without running" : "ran")
                    .append("</td>");
            for (ReferenceProfiles.Result x : row) {
                sb.append("<td><a href=\"").append(esc(trace(x))).append("\">")
                        .append(esc(TimelineSvg.duration(x.timeline().seconds()))).append("</a>")
                        .append(x.timeline().spans().isEmpty() ? " (no device work)" : "").append("</td>");
            }
            sb.append("<td>").append(esc(si(first.timeline().flops(), "FLOP"))).append("</td><td>")
                    .append(esc(si(first.timeline().bytesSentTotal(), "B"))).append("</td><td>")
                    .append(first.peakBytes() == null ? "" : esc(si(first.peakBytes(), "B"))).append("</td><td>")
                    .append(esc(TimelineSvg.duration(first.wallMs() / 1e3))).append("</td></tr>\n");
        }
        sb.append("</table></div>\n<dl>\n"
                + "<dt>problem, variant</dt><dd>The program: a problem of the course and one way to solve it (the"
                + " variant links to its timeline below).</dd>\n"
                + "<dt>part</dt><dd>The course part the reference solution answers; <code>seed 001</code> is the"
                + " notebook's training step.</dd>\n"
                + "<dt>dtype</dt><dd>The dtype the model assumes: it sets the bytes per element and the matmul"
                + " rate. The simulation itself computes in float32 or int32.</dd>\n"
                + "<dt>how</dt><dd><em>ran</em>: the solution ran once on simulated devices and its recorded"
                + " events were modelled. <em>modelled without running</em>: seed 001's full-size step (about 7"
                + " TFLOP) is only lowered by jit, and the per-device program it compiles is modelled, with the same"
                + " operations a run would record (docs/profiles.md).</dd>\n"
                + "<dt>one column per hardware model</dt><dd>The modelled time of the whole program on that model:"
                + " the end of its last operation on any device, in the unit that suits the value (ns, µs, ms). The"
                + " value links to the trace.</dd>\n"
                + "<dt>FLOPs</dt><dd>Matmul FLOPs on all devices together (2 per multiply-add).</dd>\n"
                + "<dt>sent</dt><dd>Bytes all devices sent in collectives, in the modelled dtype (k, M, G: powers of"
                + " 1000).</dd>\n"
                + "<dt>peak / device</dt><dd>The most bytes one device holds at once, as XLA would assign its"
                + " buffers. Known only for the programs modelled without running, from their compiled per-device"
                + " program; empty for programs that ran, whose run does not measure it.</dd>\n"
                + "<dt>wall</dt><dd>How long this machine took: to run the simulated devices once (ran), or to"
                + " trace and lower the program (modelled without running). Measured, so it differs between"
                + " machines and runs.</dd>\n</dl>\n");
    }

    private static void performanceParts(StringBuilder sb, List<PerformanceSetting> settings) {
        sb.append("<h2 id=\"performance-parts\">What the performance parts grade with</h2>\n");
        if (settings.isEmpty()) {
            sb.append("<p>The grader's reference-times.json was not given to the generator, so the settings are not"
                    + " shown; see the performance parts in the grader's chapter checks.</p>\n");
            return;
        }
        sb.append("<p>A performance part (3.0p …) models the student's program at a fixed size on one hardware model"
                + " and compares its time with the reference solution's, which the grader keeps in"
                + " reference-times.json. These are the settings and reference times in that file (not the sizes of"
                + " the profiles above).</p>\n<div class=\"scroll\"><table><tr><th>part</th><th>hardware model</th>"
                + "<th>dtype</th><th>mesh and sizes</th><th>reference time</th></tr>\n");
        for (PerformanceSetting s : settings) {
            sb.append("<tr><td class=\"name\">").append(esc(s.part())).append("</td><td class=\"name\">")
                    .append(esc(s.hardware())).append("</td><td class=\"name\">").append(esc(s.dtype()))
                    .append("</td><td class=\"name\">").append(esc(s.caseText())).append("</td><td>")
                    .append(esc(TimelineSvg.duration(s.referenceUs() / 1e6))).append("</td></tr>\n");
        }
        sb.append("</table></div>\n");
    }

    private static void files(StringBuilder sb, List<List<ReferenceProfiles.Result>> rows, List<HardwareModel> models) {
        sb.append("<h2 id=\"files\">Files and how to open a trace</h2>\n<p><a href=\"summary.json\">summary.json</a>"
                + " holds every figure of this page as data. The tables docs/profiles.md shows, in Markdown:");
        for (DocsTables.Table t : DocsTables.tables(rows.stream().flatMap(List::stream).toList())) {
            sb.append(" <a href=\"").append(esc(t.file())).append("\">").append(esc(t.name())).append("</a>");
        }
        sb.append(". Each program has, per hardware model, a trace"
                + " (<code>perfetto/</code>, JSON in the Chrome trace-event format) and a picture (<code>svg/</code>)."
                + "</p>\n<p><b>Opening a trace.</b> A link to a trace shows its JSON text; save it (or use the file in"
                + " <code>perfetto/</code> directly), then:</p>\n<ul>\n"
                + "<li>With a network: open <a href=\"https://ui.perfetto.dev\">ui.perfetto.dev</a>, choose"
                + " <em>Open trace file</em> in its menu (or drop the file on the page). The Perfetto UI is a web"
                + " application that has to load from the network, but it reads the file inside the browser: the"
                + " trace is not uploaded.</li>\n"
                + "<li>Without a network there is no viewer for these traces in current browsers: Chromium's old"
                + " <code>chrome://tracing</code> page no longer loads them. Open the SVG pictures instead (they need"
                + " nothing but a browser), or keep the traces until a network is at hand.</li>\n</ul>\n"
                + "<p>In a trace each device is a process and each lane a thread: compute, then each link. A link"
                + " starts its next message while the last is still in flight, so its messages can overlap; the"
                + " overlapping ones get a second lane (e.g. <em>link Y- (2)</em>), because slices on one thread"
                + " must nest. In a picture opened on its own, hovering a box shows its name and times.</p>\n<div class=\"scroll\"><table>"
                + "<tr><th>problem</th><th>variant</th><th>traces</th><th>pictures</th></tr>\n");
        for (List<ReferenceProfiles.Result> row : rows) {
            ReferenceProfiles.Program p = row.get(0).program();
            StringBuilder traces = new StringBuilder();
            StringBuilder pictures = new StringBuilder();
            for (ReferenceProfiles.Result r : row) {
                String sep = traces.isEmpty() ? "" : " · ";
                traces.append(sep).append("<a href=\"").append(esc(trace(r))).append("\">")
                        .append(esc(r.model().name())).append("</a>");
                pictures.append(sep).append("<a href=\"").append(esc(picture(r))).append("\">")
                        .append(esc(r.model().name())).append("</a>");
            }
            sb.append("<tr><td class=\"name\">").append(esc(p.problem())).append("</td><td class=\"name\">")
                    .append(esc(p.variant())).append("</td><td class=\"name\">").append(traces)
                    .append("</td><td class=\"name\">").append(pictures).append("</td></tr>\n");
        }
        sb.append("</table></div>\n");
    }

    private static void timelines(StringBuilder sb, List<ReferenceProfiles.Result> results, String pictured) {
        sb.append("<h2 id=\"timelines\">Timelines on ").append(esc(pictured)).append("</h2>\n<p>Each picture keeps"
                + " its full size so that its labels stay readable; where the window is narrower it scrolls sideways"
                + " in its box. The other hardware models' pictures are linked in the table above.</p>\n");
        for (ReferenceProfiles.Result r : results) {
            if (!r.model().name().equals(pictured)) {
                continue;
            }
            ReferenceProfiles.Program p = r.program();
            sb.append("<h3 id=\"").append(esc(p.key())).append("\">").append(esc(p.problem() + " / " + p.variant()))
                    .append("</h3>\n<p>").append(esc("part " + p.part() + "; " + p.shapes() + "; "
                            + p.dtype().jaxName())).append(" — <a href=\"").append(esc(picture(r)))
                    .append("\">picture alone</a> · <a href=\"").append(esc(trace(r))).append("\">trace</a></p>\n");
            if (r.timeline().spans().isEmpty()) {
                sb.append("<p>No device work recorded: nothing this program's devices do is an operation the"
                        + " model times (chapter 0's fold-key only derives a key from each device's position), so"
                        + " its timeline and trace are empty and its modelled time is 0.</p>\n");
                continue;
            }
            sb.append("<div class=\"timeline\">")
                    .append(TimelineSvg.render(r.timeline(), p.problem() + " / " + p.variant(), 1100))
                    .append("</div>\n");
        }
    }

    /** A count with an SI prefix and three significant digits, e.g. {@code "4.29 GFLOP"}, {@code "512 B"}. */
    static String si(double value, String unit) {
        String[] prefixes = {"", "k", "M", "G", "T", "P"};
        int i = 0;
        double v = value;
        while (Math.abs(v) >= 999.5 && i < prefixes.length - 1) {
            v /= 1000;
            i++;
        }
        String digits = i == 0 ? String.format(Locale.ROOT, "%.0f", v)
                : String.format(Locale.ROOT, Math.abs(v) >= 99.95 ? "%.0f" : Math.abs(v) >= 9.995 ? "%.1f" : "%.2f", v);
        return digits + " " + prefixes[i] + unit;
    }

    /** Escapes the markup characters only: the page is UTF-8, so µ and → stay readable in its source. */
    private static String esc(String s) {
        return StringEscapeUtils.escapeXml10(s);
    }
}
