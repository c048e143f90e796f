package dev.shardlings.random;

import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;

import java.util.Objects;

/**
 * JAX's default pseudo-random number generator — threefry2x32 with the "partitionable" key derivation that JAX uses
 * by default since 0.5 ({@code jax_threefry_partitionable=True}) — with 64-bit types off, so keys, folded keys,
 * split keys, random bits and uniform floats are bit-for-bit those of {@code jax.random}; normal floats agree within
 * 2 ulp (the inverse error function is evaluated with XLA's float32 polynomial, with {@code log1p} taken in double
 * and rounded).
 *
 * <p>Derivations (from {@code jax/_src/prng.py} and {@code jax/_src/random.py}), with T(k, c0, c1) the threefry2x32
 * block function of key k on the counter pair (c0, c1):
 * <ul>
 *   <li>{@code key(seed)} = [seed >>> 32 of the int32 seed (always 0), seed as uint32];</li>
 *   <li>{@code foldIn(k, d)} = T(k, 0, d);</li>
 *   <li>{@code split(k, n)}[i] = T(k, 0, i) — so {@code split(k)[i] == foldIn(k, i)};</li>
 *   <li>{@code bits(k, shape)}[i] = x0 ^ x1 where (x0, x1) = T(k, 0, i) for the flat index i;</li>
 *   <li>{@code uniform}: the top 23 bits of each word as the mantissa of a float in [1, 2), minus 1, scaled to
 *       [minval, maxval) and clamped below at minval;</li>
 *   <li>{@code normal}: √2 · erfinv(u) for u uniform in (nextafter(−1, 0), 1).</li>
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
     * {@code jax.random.key(seed)} / {@code PRNGKey(seed)} with 64-bit types off: the seed is an int32.
     *
     * @throws IllegalArgumentException if the seed does not fit in an int32 (JAX raises an overflow error then)
     */
    public static Key key(long seed) {
        if (seed < Integer.MIN_VALUE || seed > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("seed " + seed + " does not fit in int32; with 64-bit types off JAX"
                    + " seeds are int32 values in [" + Integer.MIN_VALUE + ", " + Integer.MAX_VALUE + "]");
        }
        // A logical shift of a 32-bit value by 32 gives 0 in XLA, so the first word is always 0.
        return new Key(0, (int) seed);
    }

    /**
     * {@code jax.random.fold_in(key, data)}: a new key that depends on the key and the 32-bit data.
     *
     * @throws NullPointerException if key is null
     */
    public static Key foldIn(Key key, int data) {
        Objects.requireNonNull(key, "key");
        int[] out = threefry2x32(key.k0(), key.k1(), 0, data);
        return new Key(out[0], out[1]);
    }

    /**
     * {@code jax.random.split(key)}: two new keys.
     *
     * @throws NullPointerException if key is null
     */
    public static Key[] split(Key key) {
        return split(key, 2);
    }

    /**
     * {@code jax.random.split(key, num)}: num new keys.
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
     * {@code jax.random.bits(key, shape)} (uint32): held in an int32 array of the shape, as bit patterns.
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
     * {@code jax.random.uniform(key, shape)}: float32 in [0, 1).
     *
     * @throws NullPointerException     if key or shape is null
     * @throws IllegalArgumentException as {@link #bits(Key, int...)}
     */
    public static NDArray uniform(Key key, int... shape) {
        return uniform(key, 0f, 1f, shape);
    }

    /**
     * {@code jax.random.uniform(key, shape, minval=, maxval=)}: float32 in [minval, maxval).
     *
     * @throws NullPointerException     if key or shape is null
     * @throws IllegalArgumentException if a dimension is negative, a bound is not finite, or the shape has more
     *                                  than {@link NDArray#MAX_SIZE} elements
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

    private static float uniformFromBits(int bits, float minval, float maxval) {
        float f = Float.intBitsToFloat((bits >>> 9) | 0x3F800000) - 1.0f;
        return Math.max(minval, f * (maxval - minval) + minval);
    }

    /**
     * {@code jax.random.normal(key, shape)}: standard normal float32 (within 2 ulp of JAX).
     *
     * @throws NullPointerException     if key or shape is null
     * @throws IllegalArgumentException as {@link #bits(Key, int...)}
     */
    public static NDArray normal(Key key, int... shape) {
        Objects.requireNonNull(key, "key");
        float lo = Math.nextAfter(-1.0f, 0.0);
        int[] raw = bits(key, shape).toIntArray();
        float sqrt2 = (float) Math.sqrt(2.0);
        float[] out = new float[raw.length];
        for (int i = 0; i < raw.length; i++) {
            out[i] = sqrt2 * erfInv(uniformFromBits(raw[i], lo, 1.0f));
        }
        return NDArray.fromFloats(out, shape);
    }

    // XLA's ErfInv for float32 (Giles, "Approximating the erfinv function"), step by step in float.
    private static final float[] W_LT_5 = {2.81022636e-08f, 3.43273939e-07f, -3.5233877e-06f, -4.39150654e-06f,
        0.00021858087f, -0.00125372503f, -0.00417768164f, 0.246640727f, 1.50140941f};
    private static final float[] W_GE_5 = {-0.000200214257f, 0.000100950558f, 0.00134934322f, -0.00367342844f,
        0.00573950773f, -0.0076224613f, 0.00943887047f, 1.00167406f, 2.83297682f};

    static float erfInv(float x) {
        if (Math.abs(x) == 1.0f) {
            return x * Float.POSITIVE_INFINITY;
        }
        float w = (float) -Math.log1p(-(double) (x * x));
        boolean lt = w < 5.0f;
        float[] c = lt ? W_LT_5 : W_GE_5;
        w = lt ? w - 2.5f : (float) Math.sqrt(w) - 3.0f;
        float p = c[0];
        for (int i = 1; i < 9; i++) {
            p = c[i] + p * w;
        }
        return p * x;
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
