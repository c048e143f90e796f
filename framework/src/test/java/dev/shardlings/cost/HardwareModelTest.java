package dev.shardlings.cost;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The built-in hardware models, their JSON form and the errors for bad figures. */
class HardwareModelTest {

    @Test
    void everyBuiltInModelLoadsWithSourcesAndABfloat16Rate() {
        for (String name : HardwareModel.BUILT_IN) {
            HardwareModel m = HardwareModel.builtIn(name);
            assertEquals(name, m.name());
            assertFalse(m.sources().isEmpty(), name + " names its sources");
            assertTrue(m.matmulRate(ModelDtype.BFLOAT16) > 1e13, name);
            assertTrue(m.matmulRate(ModelDtype.INT32) > 0, name + " can model the book's int32 example");
        }
        HardwareModel v5e = HardwareModel.builtIn("tpu-v5e");
        assertEquals(1.97e14, v5e.matmulRate(ModelDtype.BFLOAT16));
        assertEquals(4.5e10, v5e.linkBytesPerSecond());
        assertFalse(v5e.ring(4, 16), "a 4-chip v5e axis has no wraparound");
        assertFalse(v5e.ring(8, 64), "nor an 8-chip one, however large the slice");
        assertTrue(v5e.ring(16, 16), "an axis spanning the pod's 16 chips wraps around");
        HardwareModel v4 = HardwareModel.builtIn("tpu-v4");
        assertFalse(v4.ring(4, 8), "a 2 x 4 v4 slice has no optical wraparound links");
        assertFalse(v4.ring(4, 16), "nor a 4 x 4 one");
        assertFalse(v4.ring(8, 8), "nor a 2 x 2 x 2 one");
        assertTrue(v4.ring(4, 64), "a full 4 x 4 x 4 cube wraps around on each axis");
        assertTrue(v4.ring(16, 64));
        assertFalse(v4.ring(2, 64), "a 2-chip axis is one link either way");
        assertTrue(HardwareModel.builtIn("h100-8-nvlink").ring(8, 8), "a switch connects every pair");
        assertTrue(HardwareModel.builtIn("h100-8-nvlink").switched());
    }

    @Test
    void jsonRoundTrips(@TempDir Path dir) throws Exception {
        HardwareModel v4 = HardwareModel.builtIn("tpu-v4");
        Path f = dir.resolve("v4.json");
        Files.writeString(f, v4.toJson());
        assertEquals(v4, HardwareModel.read(f));
        assertTrue(v4.toJson().contains("\"memory_bytes_per_second\" : 1.2E12"), v4.toJson());
    }

    @Test
    void badFiguresAreNamed(@TempDir Path dir) throws Exception {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new HardwareModel("x", "",
                "torus", Map.of("bfloat16", 1e14), 1e12, -1, 1e10, 1e-6, 4, List.of()));
        assertEquals("hardware model 'x': memory_bytes_per_second must be a positive number, got -1.0", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new HardwareModel("x", "", "mesh",
                Map.of("bfloat16", 1e14), 1e12, 1e12, 1e10, 1e-6, 4, List.of()));
        assertEquals("hardware model 'x': topology must be \"torus\" or \"switch\", got mesh", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new HardwareModel("x", "", "torus",
                Map.of("fp8", 1e14), 1e12, 1e12, 1e10, 1e-6, 4, List.of()));
        assertEquals("unknown modelled dtype 'fp8'; use one of bfloat16, float32, int32, int8", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new HardwareModel("x", "", "torus",
                Map.of("bfloat16", 1e14), 1e12, 1e12, 1e10, 1e-6, 4, -2, List.of(), null));
        assertEquals("hardware model 'x': wraparound_min_slice_chips must be >= 1 (1: only the axis length decides),"
                + " got -2", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> HardwareModel.builtIn("tpu-v9"));
        assertTrue(e.getMessage().startsWith("no built-in hardware model 'tpu-v9'; built in: [tpu-v5e, tpu-v4,"),
                e.getMessage());
        Path f = dir.resolve("typo.json");
        Files.writeString(f, HardwareModel.builtIn("tpu-v5e").toJson().replace("hop_latency_seconds", "hop_latency"));
        java.io.UncheckedIOException io = assertThrows(java.io.UncheckedIOException.class, () -> HardwareModel.read(f));
        assertTrue(io.getMessage().contains("hop_latency"), io.getMessage());
    }

    @Test
    void theCalibratedCpuModelHasPositiveFigures() {
        HardwareModel cpu = CpuCalibration.measure();
        assertEquals("cpu-local", cpu.name());
        assertTrue(cpu.matmulRate(ModelDtype.FLOAT32) > 1e7, cpu.toJson());
        assertTrue(cpu.hopLatencySeconds() > 0 && cpu.hopLatencySeconds() < 1, cpu.toJson());
        assertTrue(cpu.switched());
    }
}
