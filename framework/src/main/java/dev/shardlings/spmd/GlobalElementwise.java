package dev.shardlings.spmd;

import dev.shardlings.array.NDArray;
import dev.shardlings.primitive.BroadcastInDim;
import dev.shardlings.primitive.Primitive;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The two-operand elementwise operations behind {@link ShardedArray}'s global view ({@code jnp.add},
 * {@code jnp.greater}, …): numpy rank promotion — the lower-rank operand gets leading size-1 dimensions by a
 * {@code broadcast_in_dim}, as jnp stages it — and then the primitive ({@code Binary} or {@code Compare}), run by
 * {@link GlobalOps}. Arguments were checked by {@link ShardedArray}.
 */
final class GlobalElementwise {

    private GlobalElementwise() {
    }

    /** p(x, y) with a placed y. */
    static ShardedArray apply(ShardedArray x, Primitive p, ShardedArray y) {
        x.hostOnly(p.name());
        if (y.rank() > 0 && y.rank() < x.rank()) {
            return GlobalOps.run(p, List.of(GlobalOps.of(x), GlobalOps.of(lift(y, x.rank()))));
        }
        return GlobalOps.run(p, List.of(GlobalOps.of(promoted(x, y.rank())), GlobalOps.of(y)));
    }

    /** p(x, c) with an uncommitted array c (placed replicated on x's mesh). */
    static ShardedArray apply(ShardedArray x, Primitive p, NDArray c) {
        x.hostOnly(p.name());
        if (c.rank() > 0 && c.rank() < x.rank()) {
            return GlobalOps.run(p, List.of(GlobalOps.of(x),
                    GlobalOps.of(c.reshape(liftedShape(c.shape(), x.rank())))));
        }
        return GlobalOps.run(p, List.of(GlobalOps.of(promoted(x, c.rank())), GlobalOps.of(c)));
    }

    /** p(x, s) with a scalar, of x's dtype when s is a whole number and x is int32 ({@link NDArray#scalarLike}). */
    static ShardedArray apply(ShardedArray x, Primitive p, double s) {
        NDArray scalar = NDArray.scalarLike(x.dtype, s);
        x.hostOnly(p.name());
        return GlobalOps.run(p, List.of(GlobalOps.of(x), GlobalOps.of(scalar)));
    }

    /** x lifted to the other operand's rank when that is higher (a rank-0 x stays a scalar), else x. */
    private static ShardedArray promoted(ShardedArray x, int otherRank) {
        return otherRank > x.rank() && x.rank() > 0 ? lift(x, otherRank) : x;
    }

    /** x with leading size-1 dimensions up to {@code toRank} ({@code broadcast_in_dim}, no communication). */
    static ShardedArray lift(ShardedArray x, int toRank) {
        List<Integer> dims = new ArrayList<>();
        for (int k = 0; k < x.rank(); k++) {
            dims.add(toRank - x.rank() + k);
        }
        return GlobalOps.apply(x, new BroadcastInDim(Arrays.stream(liftedShape(x.shape, toRank)).boxed().toList(),
                dims));
    }

    private static int[] liftedShape(int[] s, int rank) {
        int[] out = new int[rank];
        Arrays.fill(out, 1);
        System.arraycopy(s, 0, out, rank - s.length, s.length);
        return out;
    }
}
