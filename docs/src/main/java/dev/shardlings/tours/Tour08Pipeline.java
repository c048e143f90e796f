package dev.shardlings.tours;

import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.autodiff.Autodiff;
import dev.shardlings.autodiff.ValueAndGrad;
import dev.shardlings.sharding.AxisType;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.spmd.Collectives;
import dev.shardlings.spmd.ShardMap;
import dev.shardlings.spmd.ShardedArray;

import java.util.List;

import static dev.shardlings.sharding.PartitionSpec.P;

/**
 * Tour 8 (docs/chapter-7.md, part 7.2): the pieces a pipeline is built from, not the pipeline — a stack of four
 * layers relu(x · W[l]) laid out over ('stage': 4), the neighbour ppermutes that carry activations up and gradients
 * down (a stage with no sender receives zeros), and the single-device gradient both schedules of part 7.2 must
 * reproduce. The values are chosen with few bits (halves and quarters), so float32 computes them exactly in any
 * order; the printed values are JAX 0.10.2's: docs/src/test/resources/jax-checks/tour08_pipeline.py.
 * Run: {@code mvn -q -pl docs exec:exec -Dtour=Tour08Pipeline}.
 */
public final class Tour08Pipeline {

    private static final int L = 4;
    private static final int D = 4;
    private static final int M = 4;
    private static final int B = 2;

    private Tour08Pipeline() {
    }

    /** Prints the stack's layout, the two neighbour shifts and the gradient of the whole stack. */
    public static void main(String[] args) {
        NDArray w = pattern(L * D * D, 5, 2, 2, L, D, D);
        NDArray x = pattern(M * B * D, 5, 2, 4, M, B, D);
        NDArray t = pattern(M * B * D, 3, 1, 2, M, B, D);
        Mesh mesh = Mesh.makeMesh(new int[]{4}, new String[]{"stage"}, AxisType.AUTO);
        ShardedArray placed = ShardedArray.devicePut(w, mesh, P("stage"));
        System.out.println("Mesh('stage': 4); W f32[4, 4, 4] laid out P('stage'): each stage holds "
                + shape(placed.sharding().shardShape(placed.shape())));

        ShardedArray idx = ShardedArray.devicePut(NDArray.arange(4, DType.INT32), mesh, P("stage"));
        int[][] up = {{0, 1}, {1, 2}, {2, 3}};
        int[][] down = {{1, 0}, {2, 1}, {3, 2}};
        System.out.println("ppermute of arange(4) one stage up, pairs (s, s + 1): " + ShardMap.shardMap(
                a -> Collectives.ppermute(a, "stage", up), mesh, P("stage"), P("stage")).apply(idx).gather());
        System.out.println("ppermute of arange(4) one stage down, pairs (s + 1, s): " + ShardMap.shardMap(
                a -> Collectives.ppermute(a, "stage", down), mesh, P("stage"), P("stage")).apply(idx).gather());

        ValueAndGrad<NDArray> vg = Autodiff.<NDArray>valueAndGradList(p -> {
            NDArray a = x.reshape(M * B, D);
            for (int l = 0; l < L; l++) {
                a = a.matmul(p.get(0).index(l)).relu();
            }
            return a.sub(t.reshape(M * B, D)).square().sum().mul(0.5f).div((float) (M * B));
        }).apply(List.of(w));
        NDArray dw = vg.grads().get(0);
        System.out.println("loss (mean over the M·b rows of ½‖y − t‖²): " + vg.value());
        System.out.println("dW[3] (the last stage's layer):");
        System.out.println(dw.index(3));
        System.out.println("dW[0] (the first stage's layer):");
        System.out.println(dw.index(0));
    }

    /** (i mod period − shift) / divisor for i = 0, 1, …, as float32 of the given shape (numpy's arange pattern). */
    static NDArray pattern(int n, int period, int shift, int divisor, int... shape) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = (float) (i % period - shift) / divisor;
        }
        return NDArray.fromFloats(v, shape);
    }

    static String shape(int[] s) {
        StringBuilder sb = new StringBuilder("(");
        for (int i = 0; i < s.length; i++) {
            sb.append(i > 0 ? ", " : "").append(s[i]);
        }
        return sb.append(s.length == 1 ? ",)" : ")").toString();
    }
}
