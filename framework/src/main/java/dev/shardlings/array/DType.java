package dev.shardlings.array;

/**
 * Element types of an {@link NDArray}: the two defaults of JAX with {@code jax_enable_x64 = False}, and bool.
 *
 * <p>JAX canonicalises 64-bit inputs to 32 bits by default, so {@code float32} is the default float and
 * {@code int32} the default integer; {@code bool} is what comparisons give and {@code where} reads.
 */
public enum DType {
    /** IEEE 754 binary32, JAX's {@code jnp.float32} (printed {@code f32} in short type strings). */
    FLOAT32("float32", "f32", 4),
    /** Two's-complement 32-bit integer, JAX's {@code jnp.int32}; arithmetic wraps on overflow. */
    INT32("int32", "i32", 4),
    /**
     * numpy's {@code bool_} ({@code jnp.bool_}, printed {@code bool} in type strings): one byte per element in
     * JAX's accounting. Comparisons make it; {@code where}, {@code astype}, sums (int32) and data movement take it.
     */
    BOOL("bool", "bool", 1);

    private final String jaxName;
    private final String shortName;
    private final int byteSize;

    DType(String jaxName, String shortName, int byteSize) {
        this.jaxName = jaxName;
        this.shortName = shortName;
        this.byteSize = byteSize;
    }

    /** The numpy / JAX dtype name, e.g. {@code "float32"}. */
    public String jaxName() {
        return jaxName;
    }

    /** JAX's short name used in type strings such as {@code f32[8,4]}, e.g. {@code "f32"}. */
    public String shortName() {
        return shortName;
    }

    /** Bytes per element (numpy's {@code dtype.itemsize}). */
    public int byteSize() {
        return byteSize;
    }

    /** Whether this is a floating-point dtype (numpy's {@code jnp.issubdtype(dtype, jnp.floating)}). */
    public boolean isFloating() {
        return this == FLOAT32;
    }
}
