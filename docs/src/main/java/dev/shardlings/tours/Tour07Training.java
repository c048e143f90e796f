package dev.shardlings.tours;

import dev.shardlings.autodiff.Autodiff;
import dev.shardlings.array.NDArray;
import dev.shardlings.jit.Jit;
import dev.shardlings.jit.Jitted;
import dev.shardlings.nn.Mlp;
import dev.shardlings.random.PRNG;
import dev.shardlings.sharding.AxisType;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.NamedSharding;
import dev.shardlings.sharding.PartitionSpec;
import dev.shardlings.spmd.ShardedArray;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import static dev.shardlings.sharding.PartitionSpec.P;

/**
 * Tour 7 (docs/chapter-6.md): seed 001's neural network trained with {@code jit(grad(loss))} — on one device, 8-way
 * data parallel (parameters replicated, batch split over 'batch') and 4-way data × 2-way tensor parallel (W2 split
 * by columns, W3 by rows over 'model') — at a size this machine trains in a second: layer sizes
 * [64, 128, 128, 128, 10], batch 128, {@code jax.random.key(0)}, 30 SGD steps of 1e-5. The 4×2 runs continue from
 * the 8-way run's parameters, as the notebook does, so their first loss is the 8-way run's last.
 *
 * <p>The notebook's 4×2 code run as written on JAX 0.10.2, where {@code jax.make_mesh} gives Explicit axes, stops
 * at h·W3 (both operands split over 'model' on the contracted dimension) with the ShardingTypeError the tour
 * prints; the two fixes are Auto axes, or an {@code out_sharding} for that one contraction. JAX 0.10.2 printed, for
 * the same program (docs/src/test/resources/jax-checks/seed001_explicit.py): loss 25.058512 before and 22.136683
 * after 30 steps (single device and 8-way); "ShardingTypeError: Contracting dimensions are sharded and it is
 * ambiguous how the output should be sharded. Please specify the output sharding via the `out_sharding` parameter.
 * Got lhs_contracting_spec=('model',) and rhs_contracting_spec=('model',)" for the loss and for its gradient; then,
 * with either fix, 22.136683 before and 19.859161 after 30 more steps (here 19.859163), W2 P(None, 'model') and W3 P('model', None);
 * W1[0,0] = 0x1.975cc8p-6. The last digit may differ: the sums run in another order. XLA also combines the
 * gradients' all-reduces into one tuple all-reduce; here each gradient has its own (the same bytes). Run:
 * {@code mvn -q -pl docs exec:exec -Dtour=Tour07Training}.
 */
public final class Tour07Training {
    static final int[] SIZES = {64, 128, 128, 128, 10};
    static final int BATCH = 128;
    static final int STEPS = 30;
    static final float LR = 1e-5f;

    private Tour07Training() {
    }

    /** A scalar loss of (params, inputs, targets): seed 001's, or one with an out sharding inside. */
    @FunctionalInterface
    interface Loss {
        ShardedArray apply(List<ShardedArray> params, ShardedArray inputs, ShardedArray targets);
    }

    /** The loss and the gradients as two jitted programs of (params…, inputs, targets). */
    private static Jitted lossJit(int n, Loss f) {
        return Jit.jitList(a -> List.of(f.apply(a.subList(0, n), a.get(n), a.get(n + 1)))).named("loss");
    }

    private static Jitted gradJit(int n, Loss f) {
        int[] all = new int[n];
        for (int k = 0; k < n; k++) {
            all[k] = k;
        }
        return Jit.jitList(a -> Autodiff.<ShardedArray>gradList(ps -> f.apply(ps, a.get(n), a.get(n + 1)), all)
                .apply(a.subList(0, n))).named("grad_loss");
    }

    private static Object[] args(List<ShardedArray> params, ShardedArray inputs, ShardedArray targets) {
        List<Object> a = new ArrayList<>(params);
        a.add(inputs);
        a.add(targets);
        return a.toArray();
    }

    private static List<ShardedArray> place(List<NDArray> xs, Mesh mesh, List<PartitionSpec> specs) {
        List<ShardedArray> out = new ArrayList<>();
        for (int k = 0; k < xs.size(); k++) {
            out.add(ShardedArray.devicePut(xs.get(k), new NamedSharding(mesh, specs.get(k))));
        }
        return out;
    }

    /** Trains and prints the loss before and after; returns the trained parameters. */
    private static List<ShardedArray> train(String label, List<ShardedArray> params, ShardedArray inputs,
                                            ShardedArray targets) {
        return train(label, params, inputs, targets, Mlp::loss);
    }

    private static List<ShardedArray> train(String label, List<ShardedArray> params, ShardedArray inputs,
                                            ShardedArray targets, Loss f) {
        int n = params.size();
        Jitted loss = lossJit(n, f);
        Jitted grad = gradJit(n, f);
        System.out.println(label + ": loss before " + loss.call(args(params, inputs, targets)).get(0).gather().item());
        List<ShardedArray> p = params;
        for (int s = 0; s < STEPS; s++) {
            p = Mlp.sgd(p, grad.call(args(p, inputs, targets)), LR);
        }
        System.out.println(label + ": loss after " + STEPS + " steps " + loss.call(args(p, inputs, targets)).get(0)
                .gather().item());
        List<ShardedArray> g = grad.call(args(p, inputs, targets));
        List<String> specs = new ArrayList<>();
        for (ShardedArray x : g) {
            specs.add(x.spec().toString());
        }
        System.out.println(label + ": gradient shardings " + specs);
        System.out.println(label + ": collectives of one gradient step");
        grad.lower(args(p, inputs, targets)).asText().lines()
                .filter(l -> l.contains("all-") || l.contains("reduce-scatter") || l.contains("collective-permute"))
                .forEach(l -> System.out.println("  " + l.trim()));
        return p;
    }

