package dev.shardlings.spmd;

import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.PartitionSpec;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.shardlings.spmd.Tiling.TILED;
import static dev.shardlings.spmd.Tiling.UNTILED;
import static dev.shardlings.sharding.PartitionSpec.P;
import static dev.shardlings.sharding.PartitionSpec.tuple;
import static dev.shardlings.spmd.Collectives.allGather;
import static dev.shardlings.spmd.Collectives.allGatherInvariant;
import static dev.shardlings.spmd.Collectives.allToAll;
import static dev.shardlings.spmd.Collectives.axisIndex;
import static dev.shardlings.spmd.Collectives.axisSize;
import static dev.shardlings.spmd.Collectives.pmax;
import static dev.shardlings.spmd.Collectives.pmean;
import static dev.shardlings.spmd.Collectives.pmin;
import static dev.shardlings.spmd.Collectives.ppermute;
import static dev.shardlings.spmd.Collectives.psum;
import static dev.shardlings.spmd.Collectives.psumScatter;
import static dev.shardlings.spmd.ShardMap.shardMap;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The collective results printed in the seeds and verified against real JAX (jax-semantics.md §6, §9). */
class SeedCollectivesTest {

    static final Mesh I4 = Mesh.makeMesh(new int[]{4}, "i");
    static final Mesh XY = Mesh.makeMesh(new int[]{4, 2}, "x", "y");
    static final NDArray SEED = NDArray.of(3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 1, 2);

    /** Runs f on the seed with in P('i') and the given out spec, returning the gathered global result. */
    static NDArray onSeed(java.util.function.UnaryOperator<NDArray> f, PartitionSpec out) {
        return shardMap(f, I4, P("i"), out).apply(SEED).gather();
    }

    /** Each device of the (4, 2) mesh holds its id as a [1, 1] block; returns the [4, 2] grid of results. */
    static NDArray onIds(java.util.function.UnaryOperator<NDArray> f) {
        return shardMap(f, XY, P("x", "y"), P("x", "y")).apply(NDArray.arange(8).reshape(4, 2)).gather();
    }

    static void assertInts(NDArray actual, int... expected) {
        assertEquals(DType.INT32, actual.dtype(), "dtype");
        assertArrayEquals(expected, actual.toIntArray(), actual::toString);
    }

    static void assertFloats(NDArray actual, float... expected) {
        assertEquals(DType.FLOAT32, actual.dtype(), "dtype");
        assertArrayEquals(expected, actual.toFloatArray(), 0f, actual::toString);
    }

    @Test
    void psumOfTheSeed() {
        assertInts(onSeed(b -> psum(b, "i"), P()), 22, 20, 12, 17);
    }

    @Test
    void psumTiledOutGivesFourCopies() {
        assertInts(onSeed(b -> psum(b, "i"), P("i")), 22, 20, 12, 17, 22, 20, 12, 17, 22, 20, 12, 17, 22, 20, 12, 17);
    }

    @Test
    void pmeanIsFloat32() {
        assertFloats(onSeed(b -> pmean(b, "i"), P()), 5.5f, 5.0f, 3.0f, 4.25f);
    }

    @Test
    void pmaxAndPmin() {
        assertInts(onSeed(b -> pmax(b, "i"), P()), 9, 9, 5, 8);
        assertInts(onSeed(b -> pmin(b, "i"), P()), 3, 1, 1, 1);
    }

    @Test
    void psumScatterTiledAndUntiled() {
        assertInts(onSeed(b -> psumScatter(b, "i", 0, TILED), P("i")), 22, 20, 12, 17);
        assertInts(onSeed(b -> psumScatter(b, "i", 0, UNTILED).expandDims(0), P("i")), 22, 20, 12, 17);
    }

