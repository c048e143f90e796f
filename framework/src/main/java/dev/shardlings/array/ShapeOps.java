package dev.shardlings.array;

import java.util.Arrays;

/**
 * The operations behind {@link NDArray} that change an array's shape: reshape, squeeze and expandDims (views of
 * the same buffer, nothing reported to the {@link OpObserver}), and transpose and broadcast (a
 * {@link DataOp#TRANSPOSE} or {@link DataOp#BROADCAST} into a new buffer, gathered by {@link DataKernels#strided}).
 * Every one, views included, is recorded once by an installed {@link GradRecorder}: reshape, squeeze and
 * expandDims as {@link GradRecorder#reshape}.
 */
final class ShapeOps {

    private ShapeOps() {
    }

    /**
     * x's elements in row-major order with {@code newShape}, one -1 inferred. A view.
     *
     * @throws IllegalArgumentException if the element count differs, more than one -1 is given, or a dimension
     *                                  is below -1
     */
    static NDArray reshape(NDArray x, int[] newShape) {
        int unknown = -1;
        long known = 1;
        for (int d = 0; d < newShape.length; d++) {
            if (newShape[d] == -1) {
                if (unknown >= 0) {
                    throw new IllegalArgumentException("can only specify one unknown dimension: "
                            + Shapes.str(newShape));
                }
                unknown = d;
            } else if (newShape[d] < 0) {
                throw new IllegalArgumentException("negative dimensions not allowed: " + Shapes.str(newShape)
                        + " (only -1, meaning 'infer', may be negative)");
            } else {
                known *= newShape[d];
            }
        }
        int size = x.size();
        int[] out = newShape.clone();
        if (unknown >= 0) {
            if (known == 0 || size % known != 0) {
                throw reshapeError(size, newShape);
            }
            out[unknown] = (int) (size / known);
        } else if (known != size) {
            throw reshapeError(size, newShape);
        }
        return reshaped(x, out);
    }

    /** A view of x with {@code shape} (same element count), recorded as a reshape. */
    private static NDArray reshaped(NDArray x, int[] shape) {
        NDArray out = x.view(shape, x.vma);
        GradRecorder r = GradRecorders.current();
        if (r != null) {
            r.reshape(x, out);
        }
        return out;
    }

    private static IllegalArgumentException reshapeError(int size, int[] newShape) {
        StringBuilder s = new StringBuilder("(");
        for (int d = 0; d < newShape.length; d++) {
            s.append(d > 0 ? "," : "").append(newShape[d] == -1 ? "newaxis" : Integer.toString(newShape[d]));
        }
        s.append(newShape.length == 1 ? ",)" : ")");
        return new IllegalArgumentException("cannot reshape array of size " + size + " into shape " + s);
    }

    /**
     * Result axis d is x's axis perm[d] (negative entries allowed).
     *
     * @throws IllegalArgumentException if perm is not a permutation of the axes
     */
    static NDArray transpose(NDArray x, int[] perm) {
        int[] shape = x.shape;
        int rank = shape.length;
        if (perm.length != rank) {
            throw new IllegalArgumentException("axes don't match array: transpose of an array of dimension " + rank
                    + " needs " + rank + " axes, got " + Arrays.toString(perm));
        }
        int[] p = new int[rank];
        boolean[] seen = new boolean[rank];
        for (int d = 0; d < rank; d++) {
            p[d] = Shapes.axis(perm[d], rank);
            if (seen[p[d]]) {
                throw new IllegalArgumentException("repeated axis in transpose: " + Arrays.toString(perm));
            }
            seen[p[d]] = true;
        }
        int[] outShape = new int[rank];
        for (int d = 0; d < rank; d++) {
            outShape[d] = shape[p[d]];
        }
        NDArray out = NDArray.made(permuted(x, p), outShape, x.vma, DataOp.TRANSPOSE, x);
        GradRecorder r = GradRecorders.current();
        if (r != null) {
            r.transpose(p.clone(), x, out);
        }
        return out;
    }

    /** x's buffer gathered in the order of axis permutation {@code p} (a fresh, unreported buffer). */
    static Object permuted(NDArray x, int[] p) {
        int[] strides = Shapes.strides(x.shape);
        int[] dims = new int[p.length];
        int[] st = new int[p.length];
        boolean identity = true;
        for (int d = 0; d < p.length; d++) {
            dims[d] = x.shape[p[d]];
            st[d] = strides[p[d]];
            identity &= p[d] == d;
        }
        if (identity) {
            return x.f != null ? x.f.clone() : x.i.clone();
        }
        return DataKernels.strided(x.buffer(), dims, st);
    }

    /**
     * x broadcast to {@code target} (already validated as a shape) by numpy's rules; a view when the shape is x's.
     *
     * @throws IllegalArgumentException if x cannot be broadcast to it
     */
    static NDArray broadcastTo(NDArray x, int[] target) {
        int[] own = x.shape;
        boolean ok = target.length >= own.length;
        for (int d = 0; ok && d < own.length; d++) {
            int td = target[target.length - own.length + d];
            ok = own[d] == td || own[d] == 1;
        }
        if (!ok) {
            throw new IllegalArgumentException("Incompatible shapes for broadcasting: " + Shapes.str(own)
                    + " and requested shape " + Shapes.str(target));
        }
        NDArray out;
        if (Arrays.equals(target, own)) {
            out = x.view(own, x.vma);
        } else {
            out = NDArray.made(DataKernels.strided(x.buffer(), target, Shapes.broadcastStrides(own, target)), target,
                    x.vma, DataOp.BROADCAST, x);
        }
        GradRecorder r = GradRecorders.current();
        if (r != null) {
            r.broadcast(x, out); // the view too: the caller goes on with out, so the tape must know it
        }
        return out;
    }

    /** x with a size-1 axis inserted at {@code ax} (already normalised for rank + 1). A view. */
    static NDArray expandDims(NDArray x, int ax) {
        return reshaped(x, Shapes.insert(x.shape, ax, 1));
    }

    /**
     * x without its axis {@code ax} (already normalised). A view.
     *
     * @throws IllegalArgumentException if the axis's size is not 1
     */
    static NDArray squeeze(NDArray x, int ax) {
        if (x.shape[ax] != 1) {
            throw new IllegalArgumentException("cannot select an axis to squeeze out which has size not equal to "
                    + "one: axis " + ax + " of shape " + Shapes.str(x.shape) + " has size " + x.shape[ax]);
        }
        return reshaped(x, Shapes.remove(x.shape, ax));
    }

    /** x without any of its size-1 axes. A view. */
    static NDArray squeeze(NDArray x) {
        return reshaped(x, Arrays.stream(x.shape).filter(d -> d != 1).toArray());
    }
}
