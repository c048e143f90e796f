package dev.shardlings.grader.chapter7;

import dev.shardlings.array.NDArray;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Part 7.3's oracle against JAX 0.10.2 on CPU: {@code jax.nn.dot_product_attention} of one head, with and without
 * {@code is_causal}, on Q, K, V f32[8, 2] at scale 1 and at scale 40 (scores whose exp overflows float32). The
 * values come from framework/src/test/resources/jax-checks/ring_attention.py, which also checks that
 * jax.nn.softmax of the masked scores times V gives the same output.
 */
class RingAttentionOracleTest {

    private static final int S = 8;
    private static final int D = 2;

    /** The script's inputs: multiples of 1/16 in [−1/2, 1/2] times scale. */
    private static NDArray values(int a, int b, float scale) {
        float[] v = new float[S * D];
        for (int i = 0; i < S; i++) {
            for (int j = 0; j < D; j++) {
                v[i * D + j] = (Math.floorMod(a * i + b * j, 17) - 8) / 16f * scale;
            }
        }
        return NDArray.fromFloats(v, S, D);
    }

    @ParameterizedTest
    @CsvSource(delimiter = ';', value = {
            "1; false; -0.1095990389585495, 0.03592675179243088, -0.11289684474468231, 0.04079914838075638,"
                    + " -0.09329880774021149, 0.03218205273151398, -0.1115342229604721, 0.038658224046230316,"
                    + " -0.11458715796470642, 0.043747007846832275, -0.11009502410888672, 0.036594778299331665,"
                    + " -0.11333329975605011, 0.041527315974235535, -0.09410469979047775, 0.03269988298416138",
            "1; true; -0.5, 0.3125, -0.4056026339530945, 0.4068973660469055, -0.2913634777069092,"
                    + " 0.08424095809459686, -0.23052504658699036, 0.07492005825042725, -0.12080588936805725,"
                    + " 0.05889064818620682, -0.03531084582209587, 0.08227162063121796, -0.09333336353302002,"
                    + " 0.12077496945858002, -0.09410469979047775, 0.03269988298416138",
            "40; false; -0.5, 0.3125, -0.31241846084594727, 0.4999275207519531, 0.4375, 0.1874999850988388, -0.5,"
                    + " 0.3125, -0.3125, 0.5, -0.5, 0.3125, -0.3125, 0.5, -0.015625, 0.0",
            "40; true; -0.5, 0.3125, -0.3125, 0.5, -0.125, -0.375, -0.5, 0.3125, -0.3125, 0.5, -0.5, 0.3125,"
                    + " -0.3125, 0.5, -0.015625, 0.0"})
    void theOracleIsJaxsDotProductAttention(float scale, boolean causal, String jax) {
        NDArray out = RingAttentionChecks.attention(values(7, 3, scale), values(5, 11, scale), values(3, 13, 1f), 2,
                causal ? RingAttentionChecks.Mask.CAUSAL : RingAttentionChecks.Mask.NONE);
        String[] want = jax.split(",");
        float[] got = out.toFloatArray();
        assertEquals(want.length, got.length);
        for (int i = 0; i < got.length; i++) {
            // JAX computes in float32 and the oracle in double: a few ulps at most
            assertEquals(Double.parseDouble(want[i].strip()), got[i], 1e-6, "element " + i);
        }
    }
}
