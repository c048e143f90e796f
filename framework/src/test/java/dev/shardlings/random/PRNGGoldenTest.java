package dev.shardlings.random;

import dev.shardlings.array.NDArray;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * PRNG against the bits real JAX 0.10.2 produced on an x86-64 CPU: {@code prng-golden.txt}, written by
 * {@code framework/src/test/python/prng_golden.py} (its docstring gives the format and how to regenerate it). Every
 * float is compared bit for bit, NaNs included.
 */
class PRNGGoldenTest {

    private static final String GOLDEN = "prng-golden.txt";

    private static List<String[]> records(String kind) throws IOException {
        List<String[]> out = new ArrayList<>();
        try (InputStream in = PRNGGoldenTest.class.getResourceAsStream(GOLDEN)) {
            if (in == null) {
                throw new IllegalStateException("missing test resource " + GOLDEN);
            }
            BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.US_ASCII));
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                if (line.isEmpty() || line.startsWith("#")) {
                    continue;
                }
                String[] f = line.split(" ", -1);
                if (f[0].equals(kind)) {
                    out.add(f);
                }
            }
        }
        assertTrue(!out.isEmpty(), () -> "no '" + kind + "' records in " + GOLDEN);
        return out;
    }

    private static int u32(String decimal) {
        return (int) Long.parseLong(decimal);
    }

    private static PRNG.Key key(String k0, String k1) {
        return new PRNG.Key(u32(k0), u32(k1));
    }

    private static int[] shape(String s) {
        return s.equals("-") ? new int[0] : Arrays.stream(s.split("x")).mapToInt(Integer::parseInt).toArray();
    }

    private static int[] words(String b64) {
        ByteBuffer b = ByteBuffer.wrap(Base64.getDecoder().decode(b64)).order(ByteOrder.LITTLE_ENDIAN);
        int[] w = new int[b.remaining() / 4];
        b.asIntBuffer().get(w);
        return w;
    }

    private static float hexFloat(String hex) {
        return Float.intBitsToFloat(Integer.parseUnsignedInt(hex, 16));
    }

    private static int[] floatBits(NDArray a) {
        float[] f = a.toFloatArray();
        int[] bits = new int[f.length];
        for (int i = 0; i < f.length; i++) {
            bits[i] = Float.floatToRawIntBits(f[i]);
        }
        return bits;
    }

    /** Bit-for-bit equality, reporting the first differing element with both values and their distance in ulps. */
    private static void assertSameFloats(int[] expected, int[] actual, String what) {
        assertEquals(expected.length, actual.length, () -> what + ": number of elements");
        int wrong = 0;
        int first = -1;
        for (int i = 0; i < expected.length; i++) {
            if (expected[i] != actual[i]) {
                wrong++;
                first = first < 0 ? i : first;
            }
        }
        if (wrong > 0) {
            float e = Float.intBitsToFloat(expected[first]);
            float a = Float.intBitsToFloat(actual[first]);
            fail(String.format("%s: %d of %d elements differ; first at flat index %d: JAX %s (0x%08x), PRNG %s (0x%08x),"
                            + " %d ulp apart", what, wrong, expected.length, first, e, expected[first], a, actual[first],
                    Math.abs(ordered(expected[first]) - ordered(actual[first]))));
        }
    }

    /** Float bits mapped to integers in the order of the floats, so their difference counts ulps. */
    private static long ordered(int bits) {
        return bits >= 0 ? bits : (long) Integer.MIN_VALUE - bits;
    }

    @Test
    void keysFromSeeds() throws IOException {
        for (String[] f : records("key")) {
            PRNG.Key k = PRNG.key(Long.parseLong(f[1]));
            assertEquals(new PRNG.Key(u32(f[2]), u32(f[3])), k, () -> "key(" + f[1] + ")");
        }
    }

    @Test
    void foldIn() throws IOException {
        for (String[] f : records("fold_in")) {
            PRNG.Key k = PRNG.foldIn(key(f[1], f[2]), u32(f[3]));
            assertEquals(key(f[4], f[5]), k, () -> "fold_in(" + f[1] + " " + f[2] + ", " + f[3] + ")");
        }
    }

    @Test
    void split() throws IOException {
        for (String[] f : records("split")) {
            PRNG.Key[] keys = PRNG.split(key(f[1], f[2]), Integer.parseInt(f[3]));
            int[] actual = new int[2 * keys.length];
            for (int i = 0; i < keys.length; i++) {
                actual[2 * i] = keys[i].k0();
                actual[2 * i + 1] = keys[i].k1();
            }
            assertArrayEquals(words(f[4]), actual, () -> "split(" + f[1] + " " + f[2] + ", " + f[3] + ")");
        }
    }

    @Test
    void bits() throws IOException {
        for (String[] f : records("bits")) {
            int[] shape = shape(f[3]);
            NDArray b = PRNG.bits(key(f[1], f[2]), shape);
            assertArrayEquals(shape, b.shape());
            assertArrayEquals(words(f[4]), b.toIntArray(), () -> "bits(" + f[1] + " " + f[2] + ", " + f[3] + ")");
        }
    }

    @Test
    void uniform() throws IOException {
        int samples = 0;
        for (String[] f : records("uniform")) {
            int[] shape = shape(f[3]);
            float lo = hexFloat(f[4]);
            float hi = hexFloat(f[5]);
            NDArray u = lo == 0f && hi == 1f && Float.floatToRawIntBits(lo) == 0
                    ? PRNG.uniform(key(f[1], f[2]), shape)
                    : PRNG.uniform(key(f[1], f[2]), lo, hi, shape);
            assertArrayEquals(shape, u.shape());
            assertSameFloats(words(f[6]), floatBits(u),
                    "uniform(" + f[1] + " " + f[2] + ", " + f[3] + ", minval=" + lo + ", maxval=" + hi + ")");
            samples += u.size();
        }
        assertTrue(samples >= 10_000, "only " + samples + " uniform samples");
    }

    @Test
    void normal() throws IOException {
        int samples = 0;
        for (String[] f : records("normal")) {
            int[] shape = shape(f[3]);
            NDArray n = PRNG.normal(key(f[1], f[2]), shape);
            assertArrayEquals(shape, n.shape());
            assertSameFloats(words(f[4]), floatBits(n), "normal(" + f[1] + " " + f[2] + ", " + f[3] + ")");
            samples += n.size();
        }
        assertTrue(samples >= 10_000, "only " + samples + " normal samples");
    }

    @Test
    void erfInvAtTheEdges() throws IOException {
        for (String[] f : records("erf_inv")) {
            int[] x = words(f[1]);
            int[] actual = new int[x.length];
            for (int i = 0; i < x.length; i++) {
                actual[i] = Float.floatToRawIntBits(PRNG.erfInv(Float.intBitsToFloat(x[i])));
            }
            int[] expected = words(f[2]);
            for (int i = 0; i < x.length; i++) {
                float xi = Float.intBitsToFloat(x[i]);
                // A NaN from a NaN or out-of-range input: only NaN-ness is specified (XlaCpuFloat32).
                if (Float.isNaN(Float.intBitsToFloat(expected[i])) && Float.isNaN(Float.intBitsToFloat(actual[i]))) {
                    actual[i] = expected[i];
                }
            }
            assertSameFloats(expected, actual, "erf_inv");
        }
    }

    /** The float32 operations alone, at the edges where FTZ/DAZ and x86's tininess after rounding show. */
    @Test
    void float32OperationsFlushAsXlaCpu() throws IOException {
        for (String[] f : records("f32")) {
            float a = hexFloat(f[2]);
            float b = hexFloat(f[3]);
            float r = switch (f[1]) {
                case "add" -> XlaCpuFloat32.add(a, b);
                case "sub" -> XlaCpuFloat32.sub(a, b);
                case "mul" -> XlaCpuFloat32.mul(a, b);
                case "div" -> XlaCpuFloat32.div(a, b);
                case "max" -> XlaCpuFloat32.max(a, b);
                case "fma" -> XlaCpuFloat32.fma(a, b, hexFloat(f[4]));
                default -> throw new AssertionError("unknown operation " + f[1]);
            };
            String expected = f[f.length - 1];
            assertEquals(expected, String.format("%08x", Float.floatToRawIntBits(r)), () -> String.join(" ", f));
        }
    }

    /** Every one of the 2^23 values normal can take, from each mantissa the random bits can give. */
    @Test
    void everyNormalSample() throws IOException {
        String[] f = records("sweep_normal").get(0);
        assertEquals(f[1], sweep(PRNG::normalFromBits), "SHA-256 of normal over all 2^23 mantissas");
    }

    /** Every one of the 2^23 values uniform can take, for a few bounds. */
    @Test
    void everyUniformSample() throws IOException {
        for (String[] f : records("sweep_uniform")) {
            float lo = hexFloat(f[1]);
            float hi = hexFloat(f[2]);
            assertEquals(f[3], sweep(bits -> PRNG.uniformFromBits(bits, lo, hi)),
                    "SHA-256 of uniform(minval=" + lo + ", maxval=" + hi + ") over all 2^23 mantissas");
        }
    }

    private interface FloatOfBits {
        float apply(int bits);
    }

    private static String sweep(FloatOfBits sample) {
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
        ByteBuffer buf = ByteBuffer.allocate(4 << 16).order(ByteOrder.LITTLE_ENDIAN);
        for (int m = 0; m < 1 << 23; m++) {
            buf.putInt(Float.floatToRawIntBits(sample.apply(m << 9)));
            if (!buf.hasRemaining()) {
                sha.update(buf.array());
                buf.clear();
            }
        }
        sha.update(buf.array(), 0, buf.position());
        return HexFormat.of().formatHex(sha.digest());
    }
}
