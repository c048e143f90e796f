package dev.shardlings.course;

import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.jit.Jit;
import dev.shardlings.jit.Jitted;
import dev.shardlings.spmd.ShardMap;
import dev.shardlings.spmd.ShardedArray;

import java.util.ArrayList;
import java.util.List;

import static dev.shardlings.spmd.Tiling.TILED;
import static dev.shardlings.sharding.PartitionSpec.P;
import static dev.shardlings.spmd.Collectives.allGather;
import static dev.shardlings.spmd.Collectives.allToAll;
import static dev.shardlings.spmd.Collectives.axisIndex;
import static dev.shardlings.spmd.Collectives.axisSize;
import static dev.shardlings.spmd.Collectives.pmax;
import static dev.shardlings.spmd.Collectives.psumScatter;

/**
 * Problem 2 — a mixture of experts, reference solutions. W f32[E_X, D, F_Y], A f32[S_X, D_Y], B int32[S_X] (or
 * int32[S_X, k] for top-k); Out[i] = A[i] · W[B[i]]. See exercises/ for the task texts and docs/problem-2.md.
 */
public final class Problem2 {

    private Problem2() {
    }

    /**
     * The local kernel every part uses: row t of {@code tokens} [n, D] times expert {@code experts[t]} of
     * {@code w} [E, D, F'], or a zero row where experts[t] is −1. Tokens are grouped by expert (a stable sort), each
     * group is one matmul, and the rows go back to their places with one gather — no [n, D, F'] array and no
     * padded compute.
     */
    static NDArray expertMatmul(NDArray tokens, int[] experts, NDArray w) {
        int n = experts.length;
        int fOut = w.shape(2);
        NDArray order = NDArray.fromInts(experts.clone(), n).argsort();
        int[] ord = order.toIntArray();
        List<NDArray> groups = new ArrayList<>();
        int[] position = new int[n];
        int done = 0;
        int t = 0;
        while (t < n && experts[ord[t]] < 0) {
            t++; // padding rows sort first; they get the zero row below
        }
        while (t < n) {
            int e = experts[ord[t]];
            int start = t;
            while (t < n && experts[ord[t]] == e) {
                t++;
            }
            int[] rows = new int[t - start];
            for (int r = start; r < t; r++) {
                rows[r - start] = ord[r];
                position[ord[r]] = done + r - start;
            }
            groups.add(tokens.take(NDArray.fromInts(rows, rows.length), 0).matmul(w.take(0, e)));
            done += rows.length;
        }
        for (int r = 0; r < n; r++) {
            if (experts[r] < 0) {
                position[r] = done;
            }
        }
        groups.add(NDArray.zeros(DType.FLOAT32, 1, fOut));
        return NDArray.concat(0, groups).take(NDArray.fromInts(position, n), 0);
    }

    /** 2.1: Out[S, F] = A[i] · W[B[i]] on one device, tokens grouped by expert. */
    public static NDArray moeLocal(NDArray a, NDArray w, NDArray b) {
        return expertMatmul(a, b.toIntArray(), w);
    }

    /**
     * Part 2.2: the masked buffer written on whole arrays and compiled by jit. The compiler, not the program, decides
     * what moves; see docs/problem-2.md for what it chose.
     */
    public static ShardedArray moeJit(ShardedArray a, ShardedArray w, ShardedArray b) {
        return moeJitted(w.shape()[0]).call(a, w, b).get(0);
    }

    /** Part 2.2, the report: the compiled program's bytes received per device. */
    public static int moeJitBytesReceived(ShardedArray a, ShardedArray w, ShardedArray b) {
        return Math.toIntExact(moeJitted(w.shape()[0]).lower(a, w, b).costAnalysis().bytesReceivedPerDevice());
    }

    private static Jitted moeJitted(int experts) {
        return Jit.jitList(xs -> {
            ShardedArray onehot = xs.get(2).oneHot(experts);
            ShardedArray buffer = ShardedArray.einsum("se,sd->esd", onehot, xs.get(0));
            ShardedArray perExpert = ShardedArray.einsum("esd,edf->esf", buffer, xs.get(1));
            return List.of(ShardedArray.einsum("se,esf->sf", onehot, perExpert));
        }).named("moe").outShardings(P("X", "Y"));
    }

    /**
     * 2.3a: every device gathers all tokens (A over Y then X, B over X), multiplies the tokens routed to its own
     * experts by its F/Y columns, and a reduce-scatter over X gives each device its rows of Out.
     */
    public static ShardedArray moeAllGather(ShardedArray a, ShardedArray w, ShardedArray b) {
        return ShardMap.shardMap(blk -> {
            NDArray all = allGather(allGather(blk.get(0), "Y", 1, TILED), "X", 0, TILED);  // A[S, D]
            int[] route = allGather(blk.get(2), "X", 0, TILED).toIntArray();               // B[S]
            NDArray wl = blk.get(1);                                                      // W[E/X, D, F/Y]
            int first = axisIndex("X").intAt() * wl.shape(0);
            int[] local = new int[route.length];
            for (int i = 0; i < route.length; i++) {
                int e = route[i] - first;
                local[i] = e >= 0 && e < wl.shape(0) ? e : -1;
            }
            return List.of(psumScatter(expertMatmul(all, local, wl), "X", 0, TILED));     // Out[S/X, F/Y]
        }, a.mesh(), List.of(P("X", "Y"), P("X", null, "Y"), P("X")), List.of(P("X", "Y"))).call(a, w, b).get(0);
    }

