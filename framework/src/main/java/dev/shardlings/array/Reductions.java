package dev.shardlings.array;

import java.util.Arrays;

/**
 * The reductions behind {@link NDArray}: {@link ReduceOp} over a set of axes, and {@link SearchOp#ARGMAX} along
 * one. Each checks its axes against the shape, moves the reduced axes last ({@link ShapeOps#permuted}) so every
 * result element reduces one contiguous run, and leaves the loop to {@link ReduceKernels}. An installed
 * {@link GradRecorder} sees each reduction (mean too: one kernel) with its axes sorted; argmax is not recorded.
 */
final class Reductions {

    private Reductions() {
    }

    /**
     * x reduced by op over {@code axes} (none: all), the reduced axes dropped or, with keepdims, kept as size 1.
     *
     * @throws IllegalArgumentException if an axis is out of bounds or repeated, or max/min reduce an empty axis
     *                                  into a non-empty result
     */
    static NDArray reduce(NDArray x, ReduceOp op, boolean keepdims, int[] axes) {
        if (x.dtype == DType.BOOL && (op == ReduceOp.SUM || op == ReduceOp.MEAN)) {
            // jnp.sum(bool) counts: int32; jnp.mean(bool) is float32. The conversion is recorded on its own.
            x = Elementwise.convert(x, DType.INT32);
        }
        int[] shape = x.shape;
        int rank = shape.length;
        boolean[] reduced = new boolean[rank];
        if (axes.length == 0) {
            Arrays.fill(reduced, true);
        }
        for (int a : axes) {
            int ax = Shapes.axis(a, rank);
            if (reduced[ax]) {
                throw new IllegalArgumentException("duplicate value in 'axis': axis " + ax + " appears twice in "
                        + Arrays.toString(axes));
            }
            reduced[ax] = true;
        }
        int[] perm = new int[rank];
        int j = 0;
        int kept = 0;
        for (int d = 0; d < rank; d++) {
            if (!reduced[d]) {
                perm[j++] = d;
                kept++;
            }
        }
        int count = 1;
        for (int d = 0; d < rank; d++) {
            if (reduced[d]) {
                perm[j++] = d;
                count *= shape[d];
            }
        }
        int[] outShape = new int[keepdims ? rank : kept];
        for (int d = 0, k = 0; d < rank; d++) {
            if (keepdims) {
                outShape[d] = reduced[d] ? 1 : shape[d];
            } else if (!reduced[d]) {
                outShape[k++] = shape[d];
            }
        }
        int outN = Shapes.size(outShape);
        if ((op == ReduceOp.MAX || op == ReduceOp.MIN) && count == 0 && outN > 0) {
            throw new IllegalArgumentException("zero-size array to reduction operation "
                    + (op == ReduceOp.MAX ? "maximum" : "minimum")
                    + " which has no identity: reducing shape " + Shapes.str(shape) + " over axes "
                    + Arrays.toString(axes) + " includes a size-0 axis");
        }
        boolean leading = kept > 0 && kept < rank && x.f != null && (op == ReduceOp.SUM || op == ReduceOp.MEAN);
        for (int d = 0; leading && d < rank; d++) {
            leading = reduced[d] == d < rank - kept; // the reduced axes are the first ones
        }
        if (leading) {
            // summing over the leading axes (a bias's gradient, a mean over the batch): the same sums, read in place
            NDArray out = NDArray.made(ReduceKernels.sumLeading(x.f, count, outN, op == ReduceOp.MEAN), outShape,
                    x.vma, op, x);
            GradRecorder r = GradRecorders.current();
            if (r != null) {
                r.reduce(op, Arrays.copyOfRange(perm, kept, rank), x, out);
            }
            return out;
        }
        Object g = ShapeOps.permuted(x, perm);
        Object data;
        if (g instanceof float[]) {
            data = ReduceKernels.reduce(op, (float[]) g, outN, count);
        } else if (op == ReduceOp.MEAN) {
            data = ReduceKernels.mean((int[]) g, outN, count);
        } else {
            data = ReduceKernels.reduce(op, (int[]) g, outN, count);
        }
        NDArray out = NDArray.made(data, outShape, x.vma, op, x);
        GradRecorder r = GradRecorders.current();
        if (r != null) {
            r.reduce(op, Arrays.copyOfRange(perm, kept, rank), x, out); // the reduced axes, ascending
        }
        return out;
    }

    /**
     * The int32 index of the first maximum along axis {@code ax} (already normalised), which is dropped.
     *
     * @throws IllegalArgumentException if the axis is empty
     */
    static NDArray argmax(NDArray x, int ax) {
        int[] shape = x.shape;
        int len = shape[ax];
        if (len == 0) {
            throw new IllegalArgumentException("attempt to get argmax of an empty sequence: axis " + ax
                    + " of shape " + Shapes.str(shape) + " has size 0");
        }
        int[] perm = new int[shape.length];
        for (int d = 0, j = 0; d < shape.length; d++) {
            if (d != ax) {
                perm[j++] = d;
            }
        }
        perm[shape.length - 1] = ax;
        Object g = ShapeOps.permuted(x, perm);
        int[] outShape = Shapes.remove(shape, ax);
        int outN = Shapes.size(outShape);
        int[] out = g instanceof float[] ? ReduceKernels.argmax((float[]) g, outN, len)
                : ReduceKernels.argmax((int[]) g, outN, len);
        return NDArray.made(out, outShape, x.vma, SearchOp.ARGMAX, x);
    }
}
