package dev.shardlings.grader.chapter7;

import dev.shardlings.array.NDArray;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * 7.2bp's measured run draws its values per run; at a pre-activation within float32's rounding of zero the double
 * oracle and a right program may take opposite sides of a relu (a right pipeline failed that way now and then), so
 * the run's rows keep every pre-activation {@link PipelineChecks#TIE} away from zero.
 */
class PipelinePerfCaseTest {

    @Test
    void theMeasuredRunsRowsKeepClearOfReluTies() {
        for (long seed = 0; seed < 4; seed++) {
            PipelineCase c = new PipelineCase(4, 2, 8, 32, 256, seed);
            NDArray w = c.weights();
            NDArray x = PipelineChecks.perfInputs(c, w);
            assertArrayEquals(c.inputs().shape(), x.shape());
            double[][][] wd = PipelineChecks.toDouble(w);
            int kept = 0;
            float[] before = c.inputs().toFloatArray();
            float[] after = x.toFloatArray();
            for (int row = 0; row < 8 * 32; row++) {
                double[] a = new double[256];
                boolean same = true;
                for (int j = 0; j < 256; j++) {
                    a[j] = after[row * 256 + j];
                    same &= before[row * 256 + j] == after[row * 256 + j];
                    assertTrue(after[row * 256 + j] > 0 && after[row * 256 + j] * 16 == Math.rint(after[row * 256 + j] * 16));
                }
                kept += same ? 1 : 0;
                double nearest = PipelineChecks.nearestReluTie(wd, a);
                assertTrue(nearest >= PipelineChecks.TIE, "seed " + seed + ", row " + row + ": " + nearest);
            }
            assertTrue(kept > 100, "most rows are the drawn ones: " + kept);
            assertArrayEquals(after, PipelineChecks.perfInputs(c, w).toFloatArray(), "reproducible from the seed");
        }
    }

    @Test
    void aTieIsFoundWhereOneIs() {
        // Layer 0 the identity, layer 1 takes a0 − a1 into unit 1: with a = [1, 1 − 2^-20], z = −2^-20.
        double[][][] w = {{{1, 0}, {0, 1}}, {{1, -1}, {0, 1}}};
        assertEquals(0x1p-20, PipelineChecks.nearestReluTie(w, new double[]{1, 1 - 0x1p-20}), 1e-15);
        // An exact zero of the first layer is exact in float32 too: not a tie.
        assertEquals(2, PipelineChecks.nearestReluTie(new double[][][]{{{1, -1}, {1, 1}}}, new double[]{1, 1}), 0);
    }

    @Test
    void aDeadRowIsNoTie() {
        // Layer 0 sends both units below zero, so the row dies: layers 1 and 2 see an all-zero row and give exact
        // zeros (in float32 too), which must not count as ties, or perfInputs would redraw the row in vain.
        double[][][] w = {{{-1, 0}, {0, -1}}, {{1, 0}, {0, 1}}, {{1, 1}, {1, 1}}};
        assertEquals(1, PipelineChecks.nearestReluTie(w, new double[]{1, 1}), 0);
    }
}
