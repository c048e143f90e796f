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

    /** The cotangent transposed back by the inverse permutation. */
    @Override
    public <T> List<T> vjp(Vjp<T> v) {
        List<T> out = Vjp.cotangents(1);
        if (v.needs(0) && v.operandType(0).dtype().isFloating()) {
            Integer[] inverse = new Integer[permutation.size()];
            for (int k = 0; k < inverse.length; k++) {
                inverse[permutation.get(k)] = k;
            }
            out.set(0, v.bind(new Transpose(List.of(inverse)), v.ct()));
        }
        return out;
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
