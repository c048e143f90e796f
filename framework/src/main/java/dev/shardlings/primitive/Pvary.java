package dev.shardlings.primitive;

import dev.shardlings.array.NDArray;
import dev.shardlings.sharding.Mesh;

import java.util.List;

/**
 * {@code jax.lax.pvary(x, axes)} ({@code pvary_p}): the value unchanged, typed as varying over {@code axes} too;
 * no data moves.
 *
 * @param axes the mesh axes the result varies over (besides the operand's own)
 */
public record Pvary(List<String> axes) implements Primitive {

    /** @throws NullPointerException if axes or one of them is null */
    public Pvary {
        axes = List.copyOf(axes);
    }

    @Override
    public String name() {
        return "pvary";
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

    /**
     * The cotangent unchanged: JAX's transpose is a psum over the added axes, which the engine inserts when it
     * fits a cotangent to its primal's varying axes, as for every implicit pvary.
     */
    @Override
    public <T> List<T> vjp(Vjp<T> v) {
        List<T> out = Vjp.cotangents(1);
        if (v.needs(0) && v.operandType(0).dtype().isFloating()) {
            out.set(0, v.ct());
        }
        return out;
    }

    @Override
    public NDArray apply(List<NDArray> operands) {
        return operands.get(0).pvary(axes.toArray(new String[0]));
    }

    @Override
    public Partitioning partition(List<ArrayType> operands, ArrayType out) {
        return Partitioning.local(List.of(out.dims()), this, out.dims());
    }
}
