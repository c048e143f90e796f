package dev.shardlings.array;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * The indexing and data-movement operations behind {@link NDArray}: slices, takes and gathers, rolls,
 * concatenation, stacking and splitting, and argsort. Each works out the result's shape and reports one
 * {@link DataOp} (argsort: {@link SearchOp#ARGSORT}) per new buffer; the copies run in {@link DataKernels}.
 * Axes and scalar indices arrive normalised and checked. An installed {@link GradRecorder} sees each
 * differentiable one once: stack and split as the expandDims, concatenation and slices they are made of, a take
 * of one index as the slice and reshape it equals; argsort is not recorded.
 */
final class Indexing {

    private Indexing() {
    }

    /** Elements {@code [start, start + len)} along axis {@code ax}: a {@code slice}. */
    static NDArray slice(NDArray x, int ax, int start, int len) {
        int[] outShape = x.shape.clone();
        outShape[ax] = len;
        int outer = Shapes.outer(x.shape, ax);
        int inner = Shapes.inner(x.shape, ax);
        Object dst = DataKernels.newBuffer(x.dtype, outer * len * inner);
        DataKernels.slice(x.buffer(), dst, outer, x.shape[ax], start, len, inner);
        NDArray out = NDArray.made(dst, outShape, x.vma, DataOp.SLICE, x);
        GradRecorder r = GradRecorders.current();
        if (r != null) {
            r.slice(ax, start, start + len, x, out);
        }
        return out;
    }

    /**
     * Index k (in range) of axis {@code ax}, which is dropped: a {@code take}, one kernel and one buffer. A
     * {@link GradRecorder} has no take of one index, so it sees the two operations the take equals: the slice
     * {@code [k, k+1)} (its result, {@code mid}, is a view of the take's buffer with the axis kept as size 1) and
     * the reshape of {@code mid} that drops the axis.
     */
    static NDArray take(NDArray x, int ax, int k) {
        int outer = Shapes.outer(x.shape, ax);
        int inner = Shapes.inner(x.shape, ax);
        Object dst = DataKernels.newBuffer(x.dtype, outer * inner);
        DataKernels.takeRows(x.buffer(), dst, outer, x.shape[ax], inner, new int[] {k});
        NDArray out = NDArray.made(dst, Shapes.remove(x.shape, ax), x.vma, DataOp.TAKE, x);
        GradRecorder r = GradRecorders.current();
        if (r != null) {
            int[] midShape = x.shape.clone();
            midShape[ax] = 1;
            NDArray mid = out.view(midShape, out.vma);
            r.slice(ax, k, k + 1, x, mid);
            r.reshape(mid, out);
        }
        return out;
    }

    /**
     * x gathered along {@code ax} by an int32 array of indices of any shape, negative ones counting from the end:
     * a {@code gather} of shape x.shape[:ax] + indices.shape + x.shape[ax+1:].
     *
     * @throws IllegalArgumentException if an index is out of range, or the result would be too large
     */
    static NDArray gather(NDArray x, NDArray indices, int ax) {
        int[] shape = x.shape;
        int dim = shape[ax];
        int[] idx = indices.i;
        int[] norm = new int[idx.length];
        for (int t = 0; t < idx.length; t++) {
            int v = idx[t];
            if (v < -dim || v >= dim) {
                throw new IllegalArgumentException("take: index " + v + " is out of bounds for axis " + ax
                        + " with size " + dim + "; indices must be in [" + (-dim) + ", " + dim + ")");
            }
            norm[t] = v < 0 ? v + dim : v;
        }
        int outer = Shapes.outer(shape, ax);
        int inner = Shapes.inner(shape, ax);
        int[] outShape = new int[shape.length - 1 + indices.shape.length];
        System.arraycopy(shape, 0, outShape, 0, ax);
        System.arraycopy(indices.shape, 0, outShape, ax, indices.shape.length);
        System.arraycopy(shape, ax + 1, outShape, ax + indices.shape.length, shape.length - ax - 1);
        Shapes.checkedSize(outShape);
        Object dst = DataKernels.newBuffer(x.dtype, Shapes.size(outShape));
        DataKernels.takeRows(x.buffer(), dst, outer, dim, inner, norm);
        NDArray out = NDArray.made(dst, outShape, VaryingAxes.union(x.vma, indices.vma), DataOp.GATHER, x, indices);
        GradRecorder r = GradRecorders.current();
        if (r != null) {
            r.gather(ax, x, indices, out);
        }
        return out;
    }

    /** x rolled by {@code shift} places along axis {@code ax}, wrapping around. */
    static NDArray roll(NDArray x, int shift, int ax) {
        int dim = x.shape[ax];
        Object dst = DataKernels.newBuffer(x.dtype, x.size());
        int s = dim == 0 ? 0 : Math.floorMod(shift, dim);
        DataKernels.roll(x.buffer(), dst, Shapes.outer(x.shape, ax), dim, Shapes.inner(x.shape, ax), s);
        NDArray out = NDArray.made(dst, x.shape.clone(), x.vma, DataOp.ROLL, x);
        GradRecorder r = GradRecorders.current();
        if (r != null) {
            r.roll(s, ax, x, out); // the shift taken modulo the dimension: the same roll, and -s cannot overflow
        }
        return out;
    }

    /** x's elements in row-major order rolled by {@code shift} places; the shape is kept. */
    static NDArray roll(NDArray x, int shift) {
        int n = x.size();
        Object dst = DataKernels.newBuffer(x.dtype, n);
        int s = n == 0 ? 0 : Math.floorMod(shift, n);
        DataKernels.roll(x.buffer(), dst, n, s);
        NDArray out = NDArray.made(dst, x.shape.clone(), x.vma, DataOp.ROLL, x);
        GradRecorder r = GradRecorders.current();
        if (r != null) {
            r.roll(s, -1, x, out);
        }
        return out;
    }

    /**
     * The arrays (non-empty, none null) joined along an existing axis; float32 if any is.
     *
     * @throws IllegalArgumentException if one is rank 0, the ranks differ, the axis is out of bounds, or a
     *                                  dimension other than the axis differs
     */
    static NDArray concat(int axis, List<NDArray> xs) {
        NDArray first = xs.get(0);
        int rank = first.rank();
        if (rank == 0) {
            throw new IllegalArgumentException("zero-dimensional arrays cannot be concatenated; use stack, or "
                    + "expandDims(0) first");
        }
        for (int k = 1; k < xs.size(); k++) {
            if (xs.get(k).rank() != rank) {
                throw new IllegalArgumentException("all the input arrays must have same number of dimensions, but "
                        + "the array at index 0 has " + rank + " dimension(s) and the array at index " + k
                        + " has " + xs.get(k).rank() + " dimension(s)");
            }
        }
        int ax = Shapes.axis(axis, rank);
        int total = 0;
        DType out = DType.INT32;
        for (int k = 0; k < xs.size(); k++) {
            NDArray x = xs.get(k);
            for (int d = 0; d < rank; d++) {
                if (d != ax && x.shape[d] != first.shape[d]) {
                    throw new IllegalArgumentException("all the input array dimensions except for the "
                            + "concatenation axis must match exactly, but along dimension " + d + ", the array at "
                            + "index 0 has size " + first.shape[d] + " and the array at index " + k + " has size "
                            + x.shape[d]);
                }
            }
            total += x.shape[ax];
            if (x.dtype.isFloating() || out.isFloating()) {
                out = DType.promoteTypes(out, x.dtype);
            }
        }
        int[] outShape = first.shape.clone();
        outShape[ax] = total;
        Shapes.checkedSize(outShape);
        int outer = Shapes.outer(outShape, ax);
        int inner = Shapes.inner(outShape, ax);
        Object dst = DataKernels.newBuffer(out, Shapes.size(outShape));
        int pos = 0;
        for (NDArray x : xs) {
            Object src = out.isFloating() ? x.floatData() : x.i;
            int chunk = x.shape[ax] * inner;
            DataKernels.place(src, dst, outer, chunk, total * inner, pos);
            pos += chunk;
        }
        NDArray result = NDArray.made(dst, outShape, VaryingAxes.unionAll(xs), DataOp.CONCATENATE,
                xs.toArray(new NDArray[0]));
        GradRecorder r = GradRecorders.current();
        if (r != null) {
            r.concatenate(ax, List.copyOf(xs), result);
        }
        return result;
    }

    /**
     * The arrays (non-empty, none null) joined along a new axis at {@code axis}: a concatenation of views.
     *
     * @throws IllegalArgumentException if the shapes differ or the axis is out of bounds
     */
    static NDArray stack(int axis, List<NDArray> xs) {
        int[] s0 = xs.get(0).shape;
        for (int k = 1; k < xs.size(); k++) {
            if (!Arrays.equals(xs.get(k).shape, s0)) {
                throw new IllegalArgumentException("all input arrays must have the same shape, but the array at "
                        + "index 0 has shape " + Shapes.str(s0) + " and the array at index " + k + " has shape "
                        + Shapes.str(xs.get(k).shape));
            }
        }
        int ax = Shapes.axis(axis, s0.length + 1);
        List<NDArray> expanded = new ArrayList<>(xs.size());
        for (NDArray x : xs) {
            expanded.add(ShapeOps.expandDims(x, ax)); // views: only concat's result is a new buffer
        }
        return concat(ax, expanded); // recorded as those expandDims (reshapes) and this concatenation
    }

    /** {@code sections} equal slices along axis {@code ax}, whose size they divide. */
    static List<NDArray> split(NDArray x, int ax, int sections) {
        int len = x.shape[ax] / sections;
        List<NDArray> out = new ArrayList<>(sections);
        for (int k = 0; k < sections; k++) {
            out.add(slice(x, ax, k * len, len)); // each recorded as the slice it is
        }
        return Collections.unmodifiableList(out);
    }

    /** The int32 indices that sort the rank-1 array x ascending, stably, NaNs last: a {@code sort}. */
    static NDArray argsort(NDArray x) {
        int[] out = x.f != null ? ReduceKernels.argsort(x.f) : ReduceKernels.argsort(x.i);
        return NDArray.made(out, x.shape.clone(), x.vma, SearchOp.ARGSORT, x);
    }
}
