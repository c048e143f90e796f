package dev.shardlings.sharding;

import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.spmd.ShardedArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static dev.shardlings.sharding.PartitionSpec.P;
import static dev.shardlings.sharding.PartitionSpec.tuple;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * NamedSharding placement on the (4,2) mesh for x = arange(32).reshape(8,4) — every row of the table in
 * jax-semantics.md §3, the other specs, the data examples, the permuted mesh and the Shard/Index reprs.
 */
class NamedShardingPlacementTest {

    static final Mesh XY = Mesh.makeMesh(new int[]{4, 2}, "x", "y");
    static final int[] SHAPE = {8, 4};
    static final NDArray X = NDArray.arange(32).reshape(8, 4);

    /** One column of the §3 table. */
    record Column(PartitionSpec spec, int[] shardShape, String[] slices, List<List<Integer>> groups,
                  int[] replicaIds) {
        @Override
        public String toString() {
            return spec.toString();
        }
    }

    static final List<List<Integer>> SINGLETONS = List.of(List.of(0), List.of(1), List.of(2), List.of(3),
            List.of(4), List.of(5), List.of(6), List.of(7));
    static final int[] ALL_ZERO = {0, 0, 0, 0, 0, 0, 0, 0};

    static Stream<Arguments> table() {
        return Stream.of(
                new Column(P("x", "y"), new int[]{2, 2},
                        new String[]{"0:2, 0:2", "0:2, 2:4", "2:4, 0:2", "2:4, 2:4",
                                "4:6, 0:2", "4:6, 2:4", "6:8, 0:2", "6:8, 2:4"},
                        SINGLETONS, ALL_ZERO),
                new Column(P("y", "x"), new int[]{4, 1},
                        new String[]{"0:4, 0:1", "4:8, 0:1", "0:4, 1:2", "4:8, 1:2",
                                "0:4, 2:3", "4:8, 2:3", "0:4, 3:4", "4:8, 3:4"},
                        SINGLETONS, ALL_ZERO),
                new Column(P("x", null), new int[]{2, 4},
                        new String[]{"0:2, :", "0:2, :", "2:4, :", "2:4, :", "4:6, :", "4:6, :", "6:8, :", "6:8, :"},
                        List.of(List.of(0, 1), List.of(2, 3), List.of(4, 5), List.of(6, 7)),
                        new int[]{0, 1, 0, 1, 0, 1, 0, 1}),
                new Column(P("x"), new int[]{2, 4},
                        new String[]{"0:2, :", "0:2, :", "2:4, :", "2:4, :", "4:6, :", "4:6, :", "6:8, :", "6:8, :"},
                        List.of(List.of(0, 1), List.of(2, 3), List.of(4, 5), List.of(6, 7)),
                        new int[]{0, 1, 0, 1, 0, 1, 0, 1}),
                new Column(P(null, "y"), new int[]{8, 2},
                        new String[]{":, 0:2", ":, 2:4", ":, 0:2", ":, 2:4", ":, 0:2", ":, 2:4", ":, 0:2", ":, 2:4"},
                        List.of(List.of(0, 2, 4, 6), List.of(1, 3, 5, 7)),
                        new int[]{0, 0, 1, 1, 2, 2, 3, 3}),
                new Column(P(tuple("x", "y"), null), new int[]{1, 4},
                        new String[]{"0:1, :", "1:2, :", "2:3, :", "3:4, :", "4:5, :", "5:6, :", "6:7, :", "7:8, :"},
                        SINGLETONS, ALL_ZERO),
                new Column(P(tuple("y", "x"), null), new int[]{1, 4},
                        new String[]{"0:1, :", "4:5, :", "1:2, :", "5:6, :", "2:3, :", "6:7, :", "3:4, :", "7:8, :"},
                        SINGLETONS, ALL_ZERO),
                // other specs of §3
                new Column(P(), new int[]{8, 4},
                        new String[]{":, :", ":, :", ":, :", ":, :", ":, :", ":, :", ":, :", ":, :"},
                        List.of(List.of(0, 1, 2, 3, 4, 5, 6, 7)),
                        new int[]{0, 1, 2, 3, 4, 5, 6, 7}),
                new Column(P("y"), new int[]{4, 4},
                        new String[]{"0:4, :", "4:8, :", "0:4, :", "4:8, :", "0:4, :", "4:8, :", "0:4, :", "4:8, :"},
                        List.of(List.of(0, 2, 4, 6), List.of(1, 3, 5, 7)),
                        new int[]{0, 0, 1, 1, 2, 2, 3, 3}),
                new Column(P(null, "x"), new int[]{8, 1},
                        new String[]{":, 0:1", ":, 0:1", ":, 1:2", ":, 1:2", ":, 2:3", ":, 2:3", ":, 3:4", ":, 3:4"},
                        List.of(List.of(0, 1), List.of(2, 3), List.of(4, 5), List.of(6, 7)),
                        new int[]{0, 1, 0, 1, 0, 1, 0, 1})
        ).map(Arguments::of);
    }

