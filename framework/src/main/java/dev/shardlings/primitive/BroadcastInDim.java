package dev.shardlings.primitive;

import dev.shardlings.array.NDArray;
import dev.shardlings.sharding.Mesh;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code lax.broadcast_in_dim(x, shape, broadcast_dimensions)}: operand dimension k becomes result dimension
 * {@code broadcastDimensions[k]} (of equal size, or of size 1 broadcast); the other result dimensions are new.
 * Typing: each operand dimension keeps its sharding, new dimensions are replicated. Local: each device broadcasts
 * its block.
 *
 * @param shape               the result's global shape
 * @param broadcastDimensions for each operand dimension, the result dimension it becomes (increasing)
 */
public record BroadcastInDim(List<Integer> shape, List<Integer> broadcastDimensions) implements Primitive {

    /** @throws NullPointerException if an argument is null */
    public BroadcastInDim {
        shape = List.copyOf(shape);
        broadcastDimensions = List.copyOf(broadcastDimensions);
    }

    @Override
    public String name() {
        return "broadcast_in_dim";
    }

    @Override
    public Shaped abstractEval(List<ArrayType> operands) {
        Typing.arity(this, operands, 1);
        ArrayType a = operands.get(0);
        if (broadcastDimensions.size() != a.rank()) {
            throw new IllegalArgumentException("broadcast_in_dim broadcast_dimensions must have length equal to"
                    + " operand ndim; got broadcast_dimensions " + Specs.ints(broadcastDimensions)
                    + " for operand ndim " + a.rank() + ".");
        }
        for (int k = 0; k < a.rank(); k++) {
            int d = broadcastDimensions.get(k);
            if (d < 0 || d >= shape.size() || (k > 0 && d <= broadcastDimensions.get(k - 1))) {
                throw new IllegalArgumentException("broadcast_in_dim broadcast_dimensions must be strictly"
                        + " increasing and in range; got broadcast_dimensions " + Specs.ints(broadcastDimensions));
            }
            int s = a.shape().get(k);
            if (s != 1 && s != shape.get(d)) {
                throw new IllegalArgumentException("broadcast_in_dim operand dimension sizes must either be 1, or be"
                        + " equal to their corresponding dimensions in the target broadcast shape; got operand of"
                        + " shape " + Specs.ints(a.shape()) + ", target broadcast shape " + Specs.ints(shape)
                        + ", broadcast_dimensions " + Specs.ints(broadcastDimensions));
            }
        }
        return new Shaped(a.dtype(), shape);
    }

    @Override
    public List<List<String>> shardingRule(List<ArrayType> operands, Shaped out, Mesh mesh) {
        List<List<String>> dims = new ArrayList<>(Specs.replicated(shape.size()));
        ArrayType a = operands.get(0);
        for (int k = 0; k < a.rank(); k++) {
            dims.set(broadcastDimensions.get(k), a.dims().get(k));
        }
        return dims;
    }

    /** The cotangent summed over the added and the stretched dimensions, reshaped to the operand's shape. */
    @Override
    public <T> List<T> vjp(Vjp<T> v) {
        List<T> out = Vjp.cotangents(1);
        if (!v.needs(0) || !v.operandType(0).dtype().isFloating()) {
            return out;
        }
        List<Integer> in = v.operandType(0).shape();
        List<Integer> axes = new java.util.ArrayList<>();
        for (int d = 0; d < shape.size(); d++) {
            int k = broadcastDimensions.indexOf(d);
            // an added dimension of size 1 needs no sum: the reshape below drops it
            if ((k < 0 && shape.get(d) != 1) || (k >= 0 && in.get(k) == 1 && shape.get(d) != 1)) {
                axes.add(d);
            }
        }
        T s = axes.isEmpty() ? v.ct() : v.sum(v.ct(), axes);
        out.set(0, v.type(s).shape().equals(in) ? s : v.reshape(s, in));
        return out;
    }

    @Override
    public NDArray apply(List<NDArray> operands) {
        NDArray x = operands.get(0);
        int[] lifted = new int[shape.size()];
        java.util.Arrays.fill(lifted, 1);
        for (int k = 0; k < x.rank(); k++) {
            lifted[broadcastDimensions.get(k)] = x.shape(k);
        }
        return x.reshape(lifted).broadcastTo(shape.stream().mapToInt(Integer::intValue).toArray());
    }

    @Override
    public Partitioning partition(List<ArrayType> operands, ArrayType out) {
        ArrayType a = operands.get(0);
        List<List<String>> need = new ArrayList<>();
        for (int k = 0; k < a.rank(); k++) {
            int d = broadcastDimensions.get(k);
            need.add(a.shape().get(k) == 1 && shape.get(d) != 1 ? Specs.NONE : out.dims().get(d));
        }
        int[] local = Typing.localShape(shape, out.dims(), out.mesh());
        return Partitioning.local(List.of(need), new BroadcastInDim(ArrayType.boxed(local), broadcastDimensions),
                out.dims());
    }
}
