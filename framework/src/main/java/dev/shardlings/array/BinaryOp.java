package dev.shardlings.array;

/**
 * The elementwise functions of two arrays, with numpy broadcasting ({@code jnp.add}, {@code jnp.subtract}, …).
 * {@link NDArray#sub(NDArray)} computes {@link #SUB} eagerly and the {@code Binary} primitive applies it in a
 * jitted program. Two names each: traces show the {@code jax.numpy} function ({@link #jaxName()},
 * {@code "subtract"}, which is also XLA's opcode), jaxprs the {@code jax.lax} primitive ({@link #laxName()},
 * {@code "sub"}).
 */
public enum BinaryOp implements LocalOp {
    /** {@code jnp.add} / {@code lax.add}. */
    ADD("add", "add"),
    /** {@code jnp.subtract} / {@code lax.sub}. */
    SUB("subtract", "sub"),
    /** {@code jnp.multiply} / {@code lax.mul}. */
    MUL("multiply", "mul"),
    /** {@code jnp.true_divide} / {@code lax.div}: float32 for any operands. */
    DIV("divide", "div"),
    /** {@code jnp.maximum} / {@code lax.max}; NaN propagates. */
    MAX("maximum", "max"),
    /** {@code jnp.minimum} / {@code lax.min}; NaN propagates. */
    MIN("minimum", "min"),
    /** {@code jnp.floor_divide}: rounds toward negative infinity; no lax primitive of its own. */
    FLOOR_DIV("floor_divide", "floor_divide");

    private final String jaxName;
    private final String laxName;

    BinaryOp(String jaxName, String laxName) {
        this.jaxName = jaxName;
        this.laxName = laxName;
    }

    /** The {@code jax.numpy} name traces show, e.g. {@code "subtract"}. */
    @Override
    public String jaxName() {
        return jaxName;
    }

    /** The {@code jax.lax} primitive's name, as a jaxpr prints it, e.g. {@code "sub"}. */
    public String laxName() {
        return laxName;
    }

    @Override
    public OpKind kind() {
        return OpKind.ELEMENTWISE;
    }

    /** True when two int32 operands give an int32 result: every function but {@link #DIV} (true division). */
    public boolean keepsIntegers() {
        return this != DIV;
    }
}
