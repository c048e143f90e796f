package dev.shardlings.cost;

import dev.shardlings.array.BinaryOp;
import dev.shardlings.array.DType;
import dev.shardlings.array.LocalOp;
import dev.shardlings.array.ReduceOp;
import dev.shardlings.events.DeviceTrace;
import dev.shardlings.events.ShardMapTrace;
import dev.shardlings.events.Trace;
import dev.shardlings.events.TraceEvent;
import dev.shardlings.events.TraceEvent.LocalOpEvent;
import dev.shardlings.events.TraceEvent.MatmulEvent;
import dev.shardlings.sharding.Mesh;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static dev.shardlings.sharding.PartitionSpec.P;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Tiles, waves, split-K, fixed costs and the GPU epilogue of {@link KernelModel}, with round numbers. */
class KernelModelTest {

    /** 4 units, 1e12 FLOP/s in all (2.5e11 each), tiles of 128 × 128 at full rate and 64 × 64 at half. */
    private static KernelModel kernels(int minSplitDepth, double unhidden, KernelModel.Epilogue epilogue) {
        return new KernelModel(Map.of("bfloat16", 1e12), 1e12, 1e-6, Map.of("bfloat16", 2e-6),
                List.of(new KernelModel.Tile(128, 128, 1.0), new KernelModel.Tile(64, 64, 0.5)), 4, minSplitDepth,
                unhidden, epilogue, List.of("round numbers"));
    }

    @Test
    void aMatmulCountsWholeTilesInWholeWaves() {
        KernelModel k = kernels(0, 0, KernelModel.Epilogue.ANY);
        // [512, 512]: 16 tiles of 128², 4 waves of 2·128·128·256 FLOPs at 2.5e11 each: the ideal time.
        assertEquals(2.0 * 512 * 256 * 512 / 1e12, k.matmulComputeSeconds(512, 256, 512, 1e12), 1e-15);
        // [520, 512]: 5 × 4 = 20 tiles of 128², 5 waves; 64² tiles: 9 × 8 = 72 tiles, 18 waves at half rate (worse).
        assertEquals(5 * 2.0 * 128 * 128 * 256 / 2.5e11, k.matmulComputeSeconds(520, 256, 512, 1e12), 1e-15);
        // [64, 64]: one 128² tile wastes 3/4 of it; one 64² tile at half rate takes half as long.
        assertEquals(2.0 * 64 * 64 * 256 / 1.25e11, k.matmulComputeSeconds(64, 256, 64, 1e12), 1e-15);
    }

    @Test
    void anUnfilledWaveSplitsKWhenKIsDeepEnough() {
        // [128, 128]·k = 4096: one tile on one of 4 units; split-K by 4 (4096 / 1024 ≥ 4) fills the wave.
        KernelModel split = kernels(1024, 0, KernelModel.Epilogue.ANY);
        assertEquals(2.0 * 128 * 128 * 1024 / 2.5e11, split.matmulComputeSeconds(128, 4096, 128, 1e12), 1e-15);
        // k = 1536 allows no split (1536 / 1024 = 1): four 64² tiles at half rate beat one 128² tile alone.
        assertEquals(2.0 * 64 * 64 * 1536 / 1.25e11, split.matmulComputeSeconds(128, 1536, 128, 1e12), 1e-15);
        // Without split-K the four 64² tiles are the best there is.
        KernelModel none = kernels(0, 0, KernelModel.Epilogue.ANY);
        assertEquals(2.0 * 64 * 64 * 4096 / 1.25e11, none.matmulComputeSeconds(128, 4096, 128, 1e12), 1e-15);
    }

    @Test
    void computeAndMemoryOverlapUpToTheUnhiddenFraction() {
        assertEquals(3.0, kernels(0, 0, KernelModel.Epilogue.ANY).combine(3, 2), 1e-12);
        assertEquals(3.5, kernels(0, 0.25, KernelModel.Epilogue.ANY).combine(2, 3), 1e-12);
        assertEquals(5.0, kernels(0, 1, KernelModel.Epilogue.ANY).combine(2, 3), 1e-12);
    }

    @Test
    void withoutKernelsAModelIsItsRoofline() {
        HardwareModel v5e = HardwareModel.builtIn("tpu-v5e");
        HardwareModel bare = new HardwareModel(v5e.name(), "", v5e.topology(), v5e.matmulFlopsPerSecond(),
                v5e.vectorFlopsPerSecond(), v5e.memoryBytesPerSecond(), v5e.linkBytesPerSecond(),
                v5e.hopLatencySeconds(), v5e.wraparoundMinAxisSize(), List.of());
        assertEquals(KernelModel.ROOFLINE, bare.kernels());
        // One [512, 2048]·[2048, 2048] bfloat16 matmul: the roofline at the peaks.
        double flops = 2.0 * 512 * 2048 * 2048;
        double bytes = 2.0 * (512 * 2048 + 2048 * 2048 + 512 * 2048);
        // The fused ×0.01: one FLOP an element at the vector rate, and its 4-byte scalar (2 bytes in bfloat16).
        assertEquals(Math.max(flops / 1.97e14 + 512 * 2048 / v5e.vectorFlopsPerSecond(),
                        (bytes + 2) / v5e.memoryBytesPerSecond()),
                MatmulStep.modelledSeconds(bare, ModelDtype.BFLOAT16, 512, 2048, 1), 1e-9);
    }

