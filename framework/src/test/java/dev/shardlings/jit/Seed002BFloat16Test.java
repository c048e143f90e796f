package dev.shardlings.jit;

import static dev.shardlings.sharding.PartitionSpec.P;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardlings.TestArrays;
import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.sharding.Mesh;
import org.junit.jupiter.api.Test;

/**
 * Seed 002's intro program as written, in bfloat16: {@code jnp.einsum('bd,df->bf', jnp.square(In), W)} with
 * In[B_X, D_Y] and W[D_Y, F] on a 2×2 mesh, out P('X', None). Values are JAX 0.10.2's CPU bits
 * (jax-checks/bfloat16.py, {@link Seed002BFloat16Data}).
 */
class Seed002BFloat16Test {

    private static NDArray bf16(int[] patterns, int... shape) {
        float[] f = new float[patterns.length];
        for (int k = 0; k < f.length; k++) {
            f[k] = Float.intBitsToFloat(patterns[k] << 16);
        }
        return NDArray.fromFloats(f, shape).astype(DType.BFLOAT16);
    }

    private static int[] bits(NDArray x) {
        assertEquals(DType.BFLOAT16, x.dtype(), "dtype");
        float[] f = x.toFloatArray();
        int[] b = new int[f.length];
        for (int k = 0; k < f.length; k++) {
            b[k] = Float.floatToRawIntBits(f[k]) >>> 16;
        }
        return b;
    }

    private static final NDArray IN = bf16(Seed002BFloat16Data.IN, 8, 16);
    private static final NDArray W = bf16(Seed002BFloat16Data.W, 16, 8);

    @Test
    void onOneDeviceTheBitsAreJaxs() {
        assertArrayEquals(Seed002BFloat16Data.OUT, bits(IN.square().matmul(W)));
        // preferred_element_type=float32: the float32 accumulation itself, to float32 rounding (XLA sums in
        // another order)
        float[] f32 = IN.square().matmul(W, DType.FLOAT32).toFloatArray();
        for (int k = 0; k < f32.length; k++) {
            float jax = Float.intBitsToFloat(Seed002BFloat16Data.OUT_F32[k]);
            assertEquals(jax, f32[k], 4 * Math.ulp(jax), "element " + k);
        }
    }

    /**
     * The seed's HLO (its TPU program): each device's partial dot rounded to bf16 ({@code %fusion = bf16[4,8192]}),
     * then a bf16 all-reduce over Y, which accumulates in float32 and rounds once. XLA:CPU instead promotes the
     * partial and the all-reduce to f32 ({@code f32[4,8] all-reduce(...), to_apply=%add.clone_promoted}) and rounds
     * once at the end, so its bits are those of the unsharded program; the framework runs the TPU program (the
     * deliberate difference of docs/framework.md): its bits are the rounded partials summed, off JAX's CPU bits
     * by at most the partials' rounding.
     */
    @Test
    void jittedOnTheSeedsMeshItRunsTheSeedsBFloat16Program() {
        Mesh m = Mesh.ofDeviceIds(new int[] {0, 1, 2, 3}, new int[] {2, 2}, "X", "Y");
        Jitted f = Jit.jit((a, b) -> a.square().matmul(b)).named("matmul_square").outShardings(P("X", null));
        Compiled c = f.lower(TestArrays.put(m, IN, "X", "Y"), TestArrays.put(m, W, "Y", null));
        String text = c.asText();
        // the program a TPU runs (the seed's HLO): a bf16 all-reduce; XLA:CPU promotes it to f32 (same values here)
        assertTrue(text.contains("bf16[4,8] all-reduce("), text);
        NDArray out = f.call(TestArrays.put(m, IN, "X", "Y"), TestArrays.put(m, W, "Y", null)).get(0).gather();
        NDArray sq = IN.square();
        NDArray partial0 = sq.slice(1, 0, 8).matmul(W.slice(0, 0, 8)); // device Y = 0's rounded partial
        NDArray partial1 = sq.slice(1, 8, 16).matmul(W.slice(0, 8, 16));
        assertArrayEquals(bits(NDArray.addN(java.util.List.of(partial0, partial1))), bits(out));
        // against JAX's CPU bits: each rounded partial is off by at most half its bf16 ulp (2^-8 relative), the
        // final rounding by one bf16 ulp of the result
        float[] got = out.toFloatArray();
        float[] p0 = partial0.toFloatArray();
        float[] p1 = partial1.toFloatArray();
        for (int k = 0; k < got.length; k++) {
            float jax = Float.intBitsToFloat(Seed002BFloat16Data.OUT[k] << 16);
            double bound = (Math.abs(p0[k]) + Math.abs(p1[k])) / 256.0 + Math.scalb(Math.ulp(jax), 16);
            assertEquals(jax, got[k], bound, "element " + k);
        }
    }
}
