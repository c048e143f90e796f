package dev.shardlings.jit;

import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.autodiff.Autodiff;
import dev.shardlings.cost.CostModel;
import dev.shardlings.cost.HardwareModel;
import dev.shardlings.cost.ModelDtype;
import dev.shardlings.cost.Timeline;
import dev.shardlings.nn.Mlp;
import dev.shardlings.random.PRNG;
import dev.shardlings.sharding.AxisType;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.NamedSharding;
import dev.shardlings.sharding.PartitionSpec;
import dev.shardlings.spmd.ShardMap;
import dev.shardlings.spmd.ShardedArray;
import dev.shardlings.events.DeviceTrace;
import dev.shardlings.events.Trace;
import dev.shardlings.events.TraceEvent;
import dev.shardlings.events.Tracing;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import static dev.shardlings.sharding.PartitionSpec.P;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link ProgramTrace} against real calls: the modelled trace of seed 001's SGD step (grad and update in one jit
 * program) has the real trace's events, kinds, shapes, FLOPs and bytes, and so the same timeline on every built-in
 * hardware model, on 8-way data parallelism and on 4×2 data × tensor parallelism.
 */
class ProgramTraceTest {

    static List<ShardedArray> step(List<ShardedArray> a) {
        int n = a.size() - 2;
        int[] all = new int[n];
        for (int k = 0; k < n; k++) {
            all[k] = k;
        }
        List<ShardedArray> g = Autodiff.<ShardedArray>gradList(ps -> Mlp.loss(ps, a.get(n), a.get(n + 1)), all)
                .apply(a.subList(0, n));
        return Mlp.sgd(a.subList(0, n), g, 1e-5f);
    }

    private static Object[] args(Mesh mesh, List<PartitionSpec> specs) {
        Mlp.Model m = Mlp.init(PRNG.key(0), new int[] {64, 128, 128, 128, 10}, 128);
        List<Object> a = new ArrayList<>();
        for (int q = 0; q < m.params().size(); q++) {
            a.add(ShardedArray.devicePut(m.params().get(q), new NamedSharding(mesh, specs.get(q))));
        }
        a.add(ShardedArray.devicePut(m.inputs(), new NamedSharding(mesh, P("batch", null))));
        a.add(ShardedArray.devicePut(m.targets(), new NamedSharding(mesh, P("batch", null))));
        return a.toArray();
    }

    private static void sameAsARealCall(Mesh mesh, List<PartitionSpec> specs) {
        Object[] args = args(mesh, specs);
        Jitted step = Jit.jitList(ProgramTraceTest::step).named("train_step");
        Compiled c = step.lower(args);
        Trace real = Tracing.record(() -> step.call(args)).trace();
        Trace model = ProgramTrace.of(c);
        assertEquals(1, real.shardMaps().size());
        for (int d = 0; d < mesh.size(); d++) {
            DeviceTrace r = real.shardMaps().get(0).devices().get(d);
            DeviceTrace m = model.shardMaps().get(0).devices().get(d);
            assertEquals(r.deviceId(), m.deviceId());
            assertEquals(r.coords(), m.coords());
            assertEquals(r.events().size(), m.events().size(), "events of device " + d);
            for (int i = 0; i < r.events().size(); i++) {
                assertEquals(describe(r.events().get(i)), describe(m.events().get(i)), "event " + i + " of device " + d);
            }
        }
        for (String name : HardwareModel.BUILT_IN) {
            for (ModelDtype dtype : List.of(ModelDtype.FLOAT32, ModelDtype.BFLOAT16)) {
                Timeline tr = CostModel.schedule(real, HardwareModel.builtIn(name), dtype);
                Timeline tm = CostModel.schedule(model, HardwareModel.builtIn(name), dtype);
                assertEquals(tr.micros(), tm.micros(), 1e-9, name + " " + dtype);
                assertEquals(tr.flops(), tm.flops());
                assertEquals(tr.bytesSentTotal(), tm.bytesSentTotal());
            }
        }
    }

    /** Everything of an event but its ids, and the positions (not ids) of its inputs are left out too. */
    private static String describe(TraceEvent e) {
        if (e instanceof TraceEvent.MatmulEvent m) {
            return "dot " + m.m() + "x" + m.k() + "x" + m.n() + " " + m.dtype() + " " + m.flops();
        }
        if (e instanceof TraceEvent.LocalOpEvent op) {
            return op.op() + " " + op.dtype() + op.shape() + " " + op.flops() + " " + op.bytes() + " reads "
                    + op.inputs().size();
        }
        TraceEvent.CollectiveEvent c = (TraceEvent.CollectiveEvent) e;
        return c.describe() + " -> " + c.outputShape() + " " + c.groupSize() + " " + c.bytesSent() + " "
                + c.bytesReceived();
    }

    @Test
    void dataParallelStepModelsAsItRuns() {
        Mesh dp = Mesh.makeMesh(new int[] {8}, new String[] {"batch"}, AxisType.AUTO);
        sameAsARealCall(dp, Collections.nCopies(8, P()));
    }

    @Test
    void dataAndTensorParallelStepModelsAsItRuns() {
        Mesh tp = Mesh.makeMesh(new int[] {4, 2}, new String[] {"batch", "model"}, AxisType.AUTO, AxisType.AUTO);
        sameAsARealCall(tp, List.of(P(), P(), P(null, "model"), P("model"), P("model", null), P(), P(), P()));
    }

    @Test
    void peakBytesCountArgumentsAndBuffersUntilTheirLastReader() {
        Mesh mesh = Mesh.makeMesh(new int[] {8}, new String[] {"x"}, AxisType.AUTO);
        ShardedArray x = ShardedArray.devicePut(NDArray.zeros(DType.FLOAT32, 32, 4), mesh, P("x"));
        // per device: x's block f32[4, 4] (64 B) and the two literals (4 B each) stay; x·2 (64 B) lives until the
        // add reads it, while the add's result (64 B) is made: 72 + 64 + 64
        Compiled c = Jit.jit(v -> v.mul(2.0).add(1.0)).lower(x);
        assertEquals(200, ProgramTrace.peakBytes(c));
    }

    @Test
    void programsWithPartsItDoesNotModelAreRefused() {
        Mesh mesh = Mesh.makeMesh(new int[] {8}, new String[] {"x"}, AxisType.AUTO);
        ShardedArray x = ShardedArray.devicePut(NDArray.zeros(DType.FLOAT32, 32, 4), mesh, P("x"));
        Compiled region = Jit.jit(v -> ShardMap.shardMap(b -> b.mul(2f), mesh, P("x"), P("x")).apply(v)).lower(x);
        UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class,
                () -> ProgramTrace.of(region));
        assertTrue(e.getMessage().contains("shardMap region"), e.getMessage());
    }
}
