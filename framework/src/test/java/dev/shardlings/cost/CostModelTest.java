package dev.shardlings.cost;

import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.spmd.ShardedArray;
import dev.shardlings.events.Trace;
import dev.shardlings.events.Tracing;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import static dev.shardlings.spmd.Tiling.TILED;
import static dev.shardlings.sharding.PartitionSpec.P;
import static dev.shardlings.spmd.Collectives.allGather;
import static dev.shardlings.spmd.Collectives.ppermute;
import static dev.shardlings.spmd.Collectives.psum;
import static dev.shardlings.spmd.ShardMap.shardMap;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The cost model on small programs whose modelled times are worked out by hand. */
class CostModelTest {

    /** 1 GFLOP/s, 1 GB/s memory and links, 1 µs per hop: a device does 1000 FLOPs or moves 1000 bytes in 1 µs. */
    private static HardwareModel round(int wraparoundMinAxisSize) {
        return new HardwareModel("round", "round numbers", "torus", Map.of("float32", 1e9, "bfloat16", 1e9), 1e9,
                1e9, 1e9, 1e-6, wraparoundMinAxisSize, List.of());
    }

    private static final double US = 1e-6;

    private static Trace trace(Supplier<?> body) {
        return Tracing.record(body).trace();
    }

    private static NDArray ones(int... shape) {
        return NDArray.ones(DType.FLOAT32, shape);
    }

    private static int[][] up(int n) {
        int[][] p = new int[n][];
        for (int s = 0; s < n; s++) {
            p[s] = new int[]{s, (s + 1) % n};
        }
        return p;
    }

    @Test
    void aMatmulTakesItsRoofline() {
        Mesh one = Mesh.makeMesh(new int[]{1}, "i");
        // [10, 10]·[10, 10]: 2000 FLOPs = 2 µs; 1200 bytes = 1.2 µs: compute-bound.
        Trace t = trace(() -> shardMap(b -> b.matmul(b), one, P(), P()).apply(ones(10, 10)));
        Timeline tl = CostModel.schedule(t, round(1), ModelDtype.FLOAT32);
        assertEquals(2 * US, tl.seconds(), 1e-12);
        assertEquals(2000, tl.flops());
        // [1, 1000]·[1000, 1]: 2000 FLOPs = 2 µs; (1000 + 1000 + 1)·4 bytes = 8.004 µs: memory-bound.
        Trace m = trace(() -> shardMap(b -> b.reshape(1, 1000).matmul(b.reshape(1000, 1)), one, P(), P())
                .apply(ones(1000)));
        assertEquals(8.004 * US, CostModel.schedule(m, round(1), ModelDtype.FLOAT32).seconds(), 1e-12);
        assertEquals(4.002 * US, CostModel.schedule(m, round(1), ModelDtype.BFLOAT16).seconds(), 1e-12,
                "bfloat16 halves the bytes");
    }

    @Test
    void bfloat16ArraysCountTheirTwoBytesWhateverTheModelledDtype() {
        Mesh one = Mesh.makeMesh(new int[]{1}, "i");
        // [1, 1000]·[1000, 1] in bf16: (1000 + 1000 + 1)·2 bytes = 4.002 µs, never scaled a second time
        Trace m = trace(() -> shardMap(b -> b.reshape(1, 1000).matmul(b.reshape(1000, 1)), one, P(), P())
                .apply(NDArray.ones(DType.BFLOAT16, 1000)));
        assertEquals(4.002 * US, CostModel.schedule(m, round(1), ModelDtype.FLOAT32).seconds(), 1e-12);
        assertEquals(4.002 * US, CostModel.schedule(m, round(1), ModelDtype.BFLOAT16).seconds(), 1e-12);
    }

    @Test
    void aPpermuteOverlapsTheIndependentMatmulWrittenBeforeIt() {
        Mesh ring = Mesh.makeMesh(new int[]{2}, "i");
        // Per device: a [10, 10] block. dot = 2 µs; ppermute of 400 bytes = 0.4 µs + 1 µs hop. The sum waits for both.
        Trace t = trace(() -> shardMap(b -> {
            NDArray prod = b.matmul(b);
            NDArray got = ppermute(b, "i", up(2));
            return prod.add(got);
        }, ring, P("i"), P("i")).apply(ones(20, 10)));
        Timeline tl = CostModel.schedule(t, round(1), ModelDtype.FLOAT32);
        Timeline.Span send = tl.spans().stream().filter(s -> s.category().equals("collective")).findFirst()
                .orElseThrow();
        assertEquals(0, send.start(), 1e-15, "the ppermute starts with the matmul, not after it");
        assertEquals(1.4 * US, send.end(), 1e-12);
        // The add reads the dot just before it: fused, 1200 more bytes... roofline max(2 µs + 0.1, ...).
        assertEquals(2.1 * US, tl.seconds(), 1e-12);
        assertTrue(tl.spans().stream().anyMatch(s -> s.name().equals("dot [10, 10]·[10, 10] + add")), tl.spans()::toString);
    }

