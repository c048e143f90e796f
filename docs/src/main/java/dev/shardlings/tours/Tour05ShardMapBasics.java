package dev.shardlings.tours;

import dev.shardlings.array.NDArray;
import dev.shardlings.random.PRNG;
import dev.shardlings.sharding.Device;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.spmd.ShardMap;
import dev.shardlings.spmd.ShardedArray;

import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.Map;

import static dev.shardlings.spmd.Tiling.TILED;
import static dev.shardlings.spmd.Tiling.UNTILED;
import static dev.shardlings.sharding.PartitionSpec.P;
import static dev.shardlings.sharding.PartitionSpec.tuple;
import static dev.shardlings.spmd.Collectives.allGather;
import static dev.shardlings.spmd.Collectives.axisIndex;
import static dev.shardlings.spmd.Collectives.pmean;
import static dev.shardlings.spmd.Collectives.ppermute;
import static dev.shardlings.spmd.Collectives.psumScatter;
import static dev.shardlings.spmd.ShardMap.shardMap;

/**
 * Tour 5 (docs/chapter-0.md, parts 0.6–0.10): the shard_map tutorial on a 4 × 2 mesh — local shapes, a
 * normalisation across devices, a gathered weight, a scatter-sum, a ring shift, device indices and per-device keys.
 * Run: {@code mvn -q -pl docs exec:exec -Dtour=Tour05ShardMapBasics}.
 */
public final class Tour05ShardMapBasics {

    private Tour05ShardMapBasics() {
    }

    /** Prints the tutorial's shard_map examples. */
    public static void main(String[] args) {
        Mesh mesh = Mesh.makeMesh(new int[]{4, 2}, "i", "j");
        System.out.println("Mesh " + mesh + ", device ids by row: " + rows(mesh));
        NDArray x = PRNG.normal(PRNG.key(0), 192, 64);
        NDArray w = PRNG.normal(PRNG.key(1), 64, 128);
        NDArray b = PRNG.normal(PRNG.key(2), 128);

        // x[B_i, D] . w[D, F_j] + b[F_j]: every device sees blocks, the result is global.
        Map<String, String> shapes = new ConcurrentHashMap<>();
        ShardedArray y = ShardMap.shardMap(blocks -> {
            shapes.put("x", shape(blocks.get(0)));
            shapes.put("w", shape(blocks.get(1)));
            shapes.put("b", shape(blocks.get(2)));
            return List.of(blocks.get(0).matmul(blocks.get(1)).add(blocks.get(2)));
        }, mesh, List.of(P("i", null), P(null, "j"), P("j")), List.of(P("i", "j"))).callOnWhole(x, w, b).get(0);
        System.out.println("Block shapes inside shardMap: x " + shapes.get("x") + ", w " + shapes.get("w") + ", b "
                + shapes.get("b"));
        System.out.println("Global output shape " + shape(y.shape()) + ", laid out:");
        System.out.print(y.visualize());

        // The tutorial's normalisation: statistics averaged elementwise across the devices along j.
        NDArray normalised = shardMap(block -> {
            NDArray mean = pmean(block, "j");
            NDArray std = pmean(block.sub(mean).square(), "j").sqrt();
            return block.sub(mean).div(std);
        }, mesh, P("i", "j"), P("i", "j")).apply(x).gather();
        double mean = normalised.mean().item();
        double std = normalised.sub((float) mean).square().mean().sqrt().item();
        System.out.printf(java.util.Locale.ROOT, "Normalised across j: mean %.4f, std %.4f%n", Math.abs(mean) < 5e-5 ? 0.0 : mean, std);

        // A weight split over i is gathered before the matmul.
        ShardedArray ws = ShardedArray.devicePut(w, mesh, P("i", null));
        Map<String, String> gathered = new ConcurrentHashMap<>();
        shardMap(block -> {
            NDArray full = allGather(block, "i", 0, TILED);
            gathered.put("before", shape(block));
            gathered.put("after", shape(full));
            return block;
        }, mesh, P("i", null), P("i", null)).apply(ws);
        System.out.println("Weight block " + gathered.get("before") + ", after all_gather over i "
                + gathered.get("after"));

        Mesh line = Mesh.makeMesh(new int[]{4}, "i");
        NDArray rows = NDArray.of(new int[][]{{3, 1, 4, 1}, {5, 9, 2, 6}, {5, 3, 5, 8}, {9, 7, 1, 2}});
        ShardedArray scattered = shardMap(block -> psumScatter(block, "i", 1, UNTILED), line, P("i", null), P("i"))
                .apply(rows);
        System.out.println("psum_scatter of the 4 x 4 rows over i: " + scattered.gather());
        int[][] up = {{0, 1}, {1, 2}, {2, 3}, {3, 0}};
        System.out.println("ppermute of arange(4) one step up the ring: "
                + shardMap(block -> ppermute(block, "i", up), line, P("i"), P("i")).apply(NDArray.arange(4)).gather());

        NDArray idx = shardMap(ignored -> NDArray.stack(0, axisIndex("i"), axisIndex("j")).reshape(1, 2), mesh,
                P(), P(tuple("i", "j"), null)).apply(NDArray.scalar(0)).gather();
        for (int d = 0; d < mesh.size(); d++) {
            System.out.println("Device " + d + ": index along i = " + idx.intAt(d, 0) + ", along j = "
                    + idx.intAt(d, 1));
        }

        PRNG.Key key = PRNG.key(0);
        NDArray keys = shardMap(k -> PRNG.foldIn(PRNG.Key.of(k), axisIndex("i").intAt()).toArray().reshape(1, 2),
                mesh, P(), P(tuple("i", "j"), null)).apply(key.toArray()).gather();
        for (int d = 0; d < mesh.size(); d++) {
            System.out.println("Device " + d + ": key " + PRNG.Key.of(keys.index(d)));
        }
    }

    private static List<Integer> rows(Mesh mesh) {
        return mesh.devices().stream().map(Device::id).toList();
    }

    private static String shape(NDArray a) {
        return shape(a.shape());
    }

    private static String shape(int[] s) {
        StringBuilder sb = new StringBuilder("(");
        for (int i = 0; i < s.length; i++) {
            sb.append(i > 0 ? ", " : "").append(s[i]);
        }
        return sb.append(s.length == 1 ? ",)" : ")").toString();
    }
}
