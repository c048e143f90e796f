package dev.shardlings.sharding;

import dev.shardlings.array.NDArray;
import dev.shardlings.spmd.ShardedArray;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * NamedSharding placement on random meshes (1–16 devices, 1–3 axes, identity or permuted device order) and random
 * valid specs (each mesh axis used at most once, on a random dimension, several axes on one dimension forming a
 * tuple in random order, random trailing Nones), against the rules of jax-semantics.md §2.2–§3.
 */
class ShardingProperties {

    static final String[] NAMES = {"a", "b", "c"};

    /**
     * A random setup.
     *
     * @param sizes     mesh axis sizes
     * @param deviceIds device ids in flat mesh order (a permutation)
     * @param specDims  for each array dim, the mesh axes (by name) splitting it, in tuple order
     * @param specLen   number of spec entries (≥ last used dim + 1, ≤ rank)
     * @param shape     global array shape (each dim a multiple of its parts)
     */
    record Setup(List<Integer> sizes, int[] deviceIds, List<List<String>> specDims, int specLen, int[] shape) {
        Mesh mesh() {
            return Mesh.ofDeviceIds(deviceIds, sizes.stream().mapToInt(Integer::intValue).toArray(),
                    Arrays.copyOf(NAMES, sizes.size()));
        }

        PartitionSpec spec() {
            Object[] entries = new Object[specLen];
            for (int d = 0; d < specLen; d++) {
                List<String> axes = specDims.get(d);
                entries[d] = axes.isEmpty() ? null
                        : axes.size() == 1 ? axes.get(0) : PartitionSpec.tuple(axes.toArray(new String[0]));
            }
            return PartitionSpec.P(entries);
        }

        NamedSharding sharding() {
            return NamedSharding.of(mesh(), spec());
        }

        int size(String axis) {
            return sizes.get(Arrays.asList(NAMES).indexOf(axis));
        }

        int parts(int dim) {
            return specDims.get(dim).stream().mapToInt(this::size).reduce(1, (x, y) -> x * y);
        }

        int totalParts() {
            int p = 1;
            for (int d = 0; d < shape.length; d++) {
                p *= parts(d);
            }
            return p;
        }

        int numDevices() {
            return deviceIds.length;
        }

        @Override
        public String toString() {
            return "mesh " + sizes + " ids " + Arrays.toString(deviceIds) + ", spec " + spec() + ", shape "
                    + Arrays.toString(shape);
        }
    }

    @Provide
    Arbitrary<Setup> setups() {
        Arbitrary<List<Integer>> sizes = Arbitraries.integers().between(1, 3).flatMap(rank -> rank == 1
                ? Arbitraries.integers().between(1, 16).list().ofSize(1)
                : Arbitraries.integers().between(1, 4).list().ofSize(rank)
                        .filter(l -> l.stream().reduce(1, (x, y) -> x * y) <= 16));
        return Combinators.combine(sizes, Arbitraries.integers().between(1, 3), Arbitraries.longs(),
                Arbitraries.of(true, false)).as((sz, rank, seed, permute) -> build(sz, rank, seed, permute));
    }

