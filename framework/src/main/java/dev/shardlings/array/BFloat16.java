package dev.shardlings.array;

/**
 * bfloat16 values held as float32: a {@link DType#BFLOAT16} array keeps a float[] whose every element is exactly
 * representable in bfloat16 (the upper 16 bits of its float32 pattern), so the float32 kernels read it as they
 * are and only results are rounded. Rounding is XLA's (and ml_dtypes') float32 → bfloat16 conversion.
 */
final class BFloat16 {

    private BFloat16() {
    }

    /**
     * v rounded to the nearest bfloat16, ties to even: overflow rounds to ±inf, subnormals round like any value
     * (no flush to zero), and a NaN becomes the quiet NaN of its sign (0x7fc0 / 0xffc0), as JAX's astype gives.
     */
    static float round(float v) {
        int bits = Float.floatToRawIntBits(v);
        if (Float.isNaN(v)) {
            return Float.intBitsToFloat((bits & 0x8000_0000) | 0x7fc0_0000);
        }
        // adding 0x7fff plus the kept bit's lowest bit carries into the kept bits exactly when the dropped half is
        // above one half, or equal to it with an odd kept part (ties to even)
        bits += 0x7fff + ((bits >>> 16) & 1);
        return Float.intBitsToFloat(bits & 0xffff_0000);
    }

    /** Rounds every element of a buffer the caller owns, in place; returns it. */
    static float[] roundInPlace(float[] data) {
        for (int k = 0; k < data.length; k++) {
            data[k] = round(data[k]);
        }
        return data;
    }
}
