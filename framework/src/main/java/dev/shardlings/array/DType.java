package dev.shardlings.array;

import java.util.Objects;

/**
 * Element types of an {@link NDArray}: the two defaults of JAX with {@code jax_enable_x64 = False}, bool, and
 * bfloat16.
 *
 * <p>JAX canonicalises 64-bit inputs to 32 bits by default, so {@code float32} is the default float and
 * {@code int32} the default integer; {@code bool} is what comparisons give and {@code where} reads;
 * {@code bfloat16} is the 2-byte float that TPU programs (seed 002's among them) compute in.
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
    BOOL("bool", "bool", 1),
    /**
     * Google's brain float, JAX's {@code jnp.bfloat16} (printed {@code bf16}): float32's sign and 8 exponent bits
     * with 7 fraction bits, 2 bytes per element. Every result is rounded to nearest, ties to even, from the float32
     * value the operation computes, as XLA:CPU computes bf16 arithmetic, sums and dot products in float32 and rounds
     * once per operation.
     */
    BFLOAT16("bfloat16", "bf16", 2);

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
        return this == FLOAT32 || this == BFLOAT16;
    }

    /**
     * {@code jnp.promote_types(a, b)} for these dtypes: bool gives way to anything; int32 with a float gives the
     * float (int32 with bfloat16 is bfloat16, as in JAX's lattice); float32 wins over bfloat16.
     *
     * @throws NullPointerException if a or b is null
     */
    public static DType promoteTypes(DType a, DType b) {
        Objects.requireNonNull(a, "a must not be null");
        Objects.requireNonNull(b, "b must not be null");
        if (a == b) {
            return a;
        }
        if (a == FLOAT32 || b == FLOAT32) {
            return FLOAT32;
        }
        if (a == BFLOAT16 || b == BFLOAT16) {
            return BFLOAT16;
        }
        return a == BOOL ? b : a;
    }
}