    @Test
    void onAGpuTheScaleAfterAnAccumulationIsAKernelOfItsOwn() {
        HardwareModel h100 = HardwareModel.builtIn("h100-8-nvlink");
        KernelModel k = h100.kernels();
        assertEquals(KernelModel.Epilogue.SCALE_ACCUMULATE, k.epilogue());
        // One chunk: the ×0.01 is cuBLAS's alpha, one kernel. Two chunks: dot, dot + accumulate, then the scale.
        Timeline one = CostModel.schedule(MatmulStep.trace(512, 2048, 1), h100, ModelDtype.BFLOAT16);
        Timeline two = CostModel.schedule(MatmulStep.trace(512, 2048, 2), h100, ModelDtype.BFLOAT16);
        assertEquals(1, one.spans().size(), one.spans().toString());
        assertEquals(3, two.spans().size(), two.spans().toString());
        assertTrue(two.spans().get(1).name().endsWith("+ add"), two.spans().get(1).name());
        assertTrue(two.spans().get(2).name().startsWith("multiply"), two.spans().get(2).name());
        // On a TPU everything after the dot fuses into it: one span per chunk.
        Timeline tpu = CostModel.schedule(MatmulStep.trace(512, 2048, 2), HardwareModel.builtIn("tpu-v5e"),
                ModelDtype.BFLOAT16);
        assertEquals(2, tpu.spans().size(), tpu.spans().toString());
    }

