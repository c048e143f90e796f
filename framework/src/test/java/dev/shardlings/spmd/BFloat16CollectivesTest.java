package dev.shardlings.spmd;

import static dev.shardlings.sharding.PartitionSpec.P;
import static dev.shardlings.spmd.Collectives.allGather;
import static dev.shardlings.spmd.Collectives.pmean;
import static dev.shardlings.spmd.Collectives.psum;
import static dev.shardlings.spmd.Collectives.psumScatter;
import static dev.shardlings.spmd.ShardMap.shardMap;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.events.Trace;
import dev.shardlings.events.TraceEvent;
import dev.shardlings.events.Tracing;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.PartitionSpec;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * Collectives of bfloat16 inside shardMap as JAX 0.10.2 computes them on CPU (jax-checks/bfloat16.py, 8 devices):
 * sums accumulate in float32 and round once; moved data keeps its bits; the trace counts 2 bytes an element.
 */
class BFloat16CollectivesTest {

    private static final Mesh X8 = Mesh.makeMesh(new int[] {8}, "x");
    /** 1 then seven 2^-8: a bfloat16 accumulator would stay at 1 (each 1 + 2^-8 ties to 1), float32 gives 0x3f84. */
    private static final int[] ONE_AND_SMALL = {0x3f80, 0x3b80, 0x3b80, 0x3b80, 0x3b80, 0x3b80, 0x3b80, 0x3b80};

    private static NDArray bf16(int... patterns) {
        float[] f = new float[patterns.length];
        for (int k = 0; k < f.length; k++) {
            f[k] = Float.intBitsToFloat(patterns[k] << 16);
        }
        return NDArray.of(f).astype(DType.BFLOAT16);
    }

    private static int[] bits(NDArray x) {
        assertEquals(DType.BFLOAT16, x.dtype(), "dtype");
        float[] f = x.toFloatArray();
        int[] b = new int[f.length];
        for (int k = 0; k < f.length; k++) {
            b[k] = Float.floatToRawIntBits(f[k]) >>> 16;
        }
        return b;
    }

    private static NDArray run(UnaryOperator<NDArray> f, PartitionSpec out, NDArray x) {
        return shardMap(f, X8, P("x"), out).apply(x).gather();
    }

    @Test
    void psumAndPmeanAccumulateInFloat32() {
        assertArrayEquals(new int[] {0x3f84}, bits(run(b -> psum(b, "x"), P(), bf16(ONE_AND_SMALL))));
        assertArrayEquals(new int[] {0x3e04}, bits(run(b -> pmean(b, "x"), P(), bf16(ONE_AND_SMALL))));
        int[] reversed = {0x3b80, 0x3b80, 0x3b80, 0x3b80, 0x3b80, 0x3b80, 0x3b80, 0x3f80};
        assertArrayEquals(new int[] {0x3f84}, bits(run(b -> psum(b, "x"), P(), bf16(reversed))));
        int[] mixed = {0x3f80, 0x3b80, 0x3b80, 0x3c00, 0x3f80, 0x3c80, 0xbf80, 0x4040};
        assertArrayEquals(new int[] {0x4081}, bits(run(b -> psum(b, "x"), P(), bf16(mixed))));
    }

    @Test
    void psumScatterAccumulatesInFloat32AndAllGatherMovesBits() {
        NDArray tiledIn = bf16(ONE_AND_SMALL);
        NDArray scattered = run(b -> psumScatter(NDArray.concat(0, b, b, b, b, b, b, b, b), "x", 0, Tiling.TILED),
                P("x"), tiledIn);
        assertArrayEquals(new int[] {0x3f84, 0x3f84, 0x3f84, 0x3f84, 0x3f84, 0x3f84, 0x3f84, 0x3f84},
                bits(scattered));
        // every device holds the whole gathered vector: the out spec P('x') lays the 8 copies side by side
        NDArray gathered = run(b -> allGather(b, "x", 0, Tiling.TILED), P("x"), tiledIn);
        assertArrayEquals(ONE_AND_SMALL, bits(gathered.slice(0, 0, 8)));
        assertArrayEquals(ONE_AND_SMALL, bits(gathered.slice(0, 56, 64)));
    }

    @Test
    void theTraceCountsTwoBytesAnElement() {
        TraceEvent.CollectiveEvent psum = collective(DType.BFLOAT16);
        assertEquals(DType.BFLOAT16, psum.dtype());
        assertEquals(collective(DType.FLOAT32).bytesSent(), 2 * psum.bytesSent(), "bf16 moves half the bytes of f32");
    }

    private static TraceEvent.CollectiveEvent collective(DType dtype) {
        Trace t = Tracing.record(() -> run(b -> psum(b, "x"), P(), NDArray.zeros(dtype, 8 * 64))).trace();
        return t.shardMaps().get(0).devices().get(0).events().stream()
                .filter(e -> e instanceof TraceEvent.CollectiveEvent).map(e -> (TraceEvent.CollectiveEvent) e)
                .findFirst().orElseThrow();
    }
}
