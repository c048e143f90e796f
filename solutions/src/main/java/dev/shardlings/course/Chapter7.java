package dev.shardlings.course;

// What the tasks below use; an import left unused is harmless.
import dev.shardlings.array.NDArray;
import dev.shardlings.autodiff.Autodiff;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.spmd.Collectives;
import dev.shardlings.spmd.ShardMap;
import dev.shardlings.spmd.ShardedArray;

import java.util.List;

import static dev.shardlings.sharding.PartitionSpec.P;

/**
 * Chapter 7 — how real language models are trained across a mesh: the layouts of large-scale training, each built
 * from the collectives of chapters 0–6.
 *
 * <p>Read {@code docs/chapter-7.md} first. Grade your work with {@code mvn test -Pgrade}.
 *
 * <p>This file stands alone: use the framework, the JDK and this class only, never another course file (copy a
 * helper you need into this file). Each course file is graded on its own, and one that does not compile is
 * graded as its stub, so a helper taken from it would break this file too.
 */
public final class Chapter7 {

    private Chapter7() {
    }

    // ---- Part 7.1: 2-D FSDP × tensor parallelism ----


    // ---- Part 7.2: pipeline parallelism ----


    // ---- Part 7.3: ring attention ----

    /**
     * 7.3: O[S_seq, D] = softmax(Q·Kᵀ/√D)·V from Q, K, V f32[S_seq, D] on a mesh with axis 'seq', without any
     * device holding more than one block of K or V at a time (JAX: a shard_map whose body is a ring of ppermutes).
     */
    public static ShardedArray ringAttention(ShardedArray q, ShardedArray k, ShardedArray v) {
        return ring(q, k, v, false);
    }

    /** 7.3, causal: as {@link #ringAttention}, query i seeing only the keys j ≤ i. */
    public static ShardedArray causalRingAttention(ShardedArray q, ShardedArray k, ShardedArray v) {
        return ring(q, k, v, true);
    }

    private static ShardedArray ring(ShardedArray q, ShardedArray k, ShardedArray v, boolean causal) {
        return ShardMap.shardMap(b -> List.of(ringAttentionBlock(b.get(0), b.get(1), b.get(2), causal)), q.mesh(),
                List.of(P("seq"), P("seq"), P("seq")), List.of(P("seq"))).call(q, k, v).get(0);
    }

    /**
     * One device: its queries f32[S/n, D] against every K/V block as the blocks pass up the ring (after t shifts it
     * holds the blocks of device me − t). The online softmax keeps, per query row, the running max m, the running
     * sum l of exp(s − m) and the running output acc; when m grows, l and acc are rescaled by exp(m_old − m_new).
     * The own block comes first, so a causal row always has its diagonal key before any fully masked block and m is
     * finite from then on.
     */
    static NDArray ringAttentionBlock(NDArray q, NDArray k, NDArray v, boolean causal) {
        int n = Collectives.axisSize("seq");
        int me = Collectives.axisIndex("seq").intAt();
        int rows = q.shape(0);
        double scale = 1 / Math.sqrt(q.shape(1));
        dev.shardlings.array.KeepDims keep = dev.shardlings.array.KeepDims.KEEP;
        NDArray m = NDArray.full(Float.NEGATIVE_INFINITY, rows, 1);
        NDArray l = NDArray.full(0f, rows, 1);
        NDArray acc = NDArray.full(0f, rows, q.shape(1));
        NDArray kb = k;
        NDArray vb = v;
        for (int t = 0; t < n; t++) {
            if (t > 0) {
                kb = Collectives.ppermute(kb, "seq", ringUp(n));
                vb = Collectives.ppermute(vb, "seq", ringUp(n));
            }
            int src = Math.floorMod(me - t, n);
            if (causal && src > me) {
                continue; // every key of a later block is in every query's future: nothing to add
            }
            NDArray s = q.matmul(false, kb, true).mul(scale);
            if (causal && src == me) {
                // only the diagonal block is cut; positions within it compare like the global ones
                NDArray col = NDArray.arange(rows).reshape(1, rows);
                NDArray row = NDArray.arange(rows).reshape(rows, 1);
                s = NDArray.where(col.lessEqual(row), s, Double.NEGATIVE_INFINITY);
            }
            NDArray mNew = m.maximum(s.max(keep, 1));
            NDArray p = s.sub(mNew).exp();
            NDArray rescale = m.sub(mNew).exp();
            l = l.mul(rescale).add(p.sum(keep, 1));
            acc = acc.mul(rescale).add(p.matmul(vb));
            m = mNew;
        }
        return acc.div(l);
    }

    /** ppermute pairs (s, s + 1 mod n): one step up the ring. */
    private static int[][] ringUp(int n) {
        int[][] p = new int[n][];
        for (int s = 0; s < n; s++) {
            p[s] = new int[]{s, (s + 1) % n};
        }
        return p;
    }


    // ---- end of the parts ----
}
