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

    @Override
    public NDArray apply(List<NDArray> operands) {
        return operands.get(0).astype(dtype);
    }

    @Override
    public Partitioning partition(List<ArrayType> operands, ArrayType out) {
        return Partitioning.local(List.of(out.dims()), this, out.dims());
    }
}
