package dev.shardlings.primitive;

import dev.shardlings.array.CompareOp;
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
        return new Shaped(op.keepsIntegers() || a.dtype().isFloating() ? a.dtype() : DType.FLOAT32, a.shape());
    }

    @Override
    public List<List<String>> shardingRule(List<ArrayType> operands, Shaped out, Mesh mesh) {
        return operands.get(0).dims();
    }

    /**
     * JAX's JVP of each function (gelu: of its tanh approximation; relu: 0 at 0, as {@code jax.nn.relu}), applied
     * to the cotangent.
     */
    @Override
    public <T> List<T> vjp(Vjp<T> v) {
        List<T> out = Vjp.cotangents(1);
        if (!v.needs(0) || !v.operandType(0).dtype().isFloating()) {
            return out;
        }
        Object x = v.operand(0);
        T g = v.ct();
        NDArray zero = Vjp.scalar(0);
        out.set(0, switch (op) {
            case NEG -> v.neg(g);
            // JAX: g where x >= 0, -g elsewhere (so 1 at 0, checked in 0.10.2)
            case ABS -> v.mul(g, v.sub(v.mul(v.indicator(CompareOp.GE, x, zero), Vjp.scalar(2)), Vjp.scalar(1)));
            case EXP -> v.mul(g, v.out());
            case LOG -> v.div(g, x);
            case SQRT -> v.div(v.mul(g, Vjp.scalar(0.5)), v.out());
            case SIN -> v.mul(g, v.bind(new Unary(UnaryOp.COS), x));
            case COS -> v.neg(v.mul(g, v.bind(new Unary(UnaryOp.SIN), x)));
            case TANH -> v.mul(g, v.sub(Vjp.scalar(1), v.mul(v.out(), v.out())));
            case RELU -> v.mul(g, v.indicator(CompareOp.GT, x, zero));
            case SQUARE -> v.mul(g, v.mul(x, Vjp.scalar(2)));
            case GELU -> v.mul(g, geluDerivative(v, x));
            case COPY -> g;
        });
        return out;
    }

    /** d/dx 0.5·x·(1 + tanh(c·(x + 0.044715·x³))) = 0.5·(1 + t) + 0.5·x·(1 − t²)·c·(1 + 3·0.044715·x²). */
    private static <T> T geluDerivative(Vjp<T> v, Object x) {
        double c = Math.sqrt(2.0 / Math.PI);
        T x2 = v.mul(x, x);
        T inner = v.mul(v.add(x, v.mul(v.mul(x2, x), Vjp.scalar(0.044715))), Vjp.scalar(c));
        T t = v.bind(new Unary(UnaryOp.TANH), inner);
        T left = v.mul(v.add(t, Vjp.scalar(1)), Vjp.scalar(0.5));
        T dInner = v.mul(v.add(v.mul(x2, Vjp.scalar(3 * 0.044715)), Vjp.scalar(1)), Vjp.scalar(c));
        T right = v.mul(v.mul(v.mul(x, Vjp.scalar(0.5)), v.sub(Vjp.scalar(1), v.mul(t, t))), dInner);
        return v.add(left, right);
    }

    @Override
    public NDArray apply(List<NDArray> operands) {
        NDArray x = operands.get(0);
        NDArray in = op.keepsIntegers() || x.dtype().isFloating() ? x : x.astype(DType.FLOAT32);
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
