package dev.shardlings.array;

import java.util.List;

/**
 * Receives each differentiable local operation while reverse-mode differentiation records a function of
 * {@link NDArray}s (framework SPI: {@code dev.shardlings.autodiff.Autodiff} installs one through
 * {@link GradRecorders}). Each method is called once per operation, after the result {@code out} was made, with the
 * very objects the operation read and returned. Operations whose result is not differentiable (comparisons,
 * argmax, argsort, integer creation) are not reported. Every operation is reported at exactly one place: an
 * operation built from others (squeeze from reshape, stack from concatenate) is reported through those.
 */
public interface GradRecorder {
    /** {@code out = op(x)}. */
    void unary(UnaryOp op, NDArray x, NDArray out);

    /** {@code out = op(x, y)}, numpy broadcasting (ranks may differ, size-1 dimensions stretch). */
    void binary(BinaryOp op, NDArray x, NDArray y, NDArray out);

    /** {@code out = x.astype(out.dtype())}. */
    void convert(NDArray x, NDArray out);

    /** {@code out = where(which, onTrue, onFalse)}; the operands already have {@code out}'s shape or are scalars. */
    void select(NDArray which, NDArray onTrue, NDArray onFalse, NDArray out);

    /** {@code out = xs[0] + xs[1] + …} (same shapes). */
    void addN(List<NDArray> xs, NDArray out);

    /**
     * {@code out = op(x)} over {@code axes} (sorted, distinct, non-negative); {@code out} may keep the reduced
     * dimensions as size 1 (keepdims).
     */
    void reduce(ReduceOp op, int[] axes, NDArray x, NDArray out);

    /** {@code out = x.reshape(out.shape())} (also squeeze and expand_dims). */
    void reshape(NDArray x, NDArray out);

    /** {@code out = x.transpose(perm)}. */
    void transpose(int[] perm, NDArray x, NDArray out);

    /** {@code out = broadcast_to(x, out.shape())}, numpy rules (leading dimensions added, size-1 stretched). */
    void broadcast(NDArray x, NDArray out);

    /** {@code out = x[..., start:stop, ...]} along {@code axis}. */
    void slice(int axis, int start, int stop, NDArray x, NDArray out);

    /** {@code out = take(x, indices, axis)} (int32 indices, their dimensions replacing {@code axis}). */
    void gather(int axis, NDArray x, NDArray indices, NDArray out);

    /** {@code out = roll(x, shift, axis)}; {@code axis} is -1 for a roll of the flattened array. */
    void roll(int shift, int axis, NDArray x, NDArray out);

    /** {@code out = concatenate(xs, axis)}. */
    void concatenate(int axis, List<NDArray> xs, NDArray out);

    /** {@code out = a @ b}, a[M,K] · b[K,N]. */
    void matmul(NDArray a, NDArray b, NDArray out);

    /** {@code out = pvary(x, axes)}: x made varying over {@code out.varyingAxes()} (no data movement). */
    void pvary(NDArray x, NDArray out);

    /**
     * {@code out = op(inputs)} for an operation defined outside this package (a collective), with its pullback:
     * the inputs' cotangents (null where none) from {@code out}'s cotangent.
     *
     * @throws UnsupportedOperationException unless the recorder differentiates such operations
     */
    default void custom(List<NDArray> inputs, NDArray out,
                        java.util.function.Function<NDArray, List<NDArray>> pullback) {
        throw new UnsupportedOperationException("this recorder does not take custom operations");
    }
}