    @Test
    void psumScatterErrorTexts() {
        Throwable e = assertThrows(DeviceFailureException.class,
                () -> shardMap(b -> psumScatter(b.slice(0, 0, 2), "i", 0, UNTILED), I4, P("i"), P("i")).apply(SEED))
                .getCause();
        assertEquals("reduce_scatter operand scatter dimension size 2 must match shard count 4", e.getMessage());
        e = assertThrows(DeviceFailureException.class,
                () -> shardMap(b -> psumScatter(b.slice(0, 0, 3), "i", 0, TILED), I4, P("i"), P("i")).apply(SEED))
                .getCause();
        assertEquals("tiled reduce_scatter operand scatter dimension size 3 must be divisible by shard_count 4",
                e.getMessage());
    }

    @Test
    void allToAllIsABlockTranspose() {
        assertInts(onSeed(b -> allToAll(b, "i", 0, 0, TILED), P("i")), 3, 5, 5, 9, 1, 9, 3, 7, 4, 2, 5, 1, 1, 6, 8, 2);
        assertInts(onSeed(b -> allToAll(b, "i", 0, 0, UNTILED), P("i")), 3, 5, 5, 9, 1, 9, 3, 7, 4, 2, 5, 1, 1, 6, 8, 2);
    }

    @Test
    void ppermuteShiftsAndZeroesNonReceivers() {
        int[][] shift = {{0, 1}, {1, 2}, {2, 3}, {3, 0}};
        NDArray a4 = NDArray.arange(4);
        assertInts(shardMap(b -> ppermute(b, "i", shift), I4, P("i"), P("i")).apply(a4).gather(), 3, 0, 1, 2);
        assertInts(shardMap(b -> ppermute(b, "i", shift), I4, P("i"), P("i")).apply(NDArray.arange(8)).gather(),
                6, 7, 0, 1, 2, 3, 4, 5);
        NDArray x = NDArray.of(1, 2, 3, 4);
        assertInts(shardMap(b -> ppermute(b, "i", new int[][]{{0, 1}, {1, 2}}), I4, P("i"), P("i")).apply(x).gather(),
                0, 1, 2, 0);
        assertInts(shardMap(b -> ppermute(b, "i", new int[][]{{1, 1}}), I4, P("i"), P("i")).apply(x).gather(),
                0, 2, 0, 0);
        assertInts(shardMap(b -> ppermute(b, "i", new int[0][]), I4, P("i"), P("i")).apply(x).gather(), 0, 0, 0, 0);
    }

    @Test
    void ppermuteRejectsDuplicates() {
        Throwable e = assertThrows(DeviceFailureException.class, () -> shardMap(
                b -> ppermute(b, "i", new int[][]{{0, 1}, {0, 2}}), I4, P("i"), P("i")).apply(SEED)).getCause();
        assertEquals("ppermute sources and destinations must be unique, got ((0, 1), (0, 2)).", e.getMessage());
        e = assertThrows(DeviceFailureException.class, () -> shardMap(
                b -> ppermute(b, "i", new int[][]{{0, 1}, {2, 1}}), I4, P("i"), P("i")).apply(SEED)).getCause();
        assertEquals("ppermute sources and destinations must be unique, got ((0, 1), (2, 1)).", e.getMessage());
    }

    @Test
    void allGatherTiledAndUntiled() {
        NDArray x = NDArray.of(3, 9, 5, 2);
        NDArray tiled = shardMap(b -> allGather(b, "i", 0, TILED), I4, P("i"), P("i")).apply(x).gather();
        assertInts(tiled, 3, 9, 5, 2, 3, 9, 5, 2, 3, 9, 5, 2, 3, 9, 5, 2);
        NDArray untiled = shardMap(b -> allGather(b, "i"), I4, P("i"), P("i")).apply(x).gather();
        assertArrayEquals(new int[]{16, 1}, untiled.shape());
        NDArray invariant = shardMap(b -> allGatherInvariant(b, "i", 0, TILED), I4, P("i"), P()).apply(x).gather();
        assertInts(invariant, 3, 9, 5, 2);
    }

