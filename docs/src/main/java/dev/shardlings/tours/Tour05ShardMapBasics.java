package dev.shardlings.tours;

import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.jit.Jit;
import dev.shardlings.jit.Jitted;
import dev.shardlings.primitive.ShardingTypeError;
import dev.shardlings.random.PRNG;
import dev.shardlings.sharding.Device;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.spmd.MeshContext;
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
 * normalisation across devices, a gathered weight, a scatter-sum, a ring shift, device indices and per-device keys;
 * then seed 002's API as the seed writes it: a mesh in context ({@code jax.set_mesh}, here {@link MeshContext}),
 * arrays created with an out sharding, jit with out and in shardings, and shard_map over the mesh in context (the
 * printed values are JAX 0.10.2's: docs/src/test/resources/jax-checks/tour05_seed002_api.py).
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
        seed002Api();
    }

    /** Seed 002's API as written, on Explicit axes as jax.make_mesh gives them. */
    private static void seed002Api() {
        System.out.println();
        System.out.println("== seed 002's API as written: set_mesh, out_sharding, jit's out and in shardings");
        Mesh mesh = Mesh.makeMesh(new int[]{2, 2}, "X", "Y");
        try (MeshContext ctx = MeshContext.setMesh(mesh)) {
            ShardedArray in = ShardedArray.zeros(P("X", "Y"), DType.FLOAT32, 8, 2048);
            ShardedArray w = ShardedArray.zeros(P("Y", null), DType.FLOAT32, 2048, 8192);
            System.out.println("In " + in.type() + " " + in.spec() + ", W " + w.type() + " " + w.spec());
            try {
                Jit.jit((a, b) -> ShardedArray.einsum("bd,df->bf", a.square(), b)).named("matmul_square")
                        .outShardings(P("X", null)).lower(in, w);
            } catch (ShardingTypeError e) {
                // JAX 0.10.2 makes Explicit axes: the seed's program needs Auto axes (Tour06, chapter 5).
                System.out.println("jit(matmul_square, out_shardings=P('X', None)).lower(In, W): ShardingTypeError: "
                        + e.getMessage());
            }
            NDArray a = NDArray.arange(16).reshape(4, 4).astype(DType.FLOAT32);
            Jitted add = Jit.jit((l, r) -> l.add(r)).inShardings(P("X", null), P(null, "Y"));
            ShardedArray sum = add.call(a, a).get(0);
            System.out.println("jit(add, in_shardings=(P('X', None), P(None, 'Y'))) of two whole arrays: "
                    + sum.type() + ", laid out " + sum.spec().padTo(2) + " (whole arrays are typed unsharded)");
            System.out.println(sum.gather());
        }
        try (MeshContext ctx = MeshContext.setMesh(Mesh.makeMesh(new int[]{2, 4}, "x", "y"))) {
            // The seed's jnp.arange(..., device=P(('x', 'y'))) fails in JAX 0.10.2; device_put is its footnote's way.
            ShardedArray x = ShardedArray.devicePut(NDArray.arange(512), P(tuple("x", "y")));
            System.out.println("x = device_put(arange(512), P(('x', 'y'))): " + x.type() + " " + x.spec());
            Mesh inContext = MeshContext.current().orElseThrow();
            ShardedArray out = shardMap(block -> pmean(block.slice(0, 0, 4), "x", "y"), inContext,
                    P(tuple("x", "y")), P((Object) null)).apply(x);
            System.out.println("shard_map(slice_and_average): " + out.type() + " " + out.spec() + " "
                    + out.gather());
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
