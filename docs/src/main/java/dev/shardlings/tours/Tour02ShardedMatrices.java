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
 * pictures of four layouts, and what each device holds of a small matrix; then seed 001's
 * {@code P(('a', 'b'), None)} on a 4 × 2 mesh, one array dimension split over both mesh axes (its slices are
 * JAX 0.10.2's: docs/src/test/resources/jax-checks/tour02_p_ab_none.py).
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
        System.out.println();
        twoAxesOnOneDimension();
    }

    /** Seed 001: P(('a', 'b'), None) splits the rows over all 8 devices, 'a' major and 'b' minor. */
    private static void twoAxesOnOneDimension() {
        Mesh mesh = Mesh.makeMesh(new int[]{4, 2}, "a", "b");
        int n = 8192;
        NamedSharding ab = new NamedSharding(mesh, P(PartitionSpec.tuple("a", "b"), null));
        int[] shard = ab.shardShape(n, n);
        System.out.println("Seed 001: the (" + n + ", " + n + ") matrix on " + mesh + " laid out " + ab.spec()
                + ", shard shape (" + shard[0] + ", " + shard[1] + "):");
        for (Map.Entry<Device, NamedSharding.Index> e : ab.devicesIndicesMap(n, n).entrySet()) {
            System.out.println("  " + e.getKey().label() + " " + e.getValue());
        }
        System.out.print(ShardingVisualizer.visualizeSharding(new int[]{n, n}, ab));
        ShardedArray small = ShardedArray.devicePut(NDArray.arange(16).reshape(8, 2), ab);
        System.out.println("An 8 x 2 matrix laid out " + small.spec() + ": one row per device");
        for (ShardedArray.Shard s : small.addressableShards()) {
            System.out.println("  " + s.device().label() + " " + s.index() + " " + s.data());
        }
    }
}
