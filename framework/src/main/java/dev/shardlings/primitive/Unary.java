package dev.shardlings.primitive;

import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.array.UnaryOp;
import dev.shardlings.sharding.Mesh;

import java.util.List;
import java.util.Objects;

/**
 * An elementwise function of one array ({@code jnp.sin}, {@code jnp.exp}, …): A[I, J] → B[I, J], the sharding
 * kept. Runs on each block with no communication, by the {@link NDArray} method of the same {@link UnaryOp}.
 *
 * @param op which function
 */
public record Unary(UnaryOp op) implements Primitive {

    /** @throws NullPointerException if op is null */
    public Unary {
        Objects.requireNonNull(op, "op");
    }

    @Override
    public String name() {
        return op.jaxName();
    }

    @Override
    public Shaped abstractEval(List<ArrayType> operands) {
        Typing.arity(this, operands, 1);
        ArrayType a = operands.get(0);
        if (a.dtype() == DType.BOOL && op != UnaryOp.COPY) {
            throw new IllegalArgumentException(op.jaxName() + " is not defined on bool arrays here; convert first,"
                    + " e.g. x.astype(DType.FLOAT32)");
        }
        // Transcendental functions of an integer array give floats, as jnp.sin does.
        return new Shaped(op.keepsIntegers() ? a.dtype() : DType.FLOAT32, a.shape());
    }

    @Override
    public List<List<String>> shardingRule(List<ArrayType> operands, Shaped out, Mesh mesh) {
        return operands.get(0).dims();
    }

    @Override
    public NDArray apply(List<NDArray> operands) {
        NDArray x = operands.get(0);
        NDArray in = op.keepsIntegers() ? x : x.astype(DType.FLOAT32);
        return switch (op) {
            // a sum of one array is a new buffer with the same values, reported as a copy
            case COPY -> NDArray.addN(List.of(in));
            case NEG -> in.neg();
            case ABS -> in.abs();
            case EXP -> in.exp();
            case LOG -> in.log();
            case SQRT -> in.sqrt();
            case SIN -> in.sin();
            case COS -> in.cos();
            case TANH -> in.tanh();
            case RELU -> in.relu();
            case SQUARE -> in.square();
            case GELU -> in.gelu();
        };
    }

    @Override
    public Partitioning partition(List<ArrayType> operands, ArrayType out) {
        return Partitioning.local(List.of(out.dims()), this, out.dims());
    }

    @Override
    public long flops(List<ArrayType> operands, ArrayType out) {
        return op == UnaryOp.COPY ? 0 : out.size();
    }
}
