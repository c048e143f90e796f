package dev.shardlings.tours;

import dev.shardlings.array.NDArray;
import dev.shardlings.autodiff.Autodiff;
import dev.shardlings.autodiff.ValueAndGrad;
import dev.shardlings.events.TraceEvent;
import dev.shardlings.events.Tracing;
import dev.shardlings.sharding.AxisType;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.PartitionSpec;
import dev.shardlings.spmd.Collectives;
import dev.shardlings.spmd.ShardMap;
import dev.shardlings.spmd.ShardedArray;
import dev.shardlings.spmd.Tiling;

import java.util.List;
import java.util.stream.Collectors;

import static dev.shardlings.sharding.PartitionSpec.P;

/**
 * Tour 9 (docs/chapter-7.md, part 7.1): the 2-D FSDP × tensor-parallel layout at a size that prints — the MLP block
 * Y = relu(X·W1)·W2 with X, T f32[8, 4], W1 f32[4, 8] and W2 f32[8, 4] on ('data': 2, 'model': 2). It prints how
 * each weight is laid out (W1[D_data, F_model], W2[F_model, D_data], and the course's picture of it), the
 * collectives device 0 runs in one SGD step written with shardMap (the two all-gathers over 'data', the psum of Y
 * over 'model', the two reduce-scatters over 'data' the autodiff makes of the gathers, the psum of the loss), each
 * with its block shapes and the bytes a device sends, then the loss, the gradient of W1 and the weights after
 * the step, and whether the gradient equals the single-device one. The values have few bits (multiples of 1/4 and
 * 1/2), so float32 computes them exactly in any order. JAX 0.10.2 prints the same lines for the same program
 * (docs/src/test/resources/jax-checks/tour09_fsdp_tp.py) except the pictures: the venv has no {@code rich}, which
 * {@code jax.debug.visualize_array_sharding} needs. Run: {@code mvn -q -pl docs exec:exec -Dtour=Tour09FsdpTp}.
 */
public final class Tour09FsdpTp {

    private static final int B = 8;
    private static final int D = 4;
    private static final int F = 8;
    private static final float LR = 0.5f;

    private Tour09FsdpTp() {
    }

    /** Prints the layout, the collectives of one step and its values. */
    public static void main(String[] args) {
        NDArray x = Tour08Pipeline.pattern(B * D, 5, 2, 2, B, D);
        NDArray t = Tour08Pipeline.pattern(B * D, 3, 1, 2, B, D);
        NDArray w1 = Tour08Pipeline.pattern(D * F, 7, 3, 4, D, F);
        NDArray w2 = Tour08Pipeline.pattern(F * D, 5, 2, 4, F, D);
        Mesh mesh = Mesh.makeMesh(new int[]{2, 2}, new String[]{"data", "model"},
                AxisType.AUTO, AxisType.AUTO);
        System.out.println("mesh ('data': 2, 'model': 2)");
        ShardedArray sw1 = place("W1", w1, mesh, P("data", "model"));
        ShardedArray sw2 = place("W2", w2, mesh, P("model", "data"));
        ShardedArray sx = place("X", x, mesh, P("data", null));
        ShardedArray st = ShardedArray.devicePut(t, mesh, P("data", null));

        Tracing.Traced<List<ShardedArray>> run = Tracing.record(() -> ShardMap.shardMap(b -> {
            int rows = Collectives.axisSize("data");
            ValueAndGrad<NDArray> vg = Autodiff.<NDArray>valueAndGradList(w -> {
                NDArray w1g = Collectives.allGather(w.get(0), "data", 0, Tiling.TILED);
                NDArray w2g = Collectives.allGather(w.get(1), "data", 1, Tiling.TILED);
                NDArray y = Collectives.psum(b.get(0).matmul(w1g).relu().matmul(w2g), "model");
                // each 'data' row of devices sees 1/rows of the batch: the reduce-scatter then sums to the mean's
                return y.sub(b.get(1)).square().sum(-1).mean().div(rows);
            }).apply(List.of(b.get(2), b.get(3)));
            NDArray g1 = vg.grads().get(0);
            NDArray g2 = vg.grads().get(1);
            return List.of(Collectives.psum(vg.value(), "data"), g1, b.get(2).sub(g1.mul(LR)),
                    b.get(3).sub(g2.mul(LR)));
        }, mesh, List.of(P("data", null), P("data", null), P("data", "model"), P("model", "data")),
                List.of(P(), P("data", "model"), P("data", "model"), P("model", "data")))
                .named("fsdp_tp_step").call(List.of(sx, st, sw1, sw2)));

        System.out.println("collectives of one step on device 0 (bytes sent per device):");
        for (TraceEvent.CollectiveEvent c : run.trace().shardMaps().get(0).devices().get(0).collectives()) {
            System.out.println("  " + c.kind().jaxName() + " over " + axes(c.axes()) + ": "
                    + type(c.inputShape()) + " -> " + type(c.outputShape()) + ", " + c.bytesSent() + " bytes");
        }
        List<ShardedArray> out = run.value();
        System.out.println("loss: " + out.get(0).gather());
        NDArray dw1 = out.get(1).gather();
        System.out.println("dW1 (gathered):");
        System.out.println(dw1);
        System.out.println("W1 after the step:");
        System.out.println(out.get(2).gather());
        System.out.println("W2 after the step:");
        System.out.println(out.get(3).gather());

        ValueAndGrad<NDArray> whole = Autodiff.<NDArray>valueAndGradList(w -> x.matmul(w.get(0)).relu()
                .matmul(w.get(1)).sub(t).square().sum(-1).mean()).apply(List.of(w1, w2));
        System.out.println("single device: loss " + whole.value() + " dW1 equal: "
                + (whole.grads().get(0).allclose(dw1) ? "True" : "False"));
    }

    private static ShardedArray place(String name, NDArray a, Mesh mesh, PartitionSpec spec) {
        ShardedArray s = ShardedArray.devicePut(a, mesh, spec);
        System.out.println(name + " " + a.dtype().jaxName() + " " + Tour08Pipeline.shape(a.shape()) + " " + spec
                + " each device holds " + Tour08Pipeline.shape(s.sharding().shardShape(s.shape())));
        System.out.print(s.visualize());
        return s;
    }

    private static String axes(List<String> axes) {
        return axes.stream().map(a -> "'" + a + "'").collect(Collectors.joining(", ", "(",
                axes.size() == 1 ? ",)" : ")"));
    }

    /** A block's type as a jaxpr prints it: float32[4,2]. */
    private static String type(List<Integer> shape) {
        return shape.stream().map(String::valueOf).collect(Collectors.joining(",", "float32[", "]"));
    }
}
