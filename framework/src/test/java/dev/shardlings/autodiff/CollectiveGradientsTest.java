package dev.shardlings.autodiff;

import dev.shardlings.array.NDArray;
import dev.shardlings.sharding.AxisType;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.NamedSharding;
import dev.shardlings.sharding.PartitionSpec;
import dev.shardlings.spmd.Collectives;
import dev.shardlings.spmd.ShardMap;
import dev.shardlings.spmd.ShardedArray;
import dev.shardlings.spmd.Tiling;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.function.UnaryOperator;

import static dev.shardlings.sharding.PartitionSpec.P;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Gradients through shardMap and its collectives against the values JAX 0.10.2 printed for the same programs
 * ({@code jax.grad} of a function that calls {@code jax.shard_map}, mesh i=4 of Auto axes, x = arange(8) split over
 * i, w = [1, 2] replicated).
 */
class CollectiveGradientsTest {
    static final Mesh MESH = Mesh.makeMesh(new int[]{4}, new String[]{"i"}, AxisType.AUTO);

    static ShardedArray x() {
        return ShardedArray.devicePut(NDArray.arange(8).astype(dev.shardlings.array.DType.FLOAT32),
                new NamedSharding(MESH, P("i")));
    }

    static ShardedArray w() {
        return ShardedArray.devicePut(NDArray.fromFloats(new float[]{1, 2}, 2), new NamedSharding(MESH, P()));
    }

    static ShardedArray sm(ShardMap.DeviceFunction f, List<ShardedArray> args, List<PartitionSpec> in, PartitionSpec out) {
        return ShardMap.shardMap(f, MESH, in, List.of(out)).call(args).get(0);
    }

    static float[] grad(UnaryOperator<ShardedArray> f, ShardedArray at) {
        return Autodiff.grad(f).apply(at).gather().toFloatArray();
    }

    static NDArray arange8() {
        return NDArray.arange(8).astype(dev.shardlings.array.DType.FLOAT32);
    }

    @Test
    void psumOfAVaryingValueTransposesToABroadcast() {
        float[] g = grad(x -> sm(b -> List.of(Collectives.psum(b.get(0).square().sum(), "i")), List.of(x), List.of(P("i")), P()), x());
        assertArrayEquals(new float[]{0, 2, 4, 6, 8, 10, 12, 14}, g);
    }

    @Test
    void anInvariantParameterBesideVaryingDataGetsItsGradientPsummed() {
        ShardedArray x = x();
        float[] g = grad(w -> sm(bs -> List.of(Collectives.psum(bs.get(0).mul(bs.get(1).reshape(1, 2)).sum(), "i")),
                List.of(w, x), List.of(P(), P("i")), P()), w());
        assertArrayEquals(new float[]{12, 16}, g);
    }

    @Test
    void psumOfAnInvariantValueCountsEveryDevice() {
        float[] g = grad(w -> sm(bs -> List.of(Collectives.psum(bs.get(0).square().sum(), "i")), List.of(w), List.of(P()), P()), w());
        assertArrayEquals(new float[]{8, 16}, g);
    }

    @Test
    void pmeanDividesTheBroadcastCotangent() {
        float[] g = grad(x -> sm(b -> List.of(Collectives.pmean(b.get(0), "i").square().sum()), List.of(x), List.of(P("i")), P()), x());
        assertArrayEquals(new float[]{1.5f, 2, 1.5f, 2, 1.5f, 2, 1.5f, 2}, g);
    }

    @Test
    void allGatherTransposesToPsumScatter() {
        NDArray r = arange8();
        float[] g = grad(x -> sm(b -> List.of(Collectives.psum(Collectives.allGather(b.get(0), "i", 0, Tiling.TILED).mul(r).sum(), "i")),
                List.of(x), List.of(P("i")), P()), x());
        assertArrayEquals(new float[]{0, 4, 8, 12, 16, 20, 24, 28}, g);
    }

    @Test
    void allGatherInvariantTakesEachDevicesOwnChunk() {
        NDArray r = arange8();
        float[] g = grad(x -> sm(b -> List.of(Collectives.allGatherInvariant(b.get(0), "i", 0, Tiling.TILED).mul(r).sum()),
                List.of(x), List.of(P("i")), P()), x());
        assertArrayEquals(new float[]{0, 1, 2, 3, 4, 5, 6, 7}, g);
    }

    @Test
    void ppermuteTransposesToTheInversePermutation() {
        int[][] ring = {{0, 1}, {1, 2}, {2, 3}, {3, 0}};
        float[] g = grad(x -> sm(b -> {
            NDArray scale = Collectives.axisIndex("i").astype(dev.shardlings.array.DType.FLOAT32).add(1f);
            return List.of(Collectives.psum(Collectives.ppermute(b.get(0), "i", ring).mul(scale)
                    .mul(NDArray.fromFloats(new float[]{1, 2}, 2)).sum(), "i"));
        }, List.of(x), List.of(P("i")), P()), x());
        assertArrayEquals(new float[]{2, 4, 3, 6, 4, 8, 1, 2}, g);
    }

