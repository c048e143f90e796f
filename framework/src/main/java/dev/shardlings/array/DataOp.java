package dev.shardlings.array;

/**
 * Operations that make, convert or move data rather than compute with it: array creation, dtype conversion
 * ({@code lax.convert_element_type}) and data movement ({@code lax.transpose}, {@code lax.broadcast_in_dim},
 * {@code lax.slice}, {@code jnp.take}, {@code jnp.roll}, {@code lax.gather}, {@code lax.concatenate}). Each
 * names the {@link OpKind} the cost model charges for it.
 */
public enum DataOp implements LocalOp {
    /** A new array from nothing (zeros, arange, a literal). */
    CREATE("create", OpKind.CREATE),
    /** {@code x.astype(dtype)}: one conversion per element. */
    CONVERT("convert", OpKind.ELEMENTWISE),
    /** {@code jnp.where(c, x, y)} ({@code lax.select_n}): one choice per element. */
    SELECT("select_n", OpKind.ELEMENTWISE),
    /** {@code jnp.transpose}: the axes permuted. */
    TRANSPOSE("transpose", OpKind.INDEXING),
    /** {@code jnp.broadcast_to}: size-1 and missing leading dimensions repeated. */
    BROADCAST("broadcast", OpKind.INDEXING),
    /** {@code x[..., start:stop, ...]}, {@code lax.dynamic_slice_in_dim} and each piece of {@code jnp.split}. */
    SLICE("slice", OpKind.INDEXING),
    /** {@code jnp.take} of one fixed index, and {@code x[i]}: the axis dropped. */
    TAKE("take", OpKind.INDEXING),
    /** {@code jnp.roll}: elements shifted cyclically. */
    ROLL("roll", OpKind.INDEXING),
    /** {@code jnp.take} by an index array: rows copied in the order the indices give. */
    GATHER("gather", OpKind.COPY),
    /** {@code jnp.concatenate}, and {@code jnp.stack} (a concatenation along a new axis). */
    CONCATENATE("concatenate", OpKind.COPY);

    private final String jaxName;
    private final OpKind kind;

    DataOp(String jaxName, OpKind kind) {
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
