package dev.shardlings.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The report's arithmetic: units, FLOP and byte counts, ratios and the targets' verdicts. */
class BenchReportTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static JsonNode result(String bench, String param, String value, double score, String unit) {
        return JSON.createObjectNode().put("benchmark", "dev.shardlings.bench." + bench).put("jdkVersion", "17.0.15")
                .put("vmName", "OpenJDK 64-Bit Server VM")
                .<com.fasterxml.jackson.databind.node.ObjectNode>set("params",
                        JSON.createObjectNode().put(param, value))
                .set("primaryMetric", JSON.createObjectNode().put("score", score).put("scoreUnit", unit));
    }

    /** A JMH SampleTime result: mean score and median (the 50th percentile), in the same unit. */
    private static JsonNode sampled(String bench, double mean, double median, String unit) {
        com.fasterxml.jackson.databind.node.ObjectNode r = (com.fasterxml.jackson.databind.node.ObjectNode)
                result(bench, "x", "", mean, unit);
        r.put("mode", "sample");
        ((com.fasterxml.jackson.databind.node.ObjectNode) r.get("primaryMetric")).putObject("scorePercentiles")
                .put("0.0", median / 2).put("50.0", median).put("99.0", mean * 1.5).put("100.0", mean * 2);
        return r;
    }

    @Test
    void ratiosAndVerdictsFollowFromTheScores() throws Exception {
        var jmh = JSON.createArrayNode()
                // 2·512³ FLOPs in 4000 µs = 67.1 GFLOP/s; numpy 100 → 0.67×, met
                .add(result("LocalMatmulBench.matmul", "n", "512", 4000, "us/op"))
                .add(result("BarrierReferenceBench.eightThreadBarrier", "x", "", 50, "us/op"))
                // mean 21 µs, median 18 µs (met), p99 31.5 µs (met)
                .add(((com.fasterxml.jackson.databind.node.ObjectNode) sampled("ShardMapLatencyBench.shardMapPsum",
                        21, 18, "us/op")).set("params", JSON.createObjectNode().put("devices", "8")))
                // 8 × 64 MiB in 100 ms = 5.37 GB/s against 50 ms = 10.7 GB/s → 0.50×, met
                .add(result("AllGatherBench.allGather", "devices", "8", 100, "ms/op"))
                .add(result("AllGatherBench.arraycopyReference", "devices", "8", 50, "ms/op"))
                // 2·1024·2048·8192 = 34.36 GFLOP in 0.4 s = 85.9 GFLOP/s
                .add(result("ShardedMatmulBench.allGatherThenMatmul", "size", "1024x2048x8192", 400, "ms/op"))
                // the jitted program in 420 ms: 1.05× the hand-written one, within 10 %
                .add(result("ShardedMatmulBench.jittedMatmul", "size", "1024x2048x8192", 420, "ms/op"));
        JsonNode numpy = JSON.readTree("{\"numpy\": \"2.4.6\", \"openblas\": {\"corename\": \"Haswell\", \"threads\": 1},"
                + " \"matmul\": [{\"n\": 512, \"gflops\": 100.0}]}");
        JsonNode peers = JSON.readTree("{\"jax\": {\"jax\": \"0.10.2\", \"devices\": 8}, \"numpy_all_threads\":"
                + " {\"numpy\": \"2.4.6\", \"openblas\": {\"corename\": \"SkylakeX\", \"threads\": 2}},"
                + " \"comparisons\": ["
                + "{\"name\": \"allGatherThenMatmul\", \"reference\": \"JAX jit\", \"ours_seconds_median\": 0.25,"
                + " \"reference_seconds_median\": 0.2, \"ratio_median\": 0.79, \"ratio_min\": 0.7,"
                + " \"ratio_max\": 0.9},"
                + "{\"name\": \"collectiveMatmul\", \"reference\": \"JAX shard_map\", \"error\": \"no JAX\"},"
                + "{\"name\": \"allGather64MB8\", \"reference\": \"arraycopy\", \"ours_seconds_median\": 0.05,"
                + " \"reference_seconds_median\": 0.045, \"ratio_median\": 0.9, \"ratio_min\": 0.8,"
                + " \"ratio_max\": 1.0}]}");
        String md = BenchReport.render(jmh, numpy, null, peers);
        assertTrue(md.contains("| 512 | 67.1 | 100.0 | 0.67 |"), md);
        assertTrue(md.contains("| 8 | 21.0 | 18.0 | 31.5 | 0.42 |"), md);
        assertTrue(md.contains("| psum call on 8 devices ≤ 20 µs median | yes | 18.0 µs |"), md);
        assertTrue(md.contains("| psum call on 8 devices ≤ 60 µs p99 | yes | 31.5 µs |"), md);
        assertTrue(md.contains("| 8 | 5.4 | 10.7 | 0.50 |"), md);
        assertTrue(md.contains("| 1024x2048x8192 | allGatherThenMatmul | 400.0 | 85.9 | — |"), md);
        assertTrue(md.contains("| allGatherThenMatmul | JAX jit | 250.0 | 200.0 | 0.79× (0.70–0.90) |"), md);
        assertTrue(md.contains("| book matmul, all-gather then matmul ≥ 0.8× JAX CPU (by turns) | **no** | 0.79× |"),
                md);
        assertTrue(md.contains("| collectiveMatmul | JAX shard_map | — | — | not measured: no JAX |"), md);
        assertTrue(md.contains("| book collective matmul ≥ 0.8× JAX CPU (by turns) | not measured | — |"), md);
        assertTrue(md.contains("| local f32 matmul 1024³ ≥ 0.9× numpy, all threads (by turns) | not measured | — |"),
                md);
        assertTrue(md.contains("| all-gather 64 MB on 8 devices ≥ 0.8× arraycopy (by turns) | yes | 0.90× |"), md);
        assertTrue(md.contains("| 1024x2048x8192 | jittedMatmul (1.05× allGatherThenMatmul) | 420.0 | 81.8 | — |"), md);
        assertTrue(md.contains("| jitted book matmul within 10 % of its shardMap | yes | 1.05× |"), md);
    }

    @Test
    void withoutNumpyTheMatmulRatiosAreLeftOut() {
        var jmh = JSON.createArrayNode().add(result("LocalMatmulBench.matmul", "n", "256", 500, "us/op"));
        String md = BenchReport.render(jmh, null);
        assertTrue(md.contains("numpy: not measured (no numpy.json)"), md);
        assertTrue(md.contains("| 256 | 67.1 | — | — |"), md);
    }

    @Test
    void trainingStepAgainstJaxByTurns() throws Exception {
        var jmh = JSON.createArrayNode()
                .add(sampled("TrainingBench.step", 260, 250, "ms/op"))
                .add(sampled("TrainingBench.gradThenSgd", 310, 300, "ms/op"))
                .add(result("TrainingBench.traceAndPartitionStepCold", "x", "", 31.5, "ms/op"))
                .add(result("TrainingBench.cacheHitStep", "x", "", 3.25, "us/op"));
        JsonNode jax = JSON.readTree("{\"jax\": \"0.10.2\", \"python\": \"3.11.7\", \"devices\": 8, \"rounds\": 12,"
                + " \"steps_per_round\": 5, \"jax_step_seconds_median\": 0.157, \"ours_step_seconds_median\": 0.25,"
                + " \"ratio_median\": 0.634, \"ratio_min\": 0.55, \"ratio_max\": 0.7}");
        String md = BenchReport.render(jmh, null, jax);
        assertTrue(md.contains("- JAX 0.10.2 on 8 simulated CPU devices (python 3.11.7)"), md);
        assertTrue(md.contains("12 rounds of 5 JAX steps then 5 of ours"), md);
        assertTrue(md.contains("| one step, median | 157.0 ms | 250.0 ms | 0.63× (rounds: 0.55–0.70) |"), md);
        assertTrue(md.contains("| one step: jit(grad + SGD), one program | 250.0 ms (260.0) |"), md);
        assertTrue(md.contains("| one step: jit(grad), then SGD outside jit | 300.0 ms (310.0) |"), md);
        assertTrue(md.contains("| cache hit of the same signature | 3.3 µs |"), md);
        assertTrue(md.contains("| training step ≥ 0.6× JAX's speed (by turns) | yes | 0.63× |"), md);
        assertTrue(md.contains("| grad trace + partition of the step ≤ 30 ms cold | **no** | 31.5 ms |"), md);
        assertTrue(md.contains("| training step cache hit ≤ 50 µs | yes | 3.3 µs |"), md);

        String without = BenchReport.render(jmh, null, JSON.readTree("{\"error\": \"JAX not importable\"}"));
        assertTrue(without.contains("JAX: not compared (JAX not importable)"), without);
        assertTrue(without.contains("| one step: jit(grad + SGD), one program | 250.0 ms (260.0) |"), without);
        assertTrue(!without.contains("JAX's speed (by turns)"), without);
    }

    /** A ScalingBench result for one mesh, median in µs. */
    private static JsonNode scaling(String bench, String mesh, double medianMicros) {
        return ((com.fasterxml.jackson.databind.node.ObjectNode) sampled("ScalingBench." + bench, medianMicros,
                medianMicros, "us/op")).set("params", JSON.createObjectNode().put("mesh", mesh));
    }

    @Test
    void scalingGrowthAgainstTheDevicesAndThePlot() throws Exception {
        var jmh = JSON.createArrayNode()
                // psum: 8 → 16 → 32 devices at 40, 70, 150 µs: growth 0.88 then 1.07 (a step faster than linear)
                .add(scaling("psumCall", "8", 40)).add(scaling("psumCall", "16", 70))
                .add(scaling("psumCall", "32", 150))
                .add(scaling("psumCall", "2x2", 30)).add(scaling("psumCall", "4x4", 100))
                // all-gather: exactly linear
                .add(scaling("allGatherCall", "8", 800)).add(scaling("allGatherCall", "16", 1600))
                .add(scaling("allGatherCall", "32", 3200))
                .add(scaling("cyclicBarrierReference", "8", 200))
                // the yield floor: 8 → 32 at 20 and 100 µs, 1.25× linear; the copies 8 → 32 exactly linear
                .add(scaling("yieldBarrierReference", "8", 20)).add(scaling("yieldBarrierReference", "32", 100))
                .add(scaling("copiesReference", "8", 1000)).add(scaling("copiesReference", "32", 4000))
                .add(result("CollectiveMatmulScalingBench.problem3AllGatherMatmul", "mesh", "16x16", 420, "ms/op"))
                .add(result("CollectiveMatmulScalingBench.problem4ReduceScatterMatmul", "mesh", "16x16", 1200,
                        "ms/op"))
                .add(result("CollectiveMatmulScalingBench.problem3AllGatherMatmul", "mesh", "8x8", 90, "ms/op"));
        String md = BenchReport.render(jmh, null, null, null, null);
        assertTrue(md.contains("| 8 | 8 | 40.0 | — | 800.0 | — | 200.0 | 0.20 | 20.0 | 2.00 | 1000.0 | 0.80 |"), md);
        assertTrue(md.contains("| 16 | 16 | 70.0 | 0.88 | 1600.0 | 1.00 | — | — | — | — | — | — |"), md);
        assertTrue(md.contains("| 32 | 32 | 150.0 | 1.07 | 3200.0 | 1.00 | — | — | 100.0 | 1.50 | 4000.0 | 0.80 |"),
                md);
        assertTrue(md.contains("| 4 × 4 | 16 | 100.0 | 0.83 |"), md);
        // end to end: psum 8 → 32 grew 3.75× for 4× the devices (met), though one step grew 1.07× linear
        assertTrue(md.contains("| psum call, 8 → 32 devices: grows no faster than the devices | yes |"
                + " 0.94× linear (worst step 1.07×); 3 yield meetings of the same run: 1.25× linear |"), md);
        assertTrue(!md.contains("| psum call, 4 × 4 →"), md); // nothing past 4 × 4 measured: no verdict
        assertTrue(md.contains("| all-gather, 8 → 32 devices: grows no faster than the devices | yes |"
                + " 1.00× linear (worst step 1.00×); the copies of the same run: 1.00× linear |"), md);
        assertTrue(md.contains("| problem3AllGatherMatmul | 16 × 16 | 420.0 |"), md);
        assertTrue(md.contains("| collective matmuls on 16 × 16 (256 devices) < 1 s per call | **no** |"
                + " slowest 1200.0 ms |"), md);

        String svg = BenchReport.scalingSvg(jmh);
        assertTrue(svg.startsWith("<svg xmlns=\"http://www.w3.org/2000/svg\""), svg);
        assertTrue(svg.contains("psum call, one axis") && svg.contains("linear in devices"), svg);
        // psum 1-D and 2-D, all-gather 1-D, the two barriers, the copies
        assertEquals(6, svg.split("<polyline").length - 1, svg);
        assertTrue(svg.contains("3 yield meetings (the floor)"), svg);
        javax.xml.parsers.DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new java.io.ByteArrayInputStream(svg.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        assertEquals(null, BenchReport.scalingSvg(JSON.createArrayNode()));
    }

    @Test
    void plotLabelsCannotCarryMarkup() {
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () ->
                new ScalingPlot.Series("<script>", "#000000", false, java.util.List.of()));
    }

    @Test
    void gradeTimeAgainstItsTarget() throws Exception {
        var jmh = JSON.createArrayNode();
        JsonNode grade = JSON.readTree("{\"score\": 88.0, \"execution_time\": 12.5, \"tests\": [{}, {}, {}]}");
        String md = BenchReport.render(jmh, null, null, null, grade);
        assertTrue(md.contains("3 parts, score 88.0"), md);
        assertTrue(md.contains("| grade of the solutions ≤ 15.0 s | yes | 12.5 s |"), md);
        String slow = BenchReport.render(jmh, null, null, null, JSON.readTree("{\"execution_time\": 31}"));
        assertTrue(slow.contains("| grade of the solutions ≤ 15.0 s | **no** | 31.0 s |"), slow);
        String none = BenchReport.render(jmh, null, null, null, JSON.readTree("{\"error\": \"no results.json\"}"));
        assertTrue(none.contains("Not measured (no results.json)"), none);
        assertTrue(none.contains("| grade of the solutions ≤ 15.0 s | not measured | — |"), none);
    }

    @Test
    void jdkFeatureVersions() {
        assertEquals(17, BenchReport.featureVersion("17.0.15"));
        assertEquals(25, BenchReport.featureVersion("25"));
        assertEquals(21, BenchReport.featureVersion("21.0.2+13-LTS"));
        assertEquals(0, BenchReport.featureVersion("?"));
    }
}
