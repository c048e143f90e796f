package dev.shardlings.primitive;

import dev.shardlings.array.DType;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.NamedSharding;
import dev.shardlings.sharding.PartitionSpec;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * The type of a global array: dtype, shape and — on a mesh with Explicit axes — its sharding. JAX's
 * {@code ShapedArray} with its {@code sharding}, as {@code jax.typeof(x)} returns it.
 *
 * <p>Only Explicit axes are part of a type: an array on a mesh whose axes are all Auto prints as
 * {@code float32[8,4]} whatever its layout, as in JAX. Printed forms: {@link #toString()} {@code float32[8@X,4@Y]}
 * (typeof), {@link #shortString()} {@code f32[8@X,4@Y]} (inside JAX's error texts), {@link #shapedArrayString()}
 * {@code ShapedArray(float32[8@X,4@Y])}; a dimension split over several axes prints {@code 32@(X,Y)}.
 *
 * @param dtype element type
 * @param shape global shape
 * @param dims  for each dimension the Explicit mesh axes splitting it (empty: replicated); as long as shape
 * @param mesh  the mesh the array lives on, or null for an array on no mesh (uncommitted, e.g. a constant)
 */
public record ArrayType(DType dtype, List<Integer> shape, List<List<String>> dims, Mesh mesh) {

    /**
     * @throws NullPointerException     if dtype, shape or dims is null
     * @throws IllegalArgumentException if dims and shape differ in length
     */
    public ArrayType {
        Objects.requireNonNull(dtype, "dtype");
        shape = List.copyOf(shape);
        dims = dims.stream().map(List::copyOf).toList();
        if (dims.size() != shape.size()) {
            throw new IllegalArgumentException("a type needs one spec entry per dimension: shape " + shape
                    + ", spec entries " + dims);
        }
    }

    /**
     * The type of an array of this shape laid out by {@code sharding} (its Auto axes dropped).
     *
     * @throws IllegalArgumentException if the spec is longer than the shape
     */
    public static ArrayType of(DType dtype, int[] shape, NamedSharding sharding) {
        Mesh mesh = sharding.mesh();
        return new ArrayType(dtype, boxed(shape), Specs.typed(sharding.spec(), shape.length, mesh), mesh);
    }

    /**
     * The layout of an array: like {@link #of} but keeping every mesh axis of the spec, Auto ones included (what
     * the partitioner needs, where a type would show only the Explicit axes).
     *
     * @throws IllegalArgumentException if the spec is longer than the shape
     */
    public static ArrayType layoutOf(DType dtype, int[] shape, NamedSharding sharding) {
        return new ArrayType(dtype, boxed(shape), Specs.typed(sharding.spec(), shape.length, null), sharding.mesh());
    }

    /** The type of an array on no mesh (replicated, uncommitted). */
    public static ArrayType unsharded(DType dtype, int... shape) {
        return new ArrayType(dtype, boxed(shape), Specs.replicated(shape.length), null);
    }

    /** The rank. */
    public int rank() {
        return shape.size();
    }

    /** The shape as an array (a copy). */
    public int[] shapeArray() {
        return shape.stream().mapToInt(Integer::intValue).toArray();
    }

    /** The sharding in the type as a spec of exactly {@link #rank()} entries, e.g. {@code P('X', None)}. */
    public PartitionSpec spec() {
        return Specs.toSpec(dims);
    }

    /** Whether the type carries no sharding (replicated, or on a mesh without Explicit axes). */
    public boolean isReplicated() {
        return dims.stream().allMatch(List::isEmpty);
    }

    /** The number of elements. */
    public long size() {
        long n = 1;
        for (int s : shape) {
            n *= s;
        }
        return n;
    }

    /** {@code jax.typeof(x)} as printed: {@code float32[8@X,4@Y]}. */
    @Override
    public String toString() {
        return dtype.jaxName() + "[" + body() + "]";
    }

    /** The short form used in JAX's error texts: {@code f32[8@X,4@Y]}. */
    public String shortString() {
        return dtype.shortName() + "[" + body() + "]";
    }

    /** {@code repr(aval)}: {@code ShapedArray(float32[8@X,4@Y])}. */
    public String shapedArrayString() {
        return "ShapedArray(" + this + ")";
    }

    private String body() {
        List<String> parts = new ArrayList<>(shape.size());
        for (int d = 0; d < shape.size(); d++) {
            List<String> e = dims.get(d);
            String s = String.valueOf(shape.get(d));
            if (e.size() == 1) {
                s += "@" + e.get(0);
            } else if (e.size() > 1) {
                s += "@(" + String.join(",", e) + ")";
            }
            parts.add(s);
        }
        return String.join(",", parts);
    }

    static List<Integer> boxed(int[] xs) {
        return Arrays.stream(xs).boxed().toList();
    }
}