    @Test
    void allGatherOf2dBlocks() {
        NDArray x = NDArray.arange(8).reshape(4, 2);
        var gather = (java.util.function.Function<java.util.function.UnaryOperator<NDArray>, NDArray>) f ->
                shardMap(f, I4, P("i"), P()).checkVma(false).apply(x).gather();
        NDArray a0 = gather.apply(b -> allGather(b, "i", 0, UNTILED));
        assertArrayEquals(new int[]{4, 1, 2}, a0.shape());
        assertInts(a0, 0, 1, 2, 3, 4, 5, 6, 7);
        NDArray a1 = gather.apply(b -> allGather(b, "i", 1, TILED));
        assertArrayEquals(new int[]{1, 8}, a1.shape());
        NDArray a2 = gather.apply(b -> allGather(b, "i", -1, UNTILED));
        assertArrayEquals(new int[]{1, 2, 4}, a2.shape());
        assertInts(a2, 0, 2, 4, 6, 1, 3, 5, 7);
        Throwable e = assertThrows(DeviceFailureException.class, () -> gather.apply(b -> allGather(b, "i", 2, TILED)))
                .getCause();
        assertTrue(e.getMessage().contains("axis 2 is out of bounds for array of dimension 2"), e.getMessage());
    }

    @Test
    void multiAxisReductions() {
        assertInts(onIds(v -> psum(v, "x")), 12, 16, 12, 16, 12, 16, 12, 16);
        assertInts(onIds(v -> psum(v, "y")), 1, 1, 5, 5, 9, 9, 13, 13);
        assertInts(onIds(v -> psum(v, "x", "y")), 28, 28, 28, 28, 28, 28, 28, 28);
        assertFloats(onIds(v -> pmean(v, "x", "y")), 3.5f, 3.5f, 3.5f, 3.5f, 3.5f, 3.5f, 3.5f, 3.5f);
        assertInts(onIds(v -> pmax(v, "x")), 6, 7, 6, 7, 6, 7, 6, 7);
    }

    @Test
    void axisIndexTables() {
        assertInts(onIds(v -> axisIndex("x").reshape(1, 1)), 0, 0, 1, 1, 2, 2, 3, 3);
        assertInts(onIds(v -> axisIndex("y").reshape(1, 1)), 0, 1, 0, 1, 0, 1, 0, 1);
        assertInts(onIds(v -> axisIndex("x", "y").reshape(1, 1)), 0, 1, 2, 3, 4, 5, 6, 7);
        assertInts(onIds(v -> axisIndex("y", "x").reshape(1, 1)), 0, 4, 1, 5, 2, 6, 3, 7);
        int[] sizes = new int[3];
        onIds(v -> {
            if (v.intAt(0, 0) == 0) {
                sizes[0] = axisSize("x");
                sizes[1] = axisSize("y");
                sizes[2] = axisSize("x", "y");
            }
            return v;
        });
        assertArrayEquals(new int[]{4, 2, 8}, sizes);
    }

    @Test
    void multiAxisAllGather() {
        NDArray gx = shardMap(v -> allGather(v.reshape(1), "x", 0, TILED).reshape(1, 1, 4), XY, P("x", "y"),
                P("x", "y")).apply(NDArray.arange(8).reshape(4, 2)).gather();
        // at (x, y): [y, 2+y, 4+y, 6+y]
        assertInts(gx.take(0, 3).take(0, 1).reshape(4), 1, 3, 5, 7);
        NDArray gyx = shardMap(v -> allGather(v.reshape(1), List.of("y", "x"), 0, TILED).reshape(1, 1, 8), XY,
                P("x", "y"), P("x", "y")).apply(NDArray.arange(8).reshape(4, 2)).gather();
        assertInts(gyx.take(0, 0).take(0, 0).reshape(8), 0, 2, 4, 6, 1, 3, 5, 7);
    }