    @Test
    void allToAllTransposesWithSplitAndConcatSwapped() {
        ShardedArray y = ShardedArray.devicePut(NDArray.arange(32).astype(dev.shardlings.array.DType.FLOAT32).reshape(16, 2),
                new NamedSharding(MESH, P("i")));
        NDArray r = arange8();
        float[] g = grad(a -> sm(b -> List.of(Collectives.psum(Collectives.allToAll(b.get(0), "i", 0, 1, Tiling.TILED)
                .square().mul(r).sum(), "i")), List.of(a), List.of(P("i")), P()), y);
        float[] jax = {0, 2, 0, 6, 0, 10, 0, 14, 32, 54, 40, 66, 48, 78, 56, 90, 128, 170, 144, 190, 160, 210, 176, 230,
                288, 350, 312, 378, 336, 406, 360, 434};
        assertArrayEquals(jax, g);
    }

    @Test
    void pvaryTransposesToPsum() {
        float[] g = grad(w -> sm(bs -> {
            NDArray scale = Collectives.axisIndex("i").astype(dev.shardlings.array.DType.FLOAT32).add(1f);
            return List.of(Collectives.psum(bs.get(0).pvary("i").square().mul(scale).sum(), "i"));
        }, List.of(w), List.of(P()), P()), w());
        assertArrayEquals(new float[]{20, 40}, g);
    }

    @Test
    void psumScatterOfAReplicatedInput() {
        float[] g = grad(x -> sm(b -> List.of(Collectives.psumScatter(b.get(0), "i", 0, Tiling.TILED).square()),
                List.of(x), List.of(P()), P("i")).sum(), ShardedArray.devicePut(arange8(), new NamedSharding(MESH, P())));
        assertArrayEquals(new float[]{0, 32, 64, 96, 128, 160, 192, 224}, g);
    }

    @Test
    void anInvariantResultTiledByItsOutSpecSumsItsCotangent() {
        NDArray r = arange8();
        float[] g = grad(w -> sm(bs -> List.of(bs.get(0).mul(3f)), List.of(w), List.of(P()), P("i")).mul(r).sum(), w());
        assertArrayEquals(new float[]{36, 48}, g);
    }

    @Test
    void pmaxHasNoDifferentiationRuleAsInJax() {
        ShardedArray x = x();
        Throwable e = assertThrows(RuntimeException.class, () -> grad(a -> sm(b -> List.of(Collectives.pmax(b.get(0), "i").sum()),
                List.of(a), List.of(P("i")), P()), x));
        Throwable root = e;
        while (root.getCause() != null) {
            root = root.getCause();
        }
        assertTrue(root.getMessage().contains("Differentiation rule for 'pmax' not implemented"), root.getMessage());
    }

    @Test
    void gradInsideTheBodyPsumsTheGradientOfAnInvariantParameter() {
        // JAX 0.10.2 prints [112, 336]: w is invariant and b varies, so w was implicitly pvary'd and its gradient is
        // psummed over i; the pmean of that invariant sum is the sum itself
        ShardedArray x = x();
        List<ShardedArray> out = ShardMap.shardMap(bs -> {
            NDArray w = bs.get(0);
            NDArray b = bs.get(1).reshape(1, 2);
            NDArray gw = Autodiff.<NDArray>grad(ww -> ww.mul(b).square().sum()).apply(w);
            return List.of(Collectives.pmean(gw, "i"));
        }, MESH, List.of(P(), P("i")), List.of(P())).call(List.of(w(), x));
        assertArrayEquals(new float[]{112, 336}, out.get(0).gather().toFloatArray());
        assertEquals(P(), out.get(0).sharding().spec());
    }

    @Test
    void aParameterMadeVaryingFirstHasItsLocalGradient() {
        ShardedArray x = x();
        List<ShardedArray> out = ShardMap.shardMap(bs -> {
            NDArray w = bs.get(0).pvary("i");
            NDArray b = bs.get(1).reshape(1, 2);
            NDArray gw = Autodiff.<NDArray>grad(ww -> ww.mul(b).square().sum()).apply(w);
            return List.of(Collectives.pmean(gw, "i"));
        }, MESH, List.of(P(), P("i")), List.of(P())).call(List.of(w(), x));
        // 2·w·b² averaged over the blocks [0,1],[2,3],[4,5],[6,7]
        assertArrayEquals(new float[]{28, 84}, out.get(0).gather().toFloatArray());
    }
}
