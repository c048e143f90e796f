package dev.shardlings.tours;

import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.autodiff.Autodiff;
import dev.shardlings.autodiff.ValueAndGrad;
import dev.shardlings.events.TraceEvent;
import dev.shardlings.events.Tracing;
import dev.shardlings.sharding.AxisType;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.spmd.Collectives;
import dev.shardlings.spmd.ShardMap;
import dev.shardlings.spmd.ShardedArray;
import dev.shardlings.spmd.Tiling;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.List;
import java.util.stream.Collectors;

import static dev.shardlings.sharding.PartitionSpec.P;

/**
 * Tour 12 (docs/chapter-7.md, part 7.5): one SGD step of y = relu(X·W1)·W2 with the loss (1/B)·Σ_rows ½‖y − T‖² on
 * ('data': 4), the f32 masters W1 f32[D_data, H] and W2 f32[H_data, F] and the batch X f32[B_data, D], T
 * f32[B_data, F] all laid out P('data'), with D = 4, H = 8, F = 4, B = 8. The step runs twice as a shardMap: in mixed
 * precision (the bfloat16 copies of the blocks all-gathered, both matmuls on bfloat16 operands accumulating in
 * float32, the gradients of the gathered copies widened to float32 before their psum_scatter, W − lr·dW on the f32
 * masters) and with float32 in place of bfloat16. For each it prints device 0's collectives with their dtypes and
 * bytes (the all-gathers halve, the reductions do not), then both losses, a master row beside the bfloat16 copy the
 * matmuls read, and the first rows of W1' and W2' from both steps. Losses and weights are printed to 6 decimals
 * (exact decimal rounding, half to even), since XLA fuses the jitted step and the last bit of its sums can differ.
 * JAX 0.10.2 prints the same lines for the same program (docs/src/test/resources/jax-checks/tour12_mixed_precision.py).
 * Run: {@code mvn -q -pl docs exec:exec -Dtour=Tour12MixedPrecision}.
 */
public final class Tour12MixedPrecision {

    private static final int N = 4;
    private static final int B = 8;
    private static final int D = 4;
    private static final int H = 8;
    private static final int F = 4;
    private static final float LR = 0.0625f;

    private Tour12MixedPrecision() {
    }

    /** Prints both steps' collectives, their losses and the first rows of their weights. */
    public static void main(String[] args) {
        NDArray w1 = masters(D * H, 4099, 77, D, H);
        NDArray w2 = masters(H * F, 2731, 5003, H, F);
        NDArray x = sixteenths(B * D, 5, 3, B, D);
        NDArray t = sixteenths(B * F, 7, 11, B, F);
        Mesh mesh = Mesh.makeMesh(new int[]{N}, new String[]{"data"}, AxisType.AUTO);
        System.out.println("mesh ('data': 4)");
        List<ShardedArray> placed = List.of(place("W1", w1, mesh), place("W2", w2, mesh), place("X", x, mesh),
                place("T", t, mesh));

        Tracing.Traced<List<ShardedArray>> mixed = run("mixed precision", DType.BFLOAT16, mesh, placed);
        Tracing.Traced<List<ShardedArray>> full = run("all float32", DType.FLOAT32, mesh, placed);
        List<ShardedArray> m = mixed.value();
        List<ShardedArray> f = full.value();
        System.out.println("loss: mixed precision " + fixed(m.get(0).gather().item()) + " all float32 "
                + fixed(f.get(0).gather().item()));
        System.out.println("W1 row 0: the f32 master and its bf16 copy, what the matmuls read");
        System.out.println("  master " + row(w1.index(0)));
        System.out.println("  bf16   " + row(w1.index(0).astype(DType.BFLOAT16).astype(DType.FLOAT32)));
        System.out.println("W1' row 0 after the step, laid out " + m.get(1).spec());
        System.out.println("  mixed precision " + row(m.get(1).gather().index(0)));
        System.out.println("  all float32     " + row(f.get(1).gather().index(0)));
        System.out.println("W2' row 0 after the step, laid out " + m.get(2).spec());
        System.out.println("  mixed precision " + row(m.get(2).gather().index(0)));
        System.out.println("  all float32     " + row(f.get(2).gather().index(0)));
        System.out.println("the masters stay float32: " + m.get(1).dtype().jaxName() + " "
                + m.get(2).dtype().jaxName());
    }