    /**
     * 2.3b: tokens travel to the devices of their experts and back with all-to-alls over X, at most
     * {@code capacity} tokens per (source, destination) pair and round; the number of rounds is agreed with a pmax.
     */
    public static ShardedArray moeAllToAll(ShardedArray a, ShardedArray w, ShardedArray b, int capacity) {
        return ShardMap.shardMap(blk -> List.of(route(allGather(blk.get(0), "Y", 1, TILED), blk.get(1),
                        blk.get(2).toIntArray(), capacity, 1)),
                a.mesh(), List.of(P("X", "Y"), P("X", null, "Y"), P("X")), List.of(P("X", "Y"))).call(a, w, b).get(0);
    }

    /**
     * The ragged all-to-all of one device: {@code rows} [n, D] are its tokens (each row repeated k times when k > 1),
     * {@code experts} their global expert ids; returns [n / k, F/Y], the mean over each token's k results.
     */
    static NDArray route(NDArray tokens, NDArray wl, int[] experts, int capacity, int k) {
        int x = axisSize("X");
        int me = axisIndex("X").intAt();
        int perDevice = wl.shape(0);
        int fOut = wl.shape(2);
        int d = tokens.shape(1);
        int n = experts.length;
        List<List<Integer>> byDest = new ArrayList<>();
        for (int dst = 0; dst < x; dst++) {
            byDest.add(new ArrayList<>());
        }
        for (int r = 0; r < n; r++) {
            byDest.get(experts[r] / perDevice).add(r);
        }
        int most = 0;
        for (List<Integer> l : byDest) {
            most = Math.max(most, l.size());
        }
        // Every device must run the same number of rounds: agree on the largest count anywhere.
        int rounds = (pmax(NDArray.scalar(most), "X").intAt() + capacity - 1) / capacity;
        NDArray out = NDArray.zeros(DType.FLOAT32, n, fOut);
        for (int round = 0; round < rounds; round++) {
            int[] sendRows = new int[x * capacity];
            int[] sendIds = new int[x * capacity];
            int[] slotOf = new int[n];
            java.util.Arrays.fill(slotOf, x * capacity); // the zero row of the returned results
            for (int dst = 0; dst < x; dst++) {
                List<Integer> l = byDest.get(dst);
                for (int c = 0; c < capacity; c++) {
                    int slot = dst * capacity + c;
                    int idx = round * capacity + c;
                    if (idx < l.size()) {
                        int r = l.get(idx);
                        sendRows[slot] = r;
                        sendIds[slot] = experts[r] % perDevice;
                        slotOf[r] = slot;
                    } else {
                        sendRows[slot] = n; // a zero row: padding
                        sendIds[slot] = -1;
                    }
                }
            }
            NDArray padded = NDArray.concat(0, tokens, NDArray.zeros(DType.FLOAT32, 1, d));
            NDArray send = padded.take(NDArray.fromInts(sendRows, sendRows.length), 0);            // [X·C, D]
            NDArray got = allToAll(send, "X", 0, 0, TILED);                                     // [X·C, D]
            int[] gotIds = allToAll(NDArray.fromInts(sendIds, sendIds.length), "X", 0, 0, TILED).toIntArray();
            NDArray results = expertMatmul(got, gotIds, wl);                                        // [X·C, F/Y]
            NDArray back = allToAll(results, "X", 0, 0, TILED);                                 // [X·C, F/Y]
            NDArray withZero = NDArray.concat(0, back, NDArray.zeros(DType.FLOAT32, 1, fOut));
            out = out.add(withZero.take(NDArray.fromInts(slotOf, n), 0));
        }
        return k == 1 ? out : out.reshape(n / k, k, fOut).mean(1);
    }

    /** 2.4, local: B int32[S, k]; Out[i] = mean over j of A[i] · W[B[i, j]]. */
    public static NDArray moeTopKLocal(NDArray a, NDArray w, NDArray b) {
        int s = b.shape(0);
        int k = b.shape(1);
        int[] rows = new int[s * k];
        for (int i = 0; i < s * k; i++) {
            rows[i] = i / k;
        }
        NDArray pairs = a.take(NDArray.fromInts(rows, rows.length), 0);                 // [S·k, D]
        return expertMatmul(pairs, b.toIntArray(), w).reshape(s, k, w.shape(2)).mean(1);
    }

    /** 2.4, sharded: the ragged all-to-all of 2.3b on the S·k (token, expert) pairs, then the mean over k. */
    public static ShardedArray moeTopKAllToAll(ShardedArray a, ShardedArray w, ShardedArray b, int capacity) {
        return ShardMap.shardMap(blk -> {
            NDArray tokens = allGather(blk.get(0), "Y", 1, TILED);                       // A[S/X, D]
            NDArray route = blk.get(2);                                                 // B[S/X, k]
            int s = route.shape(0);
            int k = route.shape(1);
            int[] rows = new int[s * k];
            for (int i = 0; i < s * k; i++) {
                rows[i] = i / k;
            }
            NDArray pairs = tokens.take(NDArray.fromInts(rows, rows.length), 0);         // [S/X·k, D]
            return List.of(Problem2.route(pairs, blk.get(1), route.toIntArray(), capacity, k));
        }, a.mesh(), List.of(P("X", "Y"), P("X", null, "Y"), P("X", null)), List.of(P("X", "Y")))
                .call(a, w, b).get(0);
    }
}
