package dev.shardlings.course;

import dev.shardlings.array.NDArray;
import dev.shardlings.spmd.ShardedArray;

import static dev.shardlings.sharding.PartitionSpec.P;
import static dev.shardlings.spmd.Collectives.axisIndex;
import static dev.shardlings.spmd.Collectives.axisSize;
import static dev.shardlings.spmd.Collectives.ppermute;
import static dev.shardlings.spmd.ShardMap.shardMap;

/**
 * Problem 4 — bidirectional collective matmuls, reference solutions: half of the data travels up the ring and half
 * down, so each direction of every link carries half of what the one-way version sends. See docs/problem-4.md.
 */
public final class Problem4 {

    private Problem4() {
    }

    // Problem 3 has these ring shifts too; a course file stands alone (the rule in the stubs), so a Problem3.java
    // that does not compile costs Problem 4 nothing.

    /** The ring shift by +1 along an axis of n devices: (s, s + 1 mod n). */
    private static int[][] up(int n) {
        int[][] p = new int[n][];
        for (int s = 0; s < n; s++) {
            p[s] = new int[]{s, (s + 1) % n};
        }
        return p;
    }

    /** The ring shift by −1: (s, s − 1 mod n). */
    private static int[][] down(int n) {
        int[][] p = new int[n][];
        for (int s = 0; s < n; s++) {
            p[s] = new int[]{s, Math.floorMod(s - 1, n)};
        }
        return p;
    }

    /** 4.0: as 3.0, with the low half of each A chunk travelling up the ring and the high half down. */
    public static ShardedArray allGatherMatmul(ShardedArray a, ShardedArray w) {
        return shardMap((x, v) -> {
            int n = axisSize("Y");
            int y = axisIndex("Y").intAt();
            int chunk = x.shape(1);
            int half = chunk / 2;
            NDArray lo = x.slice(1, 0, half);
            NDArray hi = x.slice(1, half, chunk);
            NDArray acc = lo.matmul(rows(v, y, 0, chunk)).add(hi.matmul(rows(v, y, 1, chunk)));
            for (int k = 1; k < n; k++) {
                lo = ppermute(lo, "Y", up(n));     // now the low half of chunk y − k
                hi = ppermute(hi, "Y", down(n));   // now the high half of chunk y + k
                acc = acc.add(lo.matmul(rows(v, Math.floorMod(y - k, n), 0, chunk)))
                        .add(hi.matmul(rows(v, Math.floorMod(y + k, n), 1, chunk)));
            }
            return acc;
        }, a.mesh(), P("X", "Y"), P(null, "Y"), P("X", "Y")).apply(a, w);
    }

    /** The rows of W that multiply half h of A's chunk c. */
    private static NDArray rows(NDArray w, int c, int h, int chunk) {
        int half = chunk / 2;
        return w.slice(0, c * chunk + h * half, c * chunk + (h + 1) * half);
    }

    /**
     * 4.1: as 3.1 (Out[B_X, F] replicated over Y), with the all-reduce built from permutes: the partial product is
     * cut in two halves along F; each half is reduce-scattered and then all-gathered around the ring, one half up
     * and one half down.
     */
    public static ShardedArray allReduceMatmul(ShardedArray a, ShardedArray w) {
        return shardMap((x, v) -> {
            NDArray partial = x.matmul(v);
            int f = partial.shape(1);
            NDArray up = ringAllReduce(partial.slice(1, 0, f / 2), +1);
            NDArray down = ringAllReduce(partial.slice(1, f / 2, f), -1);
            return NDArray.concat(1, up, down);
        }, a.mesh(), P("X", "Y"), P("Y", null), P("X", null))
                // The result is equal along Y, but ppermute leaves it marked as varying there.
                .checkVma(false).apply(a, w);
    }

    /** Ring all-reduce of h (split in n chunks along dimension 1) in direction d = ±1: reduce-scatter, all-gather. */
    private static NDArray ringAllReduce(NDArray h, int d) {
        int n = axisSize("Y");
        int y = axisIndex("Y").intAt();
        int chunk = h.shape(1) / n;
        int[][] perm = d > 0 ? up(n) : down(n);
        int c = Math.floorMod(y - d, n);
        NDArray acc = h.slice(1, c * chunk, (c + 1) * chunk);
        for (int k = 1; k < n; k++) {
            acc = ppermute(acc, "Y", perm);
            c = Math.floorMod(y - d - d * k, n);
            acc = acc.add(h.slice(1, c * chunk, (c + 1) * chunk));
        }
        // acc is now the complete chunk y; pass the complete chunks around once more.
        NDArray[] done = new NDArray[n];
        done[y] = acc;
        NDArray cur = acc;
        for (int k = 1; k < n; k++) {
            cur = ppermute(cur, "Y", perm);
            done[Math.floorMod(y - d * k, n)] = cur;
        }
        return NDArray.concat(1, done);
    }

    /** 4.2: as 3.2, with half of each accumulator (its left columns) travelling up the ring and half down. */
    public static ShardedArray reduceScatterMatmul(ShardedArray tmp, ShardedArray w2) {
        return shardMap((t, v) -> {
            int n = axisSize("Y");
            int y = axisIndex("Y").intAt();
            int chunk = v.shape(1) / n;
            int half = chunk / 2;
            NDArray lo = t.matmul(v.slice(1, Math.floorMod(y - 1, n) * chunk, Math.floorMod(y - 1, n) * chunk + half));
            int cHi = Math.floorMod(y + 1, n);
            NDArray hi = t.matmul(v.slice(1, cHi * chunk + half, (cHi + 1) * chunk));
            for (int k = 1; k < n; k++) {
                lo = ppermute(lo, "Y", up(n));
                int c = Math.floorMod(y - 1 - k, n);
                lo = lo.add(t.matmul(v.slice(1, c * chunk, c * chunk + half)));
                hi = ppermute(hi, "Y", down(n));
                c = Math.floorMod(y + 1 + k, n);
                hi = hi.add(t.matmul(v.slice(1, c * chunk + half, (c + 1) * chunk)));
            }
            return NDArray.concat(1, lo, hi);
        }, tmp.mesh(), P("X", "Y"), P("Y", null), P("X", "Y")).apply(tmp, w2);
    }
}
