package dev.shardlings.course;

// What the tasks below use; an import left unused is harmless.
import dev.shardlings.ExerciseNotDone;
import dev.shardlings.array.NDArray;
import dev.shardlings.jit.Jit;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.spmd.ShardedArray;

import static dev.shardlings.sharding.PartitionSpec.P;

/**
 * Chapter 5 — automatic parallelism: whole-array programs that {@code Jit.jit} partitions for you.
 *
 * <p>Every part here is written on whole arrays (ShardedArray's matmul, einsum, square, …). On a mesh whose axes are
 * Auto the compiler picks the layout of every intermediate value and inserts the collectives those layouts need;
 * on Explicit axes every value's type carries its layout and an ambiguous one is a type error. You choose the
 * input layouts and the out shardings; the grader reads the compiled program's collectives from the trace. The
 * meshes have axes {@code "X"} and {@code "Y"}; either may have size 1.
 *
 * <p>Read {@code docs/chapter-5.md} first. Grade your work with {@code mvn test -Pgrade}.
 *
 * <p>This file stands alone: use the framework, the JDK and this class only, never another course file (copy a
 * helper you need into this file). Each course file is graded on its own, and one that does not compile is
 * graded as its stub, so a helper taken from it would break this file too.
 */
public final class Chapter5 {

    private Chapter5() {
    }

    /**
     * Part 5.1 — choose layouts that need no communication (seed 000's case 1, under jit).
     *
     * <p>Input: A f32[I, J] and B f32[J, K] as whole arrays on the host, and a mesh whose axes X and Y are Auto.
     * Place A and B on the mesh with {@code ShardedArray.devicePut} in layouts of your choice and return
     * C = A · B f32[I_X, K_Y] (laid out {@code P("X", "Y")}) from a jitted matmul. Choose the layouts so that the
     * compiled program needs no collective and every device stores and computes only its own share.
     *
     * <p>Graded: values (float tolerance) and layout; compiled by jit, with no hand-written shardMap; the compiled
     * program has no collective; every device holds only its blocks of A and B, (I·J/X + J·K/Y)·4 bytes of
     * inputs; every device does exactly 2·I·J·K/(X·Y) matmul FLOPs.
     * Docs: docs/chapter-5.md#part-51-layouts-that-need-no-communication
     */
    public static ShardedArray matmulWithoutCommunication(NDArray a, NDArray b, Mesh mesh) {
        // TODO(5.1): For C[I_X, K_Y] and no communication, which dimension of A may be split, over which axis, and
        //  which of B? What must the contracted J be on both, so that no device needs another's part?
        throw new ExerciseNotDone("5.1");
    }

    /**
     * Part 5.2 — let the out sharding choose the collective (seed 000's case 3, under jit).
     *
     * <p>Input: A f32[I, J_X] laid out {@code P(null, "X")} and B f32[J_X, K] laid out {@code P("X", null)}, on a
     * mesh whose axes are Auto. Output: C = A · B f32[I_X, K] laid out {@code P("X", null)}. Every device's product
     * of its blocks is a partial sum of all of C; how the compiler completes it depends on the layout it must
     * produce.
     *
     * <p>Graded: values (float tolerance) and layout; compiled by jit, with no hand-written shardMap; one jitted
     * program makes the result, already laid out P('X', None): no reshard or other program runs before or after
     * it; per device, XLA's collectives for that layout: where Y is a multiple of X an all-reduce over X of
     * f32[I/X, K] (the Y devices each computed a share of the rows) then a collective-permute of it, else an
     * all-reduce over X of f32[I, K] (none when X = 1).
     * Docs: docs/chapter-5.md#part-52-the-out-sharding-chooses-the-collective
     */
    public static ShardedArray matmulReduceScatter(ShardedArray a, ShardedArray b) {
        // TODO(5.2): Every device's product is a partial sum of all of C. If the compiler learns only after the
        //  program that C must be C[I_X, K], what must it do to finish the sums, and what could it do if it knew
        //  the layout while it plans? How can jit be told?
        throw new ExerciseNotDone("5.2");
    }

    /**
     * Part 5.3 — seed 002's {@code matmul_square} on Auto axes.
     *
     * <p>Input: In f32[B_X, D_Y] laid out {@code P("X", "Y")} and W f32[D_Y, F] laid out {@code P("Y", null)}, on a
     * mesh whose axes are Auto. Output: einsum('bd,df->bf', In², W) f32[B_X, F] laid out {@code P("X", null)}.
     *
     * <p>Graded: values (float tolerance) and layout; compiled by jit, with no hand-written shardMap; exactly one
     * collective per device, an all-reduce over Y of f32[B/X, F] (none when Y = 1).
     * Docs: docs/chapter-5.md#part-53-matmul_square-on-auto-axes
     */
    public static ShardedArray matmulSquare(ShardedArray in, ShardedArray w) {
        // TODO(5.3): which dimension does the einsum contract, and which mesh axis splits it on both operands? What
        //  must each device add up with the others, and how can jit learn, inside the program, the layout the result
        //  must have?
        throw new ExerciseNotDone("5.3");
    }

    /**
     * Part 5.4 — the same program on Explicit axes, where the layout is part of the type.
     *
     * <p>Input: In f32[B@X, D@Y] and W f32[D@Y, F] (the same layouts as 5.3) on a mesh whose axes are Explicit.
     * Output: einsum('bd,df->bf', In², W) f32[B@X, F]. Contracting D, which Y splits, leaves a result whose sharding
     * the typing rules cannot decide: without help the einsum throws JAX's ShardingTypeError ("Contracting
     * dimensions are sharded and it is ambiguous how the output should be sharded…"). Say which sharding you want.
     *
     * <p>Graded: values (float tolerance) and layout; no hand-written shardMap (jit or eager global-view
     * operations); exactly one collective per device, an all-reduce over Y of f32[B/X, F] (none when Y = 1).
     * Docs: docs/chapter-5.md#part-54-matmul_square-on-explicit-axes
     */
    public static ShardedArray matmulSquareExplicit(ShardedArray in, ShardedArray w) {
        // TODO(5.4): write it as in 5.3 and read the ShardingTypeError: what does it ask you for, and where can one
        //  operation be given it?
        throw new ExerciseNotDone("5.4");
    }
}
