package dev.shardlings.profiles;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.shardlings.cost.CostModel;
import dev.shardlings.cost.HardwareModel;
import dev.shardlings.cost.Timeline;
import dev.shardlings.jit.ProgramTrace;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Seed 001's full-size training step on {@code h100-8-nvlink} against one real H100 (the "programs" of
 * measurements/matmuls/h100-2026-11-27-table.json): the busiest device's compute stream within ±20 % of the step
 * measured on one chip with that device's share of the work (the collectives left out).
 */
class H100TrainingStepTest {

    @Test
    void bothTrainingStepsAreWithinTwentyPercentOfTheChip() throws Exception {
        JsonNode programs = new ObjectMapper().readTree(Files.readString(
                Path.of("..", "measurements", "matmuls", "h100-2026-11-27-table.json"))).get("programs");
        HardwareModel h100 = HardwareModel.builtIn("h100-8-nvlink");
        int checked = 0;
        for (ReferenceProfiles.Program p : ReferenceProfiles.training()) {
            double measured = Double.NaN;
            for (JsonNode m : programs) {
                if (m.get("program").asText().equals(p.problem()) && m.get("variant").asText().equals(p.variant())) {
                    measured = m.get("measured_us").asDouble();
                }
            }
            Timeline t = CostModel.schedule(ProgramTrace.of(p.lowered().get()), h100, p.dtype());
            double compute = 0;
            for (Timeline.Device d : t.devices()) {
                compute = Math.max(compute, t.computeSeconds(d.id()) * 1e6);
            }
            String what = String.format(Locale.ROOT, "%s: modelled compute stream %.0f µs, measured %.0f µs",
                    p.variant(), compute, measured);
            assertTrue(Math.abs(compute / measured - 1) <= 0.2, what);
            checked++;
        }
        assertEquals(2, checked);
    }
}
