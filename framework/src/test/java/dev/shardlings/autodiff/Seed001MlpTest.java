package dev.shardlings.autodiff;

import dev.shardlings.array.NDArray;
import dev.shardlings.jit.Compiled;
import dev.shardlings.jit.Jit;
import dev.shardlings.jit.Jitted;
import dev.shardlings.random.PRNG;
import dev.shardlings.sharding.AxisType;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.NamedSharding;
import dev.shardlings.sharding.PartitionSpec;
import dev.shardlings.spmd.ShardedArray;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static dev.shardlings.sharding.PartitionSpec.P;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Seed 001's MLP at [64, 128, 128, 128, 10], batch 128, jax.random.key(0): the losses JAX 0.10.2 printed before and
 * after 30 SGD steps of 1e-5, single device, 8-way data parallel and 4×2 data × tensor parallel (Auto axes, as the
 * notebook's meshes were), and the gradients' shardings JAX gave.
 */
class Seed001MlpTest {
    static final int[] SIZES = {64, 128, 128, 128, 10};

    /** params [W1, b1, …, W4, b4], then inputs and targets, as init_model makes them. */
    static List<NDArray> init(PRNG.Key key, int[] sizes, int batch) {
        PRNG.Key[] ks = PRNG.split(key, sizes.length);
        List<NDArray> out = new ArrayList<>();
        for (int l = 0; l < sizes.length - 1; l++) {
            PRNG.Key[] k12 = PRNG.split(ks[l + 1]);
            out.add(PRNG.normal(k12[0], sizes[l], sizes[l + 1]).div((float) Math.sqrt(sizes[l])));
            out.add(PRNG.normal(k12[1], sizes[l + 1]));
        }
        PRNG.Key[] kb = PRNG.split(ks[0], 3);
        out.add(PRNG.normal(kb[1], batch, sizes[0]));
        out.add(PRNG.normal(kb[2], batch, sizes[sizes.length - 1]));
        return out;
    }

    static ShardedArray loss(List<ShardedArray> params, ShardedArray inputs, ShardedArray targets) {
        ShardedArray x = inputs;
        ShardedArray outputs = null;
        for (int l = 0; l < params.size(); l += 2) {
            outputs = x.matmul(params.get(l)).add(params.get(l + 1));
            x = outputs.maximum(0);
        }
        return outputs.sub(targets).square().sum(-1).mean();
    }

    static Jitted gradfun(int nParams) {
        return Jit.jitList(a -> Autodiff.<ShardedArray>gradList(
                ps -> loss(ps, a.get(nParams), a.get(nParams + 1)), range(nParams)).apply(a.subList(0, nParams)));
    }

    static Jitted lossJit(int nParams) {
        return Jit.jitList(a -> List.of(loss(a.subList(0, nParams), a.get(nParams), a.get(nParams + 1))));
    }

    static int[] range(int n) {
        int[] r = new int[n];
        for (int k = 0; k < n; k++) {
            r[k] = k;
        }
        return r;
    }

    static float train(List<ShardedArray> params, ShardedArray inputs, ShardedArray targets, int steps, List<ShardedArray> last) {
        Jitted g = gradfun(params.size());
        List<ShardedArray> p = new ArrayList<>(params);
        for (int s = 0; s < steps; s++) {
            List<Object> args = new ArrayList<>(p);
            args.add(inputs);
            args.add(targets);
            List<ShardedArray> grads = g.call(args.toArray());
            for (int k = 0; k < p.size(); k++) {
                p.set(k, p.get(k).sub(grads.get(k).mul(1e-5f)));
            }
        }
        last.addAll(p);
        List<Object> args = new ArrayList<>(p);
        args.add(inputs);
        args.add(targets);
        return lossJit(p.size()).call(args.toArray()).get(0).gather().item();
    }

    private static List<ShardedArray> place(List<NDArray> xs, Mesh m, List<PartitionSpec> specs) {
        List<ShardedArray> out = new ArrayList<>();
        for (int k = 0; k < xs.size(); k++) {
            out.add(ShardedArray.devicePut(xs.get(k), new NamedSharding(m, specs.get(k))));
        }
        return out;
    }

    @Test
    void dataParallelAndTensorParallelTrainLikeJax() {
        List<NDArray> all = init(PRNG.key(0), SIZES, 128);
        List<NDArray> params = all.subList(0, 8);
        assertEquals(0x1.975cc8p-6f, params.get(0).floatAt(0, 0), "W1[0,0] as JAX's PRNG gives it");

        Mesh dp = Mesh.makeMesh(new int[]{8}, new String[]{"batch"}, AxisType.AUTO);
        List<ShardedArray> p8 = place(params, dp, java.util.Collections.nCopies(8, P()));
        ShardedArray in8 = ShardedArray.devicePut(all.get(8), new NamedSharding(dp, P("batch")));
        ShardedArray t8 = ShardedArray.devicePut(all.get(9), new NamedSharding(dp, P("batch")));
        List<Object> args = new ArrayList<>(p8);
        args.add(in8);
        args.add(t8);
        float before = lossJit(8).call(args.toArray()).get(0).gather().item();
        System.out.println("dp before " + before);
        Compiled c = gradfun(8).lower(args.toArray());
        System.out.println(c.asText());
        List<ShardedArray> grads = gradfun(8).call(args.toArray());
        for (ShardedArray g : grads) {
            assertEquals(P(), g.sharding().spec(), "every data-parallel gradient is replicated");
        }
        List<ShardedArray> last = new ArrayList<>();
        float after = train(p8, in8, t8, 30, last);
        System.out.println("dp after " + after);
        assertEquals(25.05851173400879, before, 1e-4);
        assertEquals(22.136682510375977, after, 1e-4);

        Mesh tp = Mesh.makeMesh(new int[]{4, 2}, new String[]{"batch", "model"}, AxisType.AUTO, AxisType.AUTO);
        List<PartitionSpec> specs = List.of(P(), P(), P(null, "model"), P("model"), P("model", null), P(), P(), P());
        List<ShardedArray> p42 = place(params, tp, specs);
        ShardedArray in42 = ShardedArray.devicePut(all.get(8), new NamedSharding(tp, P("batch", null)));
        ShardedArray t42 = ShardedArray.devicePut(all.get(9), new NamedSharding(tp, P("batch", null)));
        List<Object> args42 = new ArrayList<>(p42);
        args42.add(in42);
        args42.add(t42);
        System.out.println(gradfun(8).lower(args42.toArray()).asText());
        List<ShardedArray> g42 = gradfun(8).call(args42.toArray());
        List<PartitionSpec> jaxGradSpecs = List.of(P(), P(), P(null, "model"), P("model"), P("model"), P(), P(), P());
        for (int k = 0; k < 8; k++) {
            assertEquals(jaxGradSpecs.get(k), g42.get(k).sharding().spec(), "gradient " + k);
        }
        List<ShardedArray> last42 = new ArrayList<>();
        float after42 = train(p42, in42, t42, 30, last42);
        System.out.println("tp after " + after42);
        assertEquals(22.136680603027344, after42, 1e-4);
    }

    @Test
    void onExplicitAxesDataParallelGradientsAreTypedLikeTheirParameters() {
        // jax.make_mesh gives Explicit axes in JAX 0.10.2: the 8-way program still runs there, every gradient
        // typed replicated (JAX printed P(None, None) and P(None,)), and the loss JAX printed
        List<NDArray> all = init(PRNG.key(0), SIZES, 128);
        Mesh dp = Mesh.makeMesh(new int[]{8}, "batch");
        List<ShardedArray> p8 = place(all.subList(0, 8), dp, java.util.Collections.nCopies(8, P()));
        ShardedArray in8 = ShardedArray.devicePut(all.get(8), new NamedSharding(dp, P("batch")));
        ShardedArray t8 = ShardedArray.devicePut(all.get(9), new NamedSharding(dp, P("batch")));
        List<Object> args = new ArrayList<>(p8);
        args.add(in8);
        args.add(t8);
        List<ShardedArray> grads = gradfun(8).call(args.toArray());
        for (int k = 0; k < 8; k++) {
            assertEquals(p8.get(k).type(), grads.get(k).type(), "gradient " + k + " has its parameter's type");
        }
        assertEquals(25.05851173400879, lossJit(8).call(args.toArray()).get(0).gather().item(), 1e-4);
    }

    @Test
    void onExplicitAxesTheTensorParallelLossIsJaxsShardingTypeError() {
        // the notebook's 4 x 2 program on jax.make_mesh's Explicit axes: W3's contraction over 'model' is
        // ambiguous, and JAX 0.10.2 raises this error from the forward pass
        List<NDArray> all = init(PRNG.key(0), SIZES, 8);
        Mesh tp = Mesh.makeMesh(new int[]{4, 2}, "batch", "model");
        List<PartitionSpec> specs = List.of(P(), P(), P(null, "model"), P("model"), P("model", null), P(), P(), P());
        List<Object> args = new ArrayList<>(place(all.subList(0, 8), tp, specs));
        args.add(ShardedArray.devicePut(all.get(8), new NamedSharding(tp, P("batch", null))));
        args.add(ShardedArray.devicePut(all.get(9), new NamedSharding(tp, P("batch", null))));
        dev.shardlings.primitive.ShardingTypeError e = org.junit.jupiter.api.Assertions.assertThrows(
                dev.shardlings.primitive.ShardingTypeError.class, () -> lossJit(8).call(args.toArray()));
        assertEquals("Contracting dimensions are sharded and it is ambiguous how the output should be sharded. Please"
                + " specify the output sharding via the `out_sharding` parameter. Got lhs_contracting_spec=('model',)"
                + " and rhs_contracting_spec=('model',)", e.getMessage());
    }
}
