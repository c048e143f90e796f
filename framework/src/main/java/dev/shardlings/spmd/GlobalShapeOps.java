package dev.shardlings.spmd;

import dev.shardlings.primitive.BroadcastInDim;
import dev.shardlings.primitive.Concatenate;
import dev.shardlings.primitive.Transpose;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The shape operations behind {@link ShardedArray}'s global view that stage more than one primitive or work out
 * the primitive's parameters: {@code jnp.transpose}'s default order, {@code jnp.broadcast_to}'s alignment,
 * {@code jnp.roll} as jnp builds it, {@code jnp.concatenate} of several arrays. Arguments were checked by
 * {@link ShardedArray}.
 */
final class GlobalShapeOps {

    private GlobalShapeOps() {
    }

    /** x's dimensions in the order {@code perm} (empty: reversed); shardings move with their dimensions. */
    static ShardedArray transpose(ShardedArray x, int[] perm) {
        List<Integer> p = new ArrayList<>();
        if (perm.length == 0) {
            for (int d = x.rank() - 1; d >= 0; d--) {
                p.add(d);
            }
        } else {
            Arrays.stream(perm).forEach(p::add);
        }
        return GlobalOps.apply(x, new Transpose(p));
    }

    /** x broadcast to {@code newShape}, its dimensions aligned with the trailing ones (numpy rules). */
    static ShardedArray broadcastTo(ShardedArray x, int[] newShape) {
        List<Integer> dims = new ArrayList<>();
        for (int k = 0; k < x.rank(); k++) {
            dims.add(newShape.length - x.rank() + k);
        }
        return GlobalOps.apply(x, new BroadcastInDim(Arrays.stream(newShape).boxed().toList(), dims));
    }

    /** x rolled by {@code shift} along {@code axis}: two slices joined by a concatenate (an empty axis: x). */
    static ShardedArray roll(ShardedArray x, int shift, int axis) {
        int ax = axis < 0 ? axis + x.rank() : axis;
        int n = x.shape[ax];
        if (n == 0) {
            return x;
        }
        int i = Math.floorMod(-shift, n);
        return concatenate(ax, x.slice(ax, i, n), x.slice(ax, 0, i));
    }

    /** The arrays joined along {@code axis} (negative counted from the end of the first's rank); at least one. */
    static ShardedArray concatenate(int axis, ShardedArray... arrays) {
        int ax = axis < 0 ? axis + arrays[0].rank() : axis;
        List<GlobalOps.Operand> operands = new ArrayList<>();
        for (ShardedArray a : arrays) {
            operands.add(GlobalOps.of(a));
        }
        arrays[0].hostOnly("concatenate");
        return GlobalOps.run(new Concatenate(ax), operands);
    }
}
