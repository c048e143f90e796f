package dev.shardlings.tours;

import dev.shardlings.array.NDArray;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.PartitionSpec;
import dev.shardlings.spmd.ShardedArray;

import java.util.function.UnaryOperator;

import static dev.shardlings.spmd.Tiling.TILED;
import static dev.shardlings.sharding.PartitionSpec.P;
import static dev.shardlings.spmd.Collectives.allGather;
import static dev.shardlings.spmd.Collectives.allToAll;
import static dev.shardlings.spmd.Collectives.ppermute;
import static dev.shardlings.spmd.Collectives.psum;
import static dev.shardlings.spmd.Collectives.psumScatter;
import static dev.shardlings.spmd.ShardMap.shardMap;

/**
 * Tour 3 (docs/chapter-0.md, "The cost of a collective"): each collective on the tutorials' 16-number array over 4
 * devices — what every device holds before and after, and the assembled result.
 * Run: {@code mvn -q -pl docs exec:exec -Dtour=Tour03Collectives}.
 */
public final class Tour03Collectives {

    private Tour03Collectives() {
    }

    private static final Mesh MESH = Mesh.makeMesh(new int[]{4}, "i");

    /** Prints before / after / result for psum, psum_scatter, all_to_all, ppermute and all_gather. */
    public static void main(String[] args) {
        NDArray x = NDArray.of(3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 1, 2);
        show("psum over i: every device ends with the sum of the four blocks", x, b -> psum(b, "i"), P());
        show("psum_scatter over i (tiled): device k keeps element k of that sum", x,
                b -> psumScatter(b, "i", 0, TILED), P("i"));
        show("all_to_all over i (split and concatenate along 0, tiled): piece k of every block goes to device k", x,
                b -> allToAll(b, "i", 0, 0, TILED), P("i"));
        int[][] up = {{0, 1}, {1, 2}, {2, 3}, {3, 0}};
        show("ppermute over i, pairs (0,1) (1,2) (2,3) (3,0): a shift up the ring, like np.roll",
                NDArray.arange(4), b -> ppermute(b, "i", up), P("i"));
        show("all_gather over i (tiled): every device ends with all four blocks", NDArray.of(3, 9, 5, 2),
                b -> allGather(b, "i", 0, TILED), P("i"));
    }

    private static void show(String title, NDArray x, UnaryOperator<NDArray> body, PartitionSpec out) {
        System.out.println("== " + title);
        ShardedArray in = ShardedArray.devicePut(x, MESH, P("i"));
        System.out.println("Before:");
        System.out.print(in.perDeviceText());
        ShardedArray result = shardMap(body, MESH, P("i"), out).apply(in);
        System.out.println("After:");
        System.out.print(result.perDeviceText());
        System.out.println("Result with out spec " + out + ": " + result.gather());
        System.out.println();
    }
}
