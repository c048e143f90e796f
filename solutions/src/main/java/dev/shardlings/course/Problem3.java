package dev.shardlings.course;

import dev.shardlings.array.NDArray;
import dev.shardlings.spmd.ShardMap;
import dev.shardlings.spmd.ShardedArray;

import java.util.ArrayList;
import java.util.List;

import static dev.shardlings.spmd.Tiling.TILED;
import static dev.shardlings.sharding.PartitionSpec.P;
import static dev.shardlings.spmd.Collectives.allGather;
import static dev.shardlings.spmd.Collectives.axisIndex;
import static dev.shardlings.spmd.Collectives.axisSize;
import static dev.shardlings.spmd.Collectives.ppermute;
import static dev.shardlings.spmd.Collectives.psum;
import static dev.shardlings.spmd.Collectives.psumScatter;
import static dev.shardlings.spmd.ShardMap.shardMap;

/**
 * Problem 3 — collective matmuls, reference solutions. Mesh axes "X" and "Y"; see exercises/ for the task texts
 * and docs/problem-3.md for the algorithms drawn step by step.
 */
public final class Problem3 {

    private Problem3() {
    }

    /** The ring shift by +1 along an axis of n devices: (s, s + 1 mod n). */
    static int[][] up(int n) {
        int[][] p = new int[n][];
        for (int s = 0; s < n; s++) {
            p[s] = new int[]{s, (s + 1) % n};
        }
        return p;
    }

    /** The ring shift by −1: (s, s − 1 mod n). */
    static int[][] down(int n) {
        int[][] p = new int[n][];
        for (int s = 0; s < n; s++) {
            p[s] = new int[]{s, Math.floorMod(s - 1, n)};
        }
        return p;
    }

    /**
     * One device of the all-gather collective matmul: A block [B/X, D/Y] (chunk y of D), W block [D, F/Y] →
     * Out block [B/X, F/Y]. The A chunks travel up the ring; after k steps this device holds chunk y − k.
     */
    static NDArray allGatherMatmulBlock(NDArray a, NDArray w) {
        int n = axisSize("Y");
        int y = axisIndex("Y").intAt();
        int chunk = a.shape(1);
        NDArray acc = a.matmul(w.slice(0, y * chunk, (y + 1) * chunk));
        NDArray cur = a;
        for (int k = 1; k < n; k++) {
            cur = ppermute(cur, "Y", up(n));
            int c = Math.floorMod(y - k, n);
            acc = acc.add(cur.matmul(w.slice(0, c * chunk, (c + 1) * chunk)));
        }
        return acc;
    }

    /**
     * One device of the reduce-scatter collective matmul: Tmp block [B/X, F/Y], W2 block [F/Y, D] → Out block
     * [B/X, D/Y]. The accumulator for chunk c starts on device c + 1 and travels up the ring, each device adding its
     * partial product for that chunk, so it arrives complete on device c after n − 1 steps.
     */
    static NDArray reduceScatterMatmulBlock(NDArray tmp, NDArray w2) {
        int n = axisSize("Y");
        int y = axisIndex("Y").intAt();
        int chunk = w2.shape(1) / n;
        int c = Math.floorMod(y - 1, n);
        NDArray acc = tmp.matmul(w2.slice(1, c * chunk, (c + 1) * chunk));
        for (int k = 1; k < n; k++) {
            acc = ppermute(acc, "Y", up(n));
            c = Math.floorMod(y - 1 - k, n);
            acc = acc.add(tmp.matmul(w2.slice(1, c * chunk, (c + 1) * chunk)));
        }
        return acc;
    }

    /** 3.0: A[B_X, D_Y] ·_D W[D, F_Y] → Out[B_X, F_Y] without gathering A. */
    public static ShardedArray allGatherMatmul(ShardedArray a, ShardedArray w) {
        return shardMap(Problem3::allGatherMatmulBlock, a.mesh(), P("X", "Y"), P(null, "Y"), P("X", "Y")).apply(a, w);
    }

    /** 3.0 baseline: AllGather_Y A[B_X, D_Y] → A[B_X, D], then a local matmul. */
    public static ShardedArray allGatherMatmulNaive(ShardedArray a, ShardedArray w) {
        return shardMap((x, v) -> allGather(x, "Y", 1, TILED).matmul(v), a.mesh(), P("X", "Y"), P(null, "Y"),
                P("X", "Y")).apply(a, w);
    }

    /** 3.1: A[B_X, D_Y] ·_D W[D_Y, F] → Out[B_X, F], one psum per tile of F so reductions overlap matmuls. */
    public static ShardedArray allReduceMatmul(ShardedArray a, ShardedArray w, int tiles) {
        return shardMap((x, v) -> {
            int t = v.shape(1) / tiles;
            List<NDArray> out = new ArrayList<>();
            for (int j = 0; j < tiles; j++) {
                out.add(psum(x.matmul(v.slice(1, j * t, (j + 1) * t)), "Y"));
            }
            return NDArray.concat(1, out);
        }, a.mesh(), P("X", "Y"), P("Y", null), P("X", null)).apply(a, w);
    }

    /** 3.2: Tmp[B_X, F_Y] ·_F W2[F_Y, D] → Out[B_X, D_Y], the accumulator passed around the ring. */
    public static ShardedArray reduceScatterMatmul(ShardedArray tmp, ShardedArray w2) {
        return shardMap(Problem3::reduceScatterMatmulBlock, tmp.mesh(), P("X", "Y"), P("Y", null), P("X", "Y"))
                .apply(tmp, w2);
    }

    /** 3.3: In[B_X, D_Y] ·_D Win[D, F_Y] → gelu → ·_F Wout[F_Y, D] → Out[B_X, D_Y] from 3.0 and 3.2. */
    public static ShardedArray transformerBlock(ShardedArray in, ShardedArray win, ShardedArray wout) {
        return ShardMap.shardMap(b -> List.of(reduceScatterMatmulBlock(
                        allGatherMatmulBlock(b.get(0), b.get(1)).gelu(), b.get(2))), in.mesh(),
                List.of(P("X", "Y"), P(null, "Y"), P("Y", null)), List.of(P("X", "Y"))).call(in, win, wout).get(0);
    }

    /** 3.3 baseline: all-gather In, matmul, gelu, matmul, reduce-scatter. */
    public static ShardedArray transformerBlockNaive(ShardedArray in, ShardedArray win, ShardedArray wout) {
        return ShardMap.shardMap(b -> {
            NDArray full = allGather(b.get(0), "Y", 1, TILED);           // In[B_X, D]
            NDArray hidden = full.matmul(b.get(1)).gelu();              // [B_X, F_Y]
            NDArray partial = hidden.matmul(b.get(2));                  // Out[B_X, D]{U_Y}
            return List.of(psumScatter(partial, "Y", 1, TILED));         // Out[B_X, D_Y]
        }, in.mesh(), List.of(P("X", "Y"), P(null, "Y"), P("Y", null)), List.of(P("X", "Y")))
                .call(in, win, wout).get(0);
    }
}
