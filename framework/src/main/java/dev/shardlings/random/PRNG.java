package dev.shardlings.random;

import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;

import java.util.Objects;

/**
 * JAX's default pseudo-random number generator ({@code jax.random} with the threefry2x32 implementation and the
 * "partitionable" derivation, {@code jax_threefry_partitionable=True}, the default since JAX 0.5), with 64-bit types
 * off. Every method gives the same bits as JAX 0.10.2 on an x86-64 CPU: keys, folded and split keys and random bits
 * (integer arithmetic), and also the float32 samples of {@code uniform} and {@code normal}, whose arithmetic is
 * carried out as the kernels XLA compiles for the CPU carry it out — with the multiply-adds that LLVM fuses, XLA's
 * own {@code log1p} and {@code erf_inv} polynomials, and subnormals flushed to zero ({@code XlaCpuFloat32}).
 * {@code PRNGGoldenTest} checks this against values that real JAX printed, and against every value that uniform (for
 * a few bounds) and normal can take.
 *
 * <p>Derivations (from {@code jax/_src/random/threefry2x32.py}, {@code prng.py} and {@code core.py}), with
 * T(k, c0, c1) the threefry2x32 block function of key k on the counter pair (c0, c1):
 * <ul>
 *   <li>{@code key(seed)} = [0, seed mod 2^32];</li>
 *   <li>{@code foldIn(k, d)} = T(k, 0, d);</li>
 *   <li>{@code split(k, n)}[i] = T(k, 0, i) — so {@code split(k)[i] == foldIn(k, i)};</li>
 *   <li>{@code bits(k, shape)}[i] = x0 ^ x1 where (x0, x1) = T(k, 0, i) for the row-major flat index i;</li>
 *   <li>{@code uniform}: the top 23 bits of each word as the mantissa of a float f in [1, 2); then
 *       max(minval, fma(f − 1, maxval − minval, minval));</li>
 *   <li>{@code normal}: √2 · erfinv(u) for u = uniform(minval = nextafter(−1, 0), maxval = 1).</li>
 * </ul>
 * All methods are pure functions of their arguments and thread-safe.
 */
public final class PRNG {

    private static final int[] ROTATIONS = {13, 15, 26, 6, 17, 29, 16, 24};

    private PRNG() {
    }

    /**
     * A raw PRNG key, JAX's {@code uint32[2]}: two 32-bit words held in Java ints (read them unsigned).
     *
     * @param k0 the first word
     * @param k1 the second word
     */
    public record Key(int k0, int k1) {

        /**
         * The key held in an int32[2] array (bit patterns of the two uint32 words).
         *
         * @throws NullPointerException     if raw is null
         * @throws IllegalArgumentException if the array is not int32 of shape (2,)
         */
        public static Key of(NDArray raw) {
            Objects.requireNonNull(raw, "raw");
            if (raw.dtype() != DType.INT32 || raw.rank() != 1 || raw.shape(0) != 2) {
                throw new IllegalArgumentException("a raw PRNG key is an int32 array of shape (2,), got "
                        + raw.describe());
            }
            return new Key(raw.intAt(0), raw.intAt(1));
        }

        /** The key as an int32[2] array (JAX's {@code jax.random.key_data}, as bit patterns). */
        public NDArray toArray() {
            return NDArray.of(k0, k1);
        }

        /** As JAX prints a raw key: {@code [1797259609 2579123966]} (unsigned). */
        @Override
        public String toString() {
            return "[" + Integer.toUnsignedString(k0) + " " + Integer.toUnsignedString(k1) + "]";
        }
    }

    /**
     * {@code jax.random.key(seed)} / {@code PRNGKey(seed)} with 64-bit types off, for a Python int seed: JAX reads the
     * int as an int64 and then keeps its low 32 bits (an int32), so the key is [0, seed mod 2^32] — seeds 2^32 apart
     * give the same key, and the first word is always 0 (a logical shift of a 32-bit value by 32 gives 0 in XLA).
     */
    public static Key key(long seed) {
        return new Key(0, (int) seed);
    }

    /**
     * {@code jax.random.fold_in(key, data)}: a new key that depends on the key and the data, a uint32 (pass its bit
     * pattern: {@code 0xFFFFFFFF} is {@code -1}).
     *
     * @throws NullPointerException if key is null
     */
    public static Key foldIn(Key key, int data) {
        Objects.requireNonNull(key, "key");
        int[] out = threefry2x32(key.k0(), key.k1(), 0, data);
        return new Key(out[0], out[1]);
    }

