package dev.shardlings.primitive;

import dev.shardlings.array.CompareOp;
import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.sharding.Mesh;

import java.util.List;
import java.util.Objects;

/**
 * A comparison of two arrays of the same rank, dimensions of size 1 broadcasting ({@code lax.gt}, …):
 * A[I, J] &gt; B[I, J] → bool[I, J]. Shapes, the Explicit typing rule ({@code broadcasting_sharding_rule}, e.g.
 * "gt got incompatible shardings for broadcasting: ('X', 'Y'), ('Y', None).") and the partitioning are
 * {@link Binary}'s; only the result's dtype differs. No communication.
 *
 * @param op which comparison
 */
public record Compare(CompareOp op) implements Primitive {

    /** @throws NullPointerException if op is null */
    public Compare {
        Objects.requireNonNull(op, "op");
    }

    @Override
    public String name() {
        return op.laxName();
    }

    @Override
    public Shaped abstractEval(List<ArrayType> operands) {
        Typing.arity(this, operands, 2);
        return new Shaped(DType.BOOL, Binary.broadcastShape(name(), operands.get(0), operands.get(1)));
    }

    @Override
    public List<List<String>> shardingRule(List<ArrayType> operands, Shaped out, Mesh mesh) {
        return Binary.broadcastingRule(name(), operands);
    }

    /** A comparison's result is bool: its operands get no cotangent. */
    @Override
    public <T> List<T> vjp(Vjp<T> v) {
        return Vjp.cotangents(2);
    }

    @Override
    public NDArray apply(List<NDArray> operands) {
        NDArray a = operands.get(0);
        NDArray b = operands.get(1);
        return switch (op) {
            case GT -> a.greater(b);
            case GE -> a.greaterEqual(b);
            case LT -> a.less(b);
            case LE -> a.lessEqual(b);
            case EQ -> a.equal(b);
            case NE -> a.notEqual(b);
        };
    }

    @Override
    public Partitioning partition(List<ArrayType> operands, ArrayType out) {
        return Binary.elementwise(this, operands, out);
    }

    @Override
    public long flops(List<ArrayType> operands, ArrayType out) {
        return out.size();
    }
}
