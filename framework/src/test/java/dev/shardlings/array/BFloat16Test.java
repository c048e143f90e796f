package dev.shardlings.array;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * bfloat16 as JAX 0.10.2 computes it on CPU: every expected bit pattern and text below was printed by
 * {@code framework/src/test/resources/jax-checks/bfloat16.py} (the upper 16 bits of each float32 pattern).
 */
class BFloat16Test {

    private static final DType BF = DType.BFLOAT16;

    /** The bfloat16 bit patterns of a bfloat16 array (checking each element is exactly a bfloat16). */
    static int[] bits(NDArray x) {
        assertEquals(BF, x.dtype(), "dtype");
        float[] f = x.toFloatArray();
        int[] b = new int[f.length];
        for (int k = 0; k < f.length; k++) {
            int raw = Float.floatToRawIntBits(f[k]);
            assertEquals(0, raw & 0xffff, "a bfloat16 element holds float32 bits " + Integer.toHexString(raw));
            b[k] = raw >>> 16;
        }
        return b;
    }

    /** A bfloat16 array from bit patterns. */
    static NDArray bf16(int... patterns) {
        float[] f = new float[patterns.length];
        for (int k = 0; k < f.length; k++) {
            f[k] = Float.intBitsToFloat(patterns[k] << 16);
        }
        return NDArray.of(f).astype(BF);
    }

    private static NDArray floatsOfBits(int... patterns) {
        float[] f = new float[patterns.length];
        for (int k = 0; k < f.length; k++) {
            f[k] = Float.intBitsToFloat(patterns[k]);
        }
        return NDArray.of(f);
    }

    @Test
    void nameSizeAndPromotionLattice() {
        assertEquals("bfloat16", BF.jaxName());
        assertEquals("bf16", BF.shortName());
        assertEquals(2, BF.byteSize());
        assertTrue(BF.isFloating());
        assertEquals(DType.FLOAT32, DType.promoteTypes(BF, DType.FLOAT32));
        assertEquals(BF, DType.promoteTypes(DType.INT32, BF));
        assertEquals(BF, DType.promoteTypes(BF, DType.BOOL));
        assertEquals(12, NDArray.zeros(BF, 2, 3).nbytes());
        assertEquals("bf16[2,3]", NDArray.zeros(BF, 2, 3).describe());
    }

    @Test
    void float32ToBFloat16RoundsToNearestEvenBitForBit() {
        // ties (both ways), above a tie, overflow to inf, inf, NaNs (quiet, signalling, payloads), subnormals, zeros
        NDArray x = floatsOfBits(0x3f808000, 0x3f818000, 0x3f808001, 0x3f80ffff, 0x7f7fffff, 0x7f7f7fff, 0x7f7f8000,
                0xff7f8000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000, 0x7f800001, 0x7fa00000, 0x00000001,
                0x00008000, 0x00018000, 0x00400000, 0x807fffff, 0x80000000, 0x00000000, 0x3dcccccd);
        int[] expected = {0x3f80, 0x3f82, 0x3f81, 0x3f81, 0x7f80, 0x7f7f, 0x7f80, 0xff80, 0x7f80, 0xff80, 0x7fc0,
            0xffc0, 0x7fc0, 0x7fc0, 0x0, 0x0, 0x2, 0x40, 0x8080, 0x8000, 0x0, 0x3dcd};
        NDArray b = x.astype(BF);
        assertArrayEquals(expected, bits(b));
        // back to float32 exactly (the pattern shifted up)
        float[] back = b.astype(DType.FLOAT32).toFloatArray();
        for (int k = 0; k < back.length; k++) {
            assertEquals(expected[k] << 16, Float.floatToRawIntBits(back[k]), "element " + k);
        }
    }

    @Test
    void int32AndBoolConversions() {
        // int32 → bfloat16 rounds through float32 first, as XLA does (16842753 gives 2^24, not 2^24 + 2^17)
        NDArray ints = NDArray.fromInts(new int[] {0, 1, -1, 257, 259, 16842753, -16842753, 2147483647, -2147483648,
            16777217, 33554435}, 11);
        assertArrayEquals(new int[] {0x0, 0x3f80, 0xbf80, 0x4380, 0x4382, 0x4b80, 0xcb80, 0x4f00, 0xcf00, 0x4b80,
            0x4c00}, bits(ints.astype(BF)));
        float nan = Float.NaN;
        float inf = Float.POSITIVE_INFINITY;
        NDArray fs = NDArray.of(new float[] {1.5f, -1.5f, 2.5f, 3.9f, -3.9f, 1e10f, -1e10f, nan, inf, -inf});
        assertArrayEquals(new int[] {1, -1, 2, 3, -3, 2147483647, -2147483648, 0, 2147483647, -2147483648},
                fs.astype(BF).astype(DType.INT32).toIntArray());
        assertArrayEquals(new float[] {1f, 0f},
                NDArray.fromBooleans(new boolean[] {true, false}, 2).astype(BF).toFloatArray());
        assertArrayEquals(new boolean[] {false, true, false, true},
                NDArray.of(new float[] {0f, 0.5f, -0f, nan}).astype(BF).astype(DType.BOOL).toBooleanArray());
    }