    /**
     * {@code jax.random.split(key)}: two new keys (JAX's key array of shape (2,), as a Java array).
     *
     * @throws NullPointerException if key is null
     */
    public static Key[] split(Key key) {
        return split(key, 2);
    }

    /**
     * {@code jax.random.split(key, num)}: num new keys (JAX's key array of shape (num,), as a Java array; its
     * {@code key_data} is uint32[num, 2]).
     *
     * @throws NullPointerException     if key is null
     * @throws IllegalArgumentException if num is negative
     */
    public static Key[] split(Key key, int num) {
        Objects.requireNonNull(key, "key");
        if (num < 0) {
            throw new IllegalArgumentException("split needs num >= 0, got " + num);
        }
        Key[] keys = new Key[num];
        for (int i = 0; i < num; i++) {
            int[] out = threefry2x32(key.k0(), key.k1(), 0, i);
            keys[i] = new Key(out[0], out[1]);
        }
        return keys;
    }

    /**
     * {@code jax.random.bits(key, shape)} (dtype uint32): an int32 array of the given shape holding the uint32 bit
     * patterns. An empty shape gives a scalar.
     *
     * @throws NullPointerException     if key or shape is null
     * @throws IllegalArgumentException if a dimension is negative, or the shape has more than {@link NDArray#MAX_SIZE} elements
     */
    public static NDArray bits(Key key, int... shape) {
        Objects.requireNonNull(key, "key");
        int n = size(shape);
        int[] out = new int[n];
        for (int i = 0; i < n; i++) {
            int[] w = threefry2x32(key.k0(), key.k1(), 0, i);
            out[i] = w[0] ^ w[1];
        }
        return NDArray.fromInts(out, shape);
    }

    /**
     * {@code jax.random.uniform(key, shape)} (dtype float32): a float32 array of the given shape, values in [0, 1)
     * that are multiples of 2^−23.
     *
     * @throws NullPointerException     if key or shape is null
     * @throws IllegalArgumentException as {@link #bits(Key, int...)}
     */
    public static NDArray uniform(Key key, int... shape) {
        return uniform(key, 0f, 1f, shape);
    }

    /**
     * {@code jax.random.uniform(key, shape, dtype=float32, minval=minval, maxval=maxval)}: a float32 array of the given
     * shape with values in [minval, maxval], bit for bit as JAX computes them: f in [0, 1) as in
     * {@link #uniform(Key, int...)}, then {@code max(minval, f * (maxval - minval) + minval)} with the multiply-add
     * fused (one rounding, which can reach maxval) and subnormals flushed to zero, as on XLA's CPU. Like JAX: maxval
     * below minval gives minval everywhere, and a range that overflows float32 gives infinities (and NaN where f = 0).
     *
     * @throws NullPointerException     if key or shape is null
     * @throws IllegalArgumentException if a dimension is negative, a bound is not finite (JAX would return NaNs or
     *                                  infinities), or the shape has more than {@link NDArray#MAX_SIZE} elements
     */
    public static NDArray uniform(Key key, float minval, float maxval, int... shape) {
        Objects.requireNonNull(key, "key");
        if (!Float.isFinite(minval) || !Float.isFinite(maxval)) {
            throw new IllegalArgumentException("uniform needs finite bounds, got [" + minval + ", " + maxval + ")");
        }
        int[] raw = bits(key, shape).toIntArray();
        float[] out = new float[raw.length];
        for (int i = 0; i < raw.length; i++) {
            out[i] = uniformFromBits(raw[i], minval, maxval);
        }
        return NDArray.fromFloats(out, shape);
    }

    /**
     * One sample of {@code jax.random.uniform} from its 32 random bits, as XLA's CPU kernel computes it: the top 23
     * bits as the mantissa of a float f in [0, 1), then {@code maximum(minval, fma(f, maxval - minval, minval))}
     * (LLVM contracts JAX's {@code floats * (maxval - minval) + minval} into one fused multiply-add), with FTZ/DAZ.
     */
    static float uniformFromBits(int bits, float minval, float maxval) {
        float f = Float.intBitsToFloat((bits >>> 9) | 0x3F800000) - 1.0f; // exact
        float range = XlaCpuFloat32.sub(maxval, minval);
        return XlaCpuFloat32.max(minval, XlaCpuFloat32.fma(f, range, minval));
    }

    /** nextafter(−1, 0) in float32: the lower bound of the uniform that {@code normal} maps through erfinv. */
    private static final float NORMAL_LO = Float.intBitsToFloat(0xBF7FFFFF);
    /** {@code np.sqrt(2)} rounded to float32. */
    private static final float SQRT2 = Float.intBitsToFloat(0x3FB504F3);