    /** One step computing in {@code low} (bfloat16, or float32 for the all-f32 step); prints its collectives. */
    private static Tracing.Traced<List<ShardedArray>> run(String label, DType low, Mesh mesh,
                                                          List<ShardedArray> args) {
        System.out.println(label + " step, lr " + LR + "; collectives on device 0:");
        Tracing.Traced<List<ShardedArray>> run = Tracing.record(() -> ShardMap.shardMap(b -> {
            NDArray tb = b.get(3);
            int batch = Collectives.axisSize("data") * tb.shape(0);
            // the low-precision copies travel, not the masters
            NDArray w1b = Collectives.allGather(b.get(0).astype(low), "data", 0, Tiling.TILED);
            NDArray w2b = Collectives.allGather(b.get(1).astype(low), "data", 0, Tiling.TILED);
            NDArray xb = b.get(2).astype(low);
            ValueAndGrad<NDArray> vg = Autodiff.<NDArray>valueAndGradList(p -> {
                NDArray h = xb.matmul(p.get(0), DType.FLOAT32).relu().astype(low);
                NDArray y = h.matmul(p.get(1), DType.FLOAT32);
                return y.sub(tb).square().sum().mul(0.5f / batch);
            }, 0, 1).apply(List.of(w1b, w2b));
            // widened before the sum over devices
            NDArray g1 = Collectives.psumScatter(vg.grads().get(0).astype(DType.FLOAT32), "data", 0, Tiling.TILED);
            NDArray g2 = Collectives.psumScatter(vg.grads().get(1).astype(DType.FLOAT32), "data", 0, Tiling.TILED);
            NDArray loss = Collectives.psum(vg.value(), "data");
            return List.of(loss, b.get(0).sub(g1.mul(LR)), b.get(1).sub(g2.mul(LR)));
        }, mesh, List.of(P("data"), P("data"), P("data"), P("data")), List.of(P(), P("data"), P("data")))
                .call(args));
        long total = 0;
        for (TraceEvent.CollectiveEvent c : run.trace().shardMaps().get(0).devices().get(0).collectives()) {
            System.out.println("  " + c.kind().jaxName() + " over ('" + String.join("', '", c.axes()) + "',): "
                    + type(c.dtype(), c.inputShape()) + " -> " + type(c.dtype(), c.outputShape()) + ", "
                    + c.bytesSent() + " bytes");
            total += c.bytesSent();
        }
        System.out.println("  bytes sent by device 0: " + total);
        return run;
    }

    /** Multiples of 1/8192 in [−1, 1): many significant bits, so the bf16 copies visibly differ from the masters. */
    private static NDArray masters(int n, int a, int b, int... shape) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = (float) ((a * i + b) % 16383 - 8191) / 8192;
        }
        return NDArray.fromFloats(v, shape);
    }

    /** Multiples of 1/16 in [−1/2, 1/2]. */
    private static NDArray sixteenths(int n, int a, int b, int... shape) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = (float) ((a * i + b) % 17 - 8) / 16;
        }
        return NDArray.fromFloats(v, shape);
    }

    private static String type(DType dtype, List<Integer> shape) {
        return shape.stream().map(String::valueOf).collect(Collectors.joining(",", dtype.jaxName() + "[", "]"));
    }

    /** The float to 6 decimals, as Python's Decimal rounds it: exact value, half to even. */
    private static String fixed(float v) {
        return new BigDecimal(v).setScale(6, RoundingMode.HALF_EVEN).toPlainString();
    }

    private static String row(NDArray a) {
        StringBuilder sb = new StringBuilder("[");
        float[] v = a.toFloatArray();
        for (int i = 0; i < v.length; i++) {
            sb.append(i > 0 ? ", " : "").append(fixed(v[i]));
        }
        return sb.append(']').toString();
    }

    private static ShardedArray place(String name, NDArray a, Mesh mesh) {
        ShardedArray s = ShardedArray.devicePut(a, mesh, P("data"));
        System.out.println(name + " " + a.dtype().jaxName() + " " + Tour08Pipeline.shape(a.shape()) + " " + s.spec()
                + " each device holds " + Tour08Pipeline.shape(s.sharding().shardShape(s.shape())));
        return s;
    }
}
