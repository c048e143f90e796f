package dev.shardlings.array;

/**
 * Operations that accumulate many terms into each result element: a matrix multiplication ({@code jnp.matmul},
 * {@code lax.dot_general}) and the sum of n arrays ({@code functools.reduce(jnp.add, xs)}, psum's local step).
 */
public enum AccumulateOp implements LocalOp {
    /** {@code jnp.matmul} of two matrices: 2·m·k·n FLOPs. */
    DOT("dot", OpKind.MATMUL),
    /** n arrays of one shape added left to right: (n − 1)·size FLOPs; traces show it as {@code "add"}. */
    ADD_N("add", OpKind.ADD_N);

    private final String jaxName;
    private final OpKind kind;

    AccumulateOp(String jaxName, OpKind kind) {
        this.jaxName = jaxName;
        this.kind = kind;
    }

    @Override
    public String jaxName() {
        return jaxName;
    }

    @Override
    public OpKind kind() {
        return kind;
    }
}
