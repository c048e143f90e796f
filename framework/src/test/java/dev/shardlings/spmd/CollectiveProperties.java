package dev.shardlings.spmd;

import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.sharding.Device;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.PartitionSpec;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.function.BiFunction;
import java.util.function.UnaryOperator;

import static dev.shardlings.spmd.Tiling.TILED;
import static dev.shardlings.spmd.Tiling.UNTILED;
import static dev.shardlings.sharding.PartitionSpec.P;
import static dev.shardlings.sharding.PartitionSpec.tuple;
import static dev.shardlings.spmd.ShardMap.shardMap;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Every collective against the per-group reference of jax-semantics.md §6.7, on random meshes (1–16 devices,
 * 1–3 axes), random axis tuples (any order), shapes and parameters. Each device holds a distinct int32 block, so
 * sums are exact and any misplaced block shows.
 */
class CollectiveProperties {

    /** A mesh, an axis tuple of it, a block shape and a value seed. */
    record Setup(List<Integer> sizes, List<String> axes, List<Integer> block, long seed) {
        Mesh mesh() {
            String[] names = {"a", "b", "c"};
            return Mesh.makeMesh(sizes.stream().mapToInt(Integer::intValue).toArray(),
                    Arrays.copyOf(names, sizes.size()));
        }

        int groupSize() {
            Mesh m = mesh();
            return axes.stream().mapToInt(m::axisSize).reduce(1, (x, y) -> x * y);
        }
    }

    @Provide
    Arbitrary<Setup> setups() {
        Arbitrary<List<Integer>> sizes = Arbitraries.integers().between(1, 3).flatMap(rank ->
                Arbitraries.integers().between(1, 4).list().ofSize(rank)
                        .filter(l -> l.stream().reduce(1, (x, y) -> x * y) <= 16));
        return sizes.flatMap(sz -> {
            List<String> names = List.of("a", "b", "c").subList(0, sz.size());
            Arbitrary<List<String>> axes = Arbitraries.of(names).list().uniqueElements().ofMinSize(1)
                    .ofMaxSize(sz.size());
            Arbitrary<List<Integer>> block = Arbitraries.integers().between(1, 4).list().ofMinSize(1).ofMaxSize(3);
            return Combinators.combine(axes, block, Arbitraries.longs()).as((a, b, s) -> new Setup(sz, a, b, s));
        });
    }

    /** Block of the device at flat mesh position p: distinct values per device. */
    static NDArray blockOf(Setup s, int p, List<Integer> shape) {
        int size = shape.stream().reduce(1, (x, y) -> x * y);
        Random r = new Random(s.seed() * 31 + p);
        int[] v = new int[size];
        for (int i = 0; i < size; i++) {
            v[i] = r.nextInt(1000) - 500;
        }
        return NDArray.fromInts(v, shape.stream().mapToInt(Integer::intValue).toArray());
    }

    /**
     * Runs body on every device (device p holds blockOf(p)) and returns each device's output, using a global input
     * laid out P((all axes), …) and an output with a new leading dimension laid out the same way.
     */
    static List<NDArray> run(Setup s, List<Integer> blockShape, UnaryOperator<NDArray> body) {
        Mesh mesh = s.mesh();
        int n = mesh.size();
        List<NDArray> blocks = new ArrayList<>();
        for (int p = 0; p < n; p++) {
            blocks.add(blockOf(s, p, blockShape).expandDims(0));
        }
        NDArray global = NDArray.concat(0, blocks);
        PartitionSpec all = P(tuple(mesh.axisNames().toArray(new String[0])));
        NDArray out = shardMap(b -> body.apply(b.squeeze(0)).expandDims(0), mesh, all, all).checkVma(false)
                .apply(global).gather();
        List<NDArray> perDevice = new ArrayList<>();
        for (int p = 0; p < n; p++) {
            perDevice.add(out.index(p));
        }
        return perDevice;
    }

    /** The group of device p over the axes, ordered by linear index (first name major), and p's own index. */
    static List<Integer> group(Mesh mesh, List<String> axes, int p) {
        List<Device> devices = mesh.devices();
        List<Integer> me = devices.get(p).coords();
        List<int[]> members = new ArrayList<>();
        for (int q = 0; q < devices.size(); q++) {
            List<Integer> c = devices.get(q).coords();
            boolean same = true;
            for (int k = 0; k < mesh.rank(); k++) {
                if (!axes.contains(mesh.axisNames().get(k)) && !c.get(k).equals(me.get(k))) {
                    same = false;
                }
            }
            if (same) {
                members.add(new int[]{lin(mesh, axes, c), q});
            }
        }
        members.sort((x, y) -> Integer.compare(x[0], y[0]));
        List<Integer> out = new ArrayList<>();
        for (int[] m : members) {
            out.add(m[1]);
        }
        return out;
    }

    static int lin(Mesh mesh, List<String> axes, List<Integer> coords) {
        int l = 0;
        for (String a : axes) {
            l = l * mesh.axisSize(a) + coords.get(mesh.axisPosition(a));
        }
        return l;
    }

