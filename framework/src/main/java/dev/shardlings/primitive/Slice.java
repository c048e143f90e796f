package dev.shardlings.primitive;

import dev.shardlings.array.NDArray;
import dev.shardlings.sharding.Mesh;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code lax.slice(x, startIndices, limitIndices)}: the elements [start, limit) of every dimension (stride 1).
 *
 * <p>Typing (JAX's {@code _slice_sharding_rule}): the result keeps the operand's sharding; a sharded dimension
 * whose size changes must stay divisible by its mesh axes, else {@link ShardingTypeError} ("slicing on sharded
 * dims where out dim (1) is not divisible by mesh axes (4) …" — which is what {@code jnp.roll} of a sharded
 * dimension by a shift the axes do not divide raises). Partitioning: a dimension that keeps its size is sliced in
 * place; a sharded dimension whose size changes is gathered first (the kept elements live on other devices), then
 * every device keeps its block of the result.
 *
 * @param startIndices first index kept, per dimension
 * @param limitIndices one past the last index kept, per dimension
 */
public record Slice(List<Integer> startIndices, List<Integer> limitIndices) implements Primitive {

    /** @throws NullPointerException if an argument is null */
    public Slice {
        startIndices = List.copyOf(startIndices);
        limitIndices = List.copyOf(limitIndices);
    }

    /** The slice [start, stop) of one dimension of an array of this shape, whole elsewhere. */
    public static Slice inDim(int[] shape, int dim, int start, int stop) {
        List<Integer> s = new ArrayList<>();
        List<Integer> l = new ArrayList<>();
        for (int d = 0; d < shape.length; d++) {
            s.add(d == dim ? start : 0);
            l.add(d == dim ? stop : shape[d]);
        }
        return new Slice(s, l);
    }

    @Override
    public String name() {
        return "slice";
    }

    @Override
    public Shaped abstractEval(List<ArrayType> operands) {
        Typing.arity(this, operands, 1);
        ArrayType a = operands.get(0);
        if (startIndices.size() != a.rank() || limitIndices.size() != a.rank()) {
            throw new IllegalArgumentException("slice start_indices and limit_indices must have length equal to the"
                    + " number of dimensions of the operand, got start_indices " + Specs.ints(startIndices)
                    + ", limit_indices " + Specs.ints(limitIndices) + " and shape " + Specs.ints(a.shape()) + ".");
        }
        List<Integer> shape = new ArrayList<>();
        for (int d = 0; d < a.rank(); d++) {
            int s = startIndices.get(d);
            int l = limitIndices.get(d);
            if (s < 0 || l < s || l > a.shape().get(d)) {
                throw new IllegalArgumentException("slice indices must satisfy 0 <= start <= limit <= shape, got"
                        + " start_indices " + Specs.ints(startIndices) + ", limit_indices "
                        + Specs.ints(limitIndices) + " for shape " + Specs.ints(a.shape()) + ".");
            }
            shape.add(l - s);
        }
        return new Shaped(a.dtype(), shape);
    }

    @Override
    public List<List<String>> shardingRule(List<ArrayType> operands, Shaped out, Mesh mesh) {
        ArrayType a = operands.get(0);
        for (int d = 0; d < a.rank(); d++) {
            List<String> sp = a.dims().get(d);
            int o = out.shape().get(d);
            int parts = Specs.parts(mesh, sp);
            if (!a.shape().get(d).equals(o) && !sp.isEmpty() && o % parts != 0) {
                throw new ShardingTypeError("slicing on sharded dims where out dim (" + o + ") is not divisible by"
                        + " mesh axes (" + parts + ") with spec (" + Specs.bare(sp) + ") is not implemented. Got input"
                        + " type=" + a.shortString() + " and output shape=" + Specs.ints(out.shape()));
            }
        }
        return a.dims();
    }

    /** The cotangent padded with zeros back to the operand's shape (JAX pads; here, concatenations of zeros). */
    @Override
    public <T> List<T> vjp(Vjp<T> v) {
        List<T> out = Vjp.cotangents(1);
        ArrayType x = v.operandType(0);
        if (!v.needs(0) || !x.dtype().isFloating()) {
            return out;
        }
        T g = v.ct();
        for (int d = 0; d < x.rank(); d++) {
            int before = startIndices.get(d);
            int after = x.shape().get(d) - limitIndices.get(d);
            if (before == 0 && after == 0) {
                continue;
            }
            ArrayType t = v.type(g);
            if (t.mesh() != null && t.mesh().hasExplicitAxes() && !t.dims().get(d).isEmpty()) {
                // the zeros cannot take a split of this dimension: pad it whole (the engine reshards the result
                // to the operand's sharding)
                List<List<String>> whole = new ArrayList<>(t.dims());
                whole.set(d, Specs.NONE);
                g = v.bind(new Reshard(new ArrayType(t.dtype(), t.shape(), whole, t.mesh()).spec()), g);
                t = v.type(g);
            }
            List<Object> parts = new ArrayList<>();
            if (before > 0) {
                parts.add(v.zeros(resized(t, d, before)));
            }
            parts.add(g);
            if (after > 0) {
                parts.add(v.zeros(resized(t, d, after)));
            }
            g = v.bind(new Concatenate(d), parts);
        }
        out.set(0, g);
        return out;
    }

    private static ArrayType resized(ArrayType t, int d, int size) {
        List<Integer> shape = new ArrayList<>(t.shape());
        shape.set(d, size);
        List<List<String>> dims = new ArrayList<>(t.dims());
        dims.set(d, Specs.NONE);
        return new ArrayType(t.dtype(), shape, dims, t.mesh());
    }

    @Override
    public NDArray apply(List<NDArray> operands) {
        NDArray x = operands.get(0);
        for (int d = 0; d < x.rank(); d++) {
            if (startIndices.get(d) != 0 || limitIndices.get(d) != x.shape(d)) {
                x = x.slice(d, startIndices.get(d), limitIndices.get(d));
            }
        }
        return x;
    }

    @Override
    public Partitioning partition(List<ArrayType> operands, ArrayType out) {
        ArrayType a = operands.get(0);
        List<List<String>> need = new ArrayList<>();
        List<Integer> start = new ArrayList<>();
        List<Integer> limit = new ArrayList<>();
        int[] local = Typing.localShape(a.shape(), a.dims(), a.mesh());
        for (int d = 0; d < a.rank(); d++) {
            boolean whole = startIndices.get(d) == 0 && limitIndices.get(d).equals(a.shape().get(d));
            need.add(whole ? a.dims().get(d) : Specs.NONE);
            start.add(whole ? 0 : startIndices.get(d));
            limit.add(whole ? local[d] : limitIndices.get(d));
        }
        return Partitioning.local(List.of(need), new Slice(start, limit), need);
    }
}
