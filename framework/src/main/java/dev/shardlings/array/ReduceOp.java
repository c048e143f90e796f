package dev.shardlings.array;

/**
 * Reductions over axes: {@code jnp.sum}, {@code jnp.max}, {@code jnp.min} (in a jaxpr {@code lax.reduce_sum},
 * {@code reduce_max}, {@code reduce_min}) and {@code jnp.mean}. {@link NDArray#sum(int...)} computes {@link #SUM}
 * eagerly and the {@code Reduce} primitive applies it in a jitted program; partial results of a split dimension
 * combine with the collective of the same operation (psum, pmax, pmin).
 */
public enum ReduceOp implements LocalOp {
    /** Sum; partial results combine with psum. */
    SUM("reduce_sum"),
    /** Maximum; partial results combine with pmax. */
    MAX("reduce_max"),
    /** Minimum; partial results combine with pmin. */
    MIN("reduce_min"),
    /** Mean, always float32 (a sum divided once); not a lax primitive, so it has no collective of its own. */
    MEAN("reduce_mean");

    private final String jaxName;

    ReduceOp(String jaxName) {
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

    /**
     * True for the lax reductions whose partial results on different devices combine with a collective of the
     * same operation: sum (psum), max (pmax) and min (pmin); false for mean.
     */
    public boolean combinesAcrossDevices() {
        return this != MEAN;
    }
}