    static void check(Setup s, List<Integer> inShape, UnaryOperator<NDArray> body,
                      BiFunction<List<NDArray>, Integer, NDArray> reference) {
        Mesh mesh = s.mesh();
        List<NDArray> got = run(s, inShape, body);
        for (int p = 0; p < mesh.size(); p++) {
            List<NDArray> xs = new ArrayList<>();
            for (int q : group(mesh, s.axes(), p)) {
                xs.add(blockOf(s, q, inShape));
            }
            int me = lin(mesh, s.axes(), mesh.devices().get(p).coords());
            NDArray expected = reference.apply(xs, me);
            assertArrayEquals(expected.shape(), got.get(p).shape(), "shape on device " + p + " for " + s);
            assertArrayEquals(expected.toFloatArray(), got.get(p).toFloatArray(), 0f, "values on device " + p + " for " + s);
        }
    }

    static NDArray sum(List<NDArray> xs) {
        NDArray acc = xs.get(0);
        for (int i = 1; i < xs.size(); i++) {
            acc = acc.add(xs.get(i));
        }
        return acc;
    }

    @Property(tries = 60, seed = "601")
    void psumPmaxPminAndPmean(@ForAll("setups") Setup s) {
        check(s, s.block(), b -> Collectives.psum(b, s.axes()), (xs, me) -> sum(xs));
        check(s, s.block(), b -> Collectives.pmax(b, s.axes()), (xs, me) -> xs.stream().reduce(NDArray::maximum).orElseThrow());
        check(s, s.block(), b -> Collectives.pmin(b, s.axes()), (xs, me) -> xs.stream().reduce(NDArray::minimum).orElseThrow());
        List<NDArray> means = run(s, s.block(), b -> Collectives.pmean(b, s.axes()));
        assertEquals(DType.FLOAT32, means.get(0).dtype());
    }

    @Property(tries = 60, seed = "602")
    void allGather(@ForAll("setups") Setup s, @ForAll boolean tiled, @ForAll Random random) {
        int r = s.block().size();
        int dim = tiled ? random.nextInt(r) : random.nextInt(r + 1);
        check(s, s.block(), b -> Collectives.allGather(b, s.axes(), dim, tiled ? TILED : UNTILED),
                (xs, me) -> tiled ? NDArray.concat(dim, xs) : NDArray.stack(dim, xs));
    }

    @Property(tries = 60, seed = "603")
    void psumScatter(@ForAll("setups") Setup s, @ForAll boolean tiled, @ForAll Random random) {
        int n = s.groupSize();
        int dim = random.nextInt(s.block().size());
        List<Integer> shape = new ArrayList<>(s.block());
        shape.set(dim, tiled ? n * s.block().get(dim) : n);
        check(s, shape, b -> Collectives.psumScatter(b, s.axes(), dim, tiled ? TILED : UNTILED), (xs, me) -> {
            NDArray tot = sum(xs);
            return tiled ? tot.split(dim, n).get(me) : tot.take(dim, me);
        });
    }

    @Property(tries = 60, seed = "604")
    void allToAll(@ForAll("setups") Setup s, @ForAll boolean tiled, @ForAll Random random) {
        int n = s.groupSize();
        int r = s.block().size();
        int split = random.nextInt(r);
        int concat = random.nextInt(r);
        List<Integer> shape = new ArrayList<>(s.block());
        shape.set(split, tiled ? n * s.block().get(split) : n);
        check(s, shape, b -> Collectives.allToAll(b, s.axes(), split, concat, tiled ? TILED : UNTILED), (xs, me) -> {
            List<NDArray> parts = new ArrayList<>();
            for (NDArray x : xs) {
                parts.add(tiled ? x.split(split, n).get(me) : x.take(split, me));
            }
            return tiled ? NDArray.concat(concat, parts) : NDArray.stack(concat, parts);
        });
    }

    @Property(tries = 60, seed = "605")
    void ppermute(@ForAll("setups") Setup s, @ForAll Random random) {
        int n = s.groupSize();
        List<Integer> dsts = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            dsts.add(i);
        }
        Collections.shuffle(dsts, random);
        List<int[]> pairs = new ArrayList<>();
        for (int src = 0; src < n; src++) {
            if (random.nextInt(4) != 0) { // a partial permutation: some devices receive nothing
                pairs.add(new int[]{src, dsts.get(src)});
            }
        }
        int[][] perm = pairs.toArray(new int[0][]);
        check(s, s.block(), b -> Collectives.ppermute(b, s.axes(), perm), (xs, me) -> {
            for (int[] p : perm) {
                if (p[1] == me) {
                    return xs.get(p[0]);
                }
            }
            return NDArray.zeros(DType.INT32, xs.get(0).shape());
        });
    }

    @Property(tries = 40, seed = "606")
    void axisIndexAndSize(@ForAll("setups") Setup s) {
        Mesh mesh = s.mesh();
        List<NDArray> got = run(s, s.block(), b -> Collectives.axisIndex(s.axes().toArray(new String[0])));
        List<NDArray> sizes = run(s, s.block(),
                b -> NDArray.scalar(Collectives.axisSize(s.axes().toArray(new String[0]))));
        for (int p = 0; p < mesh.size(); p++) {
            assertEquals(lin(mesh, s.axes(), mesh.devices().get(p).coords()), got.get(p).intAt());
            assertEquals(s.groupSize(), sizes.get(p).intAt());
        }
    }
}
