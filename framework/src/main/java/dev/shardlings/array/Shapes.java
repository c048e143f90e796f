package dev.shardlings.array;

/**
 * Shape arithmetic shared by the array operations: validation, numpy-style texts, row-major strides and
 * broadcasting. Package-private: the public face is {@link NDArray}.
 */
final class Shapes {
    private Shapes() {
    }

    /** numpy's tuple text without spaces: {@code ()}, {@code (3,)}, {@code (4,2)}. */
    static String str(int[] shape) {
        StringBuilder sb = new StringBuilder("(");
        for (int d = 0; d < shape.length; d++) {
            if (d > 0) {
                sb.append(',');
            }
            sb.append(shape[d]);
        }
        if (shape.length == 1) {
            sb.append(',');
        }
        return sb.append(')').toString();
    }

    /**
     * Validates a shape (non-null, dims >= 0, element count fits an int) and returns its element count.
     *
     * @throws NullPointerException     if shape is null
     * @throws IllegalArgumentException if a dimension is negative or the count is too large
     */
    static int checkedSize(int[] shape) {
        if (shape == null) {
            throw new NullPointerException("shape must not be null: pass the dimensions, e.g. (2, 3)");
        }
        long size = 1;
        for (int d : shape) {
            if (d < 0) {
                throw new IllegalArgumentException("negative dimensions are not allowed: shape " + str(shape));
            }
            size *= d;
            if (size > NDArray.MAX_SIZE) {
                throw tooLarge(shape);
            }
        }
        return (int) size;
    }

    /** The error for a shape with more elements than {@link NDArray#MAX_SIZE}. */
    static IllegalArgumentException tooLarge(int[] shape) {
        return new IllegalArgumentException("shape " + str(shape) + " has more elements than one array can hold: at"
                + " most " + NDArray.MAX_SIZE + " (Integer.MAX_VALUE - 8, the largest Java array)");
    }

    /** Element count of an already validated shape. */
    static int size(int[] shape) {
        int size = 1;
        for (int d : shape) {
            size *= d;
        }
        return size;
    }

    /** Row-major (C order) strides in elements. */
    static int[] strides(int[] shape) {
        int[] strides = new int[shape.length];
        int s = 1;
        for (int d = shape.length - 1; d >= 0; d--) {
            strides[d] = s;
            s *= shape[d];
        }
        return strides;
    }

    /** Normalises a possibly negative axis like numpy, or throws numpy's AxisError text. */
    static int axis(int axis, int rank) {
        if (axis < -rank || axis >= rank) {
            throw new IllegalArgumentException("axis " + axis + " is out of bounds for array of dimension " + rank);
        }
        return axis < 0 ? axis + rank : axis;
    }

    /** Product of the dims before {@code axis}. */
    static int outer(int[] shape, int axis) {
        int p = 1;
        for (int d = 0; d < axis; d++) {
            p *= shape[d];
        }
        return p;
    }

    /** Product of the dims after {@code axis}. */
    static int inner(int[] shape, int axis) {
        int p = 1;
        for (int d = axis + 1; d < shape.length; d++) {
            p *= shape[d];
        }
        return p;
    }

    /** {@code shape} without dimension {@code axis}. */
    static int[] remove(int[] shape, int axis) {
        int[] out = new int[shape.length - 1];
        for (int d = 0, j = 0; d < shape.length; d++) {
            if (d != axis) {
                out[j++] = shape[d];
            }
        }
        return out;
    }

    /** {@code shape} with a new dimension {@code dim} inserted at {@code axis}. */
    static int[] insert(int[] shape, int axis, int dim) {
        int[] out = new int[shape.length + 1];
        for (int d = 0, j = 0; d < out.length; d++) {
            out[d] = d == axis ? dim : shape[j++];
        }
        return out;
    }

    /** numpy's broadcast result shape of two shapes, or numpy's error text. */
    static int[] broadcast(int[] a, int[] b) {
        int rank = Math.max(a.length, b.length);
        int[] out = new int[rank];
        for (int d = 0; d < rank; d++) {
            int da = d - (rank - a.length) >= 0 ? a[d - (rank - a.length)] : 1;
            int db = d - (rank - b.length) >= 0 ? b[d - (rank - b.length)] : 1;
            if (da != db && da != 1 && db != 1) {
                throw new IllegalArgumentException("operands could not be broadcast together with shapes "
                        + str(a) + " " + str(b));
            }
            out[d] = da == 1 ? db : da;
        }
        if (rank > 0 && !java.util.Arrays.equals(out, a) && !java.util.Arrays.equals(out, b)) {
            checkedSize(out); // both operands were broadcast: the result may be larger than either
        }
        return out;
    }

    /**
     * Strides for reading an array of shape {@code src} as if it had the (broadcast) shape {@code target}:
     * stride 0 along broadcast dimensions. The caller has checked compatibility.
     */
    static int[] broadcastStrides(int[] src, int[] target) {
        int[] srcStrides = strides(src);
        int[] out = new int[target.length];
        int lead = target.length - src.length;
        for (int d = lead; d < target.length; d++) {
            out[d] = src[d - lead] == 1 ? 0 : srcStrides[d - lead];
        }
        return out;
    }

    /**
     * Source offsets for every element of a row-major walk over {@code dims}, reading with {@code strides}
     * (used for transposes and broadcasts, which are gathers).
     */
    static int[] offsets(int[] dims, int[] strides) {
        int n = size(dims);
        int[] out = new int[n];
        if (n == 0) {
            return out;
        }
        int rank = dims.length;
        int[] idx = new int[rank];
        int off = 0;
        for (int t = 0; t < n; t++) {
            out[t] = off;
            for (int d = rank - 1; d >= 0; d--) {
                idx[d]++;
                off += strides[d];
                if (idx[d] < dims[d]) {
                    break;
                }
                off -= strides[d] * dims[d];
                idx[d] = 0;
            }
        }
        return out;
    }
}
