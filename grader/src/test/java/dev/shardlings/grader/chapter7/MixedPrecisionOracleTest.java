package dev.shardlings.grader.chapter7;

import dev.shardlings.array.NDArray;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Part 7.5's oracle against JAX 0.10.2 on CPU: the mixed-precision step on a mesh ('data': 2) as
 * framework/src/test/resources/jax-checks/mixed_precision_step.py runs it in shard_map (bf16 casts and all-gathers,
 * preferred_element_type=f32, bf16 cotangents widened and psum_scattered in f32), and the same step all in f32.
 */
class MixedPrecisionOracleTest {

    private static NDArray sixteenths(int n, int a, int b, int... shape) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = ((a * i + b) % 17 - 8) / 16f;
        }
        return NDArray.fromFloats(v, shape);
    }

    private static NDArray masters(int n, int a, int b, int... shape) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = ((a * i + b) % 16383 - 8191) / 8192f;
        }
        return NDArray.fromFloats(v, shape);
    }

    private static float[] floats(String hex) {
        String[] words = hex.split(" ");
        float[] out = new float[words.length];
        for (int i = 0; i < words.length; i++) {
            out[i] = Float.intBitsToFloat(Integer.parseUnsignedInt(words[i], 16));
        }
        return out;
    }

    private final MixedPrecisionChecks.Oracle oracle = MixedPrecisionChecks.oracle(masters(16, 4099, 77, 4, 4),
            masters(8, 2731, 5003, 4, 2), sixteenths(16, 5, 3, 4, 4), sixteenths(8, 7, 11, 4, 2), 2);

    @Test
    void theOracleRoundsWhereJaxDoes() {
        float jaxLoss = floats("3dc63b42")[0];
        assertTrue(MixedPrecisionChecks.LOSS_TOLERANCE.close(jaxLoss, oracle.loss().item()),
                () -> "oracle loss " + oracle.loss().item() + ", JAX " + jaxLoss);
        float[] w1 = floats("bf7d5700 befa7f40 3c30a000 3f02be20 bf7d6380 bef9c380 3c351000 3f0316d0 bf7cf180"
                + " bef9cc40 3c398000 3f036f80 bf7c2320 bef7b820 3c83a000 3f03fc40");
        float[] w2 = floats("bec6f600 bd73c280 3e8e4400 3f1bef74 3f71c03c bf38de34 bec6fc80 bd5e6000");
        // here no device's share of a gradient lands near a bfloat16 tie: the weights agree to float32 rounding
        assertArrayEquals(w1, oracle.w1().toFloatArray(), 1e-7f);
        assertArrayEquals(w2, oracle.w2().toFloatArray(), 1e-7f);
    }

    @Test
    void anAllFloat32StepMissesTheLossTolerance() {
        float f32Loss = floats("3dc65f6a")[0];
        assertFalse(MixedPrecisionChecks.LOSS_TOLERANCE.close(oracle.loss().item(), f32Loss),
                () -> "oracle loss " + oracle.loss().item() + ", all-f32 " + f32Loss);
        assertEquals(1e-3, Math.abs(f32Loss / oracle.loss().item() - 1), 5e-4);
    }
}
