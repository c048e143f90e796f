package dev.shardlings.tours;

import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.autodiff.Autodiff;
import dev.shardlings.events.CollectiveParams;
import dev.shardlings.events.TraceEvent;
import dev.shardlings.events.Tracing;
import dev.shardlings.nn.Adam;
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
 * Tour 11 (docs/chapter-7.md, part 7.4): the layer y = relu(X·W) with the loss (1/B)·Σ_rows ½‖y − T‖², W f32[4, 4],
 * X and T f32[16, 4] split over ('data': 4). Gradient accumulation: each device sums the gradients of its two
 * microbatches of two rows, then one psum over 'data' (device 0's sum, dW, and dW against the big-batch gradient).
 * ZeRO-1: one step of {@code optax.adam(0.125)} with the state sharded over 'data' — the psum_scatter'd gradient
 * shard, mu and nu on each device, and W after the all-gather, against optax on the whole arrays. Each part prints
 * device 0's collectives with their block shapes and bytes. Both programs are written here as shardMaps; Adam is the
 * framework's {@link Adam}, which computes as optax does. The gradients have few bits, so float32 computes them
 * exactly in any order; W after the step is printed to 6 decimals, since XLA fuses the jitted update and its last
 * bit can differ. JAX 0.10.2 and optax 0.2.8 print the same lines for the same programs
 * (docs/src/test/resources/jax-checks/tour11_zero.py). Run: {@code mvn -q -pl docs exec:exec -Dtour=Tour11Zero}.
 */
public final class Tour11Zero {

    private static final int N = 4;
    private static final int B = 16;
    private static final int D = 4;
    private static final int F = 4;
    private static final int M = 2;
    private static final float LR = 0.125f;

    private Tour11Zero() {
    }

    /** Prints the accumulated gradient and the ZeRO-1 step. */
    public static void main(String[] args) {
        NDArray w = Tour08Pipeline.pattern(D * F, 7, 3, 4, D, F);
        NDArray x = Tour08Pipeline.pattern(B * D, 5, 2, 2, B, D);
        NDArray t = Tour08Pipeline.pattern(B * F, 3, 1, 2, B, F);
        Mesh mesh = Mesh.makeMesh(new int[]{N}, new String[]{"data"}, AxisType.AUTO);
        System.out.println("mesh ('data': 4)");
        ShardedArray sw = place("W", w, mesh, P());
        ShardedArray sx = place("X", x, mesh, P("data"));
        ShardedArray st = place("T", t, mesh, P("data"));
        NDArray big = Autodiff.<NDArray>gradList(p -> x.matmul(p.get(0)).relu().sub(t).square().mul(0.5f).sum()
                .div((float) B)).apply(List.of(w)).get(0);

        System.out.println("gradient accumulation, " + M + " microbatches of " + B / N / M
                + " rows per device; collectives on device 0:");
        Tracing.Traced<List<ShardedArray>> acc = Tracing.record(() -> ShardMap.shardMap(b -> {
            int r = b.get(1).shape(0) / M;
            NDArray g = NDArray.zeros(DType.FLOAT32, D, F);
            for (int m = 0; m < M; m++) {
                g = g.add(localGrad(b.get(0), b.get(1).slice(0, m * r, (m + 1) * r),
                        b.get(2).slice(0, m * r, (m + 1) * r)));
            }
            // one reduction of the sum, and the mean's 1/B once
            return List.of(Collectives.psum(g, "data").div((float) B), g.expandDims(0));
        }, mesh, List.of(P(), P("data"), P("data")), List.of(P(), P("data"))).call(sw, sx, st));
        printCollectives(acc);
        System.out.println("device 0's sum of its microbatch gradients:");
        System.out.println(acc.value().get(1).gather().index(0));
        ShardedArray dw = acc.value().get(0);
        System.out.println("dW = psum(sums) / B, laid out " + dw.spec());
        System.out.println(dw.gather());
        System.out.println("equal to the big-batch gradient: " + bool(dw.gather().allclose(big)));

        Adam adam = Adam.of(LR);
        System.out.println("ZeRO-1: one optax.adam(" + LR + ") step; collectives on device 0:");
        Tracing.Traced<List<ShardedArray>> zero = Tracing.record(() -> ShardMap.shardMap(b -> {
            // each device receives the summed gradient of the rows of W it owns: the rows its mu and nu cover
            NDArray g = Collectives.psumScatter(localGrad(b.get(0), b.get(1), b.get(2)), "data", 0, Tiling.TILED)
                    .div((float) B);
            int rows = g.shape(0);
            int me = Collectives.axisIndex("data").intAt();
            NDArray own = b.get(0).slice(0, me * rows, (me + 1) * rows);
            Adam.Update<NDArray> u = adam.update(List.of(g), adam.init(List.of(own)));
            NDArray updated = Adam.applyUpdates(List.of(own), u.updates()).get(0);
            // W' is the same on every device, so out spec P() may leave 'data' out: the invariant all-gather
            return List.of(Collectives.allGatherInvariant(updated, "data", 0, Tiling.TILED), g,
                    u.state().mu().get(0), u.state().nu().get(0));
        }, mesh, List.of(P(), P("data"), P("data")), List.of(P(), P("data"), P("data"), P("data")))
                .call(sw, sx, st));
        printCollectives(zero);
        List<ShardedArray> out = zero.value();
        String[] names = {"gradient shard", "mu", "nu"};
        for (int i = 0; i < names.length; i++) {
            ShardedArray a = out.get(i + 1);
            System.out.println(names[i] + " " + a.spec() + " on each device:");
            for (ShardedArray.Shard s : a.addressableShards()) {
                System.out.println("  device " + s.device().id() + ": " + s.data());
            }
        }
        // XLA fuses the jitted update, so its last bit can differ from the framework's op-by-op float32: 6 decimals
        System.out.println("W after the step, all-gathered, " + out.get(0).spec() + ", W · 10^6 rounded to integers:");
        System.out.println(out.get(0).gather().mul(1e6f).add(0.5f).floorDiv(1f).astype(DType.INT32));
        Adam.Update<NDArray> whole = adam.update(List.of(big), adam.init(List.of(w)));
        System.out.println("equal to optax on the whole arrays: W "
                + bool(Adam.applyUpdates(List.of(w), whole.updates()).get(0).allclose(out.get(0).gather()))
                + " mu " + bool(whole.state().mu().get(0).allclose(out.get(2).gather()))
                + " nu " + bool(whole.state().nu().get(0).allclose(out.get(3).gather(), 1e-6, 0)));
    }

    /** Σ over the rows of x of the gradient of ½‖relu(x·w) − t‖², f32[D, F]. */
    private static NDArray localGrad(NDArray w, NDArray x, NDArray t) {
        NDArray y = x.matmul(w).relu();
        return x.matmul(true, NDArray.where(y.greater(0), y.sub(t), 0.0), false);
    }

    private static void printCollectives(Tracing.Traced<?> run) {
        for (TraceEvent.CollectiveEvent c : run.trace().shardMaps().get(0).devices().get(0).collectives()) {
            boolean invariant = c.params() instanceof CollectiveParams.AllGather g && g.invariant();
            System.out.println("  " + c.kind().jaxName() + (invariant ? "_invariant" : "") + " over "
                    + c.axes().stream().map(a -> "'" + a + "'").collect(Collectors.joining(", ", "(", ",)")) + ": "
                    + type(c.inputShape()) + " -> " + type(c.outputShape()) + ", " + c.bytesSent() + " bytes");
        }
    }

    private static String type(List<Integer> shape) {
        return shape.stream().map(String::valueOf).collect(Collectors.joining(",", "float32[", "]"));
    }

    private static String bool(boolean b) {
        return b ? "True" : "False";
    }

    private static ShardedArray place(String name, NDArray a, Mesh mesh, PartitionSpec spec) {
        ShardedArray s = ShardedArray.devicePut(a, mesh, spec);
        System.out.println(name + " " + a.dtype().jaxName() + " " + Tour08Pipeline.shape(a.shape()) + " " + spec
                + " each device holds " + Tour08Pipeline.shape(s.sharding().shardShape(s.shape())));
        return s;
    }
}
