package dev.shardlings.primitive;

import dev.shardlings.array.BinaryOp;
import dev.shardlings.array.CompareOp;
import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.array.ReduceOp;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.PartitionSpec;

import java.util.ArrayList;
import java.util.List;

/**
 * One equation seen from the backward pass: what a primitive's {@link Primitive#vjp} rule reads (the primal
 * operands, the primal result, the result's cotangent) and how it emits the operations that compute the
 * operands' cotangents (JAX's transpose rules, {@code ad.primitive_transposes}, together with the nonlinear
 * primitives' JVPs). The same rule serves both reverse-mode engines: on global arrays inside a trace (values are
 * traced {@code ShardedArray}s, emitted operations are equations of the program) and on a device's local
 * {@link NDArray}s (values are blocks, emitted operations run at once).
 *
 * <p>Operands are values of the engine's type {@code T}, or {@link NDArray} constants (literals of the program);
 * {@link #bind} accepts both. The helpers below are the handful of operations rules are written with.
 *
 * @param <T> the engine's array type
 */
public abstract class Vjp<T> {
    private final List<Object> operands;
    private final boolean[] needs;

    /**
     * @param operands the primal operands, in the primitive's order
     * @param needs    which operands need a cotangent (the others are constants or not differentiable)
     */
    protected Vjp(List<Object> operands, boolean[] needs) {
        this.operands = List.copyOf(operands);
        this.needs = needs.clone();
    }

    /** Operand k of the primal equation (a {@code T} or an {@link NDArray} constant). */
    public final Object operand(int k) {
        return operands.get(k);
    }

    /** The number of primal operands. */
    public final int arity() {
        return operands.size();
    }

    /** Whether operand k needs a cotangent; a rule may skip work for the others (return null there). */
    public final boolean needs(int k) {
        return needs[k];
    }

    /** The primal result (the first, for a primitive of several results). */
    public abstract T out();

    /** The result's cotangent: its dtype and shape are the result's. */
    public abstract T ct();

    /** Applies {@code p} to operands that are {@code T}s or {@link NDArray} constants. */
    public abstract T bind(Primitive p, List<Object> operands);

    /** The type of a {@code T} or an {@link NDArray} constant (dtype, shape, and on Explicit axes the sharding). */
    public abstract ArrayType type(Object x);

    /** {@link #bind} of operands written out. */
    public final T bind(Primitive p, Object... operands) {
        return bind(p, List.of(operands));
    }

    // ------------------------------------------------------------------------------------------ helpers

    /** The type of operand k. */
    public final ArrayType operandType(int k) {
        return type(operand(k));
    }

    /** A float32 scalar constant. */
    public static NDArray scalar(double v) {
        return NDArray.scalar((float) v);
    }

    public final T binary(BinaryOp op, Object a, Object b) {
        return bind(new Binary(op), a, b);
    }

    public final T mul(Object a, Object b) {
        return binary(BinaryOp.MUL, a, b);
    }

    public final T div(Object a, Object b) {
        return binary(BinaryOp.DIV, a, b);
    }

    public final T add(Object a, Object b) {
        return binary(BinaryOp.ADD, a, b);
    }

    public final T sub(Object a, Object b) {
        return binary(BinaryOp.SUB, a, b);
    }

    public final T neg(Object a) {
        return bind(new Unary(dev.shardlings.array.UnaryOp.NEG), a);
    }

    /** {@code a op b} as 1.0 where it holds, else 0.0 (float32). */
    public final T indicator(CompareOp op, Object a, Object b) {
        return bind(new ConvertType(DType.FLOAT32), bind(new Compare(op), a, b));
    }

    /** A float32 array of zeros of {@code like}'s shape, with its sharding where types carry one. */
    public final T zeros(ArrayType like) {
        Mesh mesh = like.mesh();
        PartitionSpec spec = mesh != null && mesh.hasExplicitAxes() ? like.spec() : PartitionSpec.P();
        return bind(new Full(like.shape(), like.dtype(), 0, mesh, spec));
    }

    /** {@code x} summed over {@code axes} (none: x itself). */
    public final T sum(Object x, List<Integer> axes) {
        return bind(new Reduce(ReduceOp.SUM, axes), x);
    }

    /** {@code x} reshaped (no sharding asked for). */
    public final T reshape(Object x, List<Integer> shape) {
        return bind(new Reshape(shape, null), x);
    }

    /**
     * The cotangent {@code g} of a value broadcast (numpy rules: leading dimensions added, size-1 dimensions
     * stretched) from an operand of type {@code target}: summed over the broadcast dimensions and reshaped to the
     * operand's shape. {@code g} itself when nothing was broadcast.
     */
    public final T unbroadcast(T g, ArrayType target) {
        List<Integer> gs = type(g).shape();
        List<Integer> ts = target.shape();
        if (gs.equals(ts)) {
            return g;
        }
        int lead = gs.size() - ts.size();
        List<Integer> axes = new ArrayList<>();
        for (int d = 0; d < gs.size(); d++) {
            if (d < lead || (ts.get(d - lead) == 1 && gs.get(d) != 1)) {
                axes.add(d);
            }
        }
        T summed = axes.isEmpty() ? g : sum(g, axes);
        return type(summed).shape().equals(ts) ? summed : reshape(summed, ts);
    }

    /** A list of n nulls (no operand needs a cotangent) with the given entries set. */
    static <T> List<T> cotangents(int n) {
        List<T> out = new ArrayList<>(n);
        for (int k = 0; k < n; k++) {
            out.add(null);
        }
        return out;
    }
}
