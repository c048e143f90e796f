package dev.shardlings.array;

/**
 * Operations that answer where elements are rather than combine them: {@code jnp.argmax} and {@code jnp.argsort}
 * (which JAX lowers to {@code lax.sort}). Costed like reductions: one FLOP per operand element.
 */
public enum SearchOp implements LocalOp {
    /** {@code jnp.argmax}: the index of the first maximum along an axis. */
    ARGMAX("argmax"),
    /** {@code jnp.argsort(stable=True)}: the indices that sort the array; traces show it as {@code lax.sort}. */
    ARGSORT("sort");

    private final String jaxName;

    SearchOp(String jaxName) {
        this.jaxName = jaxName;
    }

    @Override
    public String jaxName() {
        return jaxName;
    }

    @Override
    public OpKind kind() {
        return OpKind.REDUCTION;
    }
}
