package dev.shardlings.primitive;

import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.sharding.Mesh;

import java.util.List;

/**
 * One operation on global arrays, with its rules — the analogue of a JAX primitive ({@code jax.core.Primitive}).
 *
 * <ul>
 *   <li><b>shape and dtype</b> ({@link #abstractEval}): the result's dtype and global shape.</li>
 *   <li><b>Explicit typing</b> ({@link #shardingRule}): the result's sharding on a mesh with Explicit axes, or a
 *       {@link ShardingTypeError} with JAX's text. {@link #typeOf} runs both and the checks JAX makes around them
 *       (one mesh for all operands, no mesh axis on two result dimensions).</li>
 *   <li><b>Auto propagation</b> ({@link #autoRule}): the layout the compiler gives the result on Auto axes.</li>
 *   <li><b>partitioning</b> ({@link #partition}): how the operation runs per device — the operand layouts the local
 *       computation needs, the local operation, and the reduction over mesh axes that completes it.</li>
 *   <li><b>value</b> ({@link #apply}): the operation on whole arrays (also the local operation on blocks).</li>
 *   <li><b>cost</b> ({@link #flops}): floating-point operations of the whole operation.</li>
 * </ul>
 * Implementations are immutable records; their parameters are part of their identity ({@code equals}).
 */
public sealed interface Primitive permits Unary, Binary, Compare, Select, BroadcastInDim, ConvertType, DotGeneral, Reduce, Transpose,
        Reshape, Slice, Concatenate, Take, OneHot, Full, Reshard, ShardingConstraint, ManualRegion, Pvary, StopGradient {

    /** JAX's primitive name, e.g. {@code "dot_general"}; it names the operation in JAX's error texts. */
    String name();

    /**
     * The result's dtype and shape.
     *
     * @throws IllegalArgumentException when the operands' shapes, dtypes or count do not fit the operation
     */
    Shaped abstractEval(List<ArrayType> operands);

    /**
     * The Explicit typing rule: for each result dimension the mesh axes splitting it. May name an axis twice,
     * which {@link #typeOf} reports as an illegally sharded result.
     *
     * @param mesh the operands' mesh (it has Explicit axes)
     * @throws ShardingTypeError when the sharding is ambiguous or not supported, with JAX's text
     */
    List<List<String>> shardingRule(List<ArrayType> operands, Shaped out, Mesh mesh);

    /** The value on whole arrays (or, for the local operation of a {@link Partitioning}, on blocks). */
    NDArray apply(List<NDArray> operands);

    /**
     * How the operation runs per device once the result's layout {@code out} is chosen; {@code operands} and
     * {@code out} are layouts (their dims may name any mesh axes).
     */
    Partitioning partition(List<ArrayType> operands, ArrayType out);

    /**
     * The reverse-mode rule (JAX's JVP and transpose rules together): each operand's cotangent from the result's
     * cotangent {@link Vjp#ct()}, emitted through {@code v}. An entry is null where the operand gets no
     * cotangent: it is not differentiable (an index, a comparison's operand), or {@link Vjp#needs} says it is
     * not needed; the engine then treats it as zero.
     *
     * @throws UnsupportedOperationException for a primitive without a rule, with JAX's text ("Differentiation
     *                                       rule for 'x' not implemented")
     */
    default <T> List<T> vjp(Vjp<T> v) {
        throw new UnsupportedOperationException("Differentiation rule for '" + name() + "' not implemented");
    }

    /** Floating-point operations of the whole operation (the cost model's FLOPs; 0 for data movement). */
    default long flops(List<ArrayType> operands, ArrayType out) {
        return 0;
    }

    /**
     * The type of the result: {@link #abstractEval}, then on a mesh with Explicit axes {@link #shardingRule} and
     * the duplicate-axis check, as JAX's {@code standard_abstract_eval} runs them.
     *
     * @throws ShardingTypeError        for the sharding errors JAX raises (texts as in JAX)
     * @throws IllegalArgumentException for shape or dtype errors
     */
    default ArrayType typeOf(List<ArrayType> operands) {
        Mesh mesh = Typing.meshOf(this, operands);
        Shaped s = abstractEval(operands);
        if (mesh == null || !mesh.hasExplicitAxes()) {
            return new ArrayType(s.dtype(), s.shape(), Specs.replicated(s.shape().size()), mesh);
        }
        List<List<String>> dims = shardingRule(operands, s, mesh);
        Typing.checkNoDuplicate(this, operands, s, dims);
        return new ArrayType(s.dtype(), s.shape(), dims, mesh);
    }

    /**
     * The layout the result gets on Auto axes, from the operands' layouts: the Explicit rule where it gives an
     * answer; where it would be a type error, {@link #autoFallback}; an axis that would split two dimensions is
     * kept on the first only. (The compiler's full propagation, backward from out shardings too, belongs to jit.)
     */
    default List<List<String>> autoRule(List<ArrayType> operands, Shaped out, Mesh mesh) {
        List<List<String>> dims;
        try {
            dims = shardingRule(operands, out, mesh);
        } catch (ShardingTypeError e) {
            dims = autoFallback(operands, out, mesh);
        }
        return Typing.dropRepeatedAxes(dims);
    }

    /** The Auto layout where the Explicit rule has no answer: replicated unless the primitive knows better. */
    default List<List<String>> autoFallback(List<ArrayType> operands, Shaped out, Mesh mesh) {
        return Specs.replicated(out.shape().size());
    }

    /**
     * A result's dtype and global shape (JAX's {@code ShapedArray} without sharding).
     *
     * @param dtype element type
     * @param shape global shape
     */
    record Shaped(DType dtype, List<Integer> shape) {
        /** @throws NullPointerException if an argument is null */
        public Shaped {
            java.util.Objects.requireNonNull(dtype, "dtype");
            shape = List.copyOf(shape);
        }

        int[] array() {
            return shape.stream().mapToInt(Integer::intValue).toArray();
        }
    }
}
