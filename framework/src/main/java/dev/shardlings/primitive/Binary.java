package dev.shardlings.primitive;

import dev.shardlings.array.CompareOp;
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
        return new Shaped(dtype(a.dtype(), b.dtype()), broadcastShape(name(), a, b));
    }

    /** The result dtype, as NDArray computes it: a bool operand takes the other's dtype; two bools stay bool. */
    private DType dtype(DType a, DType b) {
        if (a == DType.BOOL && b == DType.BOOL) {
            return switch (op) {
                case ADD, MUL, MAX, MIN -> DType.BOOL; // logical or / and, as in JAX
                case DIV -> DType.FLOAT32;
                default -> throw new IllegalArgumentException(op.jaxName() + " is not defined on bool arrays; convert"
                        + " first, e.g. x.astype(DType.INT32)");
            };
        }
        DType x = a == DType.BOOL ? b : a;
        DType y = b == DType.BOOL ? a : b;
        // true division of integers is float32, as jnp.true_divide and NDArray.div give it; floats promote as
        // jnp.promote_types (bfloat16 with int32 is bfloat16, with float32 float32)
        if (x == y) {
            return op.keepsIntegers() || x.isFloating() ? x : DType.FLOAT32;
        }
        return DType.promoteTypes(x, y);
    }

    /**
     * The shape two operands broadcast to: equal ranks, each dimension equal or 1; a rank-0 operand takes the
     * other's shape. Shared by the elementwise primitives of two or more operands.
     *
     * @throws IllegalArgumentException with lax's text when the ranks differ or a dimension does not broadcast
     */
    static List<Integer> broadcastShape(String name, ArrayType a, ArrayType b) {
        if (a.rank() == 0) {
            return b.shape();
        }
        if (b.rank() == 0) {
            return a.shape();
        }
        if (a.rank() != b.rank()) {
            throw new IllegalArgumentException(name + ": arrays must have same number of dimensions, got "
                    + Specs.ints(a.shape()) + ", " + Specs.ints(b.shape()) + ".");
        }
        List<Integer> shape = new ArrayList<>();
        for (int d = 0; d < a.rank(); d++) {
            int x = a.shape().get(d);
            int y = b.shape().get(d);
            if (x != y && x != 1 && y != 1) {
                throw new IllegalArgumentException(name + " got incompatible shapes for broadcasting: "
                        + Specs.ints(a.shape()) + ", " + Specs.ints(b.shape()) + ".");
            }
            shape.add(x == 1 ? y : x);
        }
        return shape;
    }

    @Override
    public List<List<String>> shardingRule(List<ArrayType> operands, Shaped out, Mesh mesh) {
        return broadcastingRule(name(), operands);
    }

    /**
     * JAX's {@code broadcasting_sharding_rule}: per dimension the operands must agree, a replicated size-1
     * dimension counting as no opinion; otherwise the one sharded operand wins. Rank-0 operands are ignored.
     *
     * @param name     the primitive named in the error, e.g. {@code "add"} or {@code "broadcast_shardings"}
     * @param operands the operands' types (rank 0, or one common rank)
     * @return the result's sharding, per dimension the mesh axes splitting it
     * @throws ShardingTypeError "NAME got incompatible shardings for broadcasting: …" when two differ
     */
    public static List<List<String>> broadcastingRule(String name, List<ArrayType> operands) {
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
                        throw new ShardingTypeError(name + " got incompatible shardings for broadcasting: "
                                + shaped.stream().map(t -> Specs.tuple(t.dims())).collect(Collectors.joining(", "))
                                + ".");
                    }
                }
                result.add(r);
            }
        }
        return result;
    }

    /**
     * JAX's rules: sums of broadcast dimensions for add and subtract, the other operand for multiply, quotient
     * rules for divide; max and min send the cotangent to the operand that is the result, split evenly on ties
     * (JAX's {@code _balanced_eq}); floor_divide has zero derivative.
     */
    @Override
    public <T> List<T> vjp(Vjp<T> v) {
        List<T> out = Vjp.cotangents(2);
        if (!v.type(v.out()).dtype().isFloating() || op == BinaryOp.FLOOR_DIV) {
            return out;
        }
        Object x = v.operand(0);
        Object y = v.operand(1);
        T g = v.ct();
        for (int k = 0; k < 2; k++) {
            if (!v.needs(k) || !v.operandType(k).dtype().isFloating()) {
                continue;
            }
            T d = switch (op) {
                case ADD -> g;
                case SUB -> k == 0 ? g : v.neg(g);
                case MUL -> v.mul(g, k == 0 ? y : x);
                case DIV -> k == 0 ? v.div(g, y) : v.neg(v.div(v.mul(g, v.out()), y));
                case MAX, MIN -> v.mul(g, balanced(v, k == 0 ? x : y, k == 0 ? y : x));
                case FLOOR_DIV -> throw new AssertionError("no derivative");
            };
            out.set(k, v.unbroadcast(d, v.operandType(k)));
        }
        return out;
    }

    /** 1 where a is the result, halved where b is too; 0 elsewhere. */
    private static <T> T balanced(Vjp<T> v, Object a, Object b) {
        T z = v.out();
        return v.div(v.indicator(CompareOp.EQ, a, z), v.add(v.indicator(CompareOp.EQ, b, z), Vjp.scalar(1)));
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
        return elementwise(this, operands, out);
    }

    /** An elementwise primitive per device: every operand in the result's layout, broadcast dimensions whole. */
    static Partitioning elementwise(Primitive p, List<ArrayType> operands, ArrayType out) {
        List<List<List<String>>> need = new ArrayList<>();
        for (ArrayType t : operands) {
            List<List<String>> dims = new ArrayList<>();
            for (int d = 0; d < t.rank(); d++) {
                // a broadcast dimension of size 1 stays whole on every device
                dims.add(t.shape().get(d) == 1 && out.shape().get(d) != 1 ? Specs.NONE : out.dims().get(d));
            }
            need.add(dims);
        }
        return Partitioning.local(need, p, out.dims());
    }

    @Override
    public long flops(List<ArrayType> operands, ArrayType out) {
        return out.size();
    }
}