    @Test
    void withoutWraparoundTheLastPairGoesTheLongWayRound() {
        Mesh four = Mesh.makeMesh(new int[]{4}, "i");
        Supplier<ShardedArray> shift = () -> shardMap(b -> ppermute(b, "i", up(4)), four, P("i"), P("i"))
                .apply(ones(4, 250)); // 1000 bytes per device: 1 µs on a link
        Timeline line = CostModel.schedule(trace(shift), round(16), ModelDtype.FLOAT32);
        Timeline ring = CostModel.schedule(trace(shift), round(4), ModelDtype.FLOAT32);
        assertEquals(2 * US, ring.seconds(), 1e-12, "one hop: 1 µs of bytes and 1 µs of latency");
        assertEquals(4 * US, line.seconds(), 1e-12, "3 → 0 crosses 3 links: 1 µs of bytes and 3 µs of latency");
        Timeline.Span wrap = line.spans().stream().filter(s -> s.device() == 3).findFirst().orElseThrow();
        assertEquals("i-", wrap.track());
        assertEquals(4000, line.bytesSentTotal());
    }

    @Test
    void aSliceTooSmallForWraparoundMakesEveryAxisALine() {
        // v4-like: axes of 4 or more wrap, but only in a slice of at least 64 chips (a full 4 x 4 x 4 cube)
        HardwareModel cube = new HardwareModel("cube", "", "torus", Map.of("float32", 1e9), 1e9, 1e9, 1e9, 1e-6, 4,
                64, List.of(), null);
        Mesh small = Mesh.makeMesh(new int[]{4, 4}, "i", "j");
        Mesh full = Mesh.makeMesh(new int[]{4, 16}, "i", "j");
        Trace onSmall = trace(() -> shardMap(b -> ppermute(b, "i", up(4)), small, P("i", "j"), P("i", "j"))
                .apply(ones(4, 4 * 250)));
        Trace onFull = trace(() -> shardMap(b -> ppermute(b, "i", up(4)), full, P("i", "j"), P("i", "j"))
                .apply(ones(4, 16 * 250)));
        assertEquals(4 * US, CostModel.schedule(onSmall, cube, ModelDtype.FLOAT32).seconds(), 1e-12,
                "4 x 4 is no cube: 3 → 0 crosses 3 links");
        assertEquals(2 * US, CostModel.schedule(onFull, cube, ModelDtype.FLOAT32).seconds(), 1e-12,
                "in 64 chips the 4-chip axis wraps: one hop");
    }

    @Test
    void collectivesFollowTheRingFormulas() {
        Mesh four = Mesh.makeMesh(new int[]{4}, "i");
        // all-gather of b = 1000 bytes over a ring of 4: 3·1000 / (2·1e9) + 2 hops = 1.5 + 2 µs.
        Trace g = trace(() -> shardMap(b -> allGather(b, "i", 0, TILED), four, P("i"), P("i"))
                .apply(ones(4, 250)));
        assertEquals(3.5 * US, CostModel.schedule(g, round(1), ModelDtype.FLOAT32).seconds(), 1e-12);
        // On a line: 3·1000 / 1e9 + 3 hops.
        assertEquals(6 * US, CostModel.schedule(g, round(16), ModelDtype.FLOAT32).seconds(), 1e-12);
        // psum on the ring: 2·(3/4·1000 / 2e9 + 2 µs) = 4.75 µs.
        Trace p = trace(() -> shardMap(b -> psum(b, "i"), four, P("i"), P()).apply(ones(4, 250)));
        assertEquals(4.75 * US, CostModel.schedule(p, round(1), ModelDtype.FLOAT32).seconds(), 1e-12);
    }

    @Test
    void shardMapCallsRunOneAfterTheOther() {
        Mesh one = Mesh.makeMesh(new int[]{1}, "i");
        Trace t = trace(() -> {
            ShardedArray first = shardMap(b -> b.matmul(b), one, P(), P()).apply(ones(10, 10));
            return shardMap(b -> b.matmul(b), one, P(), P()).apply(first);
        });
        Timeline tl = CostModel.schedule(t, round(1), ModelDtype.FLOAT32);
        assertEquals(4 * US, tl.seconds(), 1e-12);
        assertEquals(2 * US, tl.spans().get(1).start(), 1e-12);
    }

    @Test
    void slicesAndConstantsAreFreeAndTheModelIsDeterministic() {
        Mesh one = Mesh.makeMesh(new int[]{1}, "i");
        Trace t = trace(() -> shardMap(b -> b.slice(0, 0, 5).matmul(NDArray.ones(DType.FLOAT32, 10, 10)), one,
                P(), P()).apply(ones(10, 10)));
        Timeline a = CostModel.schedule(t, round(1), ModelDtype.FLOAT32);
        assertEquals(1, a.spans().size(), "only the dot costs time: " + a.spans());
        assertEquals(a, CostModel.schedule(t, round(1), ModelDtype.FLOAT32));
    }

    @Test
    void aDtypeTheModelHasNoRateForIsAClearError() {
        Mesh one = Mesh.makeMesh(new int[]{1}, "i");
        Trace t = trace(() -> shardMap(b -> b.matmul(b), one, P(), P()).apply(ones(2, 2)));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> CostModel.schedule(t, round(1), ModelDtype.INT8));
        assertEquals("hardware model 'round' has no matmul rate for int8; it has [bfloat16, float32]", e.getMessage());
    }
}
