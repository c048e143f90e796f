package dev.shardlings.course;

import dev.shardlings.array.NDArray;
import dev.shardlings.autodiff.Autodiff;
import dev.shardlings.autodiff.VjpResult;
import dev.shardlings.jit.Jit;
import dev.shardlings.jit.Jitted;
import dev.shardlings.nn.Mlp;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.PartitionSpec;
import dev.shardlings.spmd.Collectives;
import dev.shardlings.spmd.ShardMap;
import dev.shardlings.spmd.ShardedArray;
import dev.shardlings.spmd.Tiling;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import static dev.shardlings.sharding.PartitionSpec.P;

/** Chapter 6 — training: the reference solutions. */
public final class Chapter6 {

    private Chapter6() {
    }

    /** 6.1: parameters replicated, the batch split over 'batch'; the step is jit(grad(loss)) and the update. */
    public static List<ShardedArray> trainDataParallel(List<NDArray> params, NDArray inputs, NDArray targets,
                                                       Mesh mesh, int steps, float lr) {
        List<ShardedArray> p = new ArrayList<>();
        for (NDArray x : params) {
            p.add(ShardedArray.devicePut(x, mesh, P()));
        }
        return train(p, ShardedArray.devicePut(inputs, mesh, P("batch")),
                ShardedArray.devicePut(targets, mesh, P("batch")), steps, lr);
    }

    /** 6.2: W2 split by columns and W3 by rows over 'model', b2 with W2's columns; the batch over 'batch'. */
    public static List<ShardedArray> trainDataTensorParallel(List<NDArray> params, NDArray inputs, NDArray targets,
                                                             Mesh mesh, int steps, float lr) {
        List<PartitionSpec> specs = List.of(P(), P(), P(null, "model"), P("model"), P("model", null), P(), P(), P());
        List<ShardedArray> p = new ArrayList<>();
        for (int k = 0; k < params.size(); k++) {
            p.add(ShardedArray.devicePut(params.get(k), mesh, specs.get(k)));
        }
        return train(p, ShardedArray.devicePut(inputs, mesh, P("batch", null)),
                ShardedArray.devicePut(targets, mesh, P("batch", null)), steps, lr);
    }

    /** One jitted program per step: the gradient of the loss and the SGD update; the layouts follow the inputs. */
    private static List<ShardedArray> train(List<ShardedArray> params, ShardedArray inputs, ShardedArray targets,
                                            int steps, float lr) {
        int n = params.size();
        Jitted step = Jit.jitList(a -> {
            List<ShardedArray> ps = a.subList(0, n);
            List<ShardedArray> grads = Autodiff.<ShardedArray>gradList(q -> Mlp.loss(q, a.get(n), a.get(n + 1)))
                    .apply(ps);
            return Mlp.sgd(ps, grads, lr);
        }).named("train_step");
        List<ShardedArray> p = params;
        for (int s = 0; s < steps; s++) {
            List<Object> args = new ArrayList<>(p);
            args.add(inputs);
            args.add(targets);
            p = step.call(args.toArray());
        }
        return p;
    }

    /** 6.3: each device's gradient of its rows' loss, then one pmean per gradient. */
    public static List<ShardedArray> dataParallelStep(List<ShardedArray> params, ShardedArray inputs,
                                                      ShardedArray targets, float lr) {
        int n = params.size();
        List<PartitionSpec> in = new ArrayList<>(Collections.nCopies(n, P()));
        in.add(P("batch"));
        in.add(P("batch"));
        List<ShardedArray> args = new ArrayList<>(params);
        args.add(inputs);
        args.add(targets);
        return ShardMap.shardMap(blocks -> {
            // varying copies: their gradients stay local (an invariant parameter's would come back psummed)
            List<NDArray> ps = new ArrayList<>();
            for (int k = 0; k < n; k++) {
                ps.add(blocks.get(k).pvary("batch"));
            }
            NDArray x = blocks.get(n);
            NDArray y = blocks.get(n + 1);
            List<NDArray> grads = Autodiff.<NDArray>gradList(q -> Mlp.lossLocal(q, x, y)).apply(ps);
            List<NDArray> out = new ArrayList<>();
            for (int k = 0; k < n; k++) {
                out.add(blocks.get(k).sub(Collectives.pmean(grads.get(k), "batch").mul(lr)));
            }
            return out;
        }, params.get(0).mesh(), in, Collections.nCopies(n, P())).named("dp_step").call(args);
    }

    /**
     * 6.4: every parameter stays split over 'batch' by its first dimension; the forward pass all-gathers each
     * one, and the gradient of an all-gather is a reduce-scatter, so each device gets its shard of the summed
     * gradient. The loss is divided by the number of devices: the sum of the devices' means is then the mean.
     */
    public static List<ShardedArray> fsdpStep(List<ShardedArray> params, ShardedArray inputs, ShardedArray targets,
                                              float lr) {
        int n = params.size();
        List<PartitionSpec> in = new ArrayList<>(Collections.nCopies(n + 2, P("batch")));
        List<ShardedArray> args = new ArrayList<>(params);
        args.add(inputs);
        args.add(targets);
        return ShardMap.shardMap(blocks -> {
            List<NDArray> shards = blocks.subList(0, n);
            NDArray x = blocks.get(n);
            NDArray y = blocks.get(n + 1);
            int devices = Collectives.axisSize("batch");
            List<NDArray> grads = Autodiff.<NDArray>gradList(q -> {
                List<NDArray> whole = new ArrayList<>();
                for (NDArray s : q) {
                    whole.add(Collectives.allGather(s, "batch", 0, Tiling.TILED));
                }
                return Mlp.lossLocal(whole, x, y).div(devices);
            }).apply(shards);
            List<NDArray> out = new ArrayList<>();
            for (int k = 0; k < n; k++) {
                out.add(shards.get(k).sub(grads.get(k).mul(lr)));
            }
            return out;
        }, params.get(0).mesh(), in, Collections.nCopies(n, P("batch"))).named("fsdp_step").call(args);
    }

    /**
     * 6.5: Megatron's MLP block. The column-parallel first matmul and ReLU are local; the row-parallel second
     * matmul leaves partial sums, completed by one psum. The pullback of that psum sends dY to every device with
     * no communication, and dX — a sum over the devices' columns — comes back with one psum.
     */
    public static List<ShardedArray> megatronMlp(ShardedArray x, ShardedArray w1, ShardedArray w2, ShardedArray dy) {
        return ShardMap.shardMap(b -> {
            VjpResult<NDArray> r = Autodiff.vjp(a -> List.of(Collectives.psum(
                    a.get(0).matmul(a.get(1)).relu().matmul(a.get(2)), "model")), List.of(b.get(0), b.get(1), b.get(2)));
            List<NDArray> cts = r.pullback().apply(List.of(b.get(3)));
            return List.of(r.outputs().get(0), cts.get(0), cts.get(1), cts.get(2));
        }, x.mesh(), List.of(P(), P(null, "model"), P("model", null), P()),
                List.of(P(), P(), P(null, "model"), P("model", null))).named("megatron_mlp")
                .call(List.of(x, w1, w2, dy));
    }
}
