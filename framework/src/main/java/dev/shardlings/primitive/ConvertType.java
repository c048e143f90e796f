package dev.shardlings.primitive;

import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.sharding.Mesh;

import java.util.List;
import java.util.Objects;

/**
 * {@code x.astype(dtype)} ({@code lax.convert_element_type}): the sharding kept, each block converted.
 *
 * @param dtype the new element type
 */
public record ConvertType(DType dtype) implements Primitive {

    /** @throws NullPointerException if dtype is null */
    public ConvertType {
        Objects.requireNonNull(dtype, "dtype");
    }

    @Override
    public String name() {
        return "convert_element_type";
    }

    @Override
    public Shaped abstractEval(List<ArrayType> operands) {
        Typing.arity(this, operands, 1);
        return new Shaped(dtype, operands.get(0).shape());
    }

    @Override
    public List<List<String>> shardingRule(List<ArrayType> operands, Shaped out, Mesh mesh) {
        return operands.get(0).dims();
    }

    /** Between float types the cotangent converts back; from or to an integer type there is none. */
    @Override
    public <T> List<T> vjp(Vjp<T> v) {
        List<T> out = Vjp.cotangents(1);
        DType from = v.operandType(0).dtype();
        if (v.needs(0) && from.isFloating() && dtype.isFloating()) {
            out.set(0, from == dtype ? v.ct() : v.bind(new ConvertType(from), v.ct()));
        }
        return out;
    }

    @Override
    public NDArray apply(List<NDArray> operands) {
        return operands.get(0).astype(dtype);
    }

    @Override
    public Partitioning partition(List<ArrayType> operands, ArrayType out) {
        return Partitioning.local(List.of(out.dims()), this, out.dims());
    }
}
