package dev.shardlings.spmd;

import dev.shardlings.array.NDArray;
import dev.shardlings.events.Trace;
import dev.shardlings.events.Tracing;
import dev.shardlings.jit.Jit;
import dev.shardlings.sharding.Mesh;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.shardlings.sharding.PartitionSpec.P;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Which recorded program made each returned array: a jitted program's outputs, an eager operation's, the host's. */
class ResultProgramsTest {

    private static final Mesh MESH = Mesh.ofDeviceIds(new int[] {0, 1, 2, 3}, new int[] {4}, "x");

    private static List<Integer> programs(java.util.function.Supplier<Object> body) {
        Tracing.Traced<Object> t = Tracing.record(body);
        return ResultPrograms.of(t.value(), t.trace());
    }

    @Test
    void aJittedProgramsOutputsNameItAndAHostPlacementNamesNone() {
        ShardedArray a = ShardedArray.devicePut(NDArray.arange(8).astype(dev.shardlings.array.DType.FLOAT32), MESH,
                P("x"));
        assertEquals(List.of(0, 0), programs(() -> Jit.jitList(xs -> List.of(xs.get(0).sin(), xs.get(0).mul(2f)))
                .call(a)));
        // the eager sin is program 0, the eager mul program 1; the placement made on the host names none
        assertEquals(List.of(0, 1, Trace.NO_PROGRAM), programs(() -> List.of(a.sin(), a.mul(2f),
                ShardedArray.devicePut(a.gather().mul(2f), MESH, P("x")))));
        // an argument handed back unchanged was made before: no program of the recording made it
        assertEquals(List.of(Trace.NO_PROGRAM), programs(() -> Jit.jitList(xs -> xs).call(a)));
        assertEquals(List.of(Trace.NO_PROGRAM), programs(() -> NDArray.arange(3)));
        assertEquals(List.of(), programs(() -> "not an array"));
    }

    @Test
    void aTraceRefusesAResultProgramItDoesNotHold() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new Trace(List.of(), List.of(), 0, List.of(0)));
        assertEquals("result program 0 is not one of the 0 recorded programs", e.getMessage());
    }
}
