package dev.shardlings.array;

/**
 * The elementwise functions of one array ({@code jnp.negative}, {@code jnp.sin}, {@code jax.nn.relu}, …; in a
 * jaxpr the {@code jax.lax} primitive of the same name). {@link NDArray#sin()} computes {@link #SIN} eagerly, the
 * {@code Unary} primitive applies it in a jitted program, and both report it to the trace.
 */
public enum UnaryOp implements LocalOp {
    /** {@code -x} ({@code jnp.negative}, {@code lax.neg}). */
    NEG("neg", true),
    /** {@code jnp.abs}. */
    ABS("abs", true),
    /** {@code jnp.exp}. */
    EXP("exp", false),
    /** {@code jnp.log}, the natural logarithm. */
    LOG("log", false),
    /** {@code jnp.sqrt}. */
    SQRT("sqrt", false),
    /** {@code jnp.sin}. */
    SIN("sin", false),
    /** {@code jnp.cos}. */
    COS("cos", false),
    /** {@code jnp.tanh}. */
    TANH("tanh", false),
    /** {@code jax.nn.relu} = maximum(x, 0). */
    RELU("relu", true),
    /** {@code jnp.square} = x·x. */
    SQUARE("square", true),
    /** {@code jax.nn.gelu} with its default tanh approximation. */
    GELU("gelu", false),
    /** {@code jnp.copy}: a new buffer with the same values; no arithmetic, so costed as a {@link OpKind#COPY}. */
    COPY("copy", true);

    private final String jaxName;
    private final boolean keepsIntegers;

    UnaryOp(String jaxName, boolean keepsIntegers) {
        this.jaxName = jaxName;
        this.keepsIntegers = keepsIntegers;
    }

    @Override
    public String jaxName() {
        return jaxName;
    }

    @Override
    public OpKind kind() {
        return this == COPY ? OpKind.COPY : OpKind.ELEMENTWISE;
    }

    /**
     * True when an int32 operand gives an int32 result (neg, abs, relu, square, copy); the transcendental functions
     * compute in float32 and return float32 for any operand, as {@code jnp.sin} of an int array does.
     */
    public boolean keepsIntegers() {
        return keepsIntegers;
    }
}
