package dev.shardlings.tours;

import dev.shardlings.array.DType;
import dev.shardlings.array.KeepDims;
import dev.shardlings.array.NDArray;
import dev.shardlings.sharding.AxisType;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.spmd.Collectives;
import dev.shardlings.spmd.ShardMap;
import dev.shardlings.spmd.ShardedArray;

import java.util.List;

import static dev.shardlings.sharding.PartitionSpec.P;

/**
 * Tour 10 (docs/chapter-7.md, part 7.3): ring attention on ('seq': 4) with Q, K, V f32[8, 4] — which rows of K and
 * V each device holds after each shift up the ring, the online softmax's running max m and denominator l for one
 * query row after each block it folds in (against the row's max and sum taken at once), and the ring's output,
 * plain and causal, against attention computed on the whole arrays (JAX's {@code jax.nn.dot_product_attention}).
 * The ring is written here, in the tour, as a shardMap of ppermutes; the causal mask compares positions in the
 * whole sequence, so a block wholly in a query's future adds exp(−inf) = 0. The outputs are printed to 5 decimals
 * (O·10^5 as integers): XLA's exp and Java's differ in the last bit. JAX 0.10.2 prints the same lines for the same
 * program (docs/src/test/resources/jax-checks/tour10_ring_attention.py). Run:
 * {@code mvn -q -pl docs exec:exec -Dtour=Tour10RingAttention}.
 */
public final class Tour10RingAttention {

    private static final int N = 4;
    private static final int S = 8;
    private static final int D = 4;
    private static final int BLOCK = S / N;
    private static final int ROW = 5;
    private static final int[][] UP = {{0, 1}, {1, 2}, {2, 3}, {3, 0}};

    private Tour10RingAttention() {
    }

    /** Prints the ring's schedule, one row's online softmax and the two outputs. */
    public static void main(String[] args) {
        NDArray q = Tour08Pipeline.pattern(S * D, 7, 3, 2, S, D);
        NDArray k = Tour08Pipeline.pattern(S * D, 5, 2, 2, S, D);
        NDArray v = Tour08Pipeline.pattern(S * D, 3, 1, 2, S, D);
        Mesh mesh = Mesh.makeMesh(new int[]{N}, new String[]{"seq"}, AxisType.AUTO);
        System.out.println("mesh ('seq': 4)");
        List<ShardedArray> qkv = List.of(place("Q", q, mesh), place("K", k, mesh), place("V", v, mesh));

        System.out.println("rows of K and V on devices 0, 1, 2, 3 after t shifts up the ring, ppermute pairs"
                + " (i, i + 1 mod 4):");
        ShardMap.Unary shift = ShardMap.shardMap(a -> Collectives.ppermute(a, "seq", UP), mesh, P("seq"), P("seq"));
        ShardedArray rows = ShardedArray.devicePut(NDArray.arange(S, DType.INT32), mesh, P("seq"));
        for (int t = 0; t < N; t++) {
            System.out.println("  t = " + t + ": " + rows.gather());
            rows = shift.apply(rows);
        }

        int me = ROW / BLOCK;
        System.out.println("online softmax of query row " + ROW + " (device " + me
                + "), after each block it folds in:");
        NDArray query = q.slice(0, ROW, ROW + 1); // Q[ROW] as a [1, D] row: matmul takes 2-D operands
        NDArray m = NDArray.scalar(Float.NEGATIVE_INFINITY);
        NDArray l = NDArray.scalar(0f);
        for (int t = 0; t < N; t++) {
            int src = Math.floorMod(me - t, N);
            NDArray s = query.matmul(k.slice(0, src * BLOCK, (src + 1) * BLOCK).transpose()).div(Math.sqrt(D));
            NDArray mNew = m.maximum(s.max());
            l = l.mul(m.sub(mNew).exp()).add(s.sub(mNew).exp().sum());
            m = mNew;
            System.out.println("  t = " + t + ", keys " + src * BLOCK + "-" + (src * BLOCK + BLOCK - 1) + ": m = " + m
                    + " l = " + l);
        }
        NDArray all = query.matmul(k.transpose()).div(Math.sqrt(D));
        System.out.println("  the row's max and sum over all keys at once: m = " + all.max() + " l = "
                + all.sub(all.max()).exp().sum());

        for (boolean causal : new boolean[]{false, true}) {
            ShardedArray o = ShardMap.shardMap(b -> List.of(ringBlock(b.get(0), b.get(1), b.get(2), causal)), mesh,
                    List.of(P("seq"), P("seq"), P("seq")), List.of(P("seq"))).call(qkv).get(0);
            System.out.println((causal ? "causal ring attention " : "ring attention ") + o.spec()
                    + ", O · 10^5 rounded to integers:");
            NDArray out = o.gather();
            System.out.println(toFiveDecimals(out));
            System.out.println("equal to jax.nn.dot_product_attention" + (causal ? " with is_causal=True" : "") + ": "
                    + (out.allclose(attention(q, k, v, causal), 1e-6, 1e-6) ? "True" : "False"));
        }
    }