    @Test
    void multiAxisPpermute() {
        int[][] shift4 = {{0, 1}, {1, 2}, {2, 3}, {3, 0}};
        assertInts(onIds(v -> ppermute(v, "x", shift4)), 6, 7, 0, 1, 2, 3, 4, 5);
        assertInts(onIds(v -> ppermute(v, "y", new int[][]{{0, 1}, {1, 0}})), 1, 0, 3, 2, 5, 4, 7, 6);
        int[][] shift8 = new int[8][];
        for (int i = 0; i < 8; i++) {
            shift8[i] = new int[]{i, (i + 1) % 8};
        }
        assertInts(onIds(v -> ppermute(v, List.of("x", "y"), shift8)), 7, 0, 1, 2, 3, 4, 5, 6);
    }

    @Test
    void multiAxisPsumScatter() {
        java.util.function.UnaryOperator<NDArray> xy = v ->
                psumScatter(NDArray.arange(8).reshape(1, 8).mul(v.add(1)), List.of("x", "y"), 1, UNTILED).reshape(1, 1);
        assertInts(onIds(xy), 0, 36, 72, 108, 144, 180, 216, 252);
        java.util.function.UnaryOperator<NDArray> yx = v ->
                psumScatter(NDArray.arange(8).reshape(1, 8).mul(v.add(1)), List.of("y", "x"), 1, UNTILED).reshape(1, 1);
        assertInts(onIds(yx), 0, 144, 36, 180, 72, 216, 108, 252);
    }

    @Test
    void multiAxisAllToAll() {
        NDArray out = shardMap(v -> allToAll(NDArray.arange(8).add(v.reshape(1).mul(10)), List.of("y", "x"), 0, 0,
                TILED).reshape(1, 1, 8), XY, P("x", "y"), P("x", "y")).apply(NDArray.arange(8).reshape(4, 2)).gather();
        assertInts(out.take(0, 0).take(0, 0).reshape(8), 0, 20, 40, 60, 10, 30, 50, 70);
    }

    @Test
    void notebookTwoByTwo() {
        Mesh ij = Mesh.makeMesh(new int[]{2, 2}, "i", "j");
        NDArray x = NDArray.arange(16).reshape(4, 4);
        assertInts(shardMap(b -> psum(b, "i"), ij, P("i", "j"), P(null, "j")).apply(x).gather(),
                8, 10, 12, 14, 16, 18, 20, 22);
        assertInts(shardMap(b -> psum(b, "i", "j"), ij, P("i", "j"), P(null, null)).apply(x).gather(),
                20, 24, 36, 40);
    }

    @Test
    void psumOfAnInvariantValueMultipliesByTheGroupSize() {
        assertInts(shardMap(b -> psum(b, "i"), I4, P(), P()).apply(NDArray.of(0, 1, 2)).gather(), 0, 4, 8);
    }

    @Test
    void tupleSpecsReorderBlocks() {
        NDArray out = shardMap(b -> b, XY, P(tuple("y", "x")), P(tuple("x", "y"))).apply(NDArray.arange(8)).gather();
        assertInts(out, 0, 4, 1, 5, 2, 6, 3, 7);
    }

    @Test
    void perDeviceTextIsJaxsEagerPrintLayout() {
        ShardedArray x = ShardedArray.devicePut(SEED, I4, P("i"));
        assertEquals("On cpu:0 at mesh coordinates (i,) = (0,):\n[3 1 4 1]\n\nOn cpu:1 at mesh coordinates (i,) = (1,):\n"
                + "[5 9 2 6]\n\nOn cpu:2 at mesh coordinates (i,) = (2,):\n[5 3 5 8]\n\n"
                + "On cpu:3 at mesh coordinates (i,) = (3,):\n[9 7 1 2]\n", x.perDeviceText());
        ShardedArray ids = ShardedArray.devicePut(NDArray.arange(8).reshape(4, 2), XY, P("x", "y"));
        assertTrue(ids.perDeviceText().startsWith("On cpu:0 at mesh coordinates (x, y,) = (0, 0):\n[[0]]\n"),
                ids.perDeviceText());
    }
}