    @Test
    void badKernelFiguresAreNamed(@TempDir Path dir) throws Exception {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new KernelModel.Tile(128, 0, 1));
        assertEquals("a matmul tile needs positive sizes, got [128, 0]", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new KernelModel.Tile(128, 128, 1.5));
        assertEquals("tile [128, 128]: efficiency must be in (0, 1], got 1.5", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new KernelModel(Map.of(), 0, -1, Map.of(), List.of(),
                1, 0, 0, null, null));
        assertEquals("kernels.op_seconds must be >= 0, got -1.0", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new KernelModel(Map.of(), 0, 0, Map.of(), List.of(),
                0, 0, 0, null, null));
        assertEquals("kernels.matmul_units must be >= 1, got 0", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new KernelModel(Map.of(), 0, 0, Map.of(), List.of(),
                1, 0, 2, null, null));
        assertEquals("kernels.unhidden_fraction must be in [0, 1], got 2.0", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new KernelModel(Map.of("bfloat16", 0.0), 0, 0,
                Map.of(), List.of(), 1, 0, 0, null, null));
        assertEquals("kernels.matmul_flops_per_second.bfloat16 must be positive, got 0.0", e.getMessage());
        Path f = dir.resolve("epilogue.json");
        Files.writeString(f, HardwareModel.builtIn("h100-8-nvlink").toJson().replace("\"scale_accumulate\"",
                "\"cublas\""));
        java.io.UncheckedIOException io = assertThrows(java.io.UncheckedIOException.class, () -> HardwareModel.read(f));
        assertTrue(io.getMessage().contains("epilogue must be \"any\" or \"scale_accumulate\", got cublas"),
                io.getMessage());
    }

    @Test
    void everyBuiltInModelRoundTripsWithItsKernels(@TempDir Path dir) throws Exception {
        for (String name : HardwareModel.BUILT_IN) {
            HardwareModel m = HardwareModel.builtIn(name);
            assertTrue(m.kernels().matmulUnits() > 1 && !m.kernels().sources().isEmpty(), name);
            Path f = dir.resolve(name + ".json");
            Files.writeString(f, m.toJson());
            assertEquals(m, HardwareModel.read(f));
        }
    }

    /** One device running {@code events}, traced as a shardMap call. */
    private static Trace oneDevice(List<TraceEvent> events) {
        DeviceTrace d = new DeviceTrace(0, List.of(0), events, 0, 0, 0);
        return new Trace(List.of(new ShardMapTrace("f", Mesh.makeMesh(new int[]{1}, "chip"), List.of(P()), List.of(P()),
                List.of(d))), List.of(), 0);
    }

    private static LocalOpEvent op(LocalOp o, int n, long bytes, long id, Long... inputs) {
        return new LocalOpEvent(o, DType.FLOAT32, List.of(n), n, bytes, id, List.of(inputs));
    }

    @Test
    void aFusedResultThatIsAlsoReadElsewhereIsStillWritten() {
        HardwareModel h100 = HardwareModel.builtIn("h100-8-nvlink");
        int n = 1 << 20;
        long b = 4L * n;
        // y = x·x; z = y + x fuses into y's kernel; w = y·y reads y again, so the fused kernel still writes y.
        Timeline t = CostModel.schedule(oneDevice(List.of(op(BinaryOp.MUL, n, 2 * b, 1, 0L),
                op(BinaryOp.ADD, n, 3 * b, 2, 1L, 0L), op(BinaryOp.MUL, n, 2 * b, 3, 1L))), h100, ModelDtype.FLOAT32);
        assertEquals(2, t.spans().size(), t.spans().toString());
        assertEquals(4 * b, t.spans().get(0).bytes(), "x read, y written, x read again, z written");
        // Without the second reader, y never goes through memory.
        Timeline u = CostModel.schedule(oneDevice(List.of(op(BinaryOp.MUL, n, 2 * b, 1, 0L),
                op(BinaryOp.ADD, n, 3 * b, 2, 1L, 0L))), h100, ModelDtype.FLOAT32);
        assertEquals(3 * b, u.spans().get(0).bytes());
    }

    @Test
    void aReductionEndsALoopFusionEvenWhenItStartsTheKernel() {
        int n = 1 << 10;
        Timeline t = CostModel.schedule(oneDevice(List.of(op(ReduceOp.SUM, 1, 4L * n + 4, 1, 0L),
                op(BinaryOp.MUL, 1, 12, 2, 1L))), HardwareModel.builtIn("tpu-v5e"), ModelDtype.FLOAT32);
        assertEquals(2, t.spans().size(), t.spans().toString());
    }

    /** How many kernels a [256, 256] matmul followed by {@code tail} makes on the H100. */
    private static int kernelsAfterAMatmul(List<TraceEvent> tail) {
        int m = 256;
        List<TraceEvent> events = new ArrayList<>();
        events.add(new MatmulEvent(m, m, m, DType.FLOAT32, 2L * m * m * m, 1, List.of(0L)));
        events.addAll(tail);
        return CostModel.schedule(oneDevice(events), HardwareModel.builtIn("h100-8-nvlink"), ModelDtype.FLOAT32)
                .spans().size();
    }

    @Test
    void aGpuMatmulEpilogueTakesAScalarScaleOneAccumulateAndAReluInThatOrder() {
        int n = 256 * 256;
        long b = 4L * n;
        assertEquals(1, kernelsAfterAMatmul(List.of(op(BinaryOp.MUL, n, 2 * b + 4, 2, 1L),
                op(BinaryOp.ADD, n, 3 * b, 3, 2L, 0L), op(BinaryOp.MAX, n, 2 * b + 4, 4, 3L))),
                "scale, accumulate, ReLU: one kernel");
        assertEquals(2, kernelsAfterAMatmul(List.of(op(BinaryOp.MUL, n, 3 * b, 2, 1L, 0L))),
                "a full-size multiply is not alpha");
        assertEquals(2, kernelsAfterAMatmul(List.of(op(BinaryOp.ADD, n, 3 * b, 2, 1L, 0L),
                op(BinaryOp.ADD, n, 3 * b, 3, 2L, 0L))), "a second accumulate");
        assertEquals(2, kernelsAfterAMatmul(List.of(op(BinaryOp.ADD, n, 3 * b, 2, 1L, 0L),
                op(BinaryOp.MUL, n, 2 * b + 4, 3, 2L))), "a scale after the accumulate");
        assertEquals(2, kernelsAfterAMatmul(List.of(op(BinaryOp.MAX, n, 3 * b, 2, 1L, 0L))),
                "maximum with a full array");
        assertEquals(2, kernelsAfterAMatmul(List.of(op(ReduceOp.SUM, 1, b + 4, 2, 1L))), "a reduction");
    }

    @Test
    void anAchievedRateAboveThePeakIsNamed() {
        HardwareModel v5e = HardwareModel.builtIn("tpu-v5e");
        KernelModel fast = new KernelModel(Map.of("bfloat16", 1e15), 0, 0, Map.of(), List.of(), 1, 0, 0, null, null);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new HardwareModel("x", "",
                "torus", v5e.matmulFlopsPerSecond(), 1e12, 1e12, 1e10, 1e-6, 4, List.of(), fast));
        assertEquals("hardware model 'x': kernels.matmul_flops_per_second.bfloat16 = 1.0E15 must not exceed the peak"
                + " matmul_flops_per_second.bfloat16 = 1.97E14", e.getMessage());
    }
}