    static List<List<Integer>> ids(List<List<Device>> groups) {
        List<List<Integer>> out = new ArrayList<>();
        for (List<Device> g : groups) {
            out.add(g.stream().map(Device::id).toList());
        }
        return out;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("table")
    void shardShape(Column c) {
        assertArrayEquals(c.shardShape(), NamedSharding.of(XY, c.spec()).shardShape(SHAPE));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("table")
    void sliceOfEveryDevice(Column c) {
        NamedSharding s = NamedSharding.of(XY, c.spec());
        for (int id = 0; id < 8; id++) {
            assertEquals(c.slices()[id], s.index(XY.deviceById(id), SHAPE).compact(), "device " + id);
        }
        List<String> inMapOrder = s.devicesIndicesMap(SHAPE).values().stream().map(NamedSharding.Index::compact)
                .toList();
        assertEquals(List.of(c.slices()), inMapOrder);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("table")
    void replicaGroupsAndIds(Column c) {
        NamedSharding s = NamedSharding.of(XY, c.spec());
        assertEquals(c.groups(), ids(s.replicaGroups(SHAPE)));
        assertArrayEquals(c.replicaIds(), s.replicaIds(SHAPE));
        for (int id = 0; id < 8; id++) {
            assertEquals(c.replicaIds()[id], s.replicaId(XY.deviceById(id), SHAPE), "device " + id);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("table")
    void fullyReplicatedOnlyForP(Column c) {
        assertEquals(c.spec().equals(P()), NamedSharding.of(XY, c.spec()).isFullyReplicated());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("table")
    void devicePutPlacesTheMatchingData(Column c) {
        ShardedArray a = ShardedArray.devicePut(X, XY, c.spec());
        List<ShardedArray.Shard> shards = a.addressableShards();
        assertEquals(8, shards.size());
        for (int p = 0; p < 8; p++) {
            ShardedArray.Shard sh = shards.get(p);
            assertEquals(p, sh.device().id());
            assertEquals(c.slices()[p], sh.index().compact());
            assertEquals(c.replicaIds()[p], sh.replicaId());
            assertArrayEquals(c.shardShape(), sh.data().shape());
            // every element of the block is x[r, col] for the global position it covers
            NamedSharding.Slice rs = sh.index().slices().get(0);
            NamedSharding.Slice cs = sh.index().slices().get(1);
            for (int i = 0; i < c.shardShape()[0]; i++) {
                for (int j = 0; j < c.shardShape()[1]; j++) {
                    int r = rs.start() + i;
                    int col = cs.start() + j;
                    assertEquals(4 * r + col, sh.data().intAt(i, j), "device " + p + " at " + i + "," + j);
                }
            }
        }
        assertArrayEquals(X.toIntArray(), a.gather().toIntArray());
    }

    // ---- the data examples of §3 ------------------------------------------------------------------------------

    @Test
    void dataExamples() {
        assertArrayEquals(new int[]{0, 1, 4, 5},
                ShardedArray.devicePut(X, XY, P("x", "y")).shardOn(XY.deviceById(0)).data().toIntArray());
        assertArrayEquals(new int[]{0, 4, 8, 12},
                ShardedArray.devicePut(X, XY, P("y", "x")).shardOn(XY.deviceById(0)).data().toIntArray());
        NDArray d0 = ShardedArray.devicePut(X, XY, P(null, "y")).shardOn(XY.deviceById(0)).data();
        assertArrayEquals(new int[]{8, 2}, d0.shape());
        assertArrayEquals(new int[]{0, 1, 4, 5, 8, 9, 12, 13, 16, 17, 20, 21, 24, 25, 28, 29}, d0.toIntArray());
    }

    // ---- slice reporting rule (§2.3) ----------------------------------------------------------------------

    @Test
    void dimensionSplitOnlyOverSizeOneAxesIsReportedFull() {
        Mesh m = Mesh.makeMesh(new int[]{8, 1}, "x", "y");
        NamedSharding s = NamedSharding.of(m, P("y", "x"));
        NamedSharding.Index i = s.index(m.deviceById(3), 8, 16);
        assertEquals(":, 6:8", i.compact());
        assertEquals(new NamedSharding.Slice(0, 8, true), i.slices().get(0));
        assertEquals("(slice(None, None, None), slice(6, 8, None))", i.toString());
        assertEquals("(slice(3, 4, None),)", NamedSharding.of(m, P(tuple("x", "y"))).index(m.deviceById(3), 8)
                .toString());
        assertTrue(NamedSharding.of(m, P("y")).isFullyReplicated());
        assertFalse(s.isFullyReplicated());
        assertTrue(NamedSharding.of(Mesh.makeMesh(new int[]{1}, "i"), P("i")).isFullyReplicated());
    }

    // ---- the permuted mesh -------------------------------------------------------------------------------------

    static final Mesh PERMUTED = Mesh.ofDeviceIds(new int[]{3, 1, 0, 2, 7, 5, 6, 4}, new int[]{4, 2}, "x", "y");

    @Test
    void permutedMeshIteratesInMeshOrder() {
        NamedSharding s = NamedSharding.of(PERMUTED, P("x", null));
        List<Integer> order = s.devicesIndicesMap(SHAPE).keySet().stream().map(Device::id).toList();
        assertEquals(List.of(3, 1, 0, 2, 7, 5, 6, 4), order);
        ShardedArray a = ShardedArray.devicePut(X, s);
        assertEquals(List.of(3, 1, 0, 2, 7, 5, 6, 4), a.addressableShards().stream().map(sh -> sh.device().id())
                .toList());
        assertEquals(List.of(0, 1, 0, 1, 0, 1, 0, 1), a.addressableShards().stream().map(ShardedArray.Shard::replicaId)
                .toList());
        assertArrayEquals(new int[]{0, 1, 0, 1, 0, 1, 0, 1}, s.replicaIds(SHAPE));
        // the replica id of device 0 (flat position 2) is 0, of device 2 (position 3) is 1
        assertEquals(0, s.replicaId(PERMUTED.deviceById(0), SHAPE));
        assertEquals(1, s.replicaId(PERMUTED.deviceById(2), SHAPE));
        assertEquals(List.of(List.of(3, 1), List.of(0, 2), List.of(7, 5), List.of(6, 4)), ids(s.replicaGroups(SHAPE)));
    }

    @Test
    void permutedMeshSlicesFollowCoordinatesNotIds() {
        NamedSharding s = NamedSharding.of(PERMUTED, P("x", "y"));
        Map<Device, NamedSharding.Index> m = s.devicesIndicesMap(SHAPE);
        String[] expected = {"0:2, 0:2", "0:2, 2:4", "2:4, 0:2", "2:4, 2:4", "4:6, 0:2", "4:6, 2:4", "6:8, 0:2",
                "6:8, 2:4"};
        assertEquals(List.of(expected), m.values().stream().map(NamedSharding.Index::compact).toList());
        assertEquals("0:2, 0:2", s.index(PERMUTED.deviceById(3), SHAPE).compact());
        assertEquals("6:8, 2:4", s.index(PERMUTED.deviceById(4), SHAPE).compact());
        ShardedArray a = ShardedArray.devicePut(X, s);
        assertArrayEquals(new int[]{0, 1, 4, 5}, a.shardOn(PERMUTED.deviceById(3)).data().toIntArray());
        assertArrayEquals(X.toIntArray(), a.gather().toIntArray());
    }

    // ---- reprs ------------------------------------------------------------------------------------------------

    @Test
    void indexRepr() {
        NamedSharding s = NamedSharding.of(XY, P("x", null));
        assertEquals("(slice(0, 2, None), slice(None, None, None))", s.index(XY.deviceById(0), SHAPE).toString());
        assertEquals("(slice(6, 8, None), slice(None, None, None))", s.index(XY.deviceById(7), SHAPE).toString());
        assertEquals("(slice(0, 2, None),)", NamedSharding.of(XY, P("x")).index(XY.deviceById(1), 8).toString());
        assertEquals("(slice(None, None, None),)", NamedSharding.of(XY, P()).index(XY.deviceById(1), 8).toString());
        assertEquals("slice(2, 4, None)", new NamedSharding.Slice(2, 4, false).toString());
        assertEquals("2:4", new NamedSharding.Slice(2, 4, false).compact());
        assertEquals(2, new NamedSharding.Slice(2, 4, false).length());
    }

    @Test
    void shardRepr() {
        ShardedArray a = ShardedArray.devicePut(NDArray.arange(32, DType.FLOAT32).reshape(8, 4), XY, P("x", "y"));
        assertEquals("Shard(device=CpuDevice(id=0), index=(slice(0, 2, None), slice(0, 2, None)), replica_id=0,"
                + " data=[[0. 1.]\n [4. 5.]])", a.addressableShards().get(0).toString());
        ShardedArray b = ShardedArray.devicePut(NDArray.arange(32, DType.FLOAT32).reshape(8, 4), XY, P("x", null));
        assertTrue(b.addressableShards().get(1).toString().startsWith(
                "Shard(device=CpuDevice(id=1), index=(slice(0, 2, None), slice(None, None, None)), replica_id=1,"
                        + " data="), b.addressableShards().get(1).toString());
    }

    @Test
    void namedShardingRepr() {
        assertEquals("NamedSharding(mesh=Mesh('x': 4, 'y': 2), spec=P('x',))", NamedSharding.of(XY, P("x")).toString());
        assertEquals("NamedSharding(mesh=Mesh('x': 4, 'y': 2), spec=P(('x', 'y'), None))",
                NamedSharding.of(XY, P(tuple("x", "y"), null)).toString());
    }
}
