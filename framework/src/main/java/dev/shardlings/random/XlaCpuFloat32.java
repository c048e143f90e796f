package dev.shardlings.random;

import java.math.BigDecimal;

/**
 * float32 arithmetic as the code that XLA compiles for an x86-64 CPU computes it, so that {@link PRNG} can give the
 * same bits as {@code jax.random} on CPU.
 *
 * <p>Two things make that code differ from plain Java {@code float} arithmetic:
 * <ul>
 *   <li>XLA's CPU runtime runs with the MXCSR flags FTZ and DAZ set: a subnormal operand is read as a zero of the
 *       same sign, and a result that is tiny is written as a zero of the same sign. x86 decides tininess after
 *       rounding: a result is tiny when, rounded to 24 significant bits with an unbounded exponent, it is below
 *       2<sup>−126</sup> (so {@code (1 − 2^−24) · 2^−126} flushes to zero although Java rounds it up to
 *       {@code Float.MIN_NORMAL}).</li>
 *   <li>LLVM contracts a multiply whose only use is an add into one fused multiply-add ({@link #fma}); which pairs it
 *       contracts is read off the compiled kernels, so callers choose between {@link #fma} and
 *       {@link #mul}/{@link #add} themselves.</li>
 * </ul>
 * An invalid operation on non-NaN operands (0 · ∞, ∞ − ∞) gives x86's default NaN, {@code 0xFFC00000}. The bits of
 * a NaN computed from a NaN operand are not specified here (the PRNG never feeds a NaN in).
 */
final class XlaCpuFloat32 {

    /** x86's default ("real indefinite") quiet NaN. */
    static final float DEFAULT_NAN = Float.intBitsToFloat(0xFFC00000);

    /** Below this magnitude an exact result rounds (24 bits, unbounded exponent) to less than 2^−126: tiny. */
    private static final BigDecimal TINY_BELOW = new BigDecimal(Math.scalb((double) ((1 << 25) - 1), -151));
    private static final double TINY_BELOW_DOUBLE = Math.scalb((double) ((1 << 25) - 1), -151);

    private XlaCpuFloat32() {
    }

    /** DAZ: a subnormal operand is read as a zero of the same sign. */
    static float daz(float x) {
        return Math.abs(x) < Float.MIN_NORMAL && x != 0f ? Math.copySign(0f, x) : x;
    }

    /** x + y, rounded once, with FTZ/DAZ. */
    static float add(float x, float y) {
        float r = daz(x) + daz(y);
        // The exact sum of two normal floats (or zeros) that is below 2^-125 is a multiple of 2^-149 and so exact:
        // a subnormal r is tiny, and r = ±MIN_NORMAL is not.
        return flushIfSubnormal(r, x, y);
    }

    /** x − y, rounded once, with FTZ/DAZ. */
    static float sub(float x, float y) {
        return add(x, -y);
    }

    /** x · y, rounded once, with FTZ/DAZ. */
    static float mul(float x, float y) {
        float a = daz(x);
        float b = daz(y);
        float r = a * b;
        if (Math.abs(r) == Float.MIN_NORMAL && Math.abs((double) a * (double) b) < TINY_BELOW_DOUBLE) {
            return Math.copySign(0f, r); // the product of two floats is exact in double
        }
        return flushIfSubnormal(r, a, b);
    }

    /** x / y, rounded once, with FTZ/DAZ. */
    static float div(float x, float y) {
        float a = daz(x);
        float b = daz(y);
        float r = a / b;
        if (Math.abs(r) == Float.MIN_NORMAL
                && new BigDecimal(Math.abs((double) a)).compareTo(TINY_BELOW.multiply(new BigDecimal(Math.abs((double) b)))) < 0) {
            return Math.copySign(0f, r);
        }
        return flushIfSubnormal(r, a, b);
    }

    /** x · y + z rounded once (x86 {@code vfmadd}), with FTZ/DAZ. */
    static float fma(float x, float y, float z) {
        float a = daz(x);
        float b = daz(y);
        float c = daz(z);
        float r = Math.fma(a, b, c);
        if (Math.abs(r) == Float.MIN_NORMAL) {
            BigDecimal exact = new BigDecimal((double) a).multiply(new BigDecimal((double) b)).add(new BigDecimal((double) c));
            if (exact.abs().compareTo(TINY_BELOW) < 0) {
                return Math.copySign(0f, r);
            }
            return r;
        }
        if (Float.isNaN(r) && !Float.isNaN(a) && !Float.isNaN(b) && !Float.isNaN(c)) {
            return DEFAULT_NAN;
        }
        // A subnormal r is tiny: the exact value is then below MIN_NORMAL − 2^−150, which 24 bits keep below 2^−126.
        return Math.abs(r) < Float.MIN_NORMAL && r != 0f ? Math.copySign(0f, r) : r;
    }

    /** The correctly rounded square root (x86 {@code vsqrtss}) of the DAZ operand. */
    static float sqrt(float x) {
        // A double square root rounded to float is the correctly rounded float square root (53 >= 2 * 24 + 2).
        float r = (float) Math.sqrt(daz(x));
        return Float.isNaN(r) && !Float.isNaN(x) ? DEFAULT_NAN : r;
    }

    /**
     * XLA's {@code maximum(a, b)} as compiled for x86: NaN if either is NaN, and +0 above −0. The code is
     * {@code vmaxss} (b unless a > b, with DAZ) followed by clearing the sign bit when a's sign bit is clear, so a
     * NaN b gets a's sign; a NaN a is returned as is.
     */
    static float max(float a, float b) {
        if (Float.isNaN(a)) {
            return a;
        }
        float da = daz(a);
        float db = daz(b);
        float m = da > db ? da : db;
        if (Float.floatToRawIntBits(a) >= 0) {
            m = Float.intBitsToFloat(Float.floatToRawIntBits(m) & 0x7FFFFFFF);
        }
        return m;
    }

    private static float flushIfSubnormal(float r, float x, float y) {
        if (Float.isNaN(r)) {
            return Float.isNaN(x) || Float.isNaN(y) ? r : DEFAULT_NAN;
        }
        return Math.abs(r) < Float.MIN_NORMAL && r != 0f ? Math.copySign(0f, r) : r;
    }
}