    @Test
    void promotionFollowsJax() {
        NDArray a = NDArray.of(new float[] {1f, 2f}).astype(BF);
        NDArray f = NDArray.of(new float[] {1f, 2f});
        NDArray i = NDArray.fromInts(new int[] {1, 2}, 2);
        assertEquals(BF, a.add(a).dtype());
        assertEquals(DType.FLOAT32, a.mul(f).dtype());
        assertEquals(BF, a.add(2.0f).dtype());
        assertEquals(BF, a.add(1).dtype());
        assertEquals(BF, a.add(i).dtype());
        assertEquals(BF, i.add(a).dtype());
        assertEquals(BF, a.div(a).dtype());
        assertEquals(BF, a.square().dtype());
        assertEquals(BF, a.exp().dtype());
        assertEquals(DType.BOOL, a.greater(1).dtype());
        assertEquals(BF, NDArray.where(a.greater(1), a, 0.0).dtype());
        assertEquals(DType.FLOAT32, NDArray.where(a.greater(1), a, f).dtype());
        assertEquals(BF, a.maximum(0f).dtype());
        assertEquals(BF, a.mul(0.1f).dtype());
        assertEquals(BF, NDArray.concat(0, a, i).dtype());
    }

    @Test
    void eachOperationRoundsItsFloat32Result() {
        NDArray one = bf16(0x3f80);
        assertArrayEquals(new int[] {0x3dcd}, bits(one.mul(0.1f)));
        assertArrayEquals(new int[] {0x3f80}, bits(one.add(1e-3f)));
        NDArray x = NDArray.of(new float[] {1f + 3f / 128}).astype(BF);
        NDArray z = NDArray.of(new float[] {-1f}).astype(BF);
        // x·x rounds before the add: 0x3d40, where an unrounded x·x − 1 would keep 2^-12 more
        assertArrayEquals(new int[] {0x3f86}, bits(x.mul(x)));
        assertArrayEquals(new int[] {0x3d40}, bits(x.mul(x).add(z)));
        assertArrayEquals(new int[] {0x3eaf}, bits(x.div(NDArray.of(new float[] {3f}).astype(BF))));
        assertArrayEquals(new int[] {0x4032}, bits(x.exp()));
        assertArrayEquals(new int[] {0x3fb5}, bits(NDArray.of(new float[] {2f}).astype(BF).sqrt()));
        assertArrayEquals(new int[] {0x3f86}, bits(NDArray.of(new float[] {1f + 3f / 128}).astype(BF).square()));
    }

    @Test
    void sumsAndMeansAccumulateInFloat32AndRoundOnce() {
        NDArray v = NDArray.full(0.01f, 1000).astype(BF);
        NDArray s = v.sum();
        assertArrayEquals(new int[] {0x4120}, bits(s)); // 10.0; a bfloat16 accumulator would stall near 2
        NDArray w = bf16(0x3f80, 0x3b80, 0x3b80, 0x3b80, 0x3b80, 0x3b80, 0x3b80, 0x3b80);
        assertArrayEquals(new int[] {0x3f84}, bits(w.sum()));
        assertArrayEquals(new int[] {0x3e04}, bits(w.mean()));
        assertArrayEquals(new int[] {0x3f80}, bits(w.max()));
        NDArray m2 = NDArray.arange(12, DType.FLOAT32).reshape(3, 4).astype(BF)
                .mul(NDArray.of(new float[] {1f + 1f / 128}).astype(BF).reshape());
        assertArrayEquals(new int[] {0x4142, 0x4172, 0x4191, 0x41a9}, bits(m2.sum(0)));
        assertArrayEquals(new int[] {0x40c2, 0x41b2, 0x4219}, bits(m2.sum(1)));
        assertArrayEquals(new int[] {0x3fc2, 0x40b2, 0x4119}, bits(m2.mean(1)));
    }

