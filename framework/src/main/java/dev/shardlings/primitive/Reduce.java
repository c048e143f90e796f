package dev.shardlings.primitive;

import dev.shardlings.array.CompareOp;
import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.array.ReduceOp;
import dev.shardlings.sharding.Mesh;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * {@code lax.reduce_sum / reduce_max / reduce_min} over some dimensions: A[I_X, J_Y] summed over 0 → B[J_Y].
 * Typing: the reduced dimensions' shardings disappear, the others are kept. Partitioning: each device reduces its
 * block; each reduced dimension split over mesh axes is completed by its own psum (pmax, pmin) over those axes,
 * the last reduced dimension first — XLA's plan: sum of A[I_X, J_Y] is an all-reduce over Y, then one over X, not
 * one all-reduce over all devices.
 *
 * @param op   how elements combine: {@link ReduceOp#SUM}, {@link ReduceOp#MAX} or {@link ReduceOp#MIN}
 * @param axes the dimensions reduced (distinct)
 */
public record Reduce(ReduceOp op, List<Integer> axes) implements Primitive {

    /**
     * @throws NullPointerException     if an argument is null
     * @throws IllegalArgumentException if op is {@link ReduceOp#MEAN}, which is not a lax reduction: its partial
     *                                  results do not combine with a collective (reduce_sum, then divide)
     */
    public Reduce {
        Objects.requireNonNull(op, "op");
        if (!op.combinesAcrossDevices()) {
            throw new IllegalArgumentException(op.jaxName() + " is not a lax reduction: partial results on"
                    + " different devices cannot combine with one collective; use reduce_sum, then divide");
        }
        axes = List.copyOf(axes);
    }

    @Override
    public String name() {
        return op.jaxName();
    }

    @Override
    public Shaped abstractEval(List<ArrayType> operands) {
        Typing.arity(this, operands, 1);
        ArrayType a = operands.get(0);
        for (int i = 0; i < axes.size(); i++) {
            int d = axes.get(i);
            if (d < 0 || d >= a.rank() || axes.subList(0, i).contains(d)) {
                throw new IllegalArgumentException(name() + ": reduction axes " + Specs.ints(axes)
                        + " must be distinct and in [0, " + a.rank() + ") for operand shape " + Specs.ints(a.shape()));
            }
        }
        List<Integer> shape = new ArrayList<>();
        for (int d = 0; d < a.rank(); d++) {
            if (!axes.contains(d)) {
                shape.add(a.shape().get(d));
            }
        }
        // jnp.sum of bool counts in int32; max and min of bool stay bool
        return new Shaped(a.dtype() == DType.BOOL && op == ReduceOp.SUM ? DType.INT32 : a.dtype(), shape);
    }

    @Override
    public List<List<String>> shardingRule(List<ArrayType> operands, Shaped out, Mesh mesh) {
        return kept(operands.get(0).dims());
    }

    private List<List<String>> kept(List<List<String>> dims) {
        List<List<String>> out = new ArrayList<>();
        for (int d = 0; d < dims.size(); d++) {
            if (!axes.contains(d)) {
                out.add(dims.get(d));
            }
        }
        return out;
    }

    /**
     * reduce_sum: the cotangent broadcast back over the reduced dimensions. reduce_max and reduce_min: JAX's rule,
     * the cotangent shared evenly among the positions that hold the extremum.
     */
    @Override
    public <T> List<T> vjp(Vjp<T> v) {
        List<T> out = Vjp.cotangents(1);
        ArrayType x = v.operandType(0);
        if (!v.needs(0) || !x.dtype().isFloating()) {
            return out;
        }
        List<Integer> kept = new ArrayList<>();
        for (int d = 0; d < x.rank(); d++) {
            if (!axes.contains(d)) {
                kept.add(d);
            }
        }
        BroadcastInDim back = new BroadcastInDim(x.shape(), kept);
        T g = v.bind(back, v.ct());
        if (op == ReduceOp.SUM) {
            out.set(0, g);
            return out;
        }
        T where = v.indicator(dev.shardlings.array.CompareOp.EQ, v.operand(0), v.bind(back, v.out()));
        T counts = v.bind(back, v.sum(where, axes));
        out.set(0, v.div(v.mul(g, where), counts));
        return out;
    }

    @Override
    public NDArray apply(List<NDArray> operands) {
        NDArray x = operands.get(0);
        int[] ax = axes.stream().mapToInt(Integer::intValue).toArray();
        if (ax.length == 0) {
            return x.add(x.dtype().isFloating() ? NDArray.zeros(x.dtype()) : NDArray.scalar(0));
        }
        return switch (op) {
            case SUM -> x.sum(ax);
            case MAX -> x.max(ax);
            case MIN -> x.min(ax);
            case MEAN -> throw new AssertionError("refused by the constructor");
        };
    }

    @Override
    public Partitioning partition(List<ArrayType> operands, ArrayType out) {
        ArrayType a = operands.get(0);
        // XLA's order: one all-reduce per split reduced dimension, the last of the reduction's dimensions first
        List<List<String>> steps = new ArrayList<>();
        List<String> reduced = new ArrayList<>();
        for (int i = axes.size() - 1; i >= 0; i--) {
            steps.add(a.dims().get(axes.get(i)));
            reduced.addAll(a.dims().get(axes.get(i)));
        }
        return Partitioning.withReduceSteps(List.of(a.dims()), this, reduced, op, kept(a.dims()), steps);
    }

    @Override
    public long flops(List<ArrayType> operands, ArrayType out) {
        return operands.get(0).size() - out.size();
    }
}
