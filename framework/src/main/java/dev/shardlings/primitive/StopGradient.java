package dev.shardlings.primitive;

import dev.shardlings.array.GradRecorders;
import dev.shardlings.array.NDArray;
import dev.shardlings.sharding.Mesh;

import java.util.List;

/**
 * {@code jax.lax.stop_gradient(x)} ({@code stop_gradient} in a jaxpr): the value unchanged, layout kept, no data
 * moved and no work done; its cotangent rule gives the operand none, so a reverse pass treats the value as a
 * constant. Softmax and logsumexp hold their max so, as JAX does.
 */
public record StopGradient() implements Primitive {

    @Override
    public String name() {
        return "stop_gradient";
    }

    @Override
    public Shaped abstractEval(List<ArrayType> operands) {
        Typing.arity(this, operands, 1);
        ArrayType x = operands.get(0);
        return new Shaped(x.dtype(), x.shape());
    }

    @Override
    public List<List<String>> shardingRule(List<ArrayType> operands, Shaped out, Mesh mesh) {
        return operands.get(0).dims();
    }

    /** No cotangent for the operand: the point of the primitive. */
    @Override
    public <T> List<T> vjp(Vjp<T> v) {
        return Vjp.cotangents(1);
    }

    /** A view of the operand (nothing is recorded: a tape must not see through it). */
    @Override
    public NDArray apply(List<NDArray> operands) {
        NDArray x = operands.get(0);
        try (var quiet = GradRecorders.install(null)) {
            return x.astype(x.dtype());
        }
    }

    @Override
    public Partitioning partition(List<ArrayType> operands, ArrayType out) {
        return Partitioning.local(List.of(out.dims()), this, out.dims());
    }
}
