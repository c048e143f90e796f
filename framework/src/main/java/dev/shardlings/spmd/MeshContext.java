package dev.shardlings.spmd;

import dev.shardlings.sharding.AxisType;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.NamedSharding;
import dev.shardlings.sharding.PartitionSpec;

import java.util.Objects;
import java.util.Optional;

/**
 * {@code jax.set_mesh(mesh)}: a mesh in context for this thread, so APIs that take a sharding accept a bare
 * {@link PartitionSpec} ({@link ShardedArray#zeros(PartitionSpec, dev.shardlings.array.DType, int...)},
 * {@link ShardedArray#devicePut(dev.shardlings.array.NDArray, PartitionSpec)}, {@code Jitted.inShardings}).
 *
 * <p>As in JAX, setting is immediate and the object also works as a context: closing it restores the mesh that
 * was in context before (none, or an outer one — contexts nest, the innermost wins).
 *
 * <pre>{@code
 * try (MeshContext ctx = MeshContext.setMesh(Mesh.makeMesh(new int[]{2, 2}, "X", "Y"))) {
 *     ShardedArray in = ShardedArray.zeros(P("X", "Y"), DType.FLOAT32, 8, 2048);   // float32[8@X,2048@Y]
 * }   // no mesh in context again
 * }</pre>
 *
 * <p>Without try-with-resources ({@code MeshContext.setMesh(mesh);} alone) the mesh stays in context on this
 * thread, JAX's global-setter use. The context is thread-local, as JAX's is.
 */
public final class MeshContext implements AutoCloseable {
    private static final ThreadLocal<Mesh> CURRENT = new ThreadLocal<>();

    private final Mesh previous;

    private MeshContext(Mesh previous) {
        this.previous = previous;
    }

    /**
     * {@code jax.set_mesh(mesh)}: puts {@code mesh} in context on this thread until the returned context is closed
     * ({@code null} clears the context, as {@code set_mesh(None)} does).
     *
     * @throws IllegalStateException    inside a jitted function or a shardMap body (JAX's "`set_mesh` can only be
     *                                  used outside of `jax.jit`.")
     * @throws IllegalArgumentException if an axis of the mesh is {@link AxisType#MANUAL} (JAX's text)
     */
    public static MeshContext setMesh(Mesh mesh) {
        if (Staging.current() != null || DeviceContext.current() != null) {
            throw new IllegalStateException("`set_mesh` can only be used outside of `jax.jit`.");
        }
        if (mesh != null && mesh.axisTypes().contains(AxisType.MANUAL)) {
            throw new IllegalArgumentException("mesh " + mesh + " contains manual axes which is not allowed when"
                    + " using `jax.set_mesh`. Please use `jax.shard_map` to enter into `Manual` mode instead.");
        }
        MeshContext context = new MeshContext(CURRENT.get());
        CURRENT.set(mesh);
        return context;
    }

    /** {@code jax.sharding.get_mesh()}: the mesh in context on this thread, if any. */
    public static Optional<Mesh> current() {
        return Optional.ofNullable(CURRENT.get());
    }

    /** Restores the mesh that was in context when this one was set (JAX's {@code __exit__}). */
    @Override
    public void close() {
        CURRENT.set(previous);
    }

    /**
     * The sharding a bare spec means here: {@code spec} on the mesh in context.
     *
     * @param what the JAX text for a missing mesh, which differs by API
     * @throws IllegalArgumentException with {@code what} when no mesh is in context
     */
    static NamedSharding resolve(PartitionSpec spec, String what) {
        Objects.requireNonNull(spec, "spec");
        Mesh mesh = CURRENT.get();
        if (mesh == null) {
            throw new IllegalArgumentException(what);
        }
        return new NamedSharding(mesh, spec);
    }
}
