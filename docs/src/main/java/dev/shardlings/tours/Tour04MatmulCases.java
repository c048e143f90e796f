package dev.shardlings.tours;

import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.random.PRNG;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.PartitionSpec;
import dev.shardlings.spmd.ProcessView;
import dev.shardlings.spmd.ShardedArray;

import static dev.shardlings.sharding.PartitionSpec.P;

/**
 * Tour 4 (docs/chapter-0.md, "The four matmul cases"): first seed 000's case 1 as it is written there (A and B drawn
 * with {@code uniform(key(42))}, multiplied as sharded arrays: the product is laid out P('x', 'y') with no
 * communication) and its "why case 2 fails", shown for every device; then the layouts of A and B in each case,
 * what one device holds, the communication the case needs in the book's notation, and the first elements of C.
 * The shardMap programs themselves are parts 0.1–0.5 of the exercises, so this tour multiplies the whole
 * matrices: the point here is that every layout gives the same numbers. The printed values of the first two
 * sections are JAX 0.10.2's (docs/src/test/resources/jax-checks/tour04_case1_case2.py).
 * Run: {@code mvn -q -pl docs exec:exec -Dtour=Tour04MatmulCases}.
 */
public final class Tour04MatmulCases {

    private Tour04MatmulCases() {
    }

    /** Prints seed 000's case 1 and case 2 as written, then the four cases on 4 × 4 matrices over a 2 × 2 mesh. */
    public static void main(String[] args) {
        seedCase1();
        seedCase2();
        Mesh mesh = Mesh.makeMesh(new int[]{2, 2}, "X", "Y");
        NDArray a = NDArray.arange(16).reshape(4, 4).astype(dev.shardlings.array.DType.FLOAT32);
        NDArray b = NDArray.arange(16).add(16).reshape(4, 4).astype(dev.shardlings.array.DType.FLOAT32);
        NDArray c = a.matmul(b);
        System.out.println("A = arange(16) and B = arange(16, 32), both 4 x 4 float32, on " + mesh);
        System.out.println();
        show(mesh, a, b, c, "Case 1: A[I_X, J] . B[J, K_Y] -> C[I_X, K_Y]", P("X", null), P(null, "Y"),
                "no communication: each device multiplies its rows of A by its columns of B");
        show(mesh, a, b, c, "Case 2: A[I, J_X] . B[J, K] -> C[I, K]", P(null, "X"), P(),
                "AllGather_X A[I, J_X] -> A[I, J], then a local matmul");
        show(mesh, a, b, c, "Case 3: A[I, J_X] . B[J_X, K] -> C[I, K]", P(null, "X"), P("X", null),
                "local matmul -> C[I, K]{U_X}, then AllReduce_X (or ReduceScatter_X then AllGather_X)");
        show(mesh, a, b, c, "Case 4: A[I_X, J] . B[J, K_X] -> C[I_X, K] or C[I, K_X]", P("X", null), P(null, "X"),
                "C[I_X, K_X] is illegal; AllGather_X one operand: B for C[I_X, K], A for C[I, K_X]");
    }

    /** Seed 000's case 1: A[I_x, J] . B[J, K_y] on sharded arrays; the product needs no communication. */
    private static void seedCase1() {
        Mesh mesh2x2 = Mesh.makeMesh(new int[]{2, 2}, "x", "y");
        PRNG.Key key = PRNG.key(42);
        NDArray a = PRNG.uniform(key, 4, 4);
        NDArray b = PRNG.uniform(key, 4, 4).add(1);
        ShardedArray aSharded = ShardedArray.devicePut(a, mesh2x2, P("x", null));
        ShardedArray bSharded = ShardedArray.devicePut(b, mesh2x2, P(null, "y"));
        System.out.println("== Seed 000, case 1 as written: A = uniform(key(42), (4, 4)), B = the same + 1");
        System.out.println("A =");
        System.out.println(a);
        System.out.println("Matrix A sharding (rows split along x): " + aSharded.sharding());
        System.out.print(aSharded.visualize());
        System.out.println("Matrix B sharding (columns split along y): " + bSharded.sharding());
        System.out.print(bSharded.visualize());
        ShardedArray c = aSharded.matmul(bSharded);
        System.out.println("Result C sharding (both dimensions sharded): " + c.sharding());
        System.out.print(c.visualize());
        System.out.println("Correct result: " + (c.gather().allclose(a.matmul(b)) ? "True" : "False"));
        System.out.println("C shape: " + shapeText(c.shape()));
        System.out.println(c.gather());
        System.out.println();
    }

    /** Seed 000's "why case 2 fails": with J split over x, every device holds only half of A's columns. */
    private static void seedCase2() {
        Mesh mesh2x2 = Mesh.makeMesh(new int[]{2, 2}, "x", "y");
        NDArray a = NDArray.arange(16).reshape(4, 4).astype(DType.FLOAT32);
        ShardedArray aSharded = ShardedArray.devicePut(a, mesh2x2, P(null, "x"));
        System.out.println("== Seed 000, why case 2 fails: A[I, J_x] . B[J, K], J split over x in A only");
        System.out.println("Matrix A sharding (columns split along x - contracting dimension): " + aSharded.sharding());
        System.out.print(aSharded.visualize());
        // B = arange(16, 32) is left as created: whole, on the first device (8 simulated devices, one process).
        System.out.println("Matrix B (not placed): " + ProcessView.of(1, 8, 0).defaultSharding());
        System.out.println("What each device sees locally:");
        for (ShardedArray.Shard shard : aSharded.addressableShards()) {
            System.out.println("Device " + shard.device().id() + " has A columns " + shard.index().slices().get(1)
                    + ":");
            System.out.println(shard.data());
            System.out.println("But needs ALL columns of A to multiply with B!");
        }
        System.out.println("Cannot multiply directly - each device only has partial columns of A");
        System.out.println();
    }

    private static String shapeText(int[] shape) {
        return java.util.Arrays.stream(shape).mapToObj(Integer::toString)
                .collect(java.util.stream.Collectors.joining(", ", "(", shape.length == 1 ? ",)" : ")"));
    }

    private static void show(Mesh mesh, NDArray a, NDArray b, NDArray c, String title, PartitionSpec sa,
                             PartitionSpec sb, String communication) {
        ShardedArray as = ShardedArray.devicePut(a, mesh, sa);
        ShardedArray bs = ShardedArray.devicePut(b, mesh, sb);
        System.out.println("== " + title);
        System.out.println("A laid out " + sa + ":");
        System.out.print(as.visualize());
        System.out.println("B laid out " + sb + ":");
        System.out.print(bs.visualize());
        System.out.println("Device 0 holds A" + as.addressableShards().get(0).index() + " and B"
                + bs.addressableShards().get(0).index());
        System.out.println("Communication: " + communication);
        System.out.println("C[:2, :2] =");
        System.out.println(c.slice(0, 0, 2).slice(1, 0, 2));
        System.out.println();
    }
}
