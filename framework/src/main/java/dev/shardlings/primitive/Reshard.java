package dev.shardlings.primitive;

import dev.shardlings.array.NDArray;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.PartitionSpec;

import java.util.List;
import java.util.Objects;

/**
 * {@code jax.sharding.reshard(x, spec)}: the same values laid out by {@code spec} — on Explicit axes the way to move
 * data (f32[8@X,4@Y] → f32[8@Y,4@X]). Partitioning: whatever collectives the move needs (all-gather where an
 * axis leaves a dimension, all-to-all where it moves to another one, local slicing where one is added).
 *
 * @param spec the new layout
 */
public record Reshard(PartitionSpec spec) implements Primitive {

    /** @throws NullPointerException if spec is null */
    public Reshard {
        Objects.requireNonNull(spec, "spec");
    }

    @Override
    public String name() {
        return "reshard";
    }

    @Override
    public Shaped abstractEval(List<ArrayType> operands) {
        Typing.arity(this, operands, 1);
        return new Shaped(operands.get(0).dtype(), operands.get(0).shape());
    }

    @Override
    public List<List<String>> shardingRule(List<ArrayType> operands, Shaped out, Mesh mesh) {
        spec.validate(mesh);
        return Specs.typed(spec, out.shape().size(), mesh);
    }

    @Override
    public List<List<String>> autoRule(List<ArrayType> operands, Shaped out, Mesh mesh) {
        spec.validate(mesh);
        return Specs.typed(spec, out.shape().size(), null);
    }

    /**
     * The cotangent moved back to the operand's sharding (JAX's reshard transpose); on Auto axes, where types
     * carry no sharding, it is the cotangent itself.
     */
    @Override
    public <T> List<T> vjp(Vjp<T> v) {
        List<T> out = Vjp.cotangents(1);
        ArrayType x = v.operandType(0);
        if (v.needs(0) && x.dtype().isFloating()) {
            boolean typed = x.mesh() != null && x.mesh().hasExplicitAxes();
            out.set(0, typed ? v.bind(new Reshard(x.spec()), v.ct()) : v.ct());
        }
        return out;
    }

    @Override
    public NDArray apply(List<NDArray> operands) {
        return operands.get(0);
    }

    @Override
    public Partitioning partition(List<ArrayType> operands, ArrayType out) {
        return Partitioning.local(List.of(operands.get(0).dims()), this, operands.get(0).dims());
    }
}