    /**
     * {@code jax.random.normal(key, shape)} (dtype float32): standard normal samples of the given shape, bit for bit
     * those of JAX on CPU — √2 · erfinv(u) for u uniform in [nextafter(−1, 0), 1), with XLA's float32 erfinv.
     *
     * @throws NullPointerException     if key or shape is null
     * @throws IllegalArgumentException as {@link #bits(Key, int...)}
     */
    public static NDArray normal(Key key, int... shape) {
        Objects.requireNonNull(key, "key");
        int[] raw = bits(key, shape).toIntArray();
        float[] out = new float[raw.length];
        for (int i = 0; i < raw.length; i++) {
            out[i] = normalFromBits(raw[i]);
        }
        return NDArray.fromFloats(out, shape);
    }

    /** One sample of {@code jax.random.normal} from its 32 random bits (only the top 23 matter). */
    static float normalFromBits(int bits) {
        // JAX: uniform(key, shape, minval=lo, maxval=1); maxval - minval rounds to 2.
        float u = uniformFromBits(bits, NORMAL_LO, 1.0f);
        return XlaCpuFloat32.mul(erfInv(u), SQRT2);
    }

    // XLA's ErfInv for float32 (M. Giles, "Approximating the erfinv function", the single-precision version), as
    // written out by the CHLO-to-StableHLO decomposition of chlo.erf_inv: coefficients for w < 5, then for w >= 5.
    private static final int[] ERFINV_W_LT_5 = {0x32F16588, 0x34B84B36, 0xB66C7357, 0xB6935AC1, 0x396532DB,
        0xBAA45408, 0xBB88E4EF, 0x3E7C8F63, 0x3FC02E2F};
    private static final int[] ERFINV_W_GE_5 = {0xB951F09B, 0x38D3B56B, 0x3AB0DC72, 0xBB70BDE7, 0x3BBC127B,
        0xBBF9C5D7, 0x3C1AA57E, 0x3F8036DB, 0x40354F7E};

    /**
     * XLA's float32 erfinv on CPU: w = −log1p(−x·x); for w &lt; 5 the polynomial in w − 2.5, else in √w − 3, by
     * Horner's rule with each step one fused multiply-add; times x; ±∞ at ±1.
     */
    static float erfInv(float x) {
        float w = -log1p(XlaCpuFloat32.mul(x, -x)); // negation is exact
        boolean small = w < 5.0f;
        float z = small ? XlaCpuFloat32.sub(w, 2.5f) : XlaCpuFloat32.add(XlaCpuFloat32.sqrt(w), -3.0f);
        int[] c = small ? ERFINV_W_LT_5 : ERFINV_W_GE_5;
        float p = Float.intBitsToFloat(c[0]);
        for (int i = 1; i < c.length; i++) {
            p = XlaCpuFloat32.fma(p, z, Float.intBitsToFloat(c[i]));
        }
        return XlaCpuFloat32.mul(x, Math.abs(x) == 1.0f ? Float.POSITIVE_INFINITY : p);
    }

    // XLA's log1p (EmitLog1p of the elemental IR emitter): for |x| < sqrt(2) - 1 a rational approximation from
    // Cephes, else log(1 + x) with XLA:CPU's float32 log. Numerator and denominator coefficients, highest degree first.
    private static final float LOG1P_SMALL = Float.intBitsToFloat(0x3ED413CD);
    private static final int[] LOG1P_NUMERATOR = {0x383DE04B, 0x3EFF40C5, 0x40D284FA, 0x41EF4B9C, 0x4273CC76,
        0x426473AD, 0x41A05101};
    private static final int[] LOG1P_DENOMINATOR = {0x3F800000, 0x417101AD, 0x42A6185B, 0x435DC32D, 0x439A8CA3,
        0x43586D8A, 0x42707982};

    static float log1p(float x) {
        if (Math.abs(XlaCpuFloat32.daz(x)) < LOG1P_SMALL) {
            float x2 = XlaCpuFloat32.mul(x, x);
            float num = Float.intBitsToFloat(LOG1P_NUMERATOR[0]);
            float den = Float.intBitsToFloat(LOG1P_DENOMINATOR[0]);
            for (int i = 1; i < LOG1P_NUMERATOR.length; i++) {
                num = XlaCpuFloat32.fma(num, x, Float.intBitsToFloat(LOG1P_NUMERATOR[i]));
                den = XlaCpuFloat32.fma(den, x, Float.intBitsToFloat(LOG1P_DENOMINATOR[i]));
            }
            float q = XlaCpuFloat32.mul(XlaCpuFloat32.mul(x, x2), XlaCpuFloat32.div(num, den));
            return XlaCpuFloat32.add(x, XlaCpuFloat32.fma(-0.5f, x2, q));
        }
        return log(XlaCpuFloat32.add(x, 1.0f));
    }

