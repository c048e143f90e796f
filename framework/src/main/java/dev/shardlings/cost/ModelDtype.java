package dev.shardlings.cost;

import java.util.Locale;

/**
 * The element type a profile models. The framework computes in float32 or int32 (4 bytes an element); a profile
 * may instead model the same program in another dtype — typically bfloat16, what a TPU multiplies natively —
 * which scales every byte count by {@code bytes / 4} and picks that dtype's matmul rate from the
 * {@link HardwareModel}.
 */
public enum ModelDtype {
    /** bfloat16: 2 bytes, the native matmul input of TPUs and GPU tensor cores. */
    BFLOAT16("bfloat16", 2),
    /** float32: 4 bytes, what the framework stores. */
    FLOAT32("float32", 4),
    /** int32: 4 bytes (the book's collective-matmul example multiplies int32 arrays). */
    INT32("int32", 4),
    /** int8: 1 byte. */
    INT8("int8", 1);

    private final String jaxName;
    private final int bytes;

    ModelDtype(String jaxName, int bytes) {
        this.jaxName = jaxName;
        this.bytes = bytes;
    }

    /** JAX's name, e.g. {@code "bfloat16"}; the key of {@link HardwareModel#matmulFlopsPerSecond()}. */
    public String jaxName() {
        return jaxName;
    }

    /** Bytes per element. */
    public int bytes() {
        return bytes;
    }

    /** Factor from the framework's 4-byte elements to this dtype's bytes. */
    public double scale() {
        return bytes / 4.0;
    }

    /**
     * The dtype with this JAX name.
     *
     * @throws IllegalArgumentException naming the known dtypes when there is none
     */
    public static ModelDtype of(String jaxName) {
        for (ModelDtype d : values()) {
            if (d.jaxName.equals(jaxName.toLowerCase(Locale.ROOT))) {
                return d;
            }
        }
        throw new IllegalArgumentException("unknown modelled dtype '" + jaxName + "'; use one of bfloat16, float32,"
                + " int32, int8");
    }
}
