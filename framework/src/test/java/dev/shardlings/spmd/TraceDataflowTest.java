package dev.shardlings.spmd;

import dev.shardlings.array.LocalOp;
import dev.shardlings.array.NDArray;
import dev.shardlings.array.UnaryOp;
import dev.shardlings.primitive.Unary;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.NamedSharding;
import dev.shardlings.events.DeviceTrace;
import dev.shardlings.events.Trace;
import dev.shardlings.events.TraceEvent;
import dev.shardlings.events.Tracing;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static dev.shardlings.sharding.PartitionSpec.P;
import static dev.shardlings.spmd.Collectives.pmean;
import static dev.shardlings.spmd.Collectives.ppermute;
import static dev.shardlings.spmd.ShardMap.shardMap;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The trace's dataflow: every event names the events whose arrays it read, across collectives and views. */
class TraceDataflowTest {

    private static final Mesh I2 = Mesh.makeMesh(new int[]{2}, "i");

    private static DeviceTrace device0(Trace t) {
        return t.shardMaps().get(0).devices().get(0);
    }

    @Test
    void aFloat32MatmulOfBFloat16OperandsSaysSoAlsoUnderAutodiff() {
        // under autodiff the framework widens the operands itself first; the event still names them bfloat16, so a
        // rule tells this matmul from a float32 one of copies the program widened (which says float32)
        dev.shardlings.array.DType bf = dev.shardlings.array.DType.BFLOAT16;
        dev.shardlings.array.DType f32 = dev.shardlings.array.DType.FLOAT32;
        NDArray x = NDArray.arange(8, f32).reshape(2, 4);
        Trace t = Tracing.record(() -> shardMap(b -> {
            NDArray a = b.astype(bf);
            NDArray w = NDArray.ones(bf, 4, 2);
            NDArray plain = a.matmul(w, f32);
            NDArray taped = dev.shardlings.autodiff.Autodiff.<NDArray>grad(v -> v.matmul(w, f32).sum())
                    .apply(a).astype(f32);
            NDArray widened = a.astype(f32).matmul(w.astype(f32));
            return plain.add(taped.sum()).add(widened);
        }, I2, P("i", null), P("i", null)).apply(x)).trace();
        List<TraceEvent.MatmulEvent> dots = device0(t).matmuls();
        assertEquals(List.of(bf, bf), dots.subList(0, 2).stream().map(TraceEvent.MatmulEvent::operandDtype).toList(),
                "the plain and the taped forward matmul");
        assertEquals(f32, dots.get(dots.size() - 1).operandDtype(), "the program's own float32 matmul");
        dots.forEach(d -> assertEquals(f32, d.dtype()));
    }

    @Test
    void aBFloat16TimesFloat32MatmulNamesEachOperandsDtype() {
        // JAX's transpose of a bfloat16 dot is a float32 cotangent times a bfloat16 operand: the event keeps that
        // operand's bfloat16 apart from the promoted float32, with and without autodiff
        dev.shardlings.array.DType bf = dev.shardlings.array.DType.BFLOAT16;
        dev.shardlings.array.DType f32 = dev.shardlings.array.DType.FLOAT32;
        NDArray x = NDArray.arange(8, f32).reshape(2, 4);
        Trace t = Tracing.record(() -> shardMap(b -> {
            NDArray a = b.astype(bf);
            NDArray dz = NDArray.ones(f32, 1, 2);
            NDArray plain = a.transpose().matmul(dz, f32);
            NDArray taped = dev.shardlings.autodiff.Autodiff.<NDArray>grad(v -> a.transpose().matmul(v, f32).sum())
                    .apply(dz);
            NDArray promoted = a.transpose().matmul(dz); // preferred float32 by promotion: the same dot
            return plain.sum().add(taped.sum()).add(promoted.sum()).reshape(1, 1).broadcastTo(1, 4);
        }, I2, P("i", null), P("i", null)).apply(x)).trace();
        List<TraceEvent.MatmulEvent> dots = device0(t).matmuls();
        TraceEvent.MatmulEvent last = dots.get(dots.size() - 1);
        assertEquals(List.of(bf, f32), List.of(last.operandDtype(), last.rhsOperandDtype()));
        assertEquals(List.of(bf, bf), dots.subList(0, 2).stream().map(TraceEvent.MatmulEvent::operandDtype).toList());
        assertEquals(List.of(f32, f32), dots.subList(0, 2).stream().map(TraceEvent.MatmulEvent::rhsOperandDtype)
                .toList());
        assertTrue(dots.get(0).hasOperand(bf));
    }