    // XLA:CPU's float32 log: the Cephes logf polynomial (as in Eigen's plog) on the mantissa in [sqrt(1/2), sqrt(2)).
    private static final float SQRT_HALF = Float.intBitsToFloat(0x3F3504F3);
    private static final float LOG_C1 = Float.intBitsToFloat(0xB95E8083); // -2.12194440e-4
    private static final float LOG_C2 = Float.intBitsToFloat(0x3F318000); // 0.693359375
    private static final int[][] LOG_POLY = {{0x3D9021BB, 0xBDEBD1B8, 0x3DEF251A},
        {0xBDFE5D4F, 0x3E11E9BF, 0xBE2AAE50}, {0x3E4CCEAC, 0xBE7FFFFC, 0x3EAAAAAA}};

    static float log(float v) {
        float a = XlaCpuFloat32.daz(v);
        if (Float.isNaN(a) || a < 0f) {
            return Float.intBitsToFloat(0xFFFFFFFF);
        }
        if (a == 0f) {
            return Float.NEGATIVE_INFINITY;
        }
        if (a == Float.POSITIVE_INFINITY) {
            return Float.POSITIVE_INFINITY;
        }
        int bits = Float.floatToRawIntBits(a);
        float m = Float.intBitsToFloat((bits & 0x807FFFFF) | 0x3F000000); // mantissa in [0.5, 1)
        boolean below = m < SQRT_HALF;
        float e = (float) ((bits >>> 23) - 127) + 1.0f - (below ? 1.0f : 0.0f); // small integers: exact
        float x = (m - 1.0f) + (below ? m : 0.0f); // exact
        float x2 = XlaCpuFloat32.mul(x, x);
        float x3 = XlaCpuFloat32.mul(x2, x);
        float y0 = logPoly(0, x);
        float y1 = logPoly(1, x);
        float y2 = logPoly(2, x);
        float p = XlaCpuFloat32.fma(XlaCpuFloat32.fma(y0, x3, y1), x3, y2);
        float r = XlaCpuFloat32.fma(p, x3, XlaCpuFloat32.mul(e, LOG_C1));
        float s = XlaCpuFloat32.add(r, XlaCpuFloat32.fma(-0.5f, x2, x));
        return XlaCpuFloat32.fma(e, LOG_C2, s);
    }

    private static float logPoly(int j, float x) {
        float t = XlaCpuFloat32.fma(Float.intBitsToFloat(LOG_POLY[j][0]), x, Float.intBitsToFloat(LOG_POLY[j][1]));
        return XlaCpuFloat32.fma(t, x, Float.intBitsToFloat(LOG_POLY[j][2]));
    }

    /**
     * The Threefry-2x32 block function with 20 rounds (Salmon et al., "Parallel random numbers: as easy as 1, 2,
     * 3"), as JAX's {@code threefry2x32}: key (k0, k1), counter (c0, c1) → two 32-bit words.
     */
    public static int[] threefry2x32(int k0, int k1, int c0, int c1) {
        int k2 = k0 ^ k1 ^ 0x1BD11BDA;
        int[] ks = {k0, k1, k2};
        int x0 = c0 + k0;
        int x1 = c1 + k1;
        for (int group = 0; group < 5; group++) {
            int base = (group % 2) * 4;
            for (int r = 0; r < 4; r++) {
                x0 += x1;
                x1 = Integer.rotateLeft(x1, ROTATIONS[base + r]);
                x1 ^= x0;
            }
            x0 += ks[(group + 1) % 3];
            x1 += ks[(group + 2) % 3] + group + 1;
        }
        return new int[]{x0, x1};
    }

    private static int size(int[] shape) {
        Objects.requireNonNull(shape, "shape");
        long n = 1;
        for (int d : shape) {
            if (d < 0) {
                throw new IllegalArgumentException("shape dimensions must be >= 0, got " + java.util.Arrays.toString(shape));
            }
            n *= d;
            if (n > NDArray.MAX_SIZE) {
                throw new IllegalArgumentException("shape " + java.util.Arrays.toString(shape) + " has more elements"
                        + " than one array can hold: at most " + NDArray.MAX_SIZE + " (Integer.MAX_VALUE - 8, the"
                        + " largest Java array)");
            }
        }
        return (int) n;
    }
}
