package dev.shardlings.course;

import dev.shardlings.array.KeepDims;
import dev.shardlings.array.NDArray;
import dev.shardlings.random.PRNG;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.spmd.ShardedArray;

import static dev.shardlings.spmd.Tiling.TILED;
import static dev.shardlings.sharding.PartitionSpec.P;
import static dev.shardlings.sharding.PartitionSpec.tuple;
import static dev.shardlings.spmd.Collectives.allGather;
import static dev.shardlings.spmd.Collectives.allGatherInvariant;
import static dev.shardlings.spmd.Collectives.axisIndex;
import static dev.shardlings.spmd.Collectives.axisSize;
import static dev.shardlings.spmd.Collectives.pmean;
import static dev.shardlings.spmd.Collectives.ppermute;
import static dev.shardlings.spmd.Collectives.psum;
import static dev.shardlings.spmd.Collectives.psumScatter;
import static dev.shardlings.spmd.ShardMap.shardMap;

/**
 * Chapter 0 — reference solutions. See exercises/ for the task texts and docs/chapter-0.md for the discussion.
 */
public final class Chapter0 {

    private Chapter0() {
    }

    /** 0.1: A[I_X, J] · B[J, K_Y] → C[I_X, K_Y]; every device multiplies its blocks, no communication. */
    public static ShardedArray matmulNoCommunication(ShardedArray a, ShardedArray b) {
        return shardMap(NDArray::matmul, a.mesh(), P("X", null), P(null, "Y"), P("X", "Y")).apply(a, b);
    }

    /** 0.2: A[I, J_X] · B[J, K] → C[I, K]: AllGather_X A[I, J_X] → A[I, J], then a local matmul. */
    public static ShardedArray matmulGatherA(ShardedArray a, ShardedArray b) {
        return shardMap((x, w) -> allGatherInvariant(x, "X", 1, TILED).matmul(w), a.mesh(), P(null, "X"), P(), P())
                .apply(a, b);
    }

    /** 0.3: A[I, J_X] · B[J_X, K] → C[I, K]: local matmul gives C{U_X}, then AllReduce_X (psum). */
    public static ShardedArray matmulPsum(ShardedArray a, ShardedArray b) {
        return shardMap((x, w) -> psum(x.matmul(w), "X"), a.mesh(), P(null, "X"), P("X", null), P()).apply(a, b);
    }

    /** 0.4: the same result as 0.3 from ReduceScatter_X then AllGather_X. */
    public static ShardedArray matmulReduceScatterAllGather(ShardedArray a, ShardedArray b) {
        return shardMap((x, w) -> {
            NDArray partial = x.matmul(w);                            // C[I, K]{U_X}
            NDArray scattered = psumScatter(partial, "X", 0, TILED);    // C[I_X, K]
            return allGatherInvariant(scattered, "X", 0, TILED);       // C[I, K]
        }, a.mesh(), P(null, "X"), P("X", null), P()).apply(a, b);
    }

    /** 0.5, first half: A[I_X, J] · B[J, K_X] → C[I_X, K]: gather B over X. */
    public static ShardedArray matmulSameAxisGatherB(ShardedArray a, ShardedArray b) {
        return shardMap((x, w) -> x.matmul(allGather(w, "X", 1, TILED)), a.mesh(), P("X", null), P(null, "X"),
                P("X", null)).apply(a, b);
    }

    /** 0.5, second half: A[I_X, J] · B[J, K_X] → C[I, K_X]: gather A over X. */
    public static ShardedArray matmulSameAxisGatherA(ShardedArray a, ShardedArray b) {
        return shardMap((x, w) -> allGather(x, "X", 0, TILED).matmul(w), a.mesh(), P("X", null), P(null, "X"),
                P(null, "X")).apply(a, b);
    }

    /**
     * 0.6: x[B_i, D_j] → (x − mean) / sqrt(var + 1e-5) over the feature dimension D, whose pieces live on the
     * devices along j: local statistics, then pmean over j.
     */
    public static ShardedArray parallelNormalize(ShardedArray x) {
        return shardMap(block -> {
            NDArray mean = pmean(block.mean(KeepDims.KEEP, 1), "j");
            NDArray centred = block.sub(mean);
            NDArray var = pmean(centred.square().mean(KeepDims.KEEP, 1), "j");
            return centred.div(var.add(1e-5f).sqrt());
        }, x.mesh(), P("i", "j"), P("i", "j")).apply(x);
    }

    /** 0.7: x[B_i, D] · w[D_i, F] → y[B_i, F]: AllGather_i the weight, then a local matmul. */
    public static ShardedArray matmulWithGatheredWeight(ShardedArray x, ShardedArray w) {
        return shardMap((xb, wb) -> xb.matmul(allGather(wb, "i", 0, TILED)), x.mesh(), P("i", null), P("i", null),
                P("i", null)).apply(x, w);
    }

    /** 0.8: np.roll of the blocks along mesh axis i by k steps (either sign), with one ppermute. */
    public static ShardedArray ringShift(ShardedArray x, int k) {
        return shardMap(block -> {
            int n = axisSize("i");
            int[][] perm = new int[n][];
            for (int src = 0; src < n; src++) {
                perm[src] = new int[]{src, Math.floorMod(src + k, n)};
            }
            return ppermute(block, "i", perm);
        }, x.mesh(), P("i", null), P("i", null)).apply(x);
    }

    /** 0.9: the mean over the whole mesh of the first 4 elements of every block of x[N_xy]. */
    public static ShardedArray sliceAndAverage(ShardedArray x) {
        return shardMap(block -> pmean(block.slice(0, 0, 4), "x", "y"), x.mesh(), P(tuple("x", "y")), P())
                .apply(x);
    }

    /**
     * 0.10: fold the same key over mesh axis i: devices differ along i and agree along j. Output int32[I, 2], row r
     * the key of the devices at i = r.
     */
    public static ShardedArray foldKeyOverAxis(NDArray key, Mesh mesh) {
        return shardMap(k -> PRNG.foldIn(PRNG.Key.of(k), axisIndex("i").intAt()).toArray().reshape(1, 2),
                mesh, P(), P("i", null)).apply(key);
    }
}
