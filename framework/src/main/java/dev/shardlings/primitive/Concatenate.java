package dev.shardlings.primitive;

import dev.shardlings.array.NDArray;
import dev.shardlings.sharding.Mesh;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * {@code lax.concatenate(operands, dimension)}: operands of equal shape except along {@code dimension}, joined
 * along it. Typing: every operand must have the same sharding, which the result keeps
 * (A[8@X,4@Y] ++ B[8@X,4@Y] → [16@X,4@Y]); otherwise a {@link ShardingTypeError}. Partitioning: joining along a
 * replicated dimension is local; along a sharded one, XLA's all-to-alls move its axes to another dimension and
 * back ({@link #partition}).
 *
 * @param dimension the dimension joined along
 */
public record Concatenate(int dimension) implements Primitive {

    @Override
    public String name() {
        return "concatenate";
    }

    @Override
    public Shaped abstractEval(List<ArrayType> operands) {
        if (operands.isEmpty()) {
            throw new IllegalArgumentException("concatenate requires at least one operand");
        }
        ArrayType a = operands.get(0);
        if (dimension < 0 || dimension >= a.rank()) {
            throw new IllegalArgumentException("concatenate dimension out of bounds: dimension " + dimension
                    + " for shapes " + operands.stream().map(t -> Specs.ints(t.shape()))
                    .collect(Collectors.joining(", ")) + ".");
        }
        int total = 0;
        for (ArrayType t : operands) {
            boolean ok = t.rank() == a.rank() && t.dtype() == a.dtype();
            for (int d = 0; ok && d < a.rank(); d++) {
                ok = d == dimension || t.shape().get(d).equals(a.shape().get(d));
            }
            if (!ok) {
                throw new IllegalArgumentException("Cannot concatenate arrays with shapes that differ in dimensions"
                        + " other than the one being concatenated: concatenating along dimension " + dimension
                        + " for shapes " + operands.stream().map(x -> Specs.ints(x.shape()))
                        .collect(Collectors.joining(", ")) + ".");
            }
            total += t.shape().get(dimension);
        }
        List<Integer> shape = new ArrayList<>(a.shape());
        shape.set(dimension, total);
        return new Shaped(a.dtype(), shape);
    }

    @Override
    public List<List<String>> shardingRule(List<ArrayType> operands, Shaped out, Mesh mesh) {
        List<List<String>> first = operands.get(0).dims();
        if (!operands.stream().allMatch(t -> t.dims().equals(first))) {
            throw new ShardingTypeError("All operands should have the same sharding. Got shardings "
                    + operands.stream().map(t -> "NamedSharding(mesh=" + Specs.abstractMesh(mesh) + ", spec=" + t.spec() + ")")
                    .collect(Collectors.joining(", ")));
        }
        return first;
    }

    /** Each operand gets its slice of the cotangent. */
    @Override
    public <T> List<T> vjp(Vjp<T> v) {
        List<T> out = Vjp.cotangents(v.arity());
        int[] shape = v.type(v.ct()).shapeArray();
        int offset = 0;
        for (int k = 0; k < v.arity(); k++) {
            ArrayType t = v.operandType(k);
            int size = t.shape().get(dimension);
            if (v.needs(k) && t.dtype().isFloating()) {
                out.set(k, v.bind(Slice.inDim(shape, dimension, offset, offset + size), v.ct()));
            }
            offset += size;
        }
        return out;
    }

    @Override
    public NDArray apply(List<NDArray> operands) {
        return NDArray.concat(dimension, operands);
    }

    /**
     * XLA's plan: the axes splitting the joined dimension move, by one all-to-all per operand, to the first other
     * dimension they still divide; the operands are joined locally there and one all-to-all moves the axes back
     * (A[16@X,16@Y] ++ B[16@X,16@Y] along 0 on 4 × 2: three all-to-alls over X, 384 bytes per device). Where no
     * other dimension can take them, each operand is gathered along the joined dimension and every device keeps
     * its block of the result.
     */
    @Override
    public Partitioning partition(List<ArrayType> operands, ArrayType out) {
        List<List<String>> dims = new ArrayList<>(out.dims());
        dims.set(dimension, Specs.NONE);
        Mesh mesh = out.mesh();
        List<String> split = mesh == null ? List.of()
                : out.dims().get(dimension).stream().filter(a -> mesh.axisSize(a) > 1).toList();
        if (!split.isEmpty()) {
            for (int j = 0; j < out.rank(); j++) {
                int parts = Specs.parts(mesh, out.dims().get(j)) * Specs.parts(mesh, split);
                if (j != dimension && out.shape().get(j) % parts == 0) {
                    List<String> moved = new ArrayList<>(out.dims().get(j));
                    moved.addAll(split);
                    dims.set(j, moved);
                    break;
                }
            }
        }
        List<List<List<String>>> need = java.util.Collections.nCopies(operands.size(), dims);
        return Partitioning.local(need, this, dims);
    }
}
