package dev.shardlings.primitive;

import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.PartitionSpec;

import java.util.List;
import java.util.Objects;

/**
 * {@code jnp.full(shape, value, dtype, out_sharding=…)} (and {@code zeros}, {@code ones}): a new array, created
 * directly in its layout — each device fills its own block, nothing moves.
 *
 * @param shape       global shape
 * @param dtype       element type
 * @param value       the fill value (converted to dtype)
 * @param mesh        the mesh it is created on, or null for an array on no mesh
 * @param outSharding its layout on that mesh (ignored without one)
 */
public record Full(List<Integer> shape, DType dtype, double value, Mesh mesh, PartitionSpec outSharding)
        implements Primitive {

    /** @throws NullPointerException if shape, dtype or outSharding is null */
    public Full {
        shape = List.copyOf(shape);
        Objects.requireNonNull(dtype, "dtype");
        Objects.requireNonNull(outSharding, "outSharding");
    }

    @Override
    public String name() {
        return "broadcast_in_dim";
    }

    @Override
    public Shaped abstractEval(List<ArrayType> operands) {
        Typing.arity(this, operands, 0);
        for (int s : shape) {
            if (s < 0) {
                throw new IllegalArgumentException("negative dimensions are not allowed, got shape "
                        + Specs.ints(shape));
            }
        }
        return new Shaped(dtype, shape);
    }

    @Override
    public List<List<String>> shardingRule(List<ArrayType> operands, Shaped out, Mesh m) {
        outSharding.validate(m);
        return Specs.typed(outSharding, shape.size(), m);
    }

    @Override
    public List<List<String>> autoRule(List<ArrayType> operands, Shaped out, Mesh m) {
        outSharding.validate(m);
        return Specs.typed(outSharding, shape.size(), null);
    }

    /** A constant: no operands. */
    @Override
    public <T> List<T> vjp(Vjp<T> v) {
        return Vjp.cotangents(0);
    }

    @Override
    public NDArray apply(List<NDArray> operands) {
        int[] s = shape.stream().mapToInt(Integer::intValue).toArray();
        if (dtype == DType.BFLOAT16) {
            return NDArray.full((float) value, s).astype(dtype); // the fill rounded as jnp.full rounds it
        }
        return dtype == DType.FLOAT32 ? NDArray.full((float) value, s) : NDArray.full((int) value, s);
    }

    @Override
    public Partitioning partition(List<ArrayType> operands, ArrayType out) {
        int[] local = Typing.localShape(shape, out.dims(), out.mesh());
        return Partitioning.local(List.of(), new Full(ArrayType.boxed(local), dtype, value, null, PartitionSpec.P()),
                out.dims());
    }
}
