package dev.shardlings.profiles;

import dev.shardlings.cost.Timeline;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The tables docs/profiles.md shows, made from the profile run's results so that no figure in them is typed by
 * hand: the profile command writes each to {@code tables/NAME.md}, the page holds a copy between
 * {@code <!-- generated: NAME -->} and {@code <!-- /generated -->}, and a test (GeneratedProfilesTest) fails when
 * the copy differs from what the model gives now.
 */
final class DocsTables {

    /**
     * One generated table.
     *
     * @param name     its name in the page's marker, e.g. {@code "winners"}
     * @param markdown the table, ending with a newline
     */
    record Table(String name, String markdown) {
        /** Where the profile command writes it, relative to the output directory. */
        String file() {
            return "tables/" + name + ".md";
        }
    }

    /** The chips of the docs' tables, in column order, with their headings. */
    static final Map<String, String> CHIPS = chips();

    private static Map<String, String> chips() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("tpu-v5e", "TPU v5e");
        m.put("tpu-v4", "TPU v4");
        m.put("h100-8-nvlink", "8×H100");
        return m;
    }

    private DocsTables() {
    }

    /**
     * Every table whose programs are among the results of one profile run (a run of some programs only, or on
     * other models, makes fewer).
     */
    static List<Table> tables(List<ReferenceProfiles.Result> results) {
        List<Table> out = new ArrayList<>();
        add(out, "fidelity", () -> fidelity(results));
        add(out, "winners", () -> winners(results));
        add(out, "winners-why", () -> why(results));
        add(out, "seed-001", () -> seed001(results));
        add(out, "chapter-7", () -> chapter7(results));
        return out;
    }

    private static void add(List<Table> out, String name, java.util.function.Supplier<String> make) {
        try {
            out.add(new Table(name, make.get()));
        } catch (MissingProfile e) {
            // a program or model of this table was not profiled in this run
        }
    }

    /** A table or figure needs a profile the run did not make. */
    static final class MissingProfile extends IllegalStateException {
        MissingProfile(String message) {
            super(message);
        }
    }

    static Optional<ReferenceProfiles.Result> find(List<ReferenceProfiles.Result> results, String problem,
                                                   String variant, String chip) {
        return results.stream().filter(r -> r.program().problem().equals(problem)
                && r.program().variant().equals(variant) && r.model().name().equals(chip)).findFirst();
    }

    private static ReferenceProfiles.Result get(List<ReferenceProfiles.Result> results, String problem,
                                                String variant, String chip) {
        return find(results, problem, variant, chip).orElseThrow(() -> new MissingProfile(
                "no profile of " + problem + " / " + variant + " on " + chip));
    }

    // ------------------------------------------------------------------------------------------------ fidelity

    private static String fidelity(List<ReferenceProfiles.Result> results) {
        Map<String, Double> t = ReferenceProfiles.bookTimes(results);
        if (t.size() < 3) {
            throw new MissingProfile("the book's three variants were not profiled on " + ReferenceProfiles.PRIMARY);
        }
        double jit = t.get("jit-allgather");
        double col = t.get("collective");
        double base = t.get("unsharded-baseline");
        StringBuilder sb = new StringBuilder("| variant | book | model | model / book |\n| --- | --- | --- | --- |\n");
        sb.append(String.format(Locale.ROOT, "| jit-allgather | 311 µs | %.1f µs | %.2f |%n", jit, jit / 311));
        sb.append(String.format(Locale.ROOT, "| collective | 244 µs | %.1f µs | %.2f |%n", col, col / 244));
        sb.append(String.format(Locale.ROOT, "| unsharded-baseline | 224 µs | %.1f µs | %.2f (calibrated) |%n", base,
                base / 224));
        double bookJc = 311.0 / 244;
        double bookCb = 244.0 / 224;
        sb.append(String.format(Locale.ROOT, "| jit / collective | %.3f | %.3f | %s |%n", bookJc, jit / col,
                percent((jit / col) / bookJc - 1)));
        sb.append(String.format(Locale.ROOT, "| collective / baseline | %.3f | %.3f | %s |%n", bookCb, col / base,
                percent((col / base) / bookCb - 1)));
        return sb.toString();
    }

    private static String percent(double v) {
        return String.format(Locale.ROOT, "%s%.1f %%", v < 0 ? "−" : "+", Math.abs(100 * v));
    }

    // ------------------------------------------------------------------------------------------------- winners

    /** A row of the winners table: a problem's variant and its label. */
    private record Row(String problem, String label, String variant) {
    }

    private static final List<Row> WINNER_ROWS = List.of(
            new Row("all-gather-matmul", "all-gather matmul", "naive"),
            new Row("all-gather-matmul", "", "collective"),
            new Row("all-gather-matmul", "", "bidirectional"),
            new Row("reduce-scatter-matmul", "reduce-scatter matmul", "collective"),
            new Row("reduce-scatter-matmul", "", "bidirectional"),
            new Row("all-reduce-matmul", "all-reduce matmul", "collective-4-tiles"),
            new Row("all-reduce-matmul", "", "bidirectional"),
            new Row("transformer-block", "transformer block", "naive"),
            new Row("transformer-block", "", "collective"),
            new Row("transformer-block", "", "jit"));

    private static final Map<String, String> VARIANT_WORDS = Map.of(
            "all-gather-matmul/naive", "naive (all-gather, matmul)",
            "all-gather-matmul/collective", "collective (3.0)",
            "all-gather-matmul/bidirectional", "bidirectional (4.0)",
            "reduce-scatter-matmul/collective", "collective (3.2)",
            "reduce-scatter-matmul/bidirectional", "bidirectional (4.2)",
            "all-reduce-matmul/collective-4-tiles", "4 psum tiles (3.1)",
            "all-reduce-matmul/bidirectional", "bidirectional ring (4.1)",
            "transformer-block/naive", "naive",
            "transformer-block/collective", "collective (3.3)",
            "transformer-block/jit", "`jax.jit` (3.3's baseline: XLA:CPU's all-reduce, then a slice)");

    /** The problem at F × 4, where there is one. */
    private static String larger(String problem) {
        return problem.equals("all-gather-matmul") || problem.equals("reduce-scatter-matmul")
                ? problem + "-f" + ReferenceProfiles.LARGER_F : null;
    }

    private static String winners(List<ReferenceProfiles.Result> results) {
        StringBuilder sb = new StringBuilder("| problem | variant |");
        CHIPS.values().forEach(c -> sb.append(' ').append(c).append(" |"));
        CHIPS.values().forEach(c -> sb.append(' ').append(c).append(", F × 4 |"));
        sb.append("\n| --- | --- |").append(" ---: |".repeat(2 * CHIPS.size())).append('\n');
        for (Row row : WINNER_ROWS) {
            sb.append("| ").append(row.label()).append(" | ")
                    .append(VARIANT_WORDS.get(row.problem() + "/" + row.variant())).append(" |");
            for (String problem : java.util.Arrays.asList(row.problem(), larger(row.problem()))) {
                for (String chip : CHIPS.keySet()) {
                    sb.append(' ').append(problem == null ? "" : cell(results, problem, row.variant(), chip))
                            .append(" |");
                }
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    /** A time in µs, bold when it wins (or ties for the win) among its problem's variants on that chip. */
    private static String cell(List<ReferenceProfiles.Result> results, String problem, String variant, String chip) {
        ReferenceProfiles.Result r = get(results, problem, variant, chip);
        String us = String.format(Locale.ROOT, "%.1f", r.timeline().micros());
        return Winners.winners(compared(results, problem, chip)).contains(r) ? "**" + us + "**" : us;
    }

    /** The variants the page compares for a problem on a chip, in the course's order. */
    static List<ReferenceProfiles.Result> compared(List<ReferenceProfiles.Result> results, String problem,
                                                   String chip) {
        ProfilePage.Comparison c = ProfilePage.COMPARISONS.stream().filter(x -> x.problem().equals(problem))
                .findFirst().orElseThrow(() -> new MissingProfile("no comparison of " + problem));
        List<ReferenceProfiles.Result> out = new ArrayList<>();
        for (String v : c.variants()) {
            find(results, problem, v, chip).ifPresent(out::add);
        }
        if (out.size() < 2) {
            throw new MissingProfile("fewer than two variants of " + problem + " on " + chip);
        }
        return out;
    }

    private static String why(List<ReferenceProfiles.Result> results) {
        StringBuilder sb = new StringBuilder("| problem | chip | wins | why |\n| --- | --- | --- | --- |\n");
        List<String> problems = new ArrayList<>();
        for (Row row : WINNER_ROWS) {
            if (!problems.contains(row.problem())) {
                problems.add(row.problem());
                if (larger(row.problem()) != null) {
                    problems.add(larger(row.problem()));
                }
            }
        }
        for (String problem : problems) {
            for (Map.Entry<String, String> chip : CHIPS.entrySet()) {
                List<ReferenceProfiles.Result> c = compared(results, problem, chip.getKey());
                List<ReferenceProfiles.Result> w = Winners.winners(c);
                String reason = Winners.reason(c);
                sb.append("| ").append(problem.replace("-f" + ReferenceProfiles.LARGER_F, ", F × 4")
                        .replace("-matmul", " matmul").replace("-block", " block")).append(" | ")
                        .append(chip.getValue()).append(" | ")
                        .append(String.join(" = ", w.stream().map(r -> r.program().variant()).toList()))
                        .append(" | ").append(reason.isEmpty() ? "a tie (within 2 %)" : reason).append(" |\n");
            }
        }
        return sb.toString();
    }

    // ------------------------------------------------------------------------------------------------ seed 001

    private static String seed001(List<ReferenceProfiles.Result> results) {
        StringBuilder sb = new StringBuilder("| variant |");
        CHIPS.values().forEach(c -> sb.append(' ').append(c).append(" |"));
        sb.append(" FLOPs (all devices) | bytes communicated (all devices) | peak memory per device |\n| --- |")
                .append(" ---: |".repeat(CHIPS.size() + 3)).append('\n');
        for (String[] v : new String[][]{{"8-way-data-parallel", "8-way data parallel"},
                {"4x2-data-tensor-parallel", "4 × 2 data × tensor parallel"}}) {
            sb.append("| ").append(v[1]).append(" |");
            ReferenceProfiles.Result first = null;
            for (String chip : CHIPS.keySet()) {
                ReferenceProfiles.Result r = get(results, "seed-001-mlp-step", v[0], chip);
                first = first == null ? r : first;
                sb.append(String.format(Locale.ROOT, " %.1f ms |", r.timeline().seconds() * 1e3));
            }
            Timeline t = first.timeline();
            sb.append(String.format(Locale.ROOT, " %.2f TFLOP | %.2f GB | %.2f GB |%n", t.flops() / 1e12,
                    t.bytesSentTotal() / 1e9, first.peakBytes() / 1e9));
        }
        return sb.toString();
    }

    // ------------------------------------------------------------------------------------------------- figures

    /**
     * The figures the pages quote in their prose, by name: a page writes {@code <!--f:NAME-->VALUE}, and the test
     * holds VALUE to the figure of that name, formatted at the precision printed here.
     */
    static Map<String, String> figures(List<ReferenceProfiles.Result> results) {
        Metrics m = new Metrics(results);
        Map<String, String> f = new LinkedHashMap<>();
        String v5e = "tpu-v5e";
        String v4 = "tpu-v4";
        String h100 = "h100-8-nvlink";
        String ag = "all-gather-matmul";
        String agF = ag + "-f" + ReferenceProfiles.LARGER_F;
        String rs = "reduce-scatter-matmul";
        String ar = "all-reduce-matmul";
        f.put("agc0", f1(m.span(ag, "collective", v5e, 0, Timeline.COMPUTE, "dot", 0)));
        f.put("agc1", f1(m.span(ag, "collective", v5e, 0, Timeline.COMPUTE, "dot", 1)));
        f.put("agx", f1(m.span(ag, "collective", v5e, 0, "Y+", "ppermute", 0)));
        for (String[] c : new String[][]{{"v5e", v5e}, {"v4", v4}}) {
            f.put("ag4" + c[0], f1(m.us(ag, "bidirectional", c[1])));
            f.put("ag3" + c[0], f1(m.us(ag, "collective", c[1])));
            f.put("rs4" + c[0], f1(m.us(rs, "bidirectional", c[1])));
            f.put("rs3" + c[0], f1(m.us(rs, "collective", c[1])));
            f.put("ag4" + c[0] + "F", f1(m.us(agF, "bidirectional", c[1])));
            f.put("ag3" + c[0] + "F", f1(m.us(agF, "collective", c[1])));
        }
        f.put("h3c", f1(m.compute(ag, "collective", h100, 0)));
        f.put("h0c", f1(m.compute(ag, "naive", h100, 0)));
        f.put("hag", f1(m.span(ag, "naive", h100, 0, "out", "all_gather", 0)));
        f.put("h0", f1(m.us(ag, "naive", h100)));
        f.put("h3", f1(m.us(ag, "collective", h100)));
        f.put("h0F", f1(m.us(agF, "naive", h100)));
        f.put("h3F", f1(m.us(agF, "collective", h100)));
        f.put("h42", f1(m.us(rs, "bidirectional", h100)));
        f.put("h41", f1(m.us(ar, "bidirectional", h100)));
        f.put("h31", f1(m.us(ar, "collective-4-tiles", h100)));
        // the same all-gather matmuls on a slice whose axes wrap: 64 v4 chips, X = 4 × Y = 16 (a full 4 × 4 × 4 cube)
        double[] cube = cubeAllGatherMatmuls();
        f.put("agcube3", f1(cube[0]));
        f.put("agcube4", f1(cube[1]));
        double[] r4 = m.ratios(v4, v5e);
        double[] rh = m.ratios(h100, v5e);
        f.put("v4lo", f2(r4[0]));
        f.put("v4hi", f2(r4[1]));
        f.put("hlo", f2(rh[0]));
        f.put("hhi", f2(rh[1]));

        String seed = "seed-001-mlp-step";
        String dp8 = "8-way-data-parallel";
        String tp = "4x2-data-tensor-parallel";
        f.put("s8", f1(m.us(seed, dp8, v5e) / 1e3));
        f.put("s8links", f1(m.links(seed, dp8, v5e, 0) / 1e3));
        f.put("s8mm", f1(m.matmul(seed, dp8, v5e, 0) / 1e3));
        f.put("s8comp", f1(m.compute(seed, dp8, v5e, 0) / 1e3));
        f.put("t42v5e", f1(m.us(seed, tp, v5e) / 1e3));
        f.put("hc42", f1(m.compute(seed, tp, h100, 0) / 1e3));
        f.put("hc8", f1(m.compute(seed, dp8, h100, 0) / 1e3));
        f.put("h42ms", f1(m.us(seed, tp, h100) / 1e3));
        f.put("h8ms", f1(m.us(seed, dp8, h100) / 1e3));
        f.put("hgain", f0(100 * (1 - m.us(seed, tp, h100) / m.us(seed, dp8, h100))));

        String mp = "mixed-precision-step";
        String mv = "bf16-gather-f32-reduce";
        double agBytes = m.collectiveBytes(mp, mv, v5e, "all_gather");
        double rsBytes = m.collectiveBytes(mp, mv, v5e, "psum_scatter");
        f.put("m_total", f1(m.get(mp, mv, v5e).timeline().bytesSentTotal() / 1e6));
        f.put("m_ag", f1(agBytes / 1e6));
        f.put("m_rs", f1(rsBytes / 1e6));
        double agUs = m.span(mp, mv, v5e, 0, "data+", "all_gather", 0);
        double rsUs = m.span(mp, mv, v5e, 0, "data+", "psum_scatter", 0);
        f.put("m_agus", f1(agUs));
        f.put("m_rsus", f1(rsUs));
        f.put("m_ratio", f2(agUs / rsUs));
        double hAg = m.span(mp, mv, h100, 0, "out", "all_gather", 0);
        double hRs = m.span(mp, mv, h100, 0, "out", "psum_scatter", 0);
        f.put("h_agus", f1(hAg));
        f.put("h_rsus", f1(hRs));
        f.put("h_ratio", f2(hAg / hRs));
        f.put("m_ag2", f1(2 * agBytes / 1e6));
        f.put("m_all", f1((2 * agBytes + rsBytes) / 1e6));
        f.put("m_gflop", f1(m.get(mp, mv, v5e).timeline().flops() / 8 / 1e9));
        f.put("m_comp", f1(m.compute(mp, mv, v5e, 0)));
        f.put("m_us", f1(m.us(mp, mv, v5e)));
        f.put("m_links", f1(m.links(mp, mv, v5e, 0)));

        String rm = "rematerialised-step";
        String rv = "checkpoint-every-layer";
        f.put("r_gflop", f1(m.get(rm, rv, v5e).timeline().flops() / 1e9));
        f.put("r_mb", f1(m.get(rm, rv, v5e).timeline().bytesSentTotal() / 1e6));
        f.put("r_first", f1(m.firstLink(rm, rv, v5e, 0)));
        f.put("r_compend", f1(m.computeEnd(rm, rv, v5e, 0)));

        String fs = "fsdp-tp-step";
        String fv = "4x4-data-model";
        f.put("f_links", f1(m.links(fs, fv, v5e, 0)));
        f.put("f_us", f1(m.us(fs, fv, v5e)));
        f.put("f_comp", f1(m.compute(fs, fv, v5e, 0)));
        f.put("f_v4", f1(m.us(fs, fv, v4)));

        String pp = "pipeline";
        double[] busy = m.computeRange(pp, "gpipe", v5e);
        double gp = m.us(pp, "gpipe", v5e);
        f.put("g_lo", f1(busy[0]));
        f.put("g_hi", f1(busy[1]));
        f.put("g_us", f1(gp));
        f.put("g_idlelo", f0(100 * (1 - busy[1] / gp)));
        f.put("g_idlehi", f0(100 * (1 - busy[0] / gp)));
        f.put("o_us", f1(m.us(pp, "1f1b", v5e)));
        f.put("o_ratio", f1((double) m.get(pp, "1f1b", v5e).timeline().bytesSentTotal()
                / m.get(pp, "gpipe", v5e).timeline().bytesSentTotal()));

        String ra = "ring-attention";
        f.put("ra_comp", f1(m.computeRange(ra, "plain", v5e)[1]));
        f.put("ra_links", f1(m.linksMax(ra, "plain", v5e)));
        f.put("ra_us", f1(m.us(ra, "plain", v5e)));
        f.put("rc_0", f1(m.compute(ra, "causal", v5e, 0)));
        f.put("rc_7", f1(m.compute(ra, "causal", v5e, 7)));
        f.put("rc_us", f1(m.us(ra, "causal", v5e)));

        String dp = "data-parallel-step";
        String acc = "accumulation-4-microbatches";
        String z = "zero-1-adam";
        f.put("a_ar", f1(m.span(dp, acc, v5e, 0, "data+", "psum", 0)));
        f.put("a_mb", f1(m.firstLink(dp, acc, v5e, 0)));
        f.put("z_rs", f1(m.span(dp, z, v5e, 0, "data+", "psum_scatter", 0)));
        f.put("z_ag", f1(m.span(dp, z, v5e, 0, "data+", "all_gather", 0)));
        f.put("z_bwd", f1(m.firstLink(dp, z, v5e, 0)));
        f.put("h_pipe", f1(m.us(pp, "gpipe", h100) / m.us(pp, "gpipe", v5e)));
        f.put("h_ring", f1(m.us(ra, "plain", h100) / m.us(ra, "plain", v5e)));

        // chapter-7.md's performance parts: the references' times and 7.1p's busy times
        f.put("c7_71p", f1(m.us(fs, fv, v5e)));
        f.put("c7_72b", f1(m.us(pp, "1f1b", v5e)));
        f.put("c7_73p", f1(m.us(ra, "plain", v5e)));
        f.put("c7_71links", f0(m.links(fs, fv, v5e, 0)));
        f.put("c7_71us", f0(m.us(fs, fv, v5e)));
        f.put("c7_71comp", f0(m.compute(fs, fv, v5e, 0)));
        // 7.1p's timeline on device 0, step by step
        f.put("c7_tl_ag1", f1(m.end(fs, fv, v5e, 0, "data+", "all_gather", 0)));
        f.put("c7_tl_ag2", f1(m.end(fs, fv, v5e, 0, "data+", "all_gather", 1)));
        f.put("c7_tl_relu", f1(m.end(fs, fv, v5e, 0, Timeline.COMPUTE, "dot [128, 512]·[512, 512] + relu", 0)));
        f.put("c7_tl_ar0", f1(m.start(fs, fv, v5e, 0, "model+", "psum", 0)));
        f.put("c7_tl_ar1", f1(m.end(fs, fv, v5e, 0, "model+", "psum", 0)));
        f.put("c7_tl_rs1a", f1(m.start(fs, fv, v5e, 0, "data+", "psum_scatter", 0)));
        f.put("c7_tl_rs1b", f1(m.end(fs, fv, v5e, 0, "data+", "psum_scatter", 0)));
        f.put("c7_tl_dw1", f1(m.end(fs, fv, v5e, 0, Timeline.COMPUTE, "dot [512, 128]·[128, 512]", 1)));
        f.put("c7_tl_rs2", f1(m.end(fs, fv, v5e, 0, "data+", "psum_scatter", 1)));
        // chapter 7's worked formulas, from the v5e model's figures (≈ in the page: they explain, the timelines report)
        dev.shardlings.cost.HardwareModel hw = m.get(fs, fv, v5e).model();
        f.put("c7_x_gather", f1(3 * 128 * 1024 / hw.linkBytesPerSecond() * 1e6));
        f.put("c7_x_hops", f0(3 * hw.hopLatencySeconds() * 1e6));
        double ringFlops = 4.0 * 256 * 256 * 128;
        f.put("c7_x_mflop", f0(ringFlops / 1e6));
        f.put("c7_x_mm", f2(ringFlops / hw.matmulRate(dev.shardlings.cost.ModelDtype.BFLOAT16) * 1e6));
        f.put("c7_x_op", f1(hw.kernels().opSeconds() * 1e6));
        f.put("c7_x_shift", f1(2.0 * 256 * 128 * 2 / hw.linkBytesPerSecond() * 1e6));
        return f;
    }

    /**
     * Problem 3's one-way and Problem 4's bidirectional all-gather matmul at the book's B, D, F on 64 TPU v4 chips
     * (X = 4, Y = 16), where the slice is a full cube and every axis wraps around: modelled µs, one-way first.
     */
    static double[] cubeAllGatherMatmuls() {
        dev.shardlings.sharding.Mesh cube = dev.shardlings.sharding.Mesh.makeMesh(new int[]{4, 16}, "X", "Y");
        dev.shardlings.cost.HardwareModel v4 = dev.shardlings.cost.HardwareModel.builtIn("tpu-v4");
        java.util.function.Supplier<dev.shardlings.spmd.ShardedArray> a = () -> zeros(1024, 2048, cube,
                dev.shardlings.sharding.PartitionSpec.P("X", "Y"));
        java.util.function.Supplier<dev.shardlings.spmd.ShardedArray> w = () -> zeros(2048, 8192, cube,
                dev.shardlings.sharding.PartitionSpec.P(null, "Y"));
        double oneWay = modelled(() -> dev.shardlings.course.Problem3.allGatherMatmul(a.get(), w.get()), v4);
        double both = modelled(() -> dev.shardlings.course.Problem4.allGatherMatmul(a.get(), w.get()), v4);
        return new double[]{oneWay, both};
    }

    private static dev.shardlings.spmd.ShardedArray zeros(int rows, int cols, dev.shardlings.sharding.Mesh mesh,
                                                          dev.shardlings.sharding.PartitionSpec spec) {
        return dev.shardlings.spmd.ShardedArray.devicePut(dev.shardlings.array.NDArray.zeros(
                dev.shardlings.array.DType.FLOAT32, rows, cols), mesh, spec);
    }

    private static double modelled(java.util.function.Supplier<Object> run, dev.shardlings.cost.HardwareModel hw) {
        return dev.shardlings.cost.CostModel.schedule(dev.shardlings.events.Tracing.record(run).trace(), hw,
                dev.shardlings.cost.ModelDtype.BFLOAT16).micros();
    }

    static String f0(double v) {
        return String.format(Locale.ROOT, "%.0f", v);
    }

    static String f1(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    static String f2(double v) {
        return String.format(Locale.ROOT, "%.2f", v);
    }

    /** What the figures are read from: one program's timeline on one chip, in µs. */
    private record Metrics(List<ReferenceProfiles.Result> results) {
        ReferenceProfiles.Result get(String problem, String variant, String chip) {
            return DocsTables.get(results, problem, variant, chip);
        }

        double us(String problem, String variant, String chip) {
            return get(problem, variant, chip).timeline().micros();
        }

        private List<Timeline.Span> spans(String problem, String variant, String chip, int device) {
            return get(problem, variant, chip).timeline().spans().stream().filter(s -> s.device() == device)
                    .toList();
        }

        double compute(String problem, String variant, String chip, int device) {
            return get(problem, variant, chip).timeline().computeSeconds(device) * 1e6;
        }

        double matmul(String problem, String variant, String chip, int device) {
            return spans(problem, variant, chip, device).stream().filter(s -> s.track().equals(Timeline.COMPUTE)
                    && s.name().startsWith("dot")).mapToDouble(Timeline.Span::seconds).sum() * 1e6;
        }

        double[] computeRange(String problem, String variant, String chip) {
            Timeline t = get(problem, variant, chip).timeline();
            double lo = Double.MAX_VALUE;
            double hi = 0;
            for (Timeline.Device d : t.devices()) {
                lo = Math.min(lo, t.computeSeconds(d.id()) * 1e6);
                hi = Math.max(hi, t.computeSeconds(d.id()) * 1e6);
            }
            return new double[]{lo, hi};
        }

        /** How long any link of the device is busy: the union of its link spans. */
        double links(String problem, String variant, String chip, int device) {
            List<double[]> iv = new ArrayList<>();
            for (Timeline.Span s : spans(problem, variant, chip, device)) {
                if (!s.track().equals(Timeline.COMPUTE)) {
                    iv.add(new double[]{s.start(), s.end()});
                }
            }
            iv.sort(java.util.Comparator.comparingDouble(a -> a[0]));
            double total = 0;
            double cs = Double.NaN;
            double ce = Double.NaN;
            for (double[] a : iv) {
                if (Double.isNaN(cs) || a[0] > ce) {
                    total += Double.isNaN(cs) ? 0 : ce - cs;
                    cs = a[0];
                    ce = a[1];
                } else {
                    ce = Math.max(ce, a[1]);
                }
            }
            return (total + (Double.isNaN(cs) ? 0 : ce - cs)) * 1e6;
        }

        double linksMax(String problem, String variant, String chip) {
            double hi = 0;
            for (Timeline.Device d : get(problem, variant, chip).timeline().devices()) {
                hi = Math.max(hi, links(problem, variant, chip, d.id()));
            }
            return hi;
        }

        double firstLink(String problem, String variant, String chip, int device) {
            return spans(problem, variant, chip, device).stream().filter(s -> !s.track().equals(Timeline.COMPUTE))
                    .mapToDouble(Timeline.Span::start).min().orElseThrow() * 1e6;
        }

        double computeEnd(String problem, String variant, String chip, int device) {
            return spans(problem, variant, chip, device).stream().filter(s -> s.track().equals(Timeline.COMPUTE))
                    .mapToDouble(Timeline.Span::end).max().orElseThrow() * 1e6;
        }

        /** The duration of the index-th span of a track whose name starts with {@code name}, in µs. */
        double span(String problem, String variant, String chip, int device, String track, String name, int index) {
            return find(problem, variant, chip, device, track, name, index).seconds() * 1e6;
        }

        double start(String problem, String variant, String chip, int device, String track, String name, int index) {
            return find(problem, variant, chip, device, track, name, index).start() * 1e6;
        }

        double end(String problem, String variant, String chip, int device, String track, String name, int index) {
            return find(problem, variant, chip, device, track, name, index).end() * 1e6;
        }

        private Timeline.Span find(String problem, String variant, String chip, int device, String track,
                                   String name, int index) {
            List<Timeline.Span> match = spans(problem, variant, chip, device).stream()
                    .filter(s -> s.track().equals(track) && s.name().startsWith(name)).toList();
            if (match.size() <= index) {
                throw new IllegalStateException("no span " + index + " named " + name + "… on " + track + " of device "
                        + device + " in " + problem + " / " + variant + " on " + chip);
            }
            return match.get(index);
        }

        /** Bytes all devices sent in collectives whose name starts with {@code name} (each counted once). */
        double collectiveBytes(String problem, String variant, String chip, String name) {
            return get(problem, variant, chip).timeline().spans().stream()
                    .filter(s -> (s.track().endsWith("+") || s.track().equals("out")) && s.name().startsWith(name + " "))
                    .mapToDouble(Timeline.Span::bytes).sum();
        }

        /** The least and greatest ratio of a chip's time to another's over every program that takes time. */
        double[] ratios(String chip, String base) {
            double lo = Double.MAX_VALUE;
            double hi = 0;
            for (ReferenceProfiles.Result r : results) {
                if (r.model().name().equals(base) && r.timeline().seconds() > 0) {
                    double t = us(r.program().problem(), r.program().variant(), chip) / r.timeline().micros();
                    lo = Math.min(lo, t);
                    hi = Math.max(hi, t);
                }
            }
            return new double[]{lo, hi};
        }
    }

    // ----------------------------------------------------------------------------------------------- chapter 7

    private static final List<String[]> CHAPTER_7 = List.of(
            new String[]{"7.1", "fsdp-tp-step", "4x4-data-model",
                    "FSDP × TP step, data = 4 × model = 4, B, D, F = 512, 512, 2048"},
            new String[]{"7.2a", "pipeline", "gpipe",
                    "GPipe, 4 stages of 2 layers of D = 256, M = 8 microbatches of b = 32 rows"},
            new String[]{"7.2b", "pipeline", "1f1b", "1F1B, the same pipeline"},
            new String[]{"7.3", "ring-attention", "plain", "ring attention, Q, K, V [2048, 128] on seq = 8"},
            new String[]{"7.3", "ring-attention", "causal", "causal ring attention, the same"},
            new String[]{"7.4a", "data-parallel-step", "accumulation-4-microbatches",
                    "gradient accumulation, B = 4096, 4 microbatches of 128 rows per device"},
            new String[]{"7.4b", "data-parallel-step", "zero-1-adam", "ZeRO-1 Adam step, B = 4096 (512 rows per"
                    + " device)"},
            new String[]{"7.5", "mixed-precision-step", "bf16-gather-f32-reduce", "mixed-precision step, D, H, F ="
                    + " 512, 8192, 512, B = 4096 on data = 8 (bf16 and f32 events each at their own bytes)"},
            new String[]{"7.6", "rematerialised-step", "checkpoint-every-layer",
                    "checkpointed step, L = 8 layers of D = 512, B = 4096 on data = 8"});

    private static String chapter7(List<ReferenceProfiles.Result> results) {
        StringBuilder sb = new StringBuilder("| part | program |");
        CHIPS.values().forEach(c -> sb.append(' ').append(c).append(" |"));
        sb.append(" FLOPs | bytes communicated |\n| --- | --- |").append(" ---: |".repeat(CHIPS.size() + 2))
                .append('\n');
        for (String[] row : CHAPTER_7) {
            sb.append("| ").append(row[0]).append(" | ").append(row[3]).append(" |");
            ReferenceProfiles.Result first = null;
            for (String chip : CHIPS.keySet()) {
                ReferenceProfiles.Result r = get(results, row[1], row[2], chip);
                first = first == null ? r : first;
                sb.append(String.format(Locale.ROOT, " %.1f |", r.timeline().micros()));
            }
            sb.append(' ').append(ProfilePage.si(first.timeline().flops(), "")).append(" | ")
                    .append(ProfilePage.si(first.timeline().bytesSentTotal(), "B")).append(" |\n");
        }
        return sb.toString();
    }
}
