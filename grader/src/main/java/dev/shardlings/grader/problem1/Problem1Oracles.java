package dev.shardlings.grader.problem1;

import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;

/**
 * Problem 1 answers computed on the whole array with plain loops — independent of the framework's reshape, roll
 * and mean, and of solutions/.
 */
public final class Problem1Oracles {

    private Problem1Oracles() {
    }

    /** out[i, j] = mean of block (i, j) of a [S, D] array cut into X × Y blocks, as float32 (sums in double). */
    public static NDArray perShardMean(NDArray a, int x, int y) {
        int s = a.shape(0);
        int d = a.shape(1);
        int bs = s / x;
        int bd = d / y;
        float[] v = a.toFloatArray();
        float[] out = new float[x * y];
        for (int i = 0; i < x; i++) {
            for (int j = 0; j < y; j++) {
                double sum = 0;
                for (int r = i * bs; r < (i + 1) * bs; r++) {
                    for (int c = j * bd; c < (j + 1) * bd; c++) {
                        sum += v[r * d + c];
                    }
                }
                out[i * y + j] = (float) (sum / (bs * bd));
            }
        }
        return NDArray.fromFloats(out, x, y);
    }

    /**
     * roll(block, shift, 0) − block inside every group of S/X rows: out[r] = a[src(r)] − a[r] where src(r) is r's
     * shard start plus ((r − start − shift) mod S/X). Same dtype as a.
     */
    public static NDArray rollWithinShards(NDArray a, int x, int shift) {
        int s = a.shape(0);
        int d = a.shape(1);
        int bs = s / x;
        if (a.dtype() == DType.INT32) {
            int[] v = a.toIntArray();
            int[] out = new int[v.length];
            for (int r = 0; r < s; r++) {
                int src = source(r, bs, shift);
                for (int c = 0; c < d; c++) {
                    out[r * d + c] = v[src * d + c] - v[r * d + c];
                }
            }
            return NDArray.fromInts(out, s, d);
        }
        float[] v = a.toFloatArray();
        float[] out = new float[v.length];
        for (int r = 0; r < s; r++) {
            int src = source(r, bs, shift);
            for (int c = 0; c < d; c++) {
                out[r * d + c] = v[src * d + c] - v[r * d + c];
            }
        }
        return NDArray.fromFloats(out, s, d);
    }

    private static int source(int row, int blockRows, int shift) {
        int start = row - row % blockRows;
        int local = Math.floorMod(row - start - shift, blockRows);
        return start + local;
    }
}