    @Test
    void aBFloat16TimesFloat32MatmulWithPreferredFloat32KeepsTheFloat32OperandExact() {
        // jax 0.10.2: lax.dot(bf16, f32, preferred_element_type=f32) on CPU, both orders; the float32 operand is
        // not rounded to bfloat16 (1 + 2^-20 survives)
        NDArray a = NDArray.fromFloats(new float[] {1f, 3f, 0.5f, -2f}, 2, 2).astype(BF);
        NDArray b = NDArray.fromFloats(new float[] {1f + 0x1p-20f, 2f, 0.1f, 0x1p-30f}, 2, 2);
        int[] jax = {1067869806, 1073741824, 1050253738, 1065353216};
        assertArrayEquals(jax, floatBits(a.matmul(b, DType.FLOAT32)));
        int[] jaxSwapped = {1067869806, 1050253738, 1073741824, 1065353216};
        assertArrayEquals(jaxSwapped, floatBits(b.transpose().matmul(a.transpose(), DType.FLOAT32)));
    }

    private static int[] floatBits(NDArray x) {
        float[] f = x.toFloatArray();
        int[] out = new int[f.length];
        for (int i = 0; i < f.length; i++) {
            out[i] = Float.floatToRawIntBits(f[i]);
        }
        return out;
    }

    @Test
    void matmulRoundsTheFloat32AccumulationAndPreferredFloat32KeepsIt() {
        NDArray a = bf16(0x3f80, 0x3b80, 0x3b80, 0x3b80).reshape(1, 4);
        NDArray ones = NDArray.ones(BF, 4, 1);
        assertArrayEquals(new int[] {0x3f82}, bits(a.matmul(ones))); // 1 + 3·2^-8 rounds up once
        NDArray f = a.matmul(ones, DType.FLOAT32);
        assertEquals(DType.FLOAT32, f.dtype());
        assertArrayEquals(new float[] {1f + 3f / 256}, f.toFloatArray());
        assertEquals(BF, a.matmul(ones, BF).dtype());
        assertEquals(DType.FLOAT32, a.matmul(ones.astype(DType.FLOAT32)).dtype());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> a.matmul(ones, DType.INT32));
        assertTrue(e.getMessage().startsWith("matmul: preferred_element_type int32 is not supported"),
                e.getMessage());
    }

    @Test
    void printsAsJaxPrintsBFloat16() {
        assertEquals("[1 2.5 0.100098 -3 0.000999451 300]",
                NDArray.of(new float[] {1f, 2.5f, 0.1f, -3f, 1e-3f, 300f}).astype(BF).toString());
        assertEquals("[[1 2]\n [3 4]]", NDArray.of(new float[][] {{1, 2}, {3, 4}}).astype(BF).toString());
        assertEquals("[[1 2.5]\n [300 0.100098]]",
                NDArray.of(new float[][] {{1, 2.5f}, {300, 0.1f}}).astype(BF).toString());
        assertEquals("[9.99922e+09 1]", NDArray.of(new float[] {1e10f, 1f}).astype(BF).toString());
        assertEquals("[nan inf -inf 0]", NDArray.of(new float[] {Float.NaN, Float.POSITIVE_INFINITY,
            Float.NEGATIVE_INFINITY, 0f}).astype(BF).toString());
        assertEquals("1.5", NDArray.scalar(1.5f).astype(BF).toString());
        assertEquals("[0.100098 0.200195 0.300781]",
                NDArray.of(new float[] {0.1f, 0.2f, 0.3f}).astype(BF).toString());
        assertEquals("[0.333984 0.667969]", NDArray.of(new float[] {1f / 3, 2f / 3}).astype(BF).toString());
        assertEquals("[123392]", NDArray.of(new float[] {123456f}).astype(BF).toString());
        assertEquals("[-0 9.18355e-41 65536 999424]",
                NDArray.of(new float[] {-0f, 1e-40f, 65504f, 1e6f}).astype(BF).toString());
        NDArray twenty = NDArray.arange(20, DType.FLOAT32).astype(BF)
                .mul(NDArray.of(new float[] {1.1f}).astype(BF).reshape());
        assertEquals("[0 1.10156 2.20312 3.3125 4.40625 5.5 6.625 7.71875 8.8125 9.9375 11\n"
                + " 12.125 13.25 14.3125 15.4375 16.5 17.625 18.75 19.875 20.875]", twenty.toString());
    }
}
