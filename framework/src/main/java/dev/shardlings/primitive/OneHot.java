package dev.shardlings.primitive;

import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.sharding.Mesh;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code jax.nn.one_hot(labels, numClasses)}: int32 labels L[B] → float32 [B, numClasses], 1 where the class equals
 * the label (labels outside [0, numClasses) give a zero row, as in JAX). Typing: the labels' sharding, the class
 * dimension replicated (labels f32[8@X] → float32[8@X,4]). Local on every device.
 *
 * @param numClasses the size of the new last dimension
 */
public record OneHot(int numClasses) implements Primitive {

    /** @throws IllegalArgumentException if numClasses is negative */
    public OneHot {
        if (numClasses < 0) {
            throw new IllegalArgumentException("one_hot: num_classes must be >= 0, got " + numClasses);
        }
    }

    @Override
    public String name() {
        return "one_hot";
    }

    @Override
    public Shaped abstractEval(List<ArrayType> operands) {
        Typing.arity(this, operands, 1);
        ArrayType l = operands.get(0);
        if (l.dtype() != DType.INT32) {
            throw new IllegalArgumentException("one_hot: labels must be int32, got " + l);
        }
        List<Integer> shape = new ArrayList<>(l.shape());
        shape.add(numClasses);
        return new Shaped(DType.FLOAT32, shape);
    }

    @Override
    public List<List<String>> shardingRule(List<ArrayType> operands, Shaped out, Mesh mesh) {
        List<List<String>> dims = new ArrayList<>(operands.get(0).dims());
        dims.add(Specs.NONE);
        return dims;
    }

    /** The result is a function of integer indices: no cotangent. */
    @Override
    public <T> List<T> vjp(Vjp<T> v) {
        return Vjp.cotangents(1);
    }

    @Override
    public NDArray apply(List<NDArray> operands) {
        NDArray l = operands.get(0);
        int[] labels = l.toIntArray();
        float[] out = new float[labels.length * numClasses];
        for (int i = 0; i < labels.length; i++) {
            if (labels[i] >= 0 && labels[i] < numClasses) {
                out[i * numClasses + labels[i]] = 1f;
            }
        }
        int[] shape = java.util.Arrays.copyOf(l.shape(), l.rank() + 1);
        shape[l.rank()] = numClasses;
        return NDArray.fromFloats(out, shape);
    }

    @Override
    public Partitioning partition(List<ArrayType> operands, ArrayType out) {
        List<List<String>> need = out.dims().subList(0, out.rank() - 1);
        return Partitioning.local(List.of(need), this, out.dims());
    }
}
