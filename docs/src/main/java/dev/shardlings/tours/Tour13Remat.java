package dev.shardlings.tours;

import dev.shardlings.array.NDArray;
import dev.shardlings.autodiff.Autodiff;
import dev.shardlings.autodiff.Checkpoint;
import dev.shardlings.autodiff.ValueAndGrad;
import dev.shardlings.events.DeviceTrace;
import dev.shardlings.events.Tracing;
import dev.shardlings.sharding.AxisType;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.PartitionSpec;
import dev.shardlings.spmd.Collectives;
import dev.shardlings.spmd.ShardMap;
import dev.shardlings.spmd.ShardedArray;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.function.Function;

import static dev.shardlings.sharding.PartitionSpec.P;

/**
 * Tour 13 (docs/chapter-7.md, part 7.6): one data-parallel step of L = 3 layers h_l = relu(h_{l−1}·W_l), W_l f32[4, 4]
 * laid out P(), X and T f32[8_data, 4] on ('data': 4), the loss (1/B)·Σ_rows ½‖h_L − T‖², differentiated with
 * {@link Autodiff} on each device — once plainly and once with each layer wrapped in {@link Checkpoint#checkpointList}
 * ({@code jax.checkpoint}). For each it prints what device 0's trace says: the most bytes its tapes held at once
 * ({@link DeviceTrace#peakResidualBytes}) and its matmul FLOPs, with the share the vjp rules ran
 * ({@link DeviceTrace#pullbackFlops}) and the share recomputed ({@link DeviceTrace#recomputedFlops}); then the loss,
 * dW_L and that both steps give the same values bit for bit. With r = 2 rows per device an activation f32[2, 4] is
 * a = 32 bytes: the plain tapes hold (2L + 2)·a and three scalars, the checkpointed ones (L + 4)·a and three scalars,
 * for one forward matmul more per layer. JAX 0.10.2 prints the same lines for the same program
 * (docs/src/test/resources/jax-checks/tour13_remat.py; the FLOPs are counted from its jaxpr, the peak bytes are the
 * framework's model, which the script explains). Run: {@code mvn -q -pl docs exec:exec -Dtour=Tour13Remat}.
 */
public final class Tour13Remat {

    private static final int N = 4;
    private static final int L = 3;
    private static final int B = 8;
    private static final int D = 4;

    private Tour13Remat() {
    }

    /** Prints both steps' memory and FLOPs, then their loss and last gradient. */
    public static void main(String[] args) {
        Mesh mesh = Mesh.makeMesh(new int[]{N}, new String[]{"data"}, AxisType.AUTO);
        System.out.println("mesh ('data': 4), L = " + L + " layers");
        List<ShardedArray> in = new ArrayList<>();
        for (int l = 0; l < L; l++) {
            NDArray w = sixteenths(D * D, 3 + 2 * l, 13 + l, D, D);
            in.add(l == 0 ? place("W_l", w, mesh, P()) : ShardedArray.devicePut(w, mesh, P()));
        }
        in.add(place("X", sixteenths(B * D, 7, 3, B, D), mesh, P("data")));
        in.add(place("T", sixteenths(B * D, 5, 11, B, D), mesh, P("data")));

        List<ShardedArray> plain = run(false, mesh, in);
        List<ShardedArray> remat = run(true, mesh, in);
        System.out.println("loss " + fixed(remat.get(0).gather().item()) + " laid out " + remat.get(0).spec());
        ShardedArray last = remat.get(L);
        System.out.println("dW_L with checkpoint, laid out " + last.spec());
        NDArray g = last.gather();
        for (int i = 0; i < D; i++) {
            StringBuilder sb = new StringBuilder("  [");
            float[] row = g.index(i).toFloatArray();
            for (int j = 0; j < row.length; j++) {
                sb.append(j > 0 ? ", " : "").append(fixed(row[j]));
            }
            System.out.println(sb.append(']'));
        }
        boolean gradients = true;
        for (int l = 1; l <= L; l++) {
            gradients &= same(plain.get(l), remat.get(l));
        }
        System.out.println("equal without checkpoint: loss " + bool(same(plain.get(0), remat.get(0)))
                + " gradients " + bool(gradients));
    }

    /** The step, each layer checkpointed or not; prints device 0's tape memory and matmul FLOPs. */
    private static List<ShardedArray> run(boolean checkpointed, Mesh mesh, List<ShardedArray> args) {
        Function<List<NDArray>, List<NDArray>> plainLayer = a -> List.of(a.get(0).matmul(a.get(1)).relu());
        Function<List<NDArray>, List<NDArray>> layer = checkpointed ? Checkpoint.checkpointList(plainLayer)
                : plainLayer;
        int[] weights = new int[L];
        Arrays.setAll(weights, l -> l);
        List<PartitionSpec> inSpecs = new ArrayList<>(Collections.nCopies(L, P()));
        inSpecs.add(P("data"));
        inSpecs.add(P("data"));
        Tracing.Traced<List<ShardedArray>> run = Tracing.record(() -> ShardMap.shardMap(b -> {
            int batch = Collectives.axisSize("data") * b.get(L).shape(0);
            ValueAndGrad<NDArray> step = Autodiff.<NDArray>valueAndGradList(xs -> {
                NDArray h = xs.get(L);
                for (int l = 0; l < L; l++) {
                    h = layer.apply(List.of(h, xs.get(l))).get(0);
                }
                return h.sub(xs.get(L + 1)).square().sum().mul(0.5f / batch);
            }, weights).apply(b);
            List<NDArray> out = new ArrayList<>();
            out.add(Collectives.psum(step.value(), "data"));
            // the W_l are invariant over 'data': Autodiff psums their cotangents as it pulls them back
            out.addAll(step.grads());
            return out;
        }, mesh, inSpecs, Collections.nCopies(L + 1, P())).call(args));
        DeviceTrace d0 = run.trace().shardMaps().get(0).devices().get(0);
        System.out.println(checkpointed ? "with jax.checkpoint around each layer:" : "without checkpoint:");
        System.out.println("  peak bytes held by device 0's tapes: " + d0.peakResidualBytes());
        System.out.println("  matmul FLOPs on device 0: " + d0.flops() + " of which the backward pass's vjp rules "
                + d0.pullbackFlops() + " and recomputed " + d0.recomputedFlops());
        return run.value();
    }

    private static boolean same(ShardedArray a, ShardedArray b) {
        return Arrays.equals(a.gather().toFloatArray(), b.gather().toFloatArray());
    }

    /** Multiples of 1/16 in [−1/2, 1/2]. */
    private static NDArray sixteenths(int n, int a, int b, int... shape) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = (float) ((a * i + b) % 17 - 8) / 16;
        }
        return NDArray.fromFloats(v, shape);
    }

    /** The float to 6 decimals, as Python's Decimal rounds it: exact value, half to even. */
    private static String fixed(float v) {
        return new BigDecimal(v).setScale(6, RoundingMode.HALF_EVEN).toPlainString();
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