    static Setup build(List<Integer> sizes, int rank, long seed, boolean permute) {
        Random r = new Random(seed);
        int n = sizes.stream().reduce(1, (x, y) -> x * y);
        List<Integer> ids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ids.add(i);
        }
        if (permute) {
            Collections.shuffle(ids, r);
        }
        // each mesh axis goes to a random dim or stays unused; the axes of one dim come in random order
        List<String> axes = new ArrayList<>(Arrays.asList(NAMES).subList(0, sizes.size()));
        Collections.shuffle(axes, r);
        List<List<String>> dims = new ArrayList<>();
        for (int d = 0; d < rank; d++) {
            dims.add(new ArrayList<>());
        }
        for (String a : axes) {
            int d = r.nextInt(rank + 1) - 1;
            if (d >= 0) {
                dims.get(d).add(a);
            }
        }
        int lastUsed = -1;
        for (int d = 0; d < rank; d++) {
            if (!dims.get(d).isEmpty()) {
                lastUsed = d;
            }
        }
        int specLen = lastUsed + 1 + r.nextInt(rank - lastUsed);
        int[] shape = new int[rank];
        for (int d = 0; d < rank; d++) {
            int parts = 1;
            for (String a : dims.get(d)) {
                parts *= sizes.get(Arrays.asList(NAMES).indexOf(a));
            }
            shape[d] = parts * (1 + r.nextInt(2));
        }
        return new Setup(List.copyOf(sizes), ids.stream().mapToInt(Integer::intValue).toArray(),
                dims.stream().map(List::copyOf).toList(), specLen, shape);
    }

    /** The slice of a device along one dim, recomputed independently from §2.2/§2.3 (start, stop; full = -1). */
    static int[] expectedSlice(Setup s, Device d, int dim) {
        List<String> axes = s.specDims().get(dim);
        int parts = s.parts(dim);
        if (parts == 1) {
            return new int[]{-1, -1};
        }
        int chunk = 0;
        for (String a : axes) {
            int pos = Arrays.asList(NAMES).indexOf(a);
            chunk = chunk * s.sizes().get(pos) + d.coords().get(pos);
        }
        int shard = s.shape()[dim] / parts;
        return new int[]{chunk * shard, (chunk + 1) * shard};
    }

    static int[] flatten(int[] shape, int flat) {
        int[] idx = new int[shape.length];
        for (int d = shape.length - 1; d >= 0; d--) {
            idx[d] = flat % shape[d];
            flat /= shape[d];
        }
        return idx;
    }

    static boolean contains(NamedSharding.Index index, int[] element) {
        for (int d = 0; d < element.length; d++) {
            NamedSharding.Slice sl = index.slices().get(d);
            if (element[d] < sl.start() || element[d] >= sl.stop()) {
                return false;
            }
        }
        return true;
    }

    // ---- properties -----------------------------------------------------------------------------------------------

    @Property(tries = 300, seed = "7301")
    void generatedSetupsAreValid(@ForAll("setups") Setup s) {
        assertTrue(s.numDevices() >= 1 && s.numDevices() <= 16, s::toString);
        Set<String> used = new HashSet<>();
        for (List<String> dim : s.specDims()) {
            for (String a : dim) {
                assertTrue(used.add(a), "axis used twice in " + s);
            }
        }
        NamedSharding.of(s.mesh(), s.spec()); // does not throw
    }

    @Property(tries = 300, seed = "7302")
    void shardShapeIsGlobalOverParts(@ForAll("setups") Setup s) {
        NamedSharding sh = s.sharding();
        int[] shard = sh.shardShape(s.shape());
        for (int d = 0; d < s.shape().length; d++) {
            assertEquals(s.shape()[d] / s.parts(d), shard[d], s::toString);
        }
        for (NamedSharding.Index idx : sh.devicesIndicesMap(s.shape()).values()) {
            for (int d = 0; d < shard.length; d++) {
                assertEquals(shard[d], idx.slices().get(d).length(), s::toString);
            }
        }
    }

    @Property(tries = 300, seed = "7303")
    void slicesFollowTheChunkRule(@ForAll("setups") Setup s) {
        NamedSharding sh = s.sharding();
        Map<Device, NamedSharding.Index> map = sh.devicesIndicesMap(s.shape());
        assertEquals(s.mesh().devices(), List.copyOf(map.keySet()), "mesh.devices.flat order");
        for (Map.Entry<Device, NamedSharding.Index> e : map.entrySet()) {
            for (int d = 0; d < s.shape().length; d++) {
                int[] exp = expectedSlice(s, e.getKey(), d);
                NamedSharding.Slice got = e.getValue().slices().get(d);
                if (exp[0] < 0) {
                    assertEquals(new NamedSharding.Slice(0, s.shape()[d], true), got, s::toString);
                } else {
                    assertEquals(new NamedSharding.Slice(exp[0], exp[1], false), got, s::toString);
                }
            }
        }
    }

    @Property(tries = 300, seed = "7304")
    void shardsCoverEveryElementReplicasTimes(@ForAll("setups") Setup s) {
        NamedSharding sh = s.sharding();
        int replicas = s.numDevices() / s.totalParts();
        assertEquals(s.numDevices(), replicas * s.totalParts(), s::toString);
        int size = Arrays.stream(s.shape()).reduce(1, (x, y) -> x * y);
        int[] count = new int[size];
        for (NamedSharding.Index idx : sh.devicesIndicesMap(s.shape()).values()) {
            for (int f = 0; f < size; f++) {
                if (contains(idx, flatten(s.shape(), f))) {
                    count[f]++;
                }
            }
        }
        for (int f = 0; f < size; f++) {
            int[] element = flatten(s.shape(), f);
            assertEquals(replicas, count[f], () -> "element " + Arrays.toString(element) + " in " + s);
        }
    }

    @Property(tries = 200, seed = "7305")
    void devicePutGivesEveryDeviceItsSliceAndGatherRestores(@ForAll("setups") Setup s) {
        int size = Arrays.stream(s.shape()).reduce(1, (x, y) -> x * y);
        NDArray x = NDArray.arange(size).reshape(s.shape());
        ShardedArray a = ShardedArray.devicePut(x, s.sharding());
        int[] shard = s.sharding().shardShape(s.shape());
        for (ShardedArray.Shard sh : a.addressableShards()) {
            assertArrayEquals(shard, sh.data().shape(), s::toString);
            int[] data = sh.data().toIntArray();
            for (int f = 0; f < data.length; f++) {
                int[] local = flatten(shard, f);
                int global = 0;
                for (int d = 0; d < local.length; d++) {
                    global = global * s.shape()[d] + sh.index().slices().get(d).start() + local[d];
                }
                assertEquals(global, data[f], s::toString);
            }
        }
        assertArrayEquals(x.toIntArray(), a.gather().toIntArray(), s::toString);
        assertArrayEquals(s.sharding().replicaIds(s.shape()),
                a.addressableShards().stream().mapToInt(ShardedArray.Shard::replicaId).toArray());
    }

    @Property(tries = 300, seed = "7306")
    void replicaGroupsPartitionTheDevices(@ForAll("setups") Setup s) {
        NamedSharding sh = s.sharding();
        List<List<Device>> groups = sh.replicaGroups(s.shape());
        int replicas = s.numDevices() / s.totalParts();
        assertEquals(s.totalParts(), groups.size(), s::toString);
        Set<Device> seen = new HashSet<>();
        Set<NamedSharding.Index> groupIndices = new HashSet<>();
        for (List<Device> g : groups) {
            assertEquals(replicas, g.size(), s::toString);
            NamedSharding.Index first = sh.index(g.get(0), s.shape());
            assertTrue(groupIndices.add(first), "two groups hold the same slice in " + s);
            for (Device d : g) {
                assertTrue(seen.add(d), d + " in two groups of " + s);
                assertEquals(first, sh.index(d, s.shape()), s::toString);
            }
        }
        assertEquals(new HashSet<>(s.mesh().devices()), seen, s::toString);
    }

    @Property(tries = 300, seed = "7307")
    void replicaIdsCountEachGroupInMeshOrder(@ForAll("setups") Setup s) {
        NamedSharding sh = s.sharding();
        Mesh m = s.mesh();
        int[] ids = sh.replicaIds(s.shape());
        for (List<Device> g : sh.replicaGroups(s.shape())) {
            int previous = -1;
            for (int k = 0; k < g.size(); k++) {
                Device d = g.get(k);
                int p = m.flatIndex(d);
                assertTrue(p > previous, "group not in mesh order in " + s);
                previous = p;
                assertEquals(k, ids[p], s::toString);
                assertEquals(k, sh.replicaId(d, s.shape()), s::toString);
            }
        }
        // equivalently: the number of earlier devices (in mesh order) holding the same slice
        List<Device> ds = m.devices();
        Map<NamedSharding.Index, Integer> counts = new HashMap<>();
        for (int p = 0; p < ds.size(); p++) {
            int c = counts.merge(sh.index(ds.get(p), s.shape()), 1, Integer::sum) - 1;
            assertEquals(c, ids[p], s::toString);
        }
    }

    @Property(tries = 300, seed = "7308")
    void fullyReplicatedIffEveryIndexIsFull(@ForAll("setups") Setup s) {
        NamedSharding sh = s.sharding();
        boolean allFull = sh.devicesIndicesMap(s.shape()).values().stream()
                .allMatch(idx -> idx.slices().stream().allMatch(NamedSharding.Slice::full));
        assertEquals(allFull, sh.isFullyReplicated(), s::toString);
        assertEquals(s.totalParts() == 1, sh.isFullyReplicated(), s::toString);
    }

    @Property(tries = 200, seed = "7309")
    void trailingNonesAreEquivalentButNotEqual(@ForAll("setups") Setup s) {
        PartitionSpec spec = s.spec();
        PartitionSpec padded = spec.padTo(s.shape().length + 1);
        assertTrue(spec.isEquivalentTo(padded));
        assertNotEquals(spec, padded);
        if (s.specLen() <= s.shape().length) {
            PartitionSpec full = spec.padTo(s.shape().length);
            assertEquals(s.sharding().devicesIndicesMap(s.shape()),
                    NamedSharding.of(s.mesh(), full).devicesIndicesMap(s.shape()), s::toString);
        }
    }

    @Property(tries = 200, seed = "7310")
    void reusingAnAxisIsADuplicateSpec(@ForAll("setups") Setup s) {
        List<String> used = s.specDims().stream().flatMap(List::stream).toList();
        if (used.isEmpty()) {
            return;
        }
        String again = used.get(0);
        Object[] entries = new Object[s.specLen() + 1];
        PartitionSpec spec = s.spec();
        for (int d = 0; d < s.specLen(); d++) {
            List<String> axes = spec.axesAt(d);
            entries[d] = axes.isEmpty() ? null
                    : axes.size() == 1 ? axes.get(0) : PartitionSpec.tuple(axes.toArray(new String[0]));
        }
        entries[s.specLen()] = again;
        PartitionSpec bad = PartitionSpec.P(entries);
        DuplicateSpecException e = org.junit.jupiter.api.Assertions.assertThrows(DuplicateSpecException.class,
                () -> NamedSharding.of(s.mesh(), bad));
        assertTrue(e.getMessage().endsWith(bad + " has duplicate entries for `" + again + "`"), e.getMessage());
    }
}
