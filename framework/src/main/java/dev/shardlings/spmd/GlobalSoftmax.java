package dev.shardlings.spmd;

import dev.shardlings.array.DType;
import dev.shardlings.array.ReduceOp;
import dev.shardlings.primitive.BroadcastInDim;
import dev.shardlings.primitive.Reduce;
import dev.shardlings.primitive.StopGradient;

import java.util.ArrayList;
import java.util.List;

/**
 * {@link ShardedArray}'s softmax, log_softmax and logsumexp, bound as the primitives JAX's jaxpr shows for them
 * (reduce_max, broadcast_in_dim, stop_gradient, sub, exp, reduce_sum, div, log): a reduced dimension split over
 * mesh axes costs the all-reduce its reduce primitive partitions into (a pmax and a psum), nothing else moves.
 * Arguments were checked by {@link ShardedArray}.
 */
final class GlobalSoftmax {

    private GlobalSoftmax() {
    }

    /** {@code jax.nn.softmax(x, axis)}; the max unguarded (−inf rows give nan) and held constant, as in JAX. */
    static ShardedArray softmax(ShardedArray x, int axis) {
        List<Integer> ax = List.of(axis);
        ShardedArray unnormalized = x.sub(stop(kept(reduce(x, ReduceOp.MAX, ax), x.shape, ax))).exp();
        return unnormalized.div(kept(reduce(unnormalized, ReduceOp.SUM, ax), x.shape, ax));
    }

    /** {@code jax.nn.log_softmax(x, axis)}: (x − max) − log Σ exp(x − max), the max held constant. */
    static ShardedArray logSoftmax(ShardedArray x, int axis) {
        List<Integer> ax = List.of(axis);
        ShardedArray shifted = x.sub(stop(kept(reduce(x, ReduceOp.MAX, ax), x.shape, ax)));
        return shifted.sub(kept(reduce(shifted.exp(), ReduceOp.SUM, ax), x.shape, ax).log());
    }

    /**
     * {@code jax.scipy.special.logsumexp(x, axis=axes, keepdims=keep)}: log Σ exp(x − m) + m, m the max where
     * finite else 0, held constant; int32 promoted to float32 first.
     */
    static ShardedArray logsumexp(ShardedArray x, boolean keep, List<Integer> axes) {
        ShardedArray a = x.dtype.isFloating() ? x : x.astype(DType.FLOAT32);
        ShardedArray max = reduce(a, ReduceOp.MAX, axes);
        ShardedArray amax = stop(ShardedArray.where(max.abs().less(Double.POSITIVE_INFINITY), max, 0.0));
        ShardedArray sumexp = reduce(a.sub(kept(amax, a.shape, axes)).exp(), ReduceOp.SUM, axes);
        ShardedArray out = sumexp.abs().log().add(amax);
        return keep ? kept(out, a.shape, axes) : out;
    }

    /** The axes (negative counted from the end; none: all) as the reduce primitive takes them, in order. */
    static List<Integer> axes(int rank, int[] axes) {
        List<Integer> out = new ArrayList<>();
        if (axes.length == 0) {
            for (int d = 0; d < rank; d++) {
                out.add(d);
            }
            return out;
        }
        for (int a : axes) {
            out.add(a < 0 ? a + rank : a);
        }
        return out.stream().sorted().toList();
    }

    private static ShardedArray reduce(ShardedArray x, ReduceOp op, List<Integer> axes) {
        return GlobalOps.apply(x, new Reduce(op, axes));
    }

    /** keepdims: the reduced result broadcast back to size 1 in each reduced dimension (broadcast_in_dim). */
    private static ShardedArray kept(ShardedArray r, int[] fullShape, List<Integer> axes) {
        List<Integer> shape = new ArrayList<>();
        List<Integer> dims = new ArrayList<>();
        for (int d = 0; d < fullShape.length; d++) {
            if (axes.contains(d)) {
                shape.add(1);
            } else {
                dims.add(d);
                shape.add(fullShape[d]);
            }
        }
        return GlobalOps.apply(r, new BroadcastInDim(shape, dims));
    }

    private static ShardedArray stop(ShardedArray x) {
        return GlobalOps.apply(x, new StopGradient());
    }
}
