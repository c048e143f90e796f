package dev.shardlings.sharding;

/**
 * How a mesh axis is used — JAX's {@code jax.sharding.AxisType}.
 *
 * <ul>
 *   <li>{@link #AUTO}: the compiler chooses the shardings of intermediate values and inserts the communication
 *       (GSPMD-style propagation). Array types do not mention these axes: {@code jax.typeof} prints
 *       {@code float32[8,4]}.</li>
 *   <li>{@link #EXPLICIT}: shardings are part of every array's type ({@code float32[8@X,4@Y]}); each operation's
 *       typing rule gives its result's sharding, and an operation whose result sharding would be ambiguous is a
 *       {@code ShardingTypeError} until the program says {@code outSharding} or {@code reshard}.</li>
 *   <li>{@link #MANUAL}: the program works per device ({@code shardMap}) and communicates with collectives.</li>
 * </ul>
 * {@link Mesh#makeMesh(int[], String...)} makes every axis {@link #EXPLICIT}, as {@code jax.make_mesh} does in JAX
 * 0.10.2; {@link Mesh#ofDeviceIds} makes them {@link #AUTO}, as the {@code Mesh(devices, names)} constructor does.
 * A shardMap body sees every axis it maps as Manual whatever the mesh says.
 */
public enum AxisType {
    /** Sharding decided by the compiler's propagation; JAX's {@code AxisType.Auto}. */
    AUTO("Auto"),
    /** Sharding in types; JAX's {@code AxisType.Explicit}. */
    EXPLICIT("Explicit"),
    /** Per-device code with collectives; JAX's {@code AxisType.Manual}. */
    MANUAL("Manual");

    private final String jaxName;

    AxisType(String jaxName) {
        this.jaxName = jaxName;
    }

    /** JAX's name, e.g. {@code "Explicit"} (as {@code str(mesh)} prints it in {@code axis_types=(…)}). */
    public String jaxName() {
        return jaxName;
    }
}
