package dev.shardlings.primitive;

import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.sharding.Mesh;

import java.util.List;
import java.util.stream.Collectors;

/**
 * {@code lax.select_n(which, on_false, on_true)} for a bool {@code which}: on_true where which holds, else
 * on_false — what {@code jnp.where(c, x, y)} stages after broadcasting its operands. The cases have one dtype and
 * shape; which has their shape or is a scalar. Explicit typing is JAX's: the cases must have the same sharding
 * ("select cases must have the same shardings, got [...]."), and which that sharding too unless it is a scalar
 * ("select `which` must be scalar or have the same sharding as cases, …"). On Auto axes the result takes the
 * broadcasting rule's layout; every operand is laid out like the result and each device picks locally.
 */
public record Select() implements Primitive {

    @Override
    public String name() {
        return "select_n";
    }

    @Override
    public Shaped abstractEval(List<ArrayType> operands) {
        Typing.arity(this, operands, 3);
        ArrayType which = operands.get(0);
        ArrayType onFalse = operands.get(1);
        ArrayType onTrue = operands.get(2);
        if (which.dtype() != DType.BOOL) {
            throw new IllegalArgumentException("select_n: which must be a bool array (compare first, e.g. x > 0), got "
                    + which.dtype().jaxName());
        }
        if (onFalse.dtype() != onTrue.dtype() || !onFalse.shape().equals(onTrue.shape())) {
            throw new IllegalArgumentException("select cases must have the same shapes and dtypes, got ["
                    + onFalse.dtype().shortName() + Specs.ints(onFalse.shape()) + ", " + onTrue.dtype().shortName()
                    + Specs.ints(onTrue.shape()) + "].");
        }
        if (which.rank() != 0 && !which.shape().equals(onTrue.shape())) {
            throw new IllegalArgumentException("select `which` must be scalar or have the same shape as cases, got"
                    + " `which` shape " + Specs.ints(which.shape()) + " but case shape " + Specs.ints(onTrue.shape())
                    + ".");
        }
        return new Shaped(onTrue.dtype(), onTrue.shape());
    }

    @Override
    public List<List<String>> shardingRule(List<ArrayType> operands, Shaped out, Mesh mesh) {
        ArrayType which = operands.get(0);
        List<ArrayType> cases = operands.subList(1, 3);
        if (!cases.get(0).dims().equals(cases.get(1).dims())) {
            throw new ShardingTypeError("select cases must have the same shardings, got ["
                    + cases.stream().map(t -> sharding(t, mesh)).collect(Collectors.joining(", ")) + "].");
        }
        if (which.rank() != 0 && !which.dims().equals(cases.get(0).dims())) {
            throw new ShardingTypeError("select `which` must be scalar or have the same sharding as cases, got"
                    + " `which` sharding " + sharding(which, mesh) + " but case sharding " + sharding(cases.get(0), mesh)
                    + ".");
        }
        return cases.get(0).dims();
    }

    private static String sharding(ArrayType t, Mesh mesh) {
        return "NamedSharding(mesh=" + Specs.abstractMesh(mesh) + ", spec=" + t.spec() + ")";
    }

    @Override
    public List<List<String>> autoFallback(List<ArrayType> operands, Shaped out, Mesh mesh) {
        try {
            return Binary.broadcastingRule(name(), operands);
        } catch (ShardingTypeError conflict) {
            return operands.get(2).dims(); // the true case's layout; the others are re-laid out to it
        }
    }

    /** Each case gets the cotangent where it was chosen and zero elsewhere; {@code which} gets none. */
    @Override
    public <T> List<T> vjp(Vjp<T> v) {
        List<T> out = Vjp.cotangents(3);
        if (!v.type(v.out()).dtype().isFloating() || !(v.needs(1) || v.needs(2))) {
            return out;
        }
        T g = v.ct();
        T z = v.zeros(v.type(g));
        if (v.needs(1)) {
            out.set(1, v.unbroadcast(v.bind(this, v.operand(0), g, z), v.operandType(1)));
        }
        if (v.needs(2)) {
            out.set(2, v.unbroadcast(v.bind(this, v.operand(0), z, g), v.operandType(2)));
        }
        return out;
    }

    @Override
    public NDArray apply(List<NDArray> operands) {
        return NDArray.where(operands.get(0), operands.get(2), operands.get(1));
    }

    @Override
    public Partitioning partition(List<ArrayType> operands, ArrayType out) {
        return Binary.elementwise(this, operands, out);
    }

    @Override
    public long flops(List<ArrayType> operands, ArrayType out) {
        return 0;
    }
}
