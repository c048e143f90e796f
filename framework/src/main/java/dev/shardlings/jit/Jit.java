package dev.shardlings.jit;

import dev.shardlings.spmd.ShardedArray;

import java.util.List;
import java.util.Objects;
import java.util.function.BinaryOperator;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * {@code jax.jit}: compile a function of global arrays into one partitioned program.
 *
 * <pre>{@code
 * // In f32[B_X, D_Y] · W f32[D_Y, F] on a mesh (X, Y) of Auto axes: one all-reduce over Y.
 * Jitted f = Jit.jit((a, w) -> a.square().matmul(w)).outShardings(P("X", null));
 * ShardedArray out = f.call(in, w).get(0);
 * System.out.println(f.lower(in, w).asText());
 *
 * // Seed 002's form: a mesh in context, arrays created with an out sharding, in and out shardings as bare specs.
 * try (MeshContext ctx = MeshContext.setMesh(mesh)) {
 *     ShardedArray x = ShardedArray.zeros(P("X", "Y"), DType.FLOAT32, 8, 2048);
 *     Jitted g = Jit.jit((a, b) -> a.add(b)).inShardings(P("X", "Y"), P("X", "Y"));
 *     ShardedArray sum = g.call(x, NDArray.ones(DType.FLOAT32, 8, 2048)).get(0);   // the NDArray is placed P("X", "Y")
 * }
 * }</pre>
 *
 * <p>The function is written with {@link ShardedArray}'s global-view operations. It is traced once per signature
 * (argument shapes, dtypes and shardings): its arguments are traced values, each operation is recorded as an
 * equation of a {@link Jaxpr} (and typed — on Explicit axes a {@link dev.shardlings.primitive.ShardingTypeError}
 * is raised while tracing), then every value gets a layout and the program is partitioned into one per-device
 * program run on the mesh's devices as a single shardMap — so its collectives appear in the trace and the cost
 * model like hand-written ones. A call with a signature seen before reuses the compiled program without tracing
 * (see {@link Jitted#traceCount()}).
 *
 * <p>Inside the function a traced value has no data: reading it ({@code gather()}, {@code blocks()}) throws
 * {@link IllegalStateException}, as a concrete read of a tracer does in JAX. Arrays the function captures are
 * constants of the program. Calling {@code shardMap} on traced values is not supported yet (it throws
 * {@link IllegalStateException}).
 */
public final class Jit {
    private Jit() {
    }

    /**
     * Jits a function of any number of arrays returning any number of arrays (JAX's pytrees of arrays, as lists).
     *
     * @throws NullPointerException if fn is null
     */
    public static Jitted jitList(Function<List<ShardedArray>, List<ShardedArray>> fn) {
        return new Jitted(Objects.requireNonNull(fn, "fn"), "fn", null, null, null);
    }

    /**
     * Jits a function of one array.
     *
     * @throws NullPointerException if fn is null
     */
    public static Jitted jit(UnaryOperator<ShardedArray> fn) {
        Objects.requireNonNull(fn, "fn");
        return new Jitted(args -> List.of(fn.apply(args.get(0))), "fn", null, null, null).arity(1);
    }

    /**
     * Jits a function of two arrays.
     *
     * @throws NullPointerException if fn is null
     */
    public static Jitted jit(BinaryOperator<ShardedArray> fn) {
        Objects.requireNonNull(fn, "fn");
        return new Jitted(args -> List.of(fn.apply(args.get(0), args.get(1))), "fn", null, null, null).arity(2);
    }
}
