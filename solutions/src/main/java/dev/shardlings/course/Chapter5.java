package dev.shardlings.course;

import dev.shardlings.array.NDArray;
import dev.shardlings.jit.Jit;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.spmd.ShardedArray;

import static dev.shardlings.sharding.PartitionSpec.P;

/**
 * Chapter 5 — reference solutions (automatic parallelism). Meshes have axes "X" and "Y".
 * See exercises/ for the task texts and docs/chapter-5.md for the discussion.
 */
public final class Chapter5 {

    private Chapter5() {
    }

    /**
     * Part 5.1: A[I_X, J] · B[J, K_Y] contracts a dimension no device splits, so each device multiplies its own rows
     * by its own columns and C comes out [I_X, K_Y] with nothing moved.
     */
    public static ShardedArray matmulWithoutCommunication(NDArray a, NDArray b, Mesh mesh) {
        ShardedArray as = ShardedArray.devicePut(a, mesh, P("X", null));
        ShardedArray bs = ShardedArray.devicePut(b, mesh, P(null, "Y"));
        return Jit.jit((ShardedArray x, ShardedArray y) -> x.matmul(y)).named("matmul").call(as, bs).get(0);
    }

    /**
     * Part 5.2: with the out sharding inside the program the compiler plans the matmul for C[I_X, K]: where Y is a
     * multiple of X the Y devices each compute a share of the rows, so the all-reduce over X carries f32[I/X, K],
     * and a collective-permute puts the blocks in place; a matmul followed by a reshard completes all of C first.
     */
    public static ShardedArray matmulReduceScatter(ShardedArray a, ShardedArray b) {
        return Jit.jit((ShardedArray x, ShardedArray y) -> x.matmul(y)).named("matmul").outShardings(P("X", null))
                .call(a, b).get(0);
    }

    /** Part 5.3: seed 002's matmul_square: the contraction over D_Y leaves partial sums, one all-reduce over Y. */
    public static ShardedArray matmulSquare(ShardedArray in, ShardedArray w) {
        return Jit.jit((ShardedArray x, ShardedArray y) -> ShardedArray.einsum("bd,df->bf", x.square(), y))
                .named("matmul_square").outShardings(P("X", null)).call(in, w).get(0);
    }

    /** Part 5.4: on Explicit axes the einsum itself is told its result's sharding. */
    public static ShardedArray matmulSquareExplicit(ShardedArray in, ShardedArray w) {
        return Jit.jit((ShardedArray x, ShardedArray y) -> ShardedArray.einsum("bd,df->bf", x.square(), y,
                P("X", null))).named("matmul_square").call(in, w).get(0);
    }
}