    @Test
    void eventsChainThroughLocalOpsCollectivesAndViews() {
        NDArray x = NDArray.arange(8, dev.shardlings.array.DType.FLOAT32).reshape(2, 4);
        Trace t = Tracing.record(() -> shardMap(b -> {
            NDArray s = b.slice(1, 0, 2);                          // slice: reads the argument
            NDArray m = s.matmul(NDArray.ones(dev.shardlings.array.DType.FLOAT32, 2, 2)); // create, then dot
            NDArray p = ppermute(m.reshape(1, 2), "i", new int[][]{{0, 1}, {1, 0}}); // view keeps m's id
            return pmean(p.add(1f), "i");                         // add, then pmean, then divide
        }, I2, P("i", null), P()).apply(x)).trace();
        List<TraceEvent> ev = device0(t).events();
        List<String> kinds = ev.stream().map(e -> e instanceof TraceEvent.LocalOpEvent l ? l.name()
                : e instanceof TraceEvent.MatmulEvent ? "dot" : ((TraceEvent.CollectiveEvent) e).kind().jaxName())
                .toList();
        assertEquals(List.of("slice", "create", "dot", "ppermute", "add", "pmean", "divide"), kinds);
        TraceEvent slice = ev.get(0);
        // The argument was laid out by the runtime, outside the trace: its id (every array made during a call has
        // one, for the grader's provenance check) names no event.
        assertEquals(1, slice.inputs().size());
        assertTrue(ev.stream().noneMatch(e -> e.id() == slice.inputs().get(0)), "the argument is no event's array");
        assertEquals(List.of(slice.id(), ev.get(1).id()), ev.get(2).inputs(), "dot reads the slice and the ones");
        assertEquals(List.of(ev.get(2).id()), ev.get(3).inputs(), "ppermute reads the dot through a reshape view");
        assertEquals(ev.get(3).id(), ev.get(4).inputs().get(0), "add reads the ppermute's result");
        assertEquals(List.of(ev.get(4).id()), ev.get(5).inputs());
        assertEquals(List.of(ev.get(5).id(), 0L), ev.get(6).inputs(), "pmean divides its result by a constant, locally");
        TraceEvent.LocalOpEvent add = assertInstanceOf(TraceEvent.LocalOpEvent.class, ev.get(4));
        assertEquals(2, add.flops());
        assertEquals(4L * (2 + 1 + 2), add.bytes(), "reads two float32 elements and the scalar, writes two");
        TraceEvent.LocalOpEvent sl = assertInstanceOf(TraceEvent.LocalOpEvent.class, slice);
        assertEquals(0, sl.flops());
        assertEquals(2 * 4L * 2, sl.bytes(), "a slice of two elements reads and writes two");
    }

    @Test
    void idsAreUniqueAcrossDevicesAndCalls() {
        NDArray x = NDArray.ones(dev.shardlings.array.DType.FLOAT32, 4, 2);
        Trace t = Tracing.record(() -> {
            var first = shardMap(b -> b.add(1f), I2, P("i", null), P("i", null)).apply(x);
            return shardMap(b -> b.mul(2f), I2, P("i", null), P("i", null)).apply(first);
        }).trace();
        Set<Long> ids = new HashSet<>();
        for (var sm : t.shardMaps()) {
            for (DeviceTrace d : sm.devices()) {
                for (TraceEvent e : d.events()) {
                    assertTrue(ids.add(e.id()), "id " + e.id() + " seen twice");
                }
            }
        }
        assertEquals(4, ids.size());
    }

    @Test
    void anEagerSinAGlobalSinAndTheirTraceEventsAllNameOneConstant() {
        NDArray x = NDArray.arange(4, dev.shardlings.array.DType.FLOAT32);
        Trace eager = Tracing.record(() -> shardMap(NDArray::sin, I2, P("i"), P("i")).apply(x)).trace();
        Trace global = Tracing.record(() -> ShardedArray.devicePut(x, new NamedSharding(I2, P("i"))).sin()).trace();
        for (Trace t : List.of(eager, global)) {
            List<LocalOp> ops = t.shardMaps().stream().flatMap(s -> s.devices().get(0).events().stream())
                    .map(e -> ((TraceEvent.LocalOpEvent) e).op()).toList();
            assertEquals(List.of(UnaryOp.SIN), ops);
        }
        assertEquals(UnaryOp.SIN.jaxName(), new Unary(UnaryOp.SIN).name(), "a jaxpr prints the trace's name");
    }
}
