package dev.shardlings.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Turns one benchmark run (JMH's JSON results and the numpy reference's JSON) into {@code report.md}: every figure
 * as a ratio against its reference from the same run, and each of the performance targets marked met or not.
 *
 * <p>Usage: {@code BenchReport <jmh.json> <numpy.json> <report.md> [<training-vs-jax.json> [<peers.json>]]}. A
 * missing numpy file (no python3 or numpy on the machine) leaves the matmul ratios out and says so; a missing,
 * failed or stale (older than jmh.json) training comparison ({@link TrainingVersusJax}: no JAX, or skipped) leaves
 * the training step's ratio out and says so, and so does a missing, failed or stale comparison with the peers
 * ({@link PeersByTurns}) for the matmuls and the all-gather, whose targets are then "not measured".
 */
public final class BenchReport {

    static final String BOOK_SIZE = "1024x2048x8192";

    private static final ObjectMapper JSON = new ObjectMapper();

    private BenchReport() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length < 3 || args.length > 6) {
            System.err.println("usage: BenchReport <jmh.json> <numpy.json> <report.md> [<training-vs-jax.json>"
                    + " [<peers.json> [<grade results.json>]]]");
            System.exit(2);
        }
        JsonNode jmh = JSON.readTree(Path.of(args[0]).toFile());
        Path numpyFile = Path.of(args[1]);
        JsonNode numpy = Files.exists(numpyFile) ? JSON.readTree(numpyFile.toFile()) : null;
        JsonNode jax = args.length > 3 ? sameRun(Path.of(args[3]), Path.of(args[0])) : null;
        JsonNode peers = args.length > 4 ? sameRun(Path.of(args[4]), Path.of(args[0])) : null;
        JsonNode grade = args.length > 5 ? sameRun(Path.of(args[5]), Path.of(args[0])) : null;
        String report = render(jmh, numpy, jax, peers, grade);
        Files.writeString(Path.of(args[2]), report, StandardCharsets.UTF_8);
        String svg = scalingSvg(jmh);
        if (svg != null) {
            Files.writeString(Path.of(args[2]).resolveSibling("scaling.svg"), svg, StandardCharsets.UTF_8);
        }
        System.out.println(report);
    }

    /** A comparison's JSON, or {"error": …} when it is missing or older than jmh.json (skipped in this run). */
    private static JsonNode sameRun(Path f, Path jmh) throws IOException {
        if (!Files.exists(f)) {
            return JSON.createObjectNode().put("error", "no " + f.getFileName() + " (skipped, or it did not run)");
        }
        if (Files.exists(jmh) && Files.getLastModifiedTime(f).compareTo(Files.getLastModifiedTime(jmh)) < 0) {
            return JSON.createObjectNode().put("error", f.getFileName() + " is from an earlier run (skipped in"
                    + " this one)");
        }
        return JSON.readTree(f.toFile());
    }

    /** The report text for one run without the JAX comparisons. */
    static String render(JsonNode jmh, JsonNode numpy) {
        return render(jmh, numpy, null, null);
    }

    /** The report text for one run without the peers' comparison. */
    static String render(JsonNode jmh, JsonNode numpy, JsonNode jax) {
        return render(jmh, numpy, jax, null);
    }

    /**
     * The report text for one run; {@code jax} is {@link TrainingVersusJax}'s output and {@code peers}
     * {@link PeersByTurns}' (null when there is none).
     */
    static String render(JsonNode jmh, JsonNode numpy, JsonNode jax, JsonNode peers) {
        return render(jmh, numpy, jax, peers, null);
    }

    /**
     * The report text for one run; {@code grade} is the grader's results.json from grading the solutions in this
     * run (null when it did not run).
     */
    static String render(JsonNode jmh, JsonNode numpy, JsonNode jax, JsonNode peers, JsonNode grade) {
        StringBuilder md = new StringBuilder("# Benchmark report\n\nReproduce with `mvn -B -Pbench verify -pl solutions"
                + " -am -DskipTests`, with `-Dbench.jax.python=PYTHON_WITH_JAX` for the JAX comparison"
                + " (docs/performance.md). Sections of benchmarks that did not run are left out.\n\n");
        String jdk = jmh.size() > 0 ? jmh.get(0).path("jdkVersion").asText("?") + " (" + jmh.get(0)
                .path("vmName").asText("?") + ")" : "?";
        md.append("- JDK: ").append(jdk).append('\n');
        md.append("- CPU: ").append(cpuModel()).append(", ").append(Runtime.getRuntime().availableProcessors())
                .append(" cores\n");
        if (jax != null && jax.has("jax")) {
            md.append("- JAX ").append(jax.path("jax").asText()).append(" on ").append(jax.path("devices").asInt())
                    .append(" simulated CPU devices (python ").append(jax.path("python").asText("?")).append(")\n");
        }
        if (numpy != null && numpy.has("numpy")) {
            md.append("- numpy ").append(numpy.path("numpy").asText()).append(", OpenBLAS kernel ")
                    .append(numpy.path("openblas").path("corename").asText("?")).append(", ")
                    .append(numpy.path("openblas").path("threads").asText("?")).append(" thread(s)\n");
        } else {
            md.append("- numpy: not measured (").append(numpy == null ? "no numpy.json"
                    : numpy.path("error").asText("unknown")).append(")\n");
        }
        md.append('\n');
        List<String> verdicts = new ArrayList<>();

        // Local matmul against numpy.
        Map<Integer, Double> numpyGflops = new TreeMap<>();
        if (numpy != null) {
            for (JsonNode m : numpy.path("matmul")) {
                numpyGflops.put(m.path("n").asInt(), m.path("gflops").asDouble());
            }
        }
        if (!results(jmh, "LocalMatmulBench.matmul").isEmpty()) {
            md.append("## Local float32 matmul\n\nJMH (ours from host code, on all cores), against numpy with one"
                    + " OpenBLAS thread measured before it"
                    + " (numpy.json); the by-turns comparison with numpy on all threads is under \"Peers\".\n\n"
                    + "| n | ours GFLOP/s | numpy GFLOP/s | ours / numpy |\n|---:|---:|---:|---:|\n");
        }
        for (JsonNode r : results(jmh, "LocalMatmulBench.matmul")) {
            int n = r.path("params").path("n").asInt();
            double gflops = 2.0 * n * n * n / seconds(r) / 1e9;
            Double ref = numpyGflops.get(n);
            md.append(row(Integer.toString(n), f1(gflops), ref == null ? "—" : f1(ref),
                    ref == null ? "—" : f2(gflops / ref)));
        }

        // shardMap latency against a barrier of 8 platform threads.
        double barrier = results(jmh, "BarrierReferenceBench.eightThreadBarrier").stream()
                .mapToDouble(BenchReport::micros).findFirst().orElse(Double.NaN);
        if (!results(jmh, "ShardMapLatencyBench.shardMapPsum").isEmpty()) {
            md.append("\n## shardMap call with one psum (one-element blocks)\n\n"
                    + "Reference, same run: one barrier of 8 platform threads (`CyclicBarrier`): ").append(f1(barrier))
                    .append(" µs.\n\n| devices | µs per call (mean) | median | p99 | mean / barrier |\n"
                            + "|---:|---:|---:|---:|---:|\n");
        }
        for (JsonNode r : results(jmh, "ShardMapLatencyBench.shardMapPsum")) {
            int d = r.path("params").path("devices").asInt();
            double us = micros(r);
            double p50 = percentile(r, "50.0") * 1e6;
            double p99 = percentile(r, "99.0") * 1e6;
            md.append(row(Integer.toString(d), f1(us), f1(p50), f1(p99), f2(us / barrier)));
            if (d == 8) {
                verdicts.add(verdict("psum call on 8 devices ≤ 20 µs median", p50 <= 20, f1(p50) + " µs"));
                verdicts.add(verdict("psum call on 8 devices ≤ 60 µs p99", p99 <= 60, f1(p99) + " µs"));
            }
        }

        // jit: tracing and partitioning, the cache, and a jitted program against the shardMap of the same work.
        if (!results(jmh, "JitBench.traceAndPartitionMlp").isEmpty()) {
            double cold = results(jmh, "JitBench.traceAndPartitionMlp").stream().mapToDouble(BenchReport::micros)
                    .findFirst().orElse(Double.NaN);
            double hit = results(jmh, "JitBench.cacheHitMlp").stream().mapToDouble(BenchReport::micros)
                    .findFirst().orElse(Double.NaN);
            double jitted = results(jmh, "JitBench.jittedElementwise").stream().mapToDouble(BenchReport::micros)
                    .findFirst().orElse(Double.NaN);
            double manual = results(jmh, "JitBench.shardMapElementwise").stream().mapToDouble(BenchReport::micros)
                    .findFirst().orElse(Double.NaN);
            md.append("\n## jit (8 devices, Auto axes)\n\n| figure | µs | reference, same run |\n|---|---:|---|\n")
                    .append(row("trace + partition the MLP forward and loss, cold", f1(cold), "—"))
                    .append(row("cache hit of the same signature", f1(hit), "—"))
                    .append(row("jitted 2·x + 1 on f32[8192]", f1(jitted), f2(jitted / manual)
                            + "× the shardMap of the same work (" + f1(manual) + " µs)"));
            verdicts.add(verdict("jit trace + partition of the MLP ≤ 20 ms cold", cold <= 20_000, f1(cold) + " µs"));
            verdicts.add(verdict("jit cache hit ≤ 50 µs", hit <= 50, f1(hit) + " µs"));
            verdicts.add(verdict("jitted elementwise ≤ 2× its shardMap", jitted <= 2 * manual,
                    f2(jitted / manual) + "×"));
        }

        // All-gather against System.arraycopy.
        if (!results(jmh, "AllGatherBench.allGather").isEmpty()) {
            md.append("\n## All-gather of 64 MB\n\nEvery device receives the whole array: devices × 64 MiB written"
                    + " per call. Reference, same run: `System.arraycopy` of the same bytes on one thread.\n\n"
                    + "| devices | ours GB/s | arraycopy GB/s | ours / arraycopy |\n|---:|---:|---:|---:|\n");
        }
        Map<Integer, Double> copyMs = new TreeMap<>();
        for (JsonNode r : results(jmh, "AllGatherBench.arraycopyReference")) {
            copyMs.put(r.path("params").path("devices").asInt(), seconds(r));
        }
        for (JsonNode r : results(jmh, "AllGatherBench.allGather")) {
            int d = r.path("params").path("devices").asInt();
            double bytes = (double) d * AllGatherBench.ELEMENTS * 4;
            double ours = bytes / seconds(r) / 1e9;
            Double refS = copyMs.get(d);
            double ref = refS == null ? Double.NaN : bytes / refS / 1e9;
            md.append(row(Integer.toString(d), f1(ours), f1(ref), f2(ours / ref)));
        }

        // Sharded matmuls against the JAX CPU figures.
        if (!results(jmh, "ShardedMatmulBench.allGatherThenMatmul").isEmpty()
                || !results(jmh, "ShardedMatmulBench.collectiveMatmul").isEmpty()) {
            md.append("\n## The book's matmul on a 2 × 4 mesh (float32, 8 devices sharing the cores)\n\n"
                    + "JMH, absolute figures; the comparison with JAX, by turns, is under \"Peers\".\n\n"
                    + "| B×D×F | program | ms per call | GFLOP/s | — |\n|---|---|---:|---:|---:|\n");
        }
        for (String bench : List.of("allGatherThenMatmul", "collectiveMatmul")) {
            for (JsonNode r : results(jmh, "ShardedMatmulBench." + bench)) {
                String size = r.path("params").path("size").asText();
                String[] bdf = size.split("x");
                double flops = 2.0 * Double.parseDouble(bdf[0]) * Double.parseDouble(bdf[1])
                        * Double.parseDouble(bdf[2]);
                double gflops = flops / seconds(r) / 1e9;
                md.append(row(size, bench, f1(seconds(r) * 1e3), f1(gflops), "—"));
            }
        }

        // The compiler's program for the same matmul, against the hand-written all-gather then matmul.
        for (JsonNode r : results(jmh, "ShardedMatmulBench.jittedMatmul")) {
            String size = r.path("params").path("size").asText();
            double manual = results(jmh, "ShardedMatmulBench.allGatherThenMatmul").stream()
                    .filter(m -> m.path("params").path("size").asText().equals(size))
                    .mapToDouble(BenchReport::seconds).findFirst().orElse(Double.NaN);
            String[] bdf = size.split("x");
            double flops = 2.0 * Double.parseDouble(bdf[0]) * Double.parseDouble(bdf[1]) * Double.parseDouble(bdf[2]);
            double ratio = seconds(r) / manual;
            md.append(row(size, "jittedMatmul (" + f2(ratio) + "× allGatherThenMatmul)", f1(seconds(r) * 1e3),
                    f1(flops / seconds(r) / 1e9), "—"));
            if (size.equals(BOOK_SIZE)) {
                verdicts.add(verdict("jitted book matmul within 10 % of its shardMap", ratio <= 1.10,
                        f2(ratio) + "×"));
            }
        }

        peers(md, verdicts, peers);
        training(md, verdicts, jmh, jax);
        scaling(md, verdicts, jmh);
        grading(md, verdicts, grade);

        md.append("\n## Targets\n\n| target | met | measured |\n|---|---|---:|\n");
        verdicts.forEach(md::append);
        return md.toString();
    }

    /** The targets measured by {@link PeersByTurns}: name in peers.json, the target's text, and its lower bound. */
    private static final String[][] PEER_TARGETS = {
            {"allGatherThenMatmul", "book matmul, all-gather then matmul ≥ 0.8× JAX CPU (by turns)", "0.8"},
            {"collectiveMatmul", "book collective matmul ≥ 0.8× JAX CPU (by turns)", "0.8"},
            {"localMatmul1024AllThreads", "local f32 matmul 1024³ ≥ 0.9× numpy, all threads (by turns)", "0.9"},
            {"allGather64MB8", "all-gather 64 MB on 8 devices ≥ 0.8× arraycopy (by turns)", "0.8"},
    };

    /**
     * The matmuls and the all-gather against their peers in the same run, by turns ({@link PeersByTurns}): each
     * figure is the median over rounds of the reference's median time over ours (above 1: ours is faster).
     */
    private static void peers(StringBuilder md, List<String> verdicts, JsonNode peers) {
        if (peers == null) {
            return;
        }
        md.append("\n## Peers, by turns in the same run\n\n");
        JsonNode jaxV = peers.path("jax");
        if (peers.has("error")) {
            md.append("Not compared (").append(peers.path("error").asText()).append("); only the same-run references"
                    + " above are shown.\n");
        } else {
            md.append("Each row alternates rounds of a few calls of the reference and as many of ours (`PeersByTurns`,"
                    + " `src/bench/peers.py`); a round's ratio is the reference's median time over ours, and the"
                    + " figure is the median of the rounds (their spread in brackets). JAX: ")
                    .append(jaxV.has("jax") ? jaxV.path("jax").asText() + " on " + jaxV.path("devices").asInt()
                            + " simulated CPU devices" : "not available (" + jaxV.path("error").asText("?") + ")")
                    .append("; numpy: ").append(peers.path("numpy_all_threads").path("numpy").asText("not available"))
                    .append(", OpenBLAS ").append(peers.path("numpy_all_threads").path("openblas").path("corename")
                            .asText("?")).append(" with ").append(peers.path("numpy_all_threads").path("openblas")
                            .path("threads").asText("?")).append(" threads, or 1.\n\n"
                            + "| ours | reference | ours ms | reference ms | ours' speed / reference's |\n"
                            + "|---|---|---:|---:|---:|\n");
            for (JsonNode c : peers.path("comparisons")) {
                if (c.has("error")) {
                    md.append(row(c.path("name").asText(), c.path("reference").asText(), "—", "—",
                            "not measured: " + c.path("error").asText().replace('|', '/')));
                } else {
                    md.append(row(c.path("name").asText(), c.path("reference").asText(),
                            f1(c.path("ours_seconds_median").asDouble() * 1e3),
                            f1(c.path("reference_seconds_median").asDouble() * 1e3),
                            f2(c.path("ratio_median").asDouble()) + "× (" + f2(c.path("ratio_min").asDouble()) + "–"
                                    + f2(c.path("ratio_max").asDouble()) + ")"));
                }
            }
        }
        for (String[] t : PEER_TARGETS) {
            JsonNode c = null;
            for (JsonNode x : peers.path("comparisons")) {
                if (x.path("name").asText().equals(t[0])) {
                    c = x;
                }
            }
            if (c == null || !c.has("ratio_median")) {
                verdicts.add(row(t[1], "not measured", "—"));
            } else {
                double ratio = c.path("ratio_median").asDouble();
                verdicts.add(verdict(t[1], ratio >= Double.parseDouble(t[2]), f2(ratio) + "×"));
            }
        }
    }

    /**
     * The seed-001 training step: JMH's figures, and the comparison with JAX by turns ({@link TrainingVersusJax}):
     * JAX's speed / ours is the median over rounds of JAX's median step time over ours; at least 0.6 is the target.
     */
    private static void training(StringBuilder md, List<String> verdicts, JsonNode jmh, JsonNode jax) {
        boolean measured = jax != null && jax.has("ratio_median");
        if (results(jmh, "TrainingBench.step").isEmpty() && results(jmh, "TrainingBench.traceAndPartitionStepCold")
                .isEmpty() && !measured) {
            return;
        }
        md.append("\n## Training step (seed 001 MLP, 8 devices, Auto axes)\n\nLayer sizes [784, 1024, 1024, 1024, 10],"
                + " batch 1024, mesh 'batch' = 8; parameters P(), batch P('batch'); SGD with lr 1e-5 in the same jit"
                + " program, fed its own output.\n\n");
        if (measured) {
            md.append("Against JAX ").append(jax.path("jax").asText("?")).append(" (`jax.jit` of grad + SGD, ")
                    .append(jax.path("devices").asInt()).append(" simulated CPU devices), by turns in the same run: ")
                    .append(jax.path("rounds").asInt()).append(" rounds of ").append(jax.path("steps_per_round")
                            .asInt()).append(" JAX steps then ").append(jax.path("steps_per_round").asInt())
                    .append(" of ours, so both see the same load.\n\n| figure | JAX | ours | JAX's speed / ours |\n"
                            + "|---|---:|---:|---:|\n")
                    .append(row("one step, median", f1(jax.path("jax_step_seconds_median").asDouble() * 1e3) + " ms",
                            f1(jax.path("ours_step_seconds_median").asDouble() * 1e3) + " ms",
                            f2(jax.path("ratio_median").asDouble()) + "× (rounds: " + f2(jax.path("ratio_min")
                                    .asDouble()) + "–" + f2(jax.path("ratio_max").asDouble()) + ")"));
            verdicts.add(verdict("training step ≥ 0.6× JAX's speed (by turns)", jax.path("ratio_median")
                    .asDouble() >= 0.6, f2(jax.path("ratio_median").asDouble()) + "×"));
        } else {
            md.append("JAX: not compared (").append(jax == null ? "no training-vs-jax.json" : jax.path("error")
                    .asText("unknown")).append(").\n");
        }
        double step = results(jmh, "TrainingBench.step").stream().mapToDouble(BenchReport::median).findFirst()
                .orElse(Double.NaN);
        double split = results(jmh, "TrainingBench.gradThenSgd").stream().mapToDouble(BenchReport::median)
                .findFirst().orElse(Double.NaN);
        double stepMean = results(jmh, "TrainingBench.step").stream().mapToDouble(BenchReport::seconds).findFirst()
                .orElse(Double.NaN);
        double splitMean = results(jmh, "TrainingBench.gradThenSgd").stream().mapToDouble(BenchReport::seconds)
                .findFirst().orElse(Double.NaN);
        double cold = results(jmh, "TrainingBench.traceAndPartitionStepCold").stream()
                .mapToDouble(BenchReport::seconds).findFirst().orElse(Double.NaN);
        double hit = results(jmh, "TrainingBench.cacheHitStep").stream().mapToDouble(BenchReport::seconds)
                .findFirst().orElse(Double.NaN);
        if (Double.isNaN(step) && Double.isNaN(split) && Double.isNaN(cold) && Double.isNaN(hit)) {
            return;
        }
        md.append("\nJMH (TrainingBench; steps: median of the samples, mean in brackets):\n\n| figure | time |\n"
                        + "|---|---:|\n")
                .append(row("one step: jit(grad + SGD), one program", f1(step * 1e3) + " ms (" + f1(stepMean * 1e3)
                        + ")"))
                .append(row("one step: jit(grad), then SGD outside jit", f1(split * 1e3) + " ms ("
                        + f1(splitMean * 1e3) + ")"))
                .append(row("trace + partition the step with its gradient, cold (lower, single shot)",
                        f1(cold * 1e3) + " ms"))
                .append(row("cache hit of the same signature", f1(hit * 1e6) + " µs"));
        if (!Double.isNaN(cold)) {
            verdicts.add(verdict("grad trace + partition of the step ≤ 30 ms cold", cold <= 0.030,
                    f1(cold * 1e3) + " ms"));
        }
        if (!Double.isNaN(hit)) {
            verdicts.add(verdict("training step cache hit ≤ 50 µs", hit <= 50e-6, f1(hit * 1e6) + " µs"));
        }
    }

    /** The meshes of {@link ScalingBench}, in plotting order: one axis, then two. */
    private static final List<String> ONE_AXIS = List.of("1", "2", "4", "8", "16", "32", "64", "128", "256");
    private static final List<String> TWO_AXES = List.of("2x2", "4x4", "8x8", "16x16");

    /** Devices in a mesh parameter: "64" → 64, "16x16" → 256. */
    static int devices(String mesh) {
        int n = 1;
        for (String k : mesh.split("x")) {
            n *= Integer.parseInt(k);
        }
        return n;
    }

    /** A ScalingBench benchmark's median (µs) per mesh parameter. */
    private static Map<String, Double> medians(JsonNode jmh, String bench) {
        Map<String, Double> out = new java.util.LinkedHashMap<>();
        for (JsonNode r : results(jmh, "ScalingBench." + bench)) {
            out.put(r.path("params").path("mesh").asText(), median(r) * 1e6);
        }
        return out;
    }

    /**
     * The largest ratio of a curve's median between consecutive meshes of {@code order}, each divided by the ratio
     * of their devices: at most 1 means no step grew faster than the devices (NaN with fewer than two points).
     */
    static double worstGrowth(Map<String, Double> medians, List<String> order, int fromDevices) {
        double worst = Double.NaN;
        String prev = null;
        for (String m : order) {
            if (!medians.containsKey(m) || devices(m) < fromDevices) {
                continue;
            }
            if (prev != null) {
                double g = (medians.get(m) / medians.get(prev)) / ((double) devices(m) / devices(prev));
                worst = Double.isNaN(worst) ? g : Math.max(worst, g);
            }
            prev = m;
        }
        return worst;
    }

    /**
     * Cost as the mesh grows ({@link ScalingBench}, {@link CollectiveMatmulScalingBench}): medians per mesh, each
     * step's growth against the devices' growth, and the 256-device collective matmuls against one second.
     */
    private static void scaling(StringBuilder md, List<String> verdicts, JsonNode jmh) {
        Map<String, Double> psum = medians(jmh, "psumCall");
        Map<String, Double> gather = medians(jmh, "allGatherCall");
        Map<String, Double> barrier = medians(jmh, "cyclicBarrierReference");
        Map<String, Double> yielding = medians(jmh, "yieldBarrierReference");
        Map<String, Double> copies = medians(jmh, "copiesReference");
        if (!psum.isEmpty() || !gather.isEmpty()) {
            md.append("\n## Cost as the mesh grows (1 … 256 devices, all sharing the cores)\n\n"
                    + "Medians of sampled calls (`ScalingBench`). psum: one call of a psum over every axis of a"
                    + " one-element block; all-gather: every device gathers the whole 1 MiB (devices × 1 MiB"
                    + " written). References, same run: as many platform threads meeting three times (a call's"
                    + " start, its collective, its end) at a `CyclicBarrier` (waiters park) and at a barrier whose"
                    + " waiters only yield (the floor of a platform thread per device on shared cores); one thread"
                    + " making as many fresh 1 MiB copies as there are devices (the all-gather's bytes). Growth: the"
                    + " median over the previous mesh's, divided by the growth in devices (≤ 1: no faster than"
                    + " linear). Plot: `scaling.svg` beside this report.\n\n"
                    + "| mesh | devices | psum call µs | growth | all-gather µs | growth | 3 barriers µs |"
                    + " psum / barriers | 3 yield meetings µs | psum / yield meetings | copies µs |"
                    + " all-gather / copies |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
            for (List<String> order : List.of(ONE_AXIS, TWO_AXES)) {
                String prev = null;
                for (String m : order) {
                    if (!psum.containsKey(m) && !gather.containsKey(m)) {
                        continue;
                    }
                    double dev = devices(m);
                    String pg = "—";
                    String gg = "—";
                    if (prev != null) {
                        double growth = dev / devices(prev);
                        pg = f2(psum.getOrDefault(m, Double.NaN) / psum.getOrDefault(prev, Double.NaN) / growth);
                        gg = f2(gather.getOrDefault(m, Double.NaN) / gather.getOrDefault(prev, Double.NaN) / growth);
                    }
                    // one thread meets nobody: no barrier reference
                    double b = devices(m) == 1 ? Double.NaN : barrier.getOrDefault(m, Double.NaN);
                    double y = devices(m) == 1 ? Double.NaN : yielding.getOrDefault(m, Double.NaN);
                    double c = copies.getOrDefault(m, Double.NaN);
                    double p = psum.getOrDefault(m, Double.NaN);
                    double g = gather.getOrDefault(m, Double.NaN);
                    md.append(row(m.replace("x", " × "), Integer.toString(devices(m)), f1(p), pg, f1(g), gg,
                            f1(b), f2(p / b), f1(y), f2(p / y), f1(c), f2(g / c)));
                    prev = m;
                }
            }
            growthVerdict(verdicts, "psum call", psum, yielding, "3 yield meetings", ONE_AXIS, "8");
            growthVerdict(verdicts, "psum call", psum, yielding, "3 yield meetings", TWO_AXES, "4x4");
            growthVerdict(verdicts, "all-gather", gather, copies, "the copies", ONE_AXIS, "8");
            growthVerdict(verdicts, "all-gather", gather, copies, "the copies", TWO_AXES, "4x4");
        }
        List<JsonNode> matmuls = new ArrayList<>();
        for (String b : COLLECTIVE_MATMULS) {
            matmuls.addAll(results(jmh, "CollectiveMatmulScalingBench." + b));
        }
        if (!matmuls.isEmpty()) {
            md.append("\n## Collective matmuls of Problems 3 and 4 on 64 and 256 devices\n\n"
                    + "B = " + CollectiveMatmulScalingBench.B + ", D = F = " + CollectiveMatmulScalingBench.D
                    + ", f32, the reference solutions (`CollectiveMatmulScalingBench`).\n\n"
                    + "| program | mesh X × Y | ms per call |\n|---|---|---:|\n");
            double worst256 = Double.NaN;
            for (JsonNode r : matmuls) {
                String mesh = r.path("params").path("mesh").asText();
                String name = r.path("benchmark").asText();
                name = name.substring(name.lastIndexOf('.') + 1);
                double ms = seconds(r) * 1e3;
                md.append(row(name, mesh.replace("x", " × "), f1(ms)));
                if (devices(mesh) == 256) {
                    worst256 = Double.isNaN(worst256) ? ms : Math.max(worst256, ms);
                }
            }
            if (!Double.isNaN(worst256)) {
                verdicts.add(verdict("collective matmuls on 16 × 16 (256 devices) < 1 s per call", worst256 < 1000,
                        "slowest " + f1(worst256) + " ms"));
            }
        }
    }

    /**
     * The target "grows no worse than linearly": from {@code from} to the largest mesh of {@code order} measured,
     * the median grows at most as much as the devices do. End to end rather than per step, because one doubling's
     * ratio moves ±10 % between runs; the worst step is shown beside it, and so is how the same run's
     * {@code reference} grew over the same meshes (a reference that itself grows faster than linear shows the
     * machine's share of a miss).
     */
    private static void growthVerdict(List<String> verdicts, String what, Map<String, Double> medians,
                                      Map<String, Double> reference, String referenceName, List<String> order,
                                      String from) {
        String to = null;
        for (String m : order) {
            if (medians.containsKey(m) && devices(m) > devices(from)) {
                to = m;
            }
        }
        if (!medians.containsKey(from) || to == null) {
            return;
        }
        double devicesGrowth = (double) devices(to) / devices(from);
        double linear = (medians.get(to) / medians.get(from)) / devicesGrowth;
        String measured = f2(linear) + "× linear (worst step " + f2(worstGrowth(medians, order, devices(from))) + "×)";
        if (reference.containsKey(from) && reference.containsKey(to)) {
            measured += "; " + referenceName + " of the same run: "
                    + f2((reference.get(to) / reference.get(from)) / devicesGrowth) + "× linear";
        }
        verdicts.add(verdict(what + ", " + from.replace("x", " × ") + " → " + to.replace("x", " × ")
                + (order == ONE_AXIS ? " devices" : "") + ": grows no faster than the devices", linear <= 1.0,
                measured));
    }

    private static final List<String> COLLECTIVE_MATMULS = List.of("problem3AllGatherMatmul",
            "problem4AllGatherMatmul", "problem3ReduceScatterMatmul", "problem4ReduceScatterMatmul");

    /** The plot of {@link ScalingBench}'s medians, or null when it did not run. */
    static String scalingSvg(JsonNode jmh) {
        Map<String, Double> psum = medians(jmh, "psumCall");
        Map<String, Double> gather = medians(jmh, "allGatherCall");
        Map<String, Double> barrier = medians(jmh, "cyclicBarrierReference");
        Map<String, Double> yielding = medians(jmh, "yieldBarrierReference");
        Map<String, Double> copies = medians(jmh, "copiesReference");
        if (psum.isEmpty() && gather.isEmpty()) {
            return null;
        }
        List<ScalingPlot.Series> series = List.of(
                new ScalingPlot.Series("psum call, one axis", "#1f77b4", false, points(psum, ONE_AXIS)),
                new ScalingPlot.Series("psum call, R × C", "#17becf", false, points(psum, TWO_AXES)),
                new ScalingPlot.Series("all-gather 1 MiB, one axis", "#d62728", false, points(gather, ONE_AXIS)),
                new ScalingPlot.Series("all-gather 1 MiB, R × C", "#ff7f0e", false, points(gather, TWO_AXES)),
                // one thread meets nobody, so the barrier starts at 2
                new ScalingPlot.Series("3 CyclicBarrier meetings", "#2ca02c", true,
                        points(barrier, ONE_AXIS.subList(1, ONE_AXIS.size()))),
                new ScalingPlot.Series("3 yield meetings (the floor)", "#9467bd", true,
                        points(yielding, ONE_AXIS.subList(1, ONE_AXIS.size()))),
                new ScalingPlot.Series("1 MiB copies, one thread", "#8c564b", true, points(copies, ONE_AXIS)));
        return ScalingPlot.svg("shardMap calls as the mesh grows (median per call, same run)", series);
    }

    private static List<ScalingPlot.Point> points(Map<String, Double> medians, List<String> order) {
        List<ScalingPlot.Point> out = new ArrayList<>();
        for (String m : order) {
            Double v = medians.get(m);
            if (v != null && v > 0) {
                out.add(new ScalingPlot.Point(devices(m), v));
            }
        }
        return out;
    }

    /** Target for grading the solutions, in seconds of the grade's own time on this kind of machine. */
    static final double GRADE_TARGET_SECONDS = 15;

    /** The whole grade of the solutions in this run (the grader's results.json), against its target. */
    private static void grading(StringBuilder md, List<String> verdicts, JsonNode grade) {
        if (grade == null) {
            return;
        }
        md.append("\n## Grading the solutions\n\n");
        if (grade.has("error") || !grade.has("execution_time")) {
            md.append("Not measured (").append(grade.path("error").asText("no execution_time in results.json"))
                    .append(").\n");
            verdicts.add(row("grade of the solutions ≤ " + f1(GRADE_TARGET_SECONDS) + " s", "not measured", "—"));
            return;
        }
        double seconds = grade.path("execution_time").asDouble();
        double score = grade.path("score").asDouble();
        int parts = grade.path("tests").size();
        md.append("`mvn test -Pgrade -Dgrade.target=solutions`, run by the bench: ").append(parts)
                .append(" parts, score ").append(f1(score)).append(", the grade's own time (results.json's"
                        + " `execution_time`: every part in its sandbox JVM, without Maven's start) ")
                .append(f1(seconds)).append(" s.\n");
        verdicts.add(verdict("grade of the solutions ≤ " + f1(GRADE_TARGET_SECONDS) + " s", seconds
                <= GRADE_TARGET_SECONDS, f1(seconds) + " s"));
    }

    private static List<JsonNode> results(JsonNode jmh, String suffix) {
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode r : jmh) {
            if (r.path("benchmark").asText().endsWith(suffix)) {
                out.add(r);
            }
        }
        return out;
    }

    /** A JMH average time per operation, in seconds. */
    static double seconds(JsonNode r) {
        JsonNode m = r.path("primaryMetric");
        double score = m.path("score").asDouble();
        String unit = m.path("scoreUnit").asText();
        return switch (unit) {
            case "s/op" -> score;
            case "ms/op" -> score / 1e3;
            case "us/op" -> score / 1e6;
            case "ns/op" -> score / 1e9;
            default -> throw new IllegalArgumentException("unexpected JMH unit " + unit + " in " + r.path("benchmark"));
        };
    }

    /** The median of a JMH SampleTime result, in seconds; the mean ({@link #seconds}) for other modes. */
    static double median(JsonNode r) {
        JsonNode p50 = r.path("primaryMetric").path("scorePercentiles").path("50.0");
        if (p50.isMissingNode() || !r.path("mode").asText().equals("sample")) {
            return seconds(r);
        }
        double mean = seconds(r);
        return mean * p50.asDouble() / r.path("primaryMetric").path("score").asDouble();
    }

    /** A percentile of a JMH SampleTime result in seconds ("50.0", "99.0"); NaN for other modes. */
    static double percentile(JsonNode r, String p) {
        JsonNode v = r.path("primaryMetric").path("scorePercentiles").path(p);
        if (v.isMissingNode() || !r.path("mode").asText().equals("sample")) {
            return Double.NaN;
        }
        return seconds(r) * v.asDouble() / r.path("primaryMetric").path("score").asDouble();
    }

    private static double micros(JsonNode r) {
        return seconds(r) * 1e6;
    }

    /** 17 from "17.0.15", 25 from "25"; 0 if unreadable. */
    static int featureVersion(String jdk) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("^(\\d+)").matcher(jdk);
        return m.find() ? Integer.parseInt(m.group(1)) : 0;
    }

    private static String cpuModel() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) {
                    return line.substring(line.indexOf(':') + 1).strip();
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux: the architecture is all we know
        }
        return System.getProperty("os.arch");
    }

    private static String row(String... cells) {
        return "| " + String.join(" | ", cells) + " |\n";
    }

    private static String verdict(String target, boolean met, String measured) {
        return row(target, met ? "yes" : "**no**", measured);
    }

    private static String f1(double v) {
        return Double.isNaN(v) ? "—" : String.format(Locale.ROOT, "%.1f", v);
    }

    private static String f2(double v) {
        return Double.isNaN(v) ? "—" : String.format(Locale.ROOT, "%.2f", v);
    }
}