    /** Prints the three trainings. */
    public static void main(String[] args) {
        Mlp.Model m = Mlp.init(PRNG.key(0), SIZES, BATCH);
        System.out.println("== seed 001's MLP: layer sizes [64, 128, 128, 128, 10], batch " + BATCH + ", key(0)");
        System.out.println("W1[0,0] = " + Float.toHexString(m.params().get(0).floatAt(0, 0))
                + " (JAX's PRNG, bit for bit)");

        System.out.println();
        Mesh one = Mesh.makeMesh(new int[] {1}, new String[] {"d"}, AxisType.AUTO);
        train("single device", place(m.params(), one, Collections.nCopies(8, P())),
                ShardedArray.devicePut(m.inputs(), new NamedSharding(one, P())),
                ShardedArray.devicePut(m.targets(), new NamedSharding(one, P())));

        System.out.println();
        // the notebook's meshes are Auto axes; jax.make_mesh gives Explicit ones in JAX 0.10.2, so ask for Auto
        Mesh dp = Mesh.makeMesh(new int[] {8}, new String[] {"batch"}, AxisType.AUTO);
        System.out.println("== 8-way batch data parallelism (" + dp + ")");
        ShardedArray in8 = ShardedArray.devicePut(m.inputs(), new NamedSharding(dp, P("batch")));
        System.out.println("inputs:");
        System.out.print(in8.visualize());
        List<ShardedArray> dpTrained = train("8-way data parallel", place(m.params(), dp,
                Collections.nCopies(8, P())), in8, ShardedArray.devicePut(m.targets(), new NamedSharding(dp, P("batch"))));
        List<NDArray> fromDp = new ArrayList<>();
        for (ShardedArray x : dpTrained) {
            fromDp.add(x.gather());
        }

        System.out.println();
        // the notebook's code as written: make_mesh's axes are Explicit, so every operation's output sharding is
        // part of its type, and h·W3 contracts a dimension both operands split over 'model'
        Mesh explicit = Mesh.makeMesh(new int[] {4, 2}, new String[] {"batch", "model"});
        System.out.println("== the notebook's 4x2 code as written (" + explicit + ", axis types ("
                + String.join(", ", explicit.axisTypes().stream().map(AxisType::jaxName).toList()) + "))");
        List<ShardedArray> asWritten = place(fromDp, explicit, TENSOR_PARALLEL);
        ShardedArray inX = ShardedArray.devicePut(m.inputs(), new NamedSharding(explicit, P("batch", null)));
        ShardedArray tgX = ShardedArray.devicePut(m.targets(), new NamedSharding(explicit, P("batch", null)));
        tryRun("loss_jit(params, batch)", lossJit(asWritten.size(), Mlp::loss), args(asWritten, inX, tgX));
        tryRun("gradfun(params, batch)", gradJit(asWritten.size(), Mlp::loss), args(asWritten, inX, tgX));

        System.out.println();
        Mesh tp = Mesh.makeMesh(new int[] {4, 2}, new String[] {"batch", "model"}, AxisType.AUTO, AxisType.AUTO);
        System.out.println("== fix 1: Auto axes, the compiler chooses h·W3's output (" + tp + ")");
        System.out.println("   4-way batch data parallelism and 2-way model tensor parallelism, from the 8-way"
                + " run's parameters");
        List<ShardedArray> trained = train("4x2 Auto", place(fromDp, tp, TENSOR_PARALLEL),
                ShardedArray.devicePut(m.inputs(), new NamedSharding(tp, P("batch", null))),
                ShardedArray.devicePut(m.targets(), new NamedSharding(tp, P("batch", null))));
        System.out.println("W2 after training: " + trained.get(2).spec());
        System.out.print(trained.get(2).visualize());
        System.out.println("W3 after training: " + trained.get(4).spec());
        System.out.print(trained.get(4).visualize());

        System.out.println();
        System.out.println("== fix 2: Explicit axes, h·W3 given its output sharding P('batch', None)");
        List<ShardedArray> typed = train("4x2 Explicit", asWritten, inX, tgX, Tour07Training::lossWithOutSharding);
        System.out.println("W2 after training: " + typed.get(2).spec() + ", W3 after training: "
                + typed.get(4).spec());
    }

    /** Calls a program the tour expects to fail, and prints its error as JAX prints it. */
    private static void tryRun(String label, Jitted f, Object[] args) {
        try {
            f.call(args);
            System.out.println(label + ": no error");
        } catch (RuntimeException e) {
            System.out.println(label + ": " + e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }

    /** 6.2's layouts: W2 by columns, b2 with them, W3 by rows over 'model'; the rest replicated. */
    private static final List<PartitionSpec> TENSOR_PARALLEL = List.of(P(), P(), P(null, "model"), P("model"),
            P("model", null), P(), P(), P());

    /**
     * Seed 001's loss with the third layer's product typed: its contracted dimension is split over 'model' on
     * both operands, so on Explicit axes the program says where the sum goes (rows over 'batch', columns whole),
     * as {@code jnp.dot(h, W3, out_sharding=...)} does.
     */
    private static ShardedArray lossWithOutSharding(List<ShardedArray> params, ShardedArray inputs,
                                                    ShardedArray targets) {
        ShardedArray x = inputs;
        ShardedArray outputs = null;
        for (int l = 0; l < params.size(); l += 2) {
            ShardedArray product = l == 4 ? x.matmul(params.get(l), P("batch", null)) : x.matmul(params.get(l));
            outputs = product.add(params.get(l + 1));
            x = outputs.maximum(0);
        }
        return outputs.sub(targets).square().sum(-1).mean();
    }
}