    /**
     * One device's queries f32[S/4, D] against the K/V blocks as they pass up the ring: after t shifts it holds
     * device me − t's blocks. Per query row the running max m, the running sum l of exp(s − m) and the running
     * output; a larger max rescales both by exp(m_old − m_new).
     */
    private static NDArray ringBlock(NDArray q, NDArray k, NDArray v, boolean causal) {
        int me = Collectives.axisIndex("seq").intAt();
        NDArray qpos = NDArray.arange(BLOCK).add(me * BLOCK).reshape(BLOCK, 1);
        NDArray m = NDArray.full(Float.NEGATIVE_INFINITY, BLOCK, 1);
        NDArray l = NDArray.full(0f, BLOCK, 1);
        NDArray acc = NDArray.full(0f, BLOCK, D);
        NDArray kb = k;
        NDArray vb = v;
        for (int t = 0; t < N; t++) {
            if (t > 0) {
                kb = Collectives.ppermute(kb, "seq", UP);
                vb = Collectives.ppermute(vb, "seq", UP);
            }
            NDArray s = q.matmul(kb.transpose()).div(Math.sqrt(D));
            if (causal) {
                NDArray kpos = NDArray.arange(BLOCK).add(Math.floorMod(me - t, N) * BLOCK).reshape(1, BLOCK);
                s = NDArray.where(kpos.lessEqual(qpos), s, Double.NEGATIVE_INFINITY);
            }
            NDArray mNew = m.maximum(s.max(KeepDims.KEEP, 1));
            NDArray p = s.sub(mNew).exp();
            NDArray rescale = m.sub(mNew).exp();
            l = l.mul(rescale).add(p.sum(KeepDims.KEEP, 1));
            acc = acc.mul(rescale).add(p.matmul(vb));
            m = mNew;
        }
        return acc.div(l);
    }

    /** softmax(Q·Kᵀ/√D)·V on the whole arrays, the causal mask hiding keys after the query. */
    private static NDArray attention(NDArray q, NDArray k, NDArray v, boolean causal) {
        NDArray s = q.matmul(k.transpose()).div(Math.sqrt(D));
        if (causal) {
            s = NDArray.where(NDArray.ones(DType.FLOAT32, S, S).tril().greater(0), s, Double.NEGATIVE_INFINITY);
        }
        return s.softmax(1).matmul(v);
    }

    /**
     * x·10^5 rounded to int32, as {@code jnp.round(x * 1e5).astype(jnp.int32)} (a tie rounds up here, to even there;
     * none occurs in this tour). The outputs pass through exp, whose last bit differs between XLA's CPU kernel and
     * Java's, so the tour prints them to 5 decimals; as integers, since dividing by 10^5 again would round anew.
     */
    private static NDArray toFiveDecimals(NDArray x) {
        return x.mul(1e5f).add(0.5f).floorDiv(1f).astype(DType.INT32);
    }

    private static ShardedArray place(String name, NDArray a, Mesh mesh) {
        ShardedArray s = ShardedArray.devicePut(a, mesh, P("seq"));
        System.out.println(name + " " + a.dtype().jaxName() + " " + Tour08Pipeline.shape(a.shape()) + " " + s.spec()
                + " each device holds " + Tour08Pipeline.shape(s.sharding().shardShape(s.shape())));
        return s;
    }
}
