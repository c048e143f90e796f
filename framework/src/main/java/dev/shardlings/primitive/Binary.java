package dev.shardlings.primitive;

import dev.shardlings.array.BinaryOp;
import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.sharding.Mesh;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * An elementwise function of two arrays of the same rank, dimensions of size 1 broadcasting ({@code lax.add},
 * …): A[I, J] + B[I, J] → C[I, J]. A rank-0 operand (a scalar) broadcasts to any shape. Typing follows JAX's
 * {@code broadcasting_sharding_rule}: per dimension the operands must agree, a replicated size-1 dimension
 * counting as no opinion; otherwise the one sharded operand wins, and two different shardings are a
 * {@link ShardingTypeError}. Runs on each block with no communication (a broadcast operand is sliced locally), by
 * the {@link NDArray} method of the same {@link BinaryOp}; jaxprs name it by {@link BinaryOp#laxName()}.
 *
 * @param op which function
 */
public record Binary(BinaryOp op) implements Primitive {

    /** @throws NullPointerException if op is null */
    public Binary {
        Objects.requireNonNull(op, "op");
    }

    @Override
    public String name() {
        return op.laxName();
    }

    @Override
    public Shaped abstractEval(List<ArrayType> operands) {
        Typing.arity(this, operands, 2);
        ArrayType a = operands.get(0);
        ArrayType b = operands.get(1);
        // true division of integers is float32, as jnp.true_divide and NDArray.div give it
        DType dtype = a.dtype() == b.dtype() && op.keepsIntegers() ? a.dtype() : DType.FLOAT32;
        if (a.rank() == 0) {
            return new Shaped(dtype, b.shape());
        }
        if (b.rank() == 0) {
            return new Shaped(dtype, a.shape());
        }
        if (a.rank() != b.rank()) {
            throw new IllegalArgumentException(name() + ": arrays must have same number of dimensions, got "
                    + Specs.ints(a.shape()) + ", " + Specs.ints(b.shape()) + ".");
        }
        List<Integer> shape = new ArrayList<>();
        for (int d = 0; d < a.rank(); d++) {
            int x = a.shape().get(d);
            int y = b.shape().get(d);
            if (x != y && x != 1 && y != 1) {
                throw new IllegalArgumentException(name() + " got incompatible shapes for broadcasting: "
                        + Specs.ints(a.shape()) + ", " + Specs.ints(b.shape()) + ".");
            }
            shape.add(x == 1 ? y : x);
        }
        return new Shaped(dtype, shape);
    }

    @Override
    public List<List<String>> shardingRule(List<ArrayType> operands, Shaped out, Mesh mesh) {
        List<ArrayType> shaped = operands.stream().filter(t -> t.rank() > 0).toList();
        if (shaped.isEmpty()) {
            return List.of();
        }
        int rank = shaped.get(0).rank();
        List<List<String>> result = new ArrayList<>(rank);
        for (int d = 0; d < rank; d++) {
            final int dim = d;
            List<List<String>> ss = shaped.stream().map(t -> t.dims().get(dim)).toList();
            if (ss.stream().allMatch(s -> s.equals(ss.get(0)))) {
                result.add(ss.get(0));
                continue;
            }
            // A replicated dimension of size 1 has no opinion.
            List<List<String>> nonTrivial = shaped.stream()
                    .filter(t -> !(t.shape().get(dim) == 1 && t.dims().get(dim).isEmpty()))
                    .map(t -> t.dims().get(dim)).toList();
            if (nonTrivial.isEmpty()) {
                result.add(Specs.NONE);
            } else if (nonTrivial.stream().allMatch(s -> s.equals(nonTrivial.get(0)))) {
                result.add(nonTrivial.get(0));
            } else {
                List<String> r = Specs.NONE;
                for (List<String> s : ss) {
                    if (r.isEmpty() && !s.isEmpty()) {
                        r = s;
                    } else if (!r.isEmpty() && !s.isEmpty() && !r.equals(s)) {
                        throw new ShardingTypeError(name() + " got incompatible shardings for broadcasting: "
                                + shaped.stream().map(t -> Specs.tuple(t.dims())).collect(Collectors.joining(", "))
                                + ".");
                    }
                }
                result.add(r);
            }
        }
        return result;
    }

    @Override
    public NDArray apply(List<NDArray> operands) {
        NDArray a = operands.get(0);
        NDArray b = operands.get(1);
        return switch (op) {
            case ADD -> a.add(b);
            case SUB -> a.sub(b);
            case MUL -> a.mul(b);
            case DIV -> a.div(b);
            case MAX -> a.maximum(b);
            case MIN -> a.minimum(b);
            case FLOOR_DIV -> a.floorDiv(b);
        };
    }

    @Override
    public Partitioning partition(List<ArrayType> operands, ArrayType out) {
        List<List<List<String>>> need = new ArrayList<>();
        for (ArrayType t : operands) {
            List<List<String>> dims = new ArrayList<>();
            for (int d = 0; d < t.rank(); d++) {
                // a broadcast dimension of size 1 stays whole on every device
                dims.add(t.shape().get(d) == 1 && out.shape().get(d) != 1 ? Specs.NONE : out.dims().get(d));
            }
            need.add(dims);
        }
        return Partitioning.local(need, this, out.dims());
    }

    @Override
    public long flops(List<ArrayType> operands, ArrayType out) {
        return out.size();
    }
}
