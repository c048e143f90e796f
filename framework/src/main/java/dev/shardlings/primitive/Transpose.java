package dev.shardlings.primitive;

import dev.shardlings.array.NDArray;
import dev.shardlings.sharding.Mesh;

import java.util.List;

/**
 * {@code lax.transpose(x, permutation)}: result dimension k is operand dimension {@code permutation[k]}, with its
 * sharding: A[I_X, J_Y] → Aᵀ[J_Y, I_X]. Each device transposes its block; nothing moves.
 *
 * @param permutation a permutation of 0 … rank−1
 */
public record Transpose(List<Integer> permutation) implements Primitive {

    /** @throws NullPointerException if permutation is null */
    public Transpose {
        permutation = List.copyOf(permutation);
    }

    @Override
    public String name() {
        return "transpose";
    }

    @Override
    public Shaped abstractEval(List<ArrayType> operands) {
        Typing.arity(this, operands, 1);
        ArrayType a = operands.get(0);
        boolean ok = permutation.size() == a.rank();
        for (int k = 0; ok && k < a.rank(); k++) {
            ok = permutation.contains(k);
        }
        if (!ok) {
            throw new IllegalArgumentException("transpose permutation isn't a permutation of operand dimensions, got"
                    + " permutation " + Specs.ints(permutation) + " for operand shape " + Specs.ints(a.shape()) + ".");
        }
        return new Shaped(a.dtype(), permutation.stream().map(a.shape()::get).toList());
    }

    @Override
    public List<List<String>> shardingRule(List<ArrayType> operands, Shaped out, Mesh mesh) {
        return permutation.stream().map(operands.get(0).dims()::get).toList();
    }

    @Override
    public NDArray apply(List<NDArray> operands) {
        return operands.get(0).transpose(permutation.stream().mapToInt(Integer::intValue).toArray());
    }

    @Override
    public Partitioning partition(List<ArrayType> operands, ArrayType out) {
        ArrayType a = operands.get(0);
        return Partitioning.local(List.of(a.dims()), this, shardingRule(operands, null, null));
    }
}
