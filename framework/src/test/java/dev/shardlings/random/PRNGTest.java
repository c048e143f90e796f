package dev.shardlings.random;

import dev.shardlings.array.NDArray;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** JAX's PRNG, bit for bit: the values real JAX printed in the tutorials and the threefry known answers. */
class PRNGTest {

    private static void assertKey(long w0, long w1, PRNG.Key k) {
        assertEquals((int) w0, k.k0(), () -> "first word of " + k);
        assertEquals((int) w1, k.k1(), () -> "second word of " + k);
    }

    @Test
    void threefryKnownAnswers() {
        // Random123's known-answer tests for Threefry-2x32 with 20 rounds, as in JAX's tests/random_test.py.
        assertArrayEquals(new int[]{0x6b200159, 0x99ba4efe}, PRNG.threefry2x32(0, 0, 0, 0));
        assertArrayEquals(new int[]{0x1cb996fc, 0xbb002be7}, PRNG.threefry2x32(-1, -1, -1, -1));
        assertArrayEquals(new int[]{0xc4923a9c, 0x483df7a0},
                PRNG.threefry2x32(0x13198a2e, 0x03707344, 0x243f6a88, 0x85a308d3));
    }

    @Test
    void keysFromSeeds() {
        assertKey(0, 0, PRNG.key(0));
        assertKey(0, 42, PRNG.key(42));
        assertKey(0, 0xFFFFFFFFL, PRNG.key(-1));
        // JAX reads a Python int seed as int64 and keeps its low 32 bits (jax.random.key(2**33 + 5) is [0 5]).
        assertKey(0, 5, PRNG.key((1L << 33) + 5));
        assertKey(0, 0x80000000L, PRNG.key(1L << 31));
    }

    @Test
    void foldInMatchesJax() {
        PRNG.Key k = PRNG.key(0);
        assertKey(1797259609L, 2579123966L, PRNG.foldIn(k, 0));
        assertKey(928981903L, 3453687069L, PRNG.foldIn(k, 1));
        assertKey(4146024105L, 2718843009L, PRNG.foldIn(k, 2));
        assertKey(2467461003L, 3840466878L, PRNG.foldIn(k, 3));
        assertEquals("[1797259609 2579123966]", PRNG.foldIn(k, 0).toString());
    }

    @Test
    void splitMatchesJax() {
        PRNG.Key[] s = PRNG.split(PRNG.key(0));
        assertEquals(2, s.length);
        assertKey(1797259609L, 2579123966L, s[0]);
        assertKey(928981903L, 3453687069L, s[1]);
        assertEquals(0, PRNG.split(PRNG.key(0), 0).length);
        assertThrows(IllegalArgumentException.class, () -> PRNG.split(PRNG.key(0), -1));
    }

    @Test
    void uniformMatchesJax() {
        NDArray u = PRNG.uniform(PRNG.key(42), 2, 2);
        assertArrayEquals(new int[]{2, 2}, u.shape());
        assertArrayEquals(new float[]{0.48870957f, 0.6797972f, 0.6162715f, 0.5610161f}, u.toFloatArray(), 0f);
    }

    @Test
    void scalarUniformsFromJaxsDocs() {
        // The jax.random module page: uniform(key(0)) and uniform(split(key(0))[1]).
        // JAX's Array repr prints at most 8 fractional digits: the values agree to that precision.
        assertEquals("0.94766700", String.format(java.util.Locale.ROOT, "%.8f", PRNG.uniform(PRNG.key(0)).item()));
        assertEquals("0.00729382", String.format(java.util.Locale.ROOT, "%.8f", PRNG.uniform(PRNG.split(PRNG.key(0))[1]).item()));
    }

    @Test
    void uniformRespectsBounds() {
        float[] v = PRNG.uniform(PRNG.key(7), -3f, 5f, 1000).toFloatArray();
        for (float f : v) {
            assertEquals(true, f >= -3f && f < 5f, "out of range: " + f);
        }
        assertThrows(IllegalArgumentException.class, () -> PRNG.uniform(PRNG.key(0), 0f, Float.NaN, 2));
        assertThrows(IllegalArgumentException.class, () -> PRNG.uniform(PRNG.key(0), 2, -1));
    }

    @Test
    void normalHasTheRightMomentsAndEdges() {
        float[] v = PRNG.normal(PRNG.key(0), 20000).toFloatArray();
        double mean = 0;
        double sq = 0;
        for (float f : v) {
            mean += f;
            sq += (double) f * f;
        }
        mean /= v.length;
        double std = Math.sqrt(sq / v.length - mean * mean);
        assertEquals(0.0, mean, 0.03);
        assertEquals(1.0, std, 0.03);
        assertEquals(Float.POSITIVE_INFINITY, PRNG.erfInv(1f));
        assertEquals(Float.NEGATIVE_INFINITY, PRNG.erfInv(-1f));
        assertEquals(0f, PRNG.erfInv(0f));
        // erfinv(erf(0.5)) within float precision: erf(0.5) = 0.5204998778
        assertEquals(0.5f, PRNG.erfInv(0.5204999f), 2e-6f);
    }

    @Test
    void keysRoundTripThroughArrays() {
        PRNG.Key k = PRNG.foldIn(PRNG.key(3), 9);
        assertEquals(k, PRNG.Key.of(k.toArray()));
        assertThrows(IllegalArgumentException.class, () -> PRNG.Key.of(NDArray.of(1, 2, 3)));
    }
}
