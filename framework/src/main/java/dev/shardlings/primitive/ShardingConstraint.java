package dev.shardlings.primitive;

import dev.shardlings.array.NDArray;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.PartitionSpec;

import java.util.List;
import java.util.Objects;

/**
 * {@code jax.lax.with_sharding_constraint(x, spec)}. On a mesh whose axes are all Explicit it is an assertion, as
 * in JAX: the type's sharding must already be {@code spec} (padded to the rank), else {@link AssertionError} with
 * JAX's text, which points to {@code reshard}. On Auto axes it tells the compiler the layout wanted there, and the
 * value is re-laid out to it.
 *
 * @param spec the layout required
 */
public record ShardingConstraint(PartitionSpec spec) implements Primitive {

    /** @throws NullPointerException if spec is null */
    public ShardingConstraint {
        Objects.requireNonNull(spec, "spec");
    }

    @Override
    public String name() {
        return "sharding_constraint";
    }

    @Override
    public Shaped abstractEval(List<ArrayType> operands) {
        Typing.arity(this, operands, 1);
        return new Shaped(operands.get(0).dtype(), operands.get(0).shape());
    }

    @Override
    public List<List<String>> shardingRule(List<ArrayType> operands, Shaped out, Mesh mesh) {
        spec.validate(mesh);
        ArrayType a = operands.get(0);
        List<List<String>> wanted = Specs.typed(spec, a.rank(), mesh);
        if (mesh.allAxesExplicit() && !wanted.equals(a.dims())) {
            throw new AssertionError("`with_sharding_constraint` acts as an assert when all axes of mesh are of type"
                    + " `Explicit`. The array sharding: " + a.spec() + " did not match the sharding provided: "
                    + spec.padTo(a.rank()) + ". Please use `jax.sharding.reshard` to shard your input to the"
                    + " sharding you want.");
        }
        return wanted;
    }

    @Override
    public List<List<String>> autoRule(List<ArrayType> operands, Shaped out, Mesh mesh) {
        spec.validate(mesh);
        return Specs.typed(spec, out.shape().size(), null);
    }

    /** The cotangent under the same constraint (JAX's {@code with_sharding_constraint} transpose). */
    @Override
    public <T> List<T> vjp(Vjp<T> v) {
        List<T> out = Vjp.cotangents(1);
        if (v.needs(0) && v.operandType(0).dtype().isFloating()) {
            out.set(0, v.bind(this, v.ct()));
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
