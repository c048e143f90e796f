package dev.shardlings.primitive;

import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.sharding.Mesh;

import java.util.List;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * An elementwise function of one array ({@code jnp.sin}, {@code jnp.exp}, …): A[I, J] → B[I, J], the sharding
 * kept. Runs on each block with no communication.
 *
 * @param op which function
 */
public record Unary(Op op) implements Primitive {

    /** The elementwise functions. */
    public enum Op {
        SIN("sin", NDArray::sin, true), COS("cos", NDArray::cos, true), EXP("exp", NDArray::exp, true),
        LOG("log", NDArray::log, true), TANH("tanh", NDArray::tanh, true), SQRT("sqrt", NDArray::sqrt, true),
        NEG("neg", NDArray::neg, false), ABS("abs", NDArray::abs, false), SQUARE("square", NDArray::square, false),
        /** {@code jnp.copy}: a new buffer with the same values. */
        COPY("copy", x -> x, false);

        private final String jaxName;
        private final UnaryOperator<NDArray> fn;
        private final boolean floating;

        Op(String jaxName, UnaryOperator<NDArray> fn, boolean floating) {
            this.jaxName = jaxName;
            this.fn = fn;
            this.floating = floating;
        }

        /** JAX's primitive name. */
        public String jaxName() {
            return jaxName;
        }
    }

    /** @throws NullPointerException if op is null */
    public Unary {
        Objects.requireNonNull(op, "op");
    }

    @Override
    public String name() {
        return op.jaxName;
    }

    @Override
    public Shaped abstractEval(List<ArrayType> operands) {
        Typing.arity(this, operands, 1);
        ArrayType a = operands.get(0);
        // Transcendental functions of an integer array give floats, as jnp.sin does.
        return new Shaped(op.floating ? DType.FLOAT32 : a.dtype(), a.shape());
    }

    @Override
    public List<List<String>> shardingRule(List<ArrayType> operands, Shaped out, Mesh mesh) {
        return operands.get(0).dims();
    }

    @Override
    public NDArray apply(List<NDArray> operands) {
        NDArray x = operands.get(0);
        if (op == Op.COPY) {
            return NDArray.concat(0, List.of(x.rank() == 0 ? x.reshape(1) : x)).reshape(x.shape());
        }
        return op.fn.apply(op.floating ? x.astype(DType.FLOAT32) : x);
    }

    @Override
    public Partitioning partition(List<ArrayType> operands, ArrayType out) {
        return Partitioning.local(List.of(out.dims()), this, out.dims());
    }

    @Override
    public long flops(List<ArrayType> operands, ArrayType out) {
        return op == Op.COPY ? 0 : out.size();
    }
}
