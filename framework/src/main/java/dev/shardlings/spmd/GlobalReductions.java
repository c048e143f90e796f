package dev.shardlings.spmd;

import dev.shardlings.array.DType;
import dev.shardlings.array.ReduceOp;
import dev.shardlings.primitive.Reduce;

import java.util.ArrayList;
import java.util.List;

/**
 * The reductions behind {@link ShardedArray}'s global view ({@code jnp.sum}, {@code jnp.max}, {@code jnp.min},
 * {@code jnp.mean}): one {@code reduce} primitive over the named axes (none: all), whose partitioning adds the
 * all-reduce a split reduced dimension needs. Arguments were checked by {@link ShardedArray}.
 */
final class GlobalReductions {

    private GlobalReductions() {
    }

    /** op over {@code axes} (negative counted from the end; none: all). */
    static ShardedArray reduce(ShardedArray x, ReduceOp op, int[] axes) {
        return GlobalOps.apply(x, new Reduce(op, axesOrAll(x.rank(), axes)));
    }

    /** The sum over {@code axes} divided by the count, in float32 (an int32 x is converted first, as jnp does). */
    static ShardedArray mean(ShardedArray x, int[] axes) {
        List<Integer> ax = axesOrAll(x.rank(), axes);
        long count = 1;
        for (int a : ax) {
            count *= x.shape[a];
        }
        ShardedArray f = x.dtype == DType.FLOAT32 ? x : x.astype(DType.FLOAT32);
        ShardedArray mean = GlobalOps.apply(f, new Reduce(ReduceOp.SUM, ax)).div((double) count);
        // jnp.mean of bfloat16 upcasts, divides in float32 and rounds the result back once
        return x.dtype == DType.BFLOAT16 ? mean.astype(DType.BFLOAT16) : mean;
    }

    private static List<Integer> axesOrAll(int rank, int[] axes) {
        if (axes.length == 0) {
            List<Integer> all = new ArrayList<>();
            for (int d = 0; d < rank; d++) {
                all.add(d);
            }
            return all;
        }
        List<Integer> out = new ArrayList<>();
        for (int a : axes) {
            out.add(a < 0 ? a + rank : a);
        }
        return out;
    }
}
