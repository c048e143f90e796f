package dev.shardlings.tours;

import dev.shardlings.array.NDArray;
import dev.shardlings.sharding.Device;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.NamedSharding;
import dev.shardlings.sharding.PartitionSpec;
import dev.shardlings.sharding.ShardingVisualizer;
import dev.shardlings.spmd.ShardedArray;

import java.util.Map;

import static dev.shardlings.sharding.PartitionSpec.P;

/**
 * Tour 2 (docs/chapter-0.md, "Meshes and layouts"): how an 8192 × 8192 matrix is cut over a 2 × 2 mesh, the
 * pictures of four layouts, and what each device holds of a small matrix.
 * Run: {@code mvn -q -pl docs exec:exec -Dtour=Tour02ShardedMatrices}.
 */
public final class Tour02ShardedMatrices {

    private Tour02ShardedMatrices() {
    }

    /** Prints the shard table, the layout pictures and a small example's blocks. */
    public static void main(String[] args) {
        Mesh mesh = Mesh.makeMesh(new int[]{2, 2}, "x", "y");
        int n = 8192;
        // The placement is pure arithmetic on the shape: nothing of the 256 MB needs to be allocated to show it.
        System.out.printf(java.util.Locale.ROOT, "The matrix: (%d, %d) float32, %.2f MB%n", n, n, (double) n * n * 4 / (1024 * 1024));
        NamedSharding xy = new NamedSharding(mesh, P("x", "y"));
        System.out.println("Laid out by " + xy);
        System.out.println("Global shape (" + n + ", " + n + "); each device holds:");
        for (Map.Entry<Device, NamedSharding.Index> e : xy.devicesIndicesMap(n, n).entrySet()) {
            int[] shard = xy.shardShape(n, n);
            System.out.println("  " + e.getKey() + " " + e.getValue() + " (" + shard[0] + ", " + shard[1] + ")");
        }
        for (PartitionSpec spec : new PartitionSpec[]{P("x", "y"), P("y", "x"), P("x", null), P(null, "y")}) {
            System.out.println();
            System.out.println("Layout " + spec + ":");
            System.out.print(ShardingVisualizer.visualizeSharding(new int[]{n, n}, new NamedSharding(mesh, spec)));
        }
        System.out.println();
        NDArray small = NDArray.arange(16).reshape(4, 4);
        ShardedArray a = ShardedArray.devicePut(small, mesh, P("x", "y"));
        System.out.println("A 4 x 4 matrix laid out " + a.spec() + ", block by block:");
        System.out.print(a.perDeviceText());
    }
}
