package dev.shardlings.cost;

import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.events.Trace;
import dev.shardlings.events.TraceEvent;
import dev.shardlings.events.TraceEvent.LocalOpEvent;
import dev.shardlings.events.TraceEvent.MatmulEvent;
import dev.shardlings.events.Tracing;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.spmd.ShardedArray;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static dev.shardlings.sharding.PartitionSpec.P;
import static dev.shardlings.spmd.ShardMap.shardMap;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The modelled per-chip step: the framework's own events for it, and its argument checks. */
class MatmulStepTest {

    /** The step run for real in a shardMap on one device, recorded: what MatmulStep builds without running. */
    private static Trace recorded(int m, int k, int chunks) {
        int s = k / chunks;
        Mesh one = Mesh.makeMesh(new int[]{1}, "chip");
        // Placed inside the recording, so that A and W carry ids of their own.
        return Tracing.record(() -> shardMap((x, y) -> {
            NDArray acc = null;
            for (int i = 0; i < chunks; i++) {
                NDArray p = x.slice(1, i * s, (i + 1) * s).matmul(y.slice(0, i * s, (i + 1) * s));
                acc = acc == null ? p : acc.add(p);
            }
            return acc.mul(0.01f);
        }, one, P(), P(), P()).apply(ShardedArray.devicePut(NDArray.ones(DType.FLOAT32, m, k), one, P()),
                ShardedArray.devicePut(NDArray.ones(DType.FLOAT32, k, k), one, P()))).trace();
    }

    private static List<TraceEvent> events(Trace t) {
        return t.shardMaps().get(0).devices().get(0).events();
    }

    /**
     * The events with their ids renamed (ids differ between runs, the graph not): events 1, 2, … in program order,
     * arguments −1, −2, … in order of first use, 0 (made outside any trace) kept.
     */
    private static List<String> canonical(Trace t) {
        Map<Long, Long> names = new HashMap<>();
        names.put(0L, 0L);
        long[] counts = {0, 0};
        List<String> out = new ArrayList<>();
        for (TraceEvent e : events(t)) {
            List<Long> in = e.inputs().stream().map(id -> names.computeIfAbsent(id, x -> -++counts[0])).toList();
            long id = names.computeIfAbsent(e.id(), x -> ++counts[1]);
            if (e instanceof MatmulEvent mm) {
                out.add("dot " + mm.m() + "x" + mm.k() + "x" + mm.n() + " " + mm.flops() + " " + in + " -> " + id);
            } else {
                LocalOpEvent op = (LocalOpEvent) e;
                out.add(op.op() + " " + op.shape() + " " + op.flops() + " " + op.bytes() + " " + in + " -> " + id);
            }
        }
        return out;
    }

    @Test
    void theEventsAreTheOnesTheFrameworkRecordsForTheStep() {
        for (int[] c : new int[][]{{8, 16, 1}, {8, 16, 4}, {4, 12, 3}, {16, 8, 8}}) {
            Trace built = MatmulStep.trace(c[0], c[1], c[2]);
            Trace real = recorded(c[0], c[1], c[2]);
            assertEquals(canonical(real), canonical(built), () -> java.util.Arrays.toString(c));
            for (String name : HardwareModel.BUILT_IN) {
                HardwareModel hw = HardwareModel.builtIn(name);
                for (ModelDtype d : List.of(ModelDtype.BFLOAT16, ModelDtype.FLOAT32)) {
                    Timeline want = CostModel.schedule(real, hw, d);
                    assertEquals(want.spans(), CostModel.schedule(built, hw, d).spans(), name + " " + d);
                    assertEquals(want.seconds(), MatmulStep.modelledSeconds(hw, d, c[0], c[1], c[2]), 0.0);
                }
            }
        }
    }

    @Test
    void eachChunkIsOneDotOfItsWidthAndAnAddAfterTheFirst() {
        List<TraceEvent> es = events(MatmulStep.trace(512, 2048, 4));
        List<MatmulEvent> dots = es.stream().filter(MatmulEvent.class::isInstance).map(MatmulEvent.class::cast)
                .toList();
        assertEquals(4, dots.size());
        dots.forEach(d -> assertEquals(List.of(512, 512, 2048), List.of(d.m(), d.k(), d.n())));
        assertEquals(2L * 512 * 2048 * 2048, dots.stream().mapToLong(MatmulEvent::flops).sum());
        List<String> rest = es.stream().filter(LocalOpEvent.class::isInstance)
                .map(e -> ((LocalOpEvent) e).name()).filter(n -> !n.equals("slice")).toList();
        assertEquals(List.of("add", "add", "add", "multiply"), rest);
    }

    @Test
    void aChipSizedStepIsModelledWithoutAllocatingIt() {
        // 8192 × 8192 operands would take 512 MiB to hold: the step is built from shapes only.
        double s = MatmulStep.modelledSeconds(HardwareModel.builtIn("h100-8-nvlink"), ModelDtype.BFLOAT16, 8192,
                8192, 1);
        assertTrue(s > 0 && Double.isFinite(s), () -> "got " + s);
    }

    @Test
    void badArgumentsAreNamed() {
        HardwareModel hw = HardwareModel.builtIn("tpu-v5e");
        assertEquals("hw", assertThrows(NullPointerException.class,
                () -> MatmulStep.modelledSeconds(null, ModelDtype.BFLOAT16, 1, 1, 1)).getMessage());
        assertEquals("dtype", assertThrows(NullPointerException.class,
                () -> MatmulStep.modelledSeconds(hw, null, 1, 1, 1)).getMessage());
        assertEquals("m must be a positive integer, got 0", assertThrows(IllegalArgumentException.class,
                () -> MatmulStep.modelledSeconds(hw, ModelDtype.BFLOAT16, 0, 8, 2)).getMessage());
        assertEquals("k must be a positive integer, got -8", assertThrows(IllegalArgumentException.class,
                () -> MatmulStep.modelledSeconds(hw, ModelDtype.BFLOAT16, 8, -8, 2)).getMessage());
        assertEquals("chunks must be a positive integer, got 0", assertThrows(IllegalArgumentException.class,
                () -> MatmulStep.modelledSeconds(hw, ModelDtype.BFLOAT16, 8, 8, 0)).getMessage());
        assertEquals("k = 10 is not divisible by chunks = 4", assertThrows(IllegalArgumentException.class,
                () -> MatmulStep.modelledSeconds(hw, ModelDtype.BFLOAT16, 8, 10, 4)).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> MatmulStep.modelledSeconds(hw,
                ModelDtype.BFLOAT16, Integer.MAX_VALUE, Integer.MAX_VALUE, 1)).getMessage().contains("do not fit"));
        HardwareModel bf16Only = new HardwareModel("bf16-only", "", "switch", Map.of("bfloat16", 1e12), 1e12, 1e12,
                1e9, 0, 1, List.of());
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> MatmulStep.modelledSeconds(bf16Only, ModelDtype.FLOAT32, 8, 8, 1)).getMessage()
                .contains("no matmul rate for float32"));
    }
}
