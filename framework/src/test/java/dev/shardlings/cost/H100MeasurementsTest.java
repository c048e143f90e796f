package dev.shardlings.cost;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.shardlings.array.BinaryOp;
import dev.shardlings.array.DType;
import dev.shardlings.events.DeviceTrace;
import dev.shardlings.events.ShardMapTrace;
import dev.shardlings.events.Trace;
import dev.shardlings.events.TraceEvent;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.PartitionSpec;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code h100-8-nvlink} against one real H100 (measurements/README.md): the per-chip matmul steps of the issue's
 * table within ±20 %, the 182 steps of the grid mostly within ±25 % (the kernel figures were fitted to them: this
 * holds the mechanism, tiles, waves and fixed costs, to every shape measured), and streaming at the measured rate.
 * The whole training step is held in solutions' {@code H100TrainingStepTest}, which needs the reference programs.
 */
class H100MeasurementsTest {

    private static final Path DIR = Path.of("..", "measurements", "matmuls");
    private static final HardwareModel H100 = HardwareModel.builtIn("h100-8-nvlink");

    private static JsonNode read(String file) throws IOException {
        return new ObjectMapper().readTree(Files.readString(DIR.resolve(file)));
    }

    private static double modelledMicros(JsonNode row) {
        return 1e6 * MatmulStep.modelledSeconds(H100, ModelDtype.of(row.get("dtype").asText()),
                row.get("m").asInt(), row.get("K").asInt(), row.get("chunks").asInt());
    }

    private static String describe(JsonNode row, double modelled) {
        return String.format(Locale.ROOT, "%s m=%d K=%d chunks=%d: measured %.1f µs, modelled %.1f µs (%+.0f %%)",
                row.get("dtype").asText(), row.get("m").asInt(), row.get("K").asInt(), row.get("chunks").asInt(),
                row.get("measured_us").asDouble(), modelled, 100 * (modelled / row.get("measured_us").asDouble() - 1));
    }

    @Test
    void everyMatmulRowOfTheIssuesTableIsWithinTwentyPercent() throws IOException {
        JsonNode table = read("h100-2026-11-27-table.json");
        assertEquals("NVIDIA H100 80GB HBM3", table.get("device_kind").asText());
        assertEquals(4, table.get("rows").size());
        for (JsonNode row : table.get("rows")) {
            double modelled = modelledMicros(row);
            double ratio = modelled / row.get("measured_us").asDouble();
            assertTrue(ratio >= 0.8 && ratio <= 1.2, describe(row, modelled));
        }
    }

    @Test
    void theMeasuredGridIsMostlyWithinTwentyFivePercent() throws IOException {
        JsonNode rows = read("h100-2026-11-27-grid.json").get("rows");
        assertEquals(182, rows.size());
        List<String> outside = new ArrayList<>();
        double sum = 0;
        for (JsonNode row : rows) {
            double modelled = modelledMicros(row);
            double err = Math.abs(modelled / row.get("measured_us").asDouble() - 1);
            sum += err;
            if (err > 0.25) {
                outside.add(describe(row, modelled));
            }
        }
        double mean = sum / rows.size();
        String why = String.join("\n", outside);
        assertTrue(outside.size() <= rows.size() / 10, outside.size() + " of 182 rows outside ±25 %:\n" + why);
        assertTrue(mean <= 0.12, "mean |error| " + mean + "; outside ±25 %:\n" + why);
    }

    @Test
    void chunksCostWhatTheChipTakesAndNotTheSameAsOneMatmul() {
        // The lesson the roofline missed: the same FLOPs in 4 or 8 chunks take about 2 and 3 times as long at the
        // book's per-chip sizes (17.6, 34.1 and 46.8 µs measured).
        double one = MatmulStep.modelledSeconds(H100, ModelDtype.BFLOAT16, 512, 2048, 1);
        double four = MatmulStep.modelledSeconds(H100, ModelDtype.BFLOAT16, 512, 2048, 4);
        double eight = MatmulStep.modelledSeconds(H100, ModelDtype.BFLOAT16, 512, 2048, 8);
        assertTrue(four > 1.5 * one && eight > 2.3 * one && eight > 1.3 * four, one + " " + four + " " + eight);
    }

    @Test
    void streamingRunsAtTheMeasuredRate() throws IOException {
        JsonNode stream = null;
        for (JsonNode p : read("h100-2026-11-27-table.json").get("programs")) {
            if (p.get("program").asText().equals("stream")) {
                stream = p;
            }
        }
        int n = 256 * 1024 * 1024;
        // x * 1.5 + 1: a multiply and an add, XLA's loop fusion makes them one kernel reading and writing 1 GiB.
        List<TraceEvent> events = List.of(
                new TraceEvent.LocalOpEvent(BinaryOp.MUL, DType.FLOAT32, List.of(n), n, 8L * n + 4, 1, List.of(0L)),
                new TraceEvent.LocalOpEvent(BinaryOp.ADD, DType.FLOAT32, List.of(n), n, 8L * n + 4, 2, List.of(1L)));
        DeviceTrace device = new DeviceTrace(0, List.of(0), events, 4L * n, 8L * n, 4L * n);
        Trace trace = new Trace(List.of(new ShardMapTrace("stream", Mesh.makeMesh(new int[]{1}, "chip"),
                List.of(PartitionSpec.P()), List.of(PartitionSpec.P()), List.of(device))), List.of(), 0);
        double modelled = CostModel.schedule(trace, H100, ModelDtype.FLOAT32).seconds() * 1e6;
        double measured = stream.get("measured_us").asDouble();
        assertTrue(Math.abs(modelled / measured - 1) <= 0.2, "modelled " + modelled + " µs, measured " + measured);
    }
}
