package dev.shardlings.spmd;

import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.events.Collective;
import dev.shardlings.events.Trace;
import dev.shardlings.events.TraceEvent;
import dev.shardlings.events.Tracing;
import dev.shardlings.sharding.Mesh;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.function.UnaryOperator;

import static dev.shardlings.sharding.PartitionSpec.P;
import static dev.shardlings.spmd.ShardMap.shardMap;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Each collective primitive's rules agree with what the runtime does: the shape rule with the result's shape, the
 * bytes rule with the bytes recorded, the check_vma rule with the result's varying axes, on every device.
 */
class CollectivePrimitiveRulesTest {

    private static final Mesh MESH = Mesh.makeMesh(new int[]{2, 4}, "x", "y");

    @Test
    void shapeBytesAndVaryingAxesRulesMatchTheRuntime() {
        List<UnaryOperator<NDArray>> calls = List.of(
                b -> Collectives.psum(b, "y"),
                b -> Collectives.pmean(b, "x", "y"),
                b -> Collectives.pmax(b, "y"),
                b -> Collectives.pmin(b, List.of("x")),
                b -> Collectives.allGather(b, "y"),
                b -> Collectives.allGather(b, "y", -1, Tiling.TILED),
                b -> Collectives.allGather(b, List.of("x", "y"), 1, Tiling.UNTILED),
                b -> Collectives.allGatherInvariant(b, "y", 0, Tiling.TILED),
                b -> Collectives.psumScatter(b, "y", 1, Tiling.TILED),
                b -> Collectives.psumScatter(b.slice(1, 0, 4), "y", 0, Tiling.UNTILED),
                b -> Collectives.allToAll(b, "y", 1, 0, Tiling.TILED),
                b -> Collectives.allToAll(b.slice(1, 0, 4), "y", 0, 1, Tiling.UNTILED),
                b -> Collectives.ppermute(b, "y", new int[][]{{0, 1}, {1, 2}, {2, 0}}));
        NDArray x = NDArray.arange(2 * 4 * 8 * 8, DType.FLOAT32).reshape(2 * 4, 8 * 8);
        for (UnaryOperator<NDArray> call : calls) {
            List<Set<String>> expectedVma = new ArrayList<>();
            List<Set<String>> actualVma = new ArrayList<>();
            Trace t = Tracing.record(() -> shardMap(b -> {
                NDArray out = call.apply(b);
                synchronized (actualVma) {
                    actualVma.add(out.varyingAxes());
                }
                return b; // the result's own shape may not fit the out spec; the trace has what the rules need
            }, MESH, P("x", "y"), P("x", "y")).apply(x)).trace();
            int checked = 0;
            for (var device : t.shardMaps().get(0).devices()) {
                for (TraceEvent e : device.events()) {
                    if (!(e instanceof TraceEvent.CollectiveEvent c)) {
                        continue;
                    }
                    checked++;
                    Collective kind = c.kind();
                    int[] in = c.inputShape().stream().mapToInt(Integer::intValue).toArray();
                    assertEquals(c.outputShape(), boxed(kind.outShape(in, c.groupSize(), c.params())),
                            kind.jaxName() + " " + c.params().text());
                    long operandBytes = c.operandBytes();
                    long formula = kind.bytesPerDevice(c.groupSize()).of(operandBytes);
                    if (kind == Collective.PPERMUTE) {
                        assertEquals(c.bytesReceived() == 0 ? 0 : formula, c.bytesReceived());
                    } else {
                        assertEquals(formula, c.bytesReceived(), kind.jaxName());
                        assertEquals(formula, c.bytesSent(), kind.jaxName());
                    }
                    expectedVma.add(kind.varyingAxes(Set.of("x", "y"), c.axes(), c.params()));
                }
            }
            assertEquals(MESH.size(), checked, "one collective per device");
            assertEquals(Set.copyOf(expectedVma), Set.copyOf(actualVma));
        }
    }

    private static List<Integer> boxed(int[] shape) {
        return Arrays.stream(shape).boxed().toList();
    }
}
