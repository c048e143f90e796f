package dev.shardlings.tours;

import dev.shardlings.array.NDArray;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.PartitionSpec;
import dev.shardlings.spmd.ShardedArray;

import static dev.shardlings.sharding.PartitionSpec.P;

/**
 * Tour 4 (docs/chapter-0.md, "The four matmul cases"): the layouts of A and B in each case, what one device holds,
 * the communication the case needs in the book's notation, and the first elements of C. The shardMap programs
 * themselves are parts 0.1–0.5 of the exercises, so this tour multiplies the whole matrices: the point here is
 * that every layout gives the same numbers.
 * Run: {@code mvn -q -pl docs exec:exec -Dtour=Tour04MatmulCases}.
 */
public final class Tour04MatmulCases {

    private Tour04MatmulCases() {
    }

    /** Prints the four cases on 4 × 4 matrices over a 2 × 2 mesh. */
    public static void main(String[] args) {
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
