package dev.shardlings.array;

import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * The elementwise operations behind {@link NDArray}: {@link UnaryOp} and {@link BinaryOp} functions with numpy
 * broadcasting and JAX's dtype rules, dtype conversion and add_n. Each works out the result's shape, dtype and
 * varying axes, runs its loop in {@link ElementwiseKernels} (or {@link DataKernels} for conversion) and reports
 * one operation, to the {@link OpObserver} and, while one is installed, to the {@link GradRecorder} (compare is not
 * differentiable and is not recorded).
 */
final class Elementwise {

    private Elementwise() {
    }

    /** op(x): int32 stays int32 for the functions that keep integers, everything else computes in float32. */
    static NDArray unary(NDArray x, UnaryOp op) {
        if (x.dtype == DType.BOOL && op != UnaryOp.COPY) {
            throw notOnBool(op.jaxName(), x);
        }
        Object data = x.i != null && op.keepsIntegers() ? ElementwiseKernels.unary(op, x.i)
                : ElementwiseKernels.unary(op, x.floatData());
        NDArray out = NDArray.made(data, x.shape.clone(), x.vma, op, x);
        GradRecorder r = GradRecorders.current();
        if (r != null) {
            r.unary(op, x, out);
        }
        return out;
    }

    /**
     * op(x, y) with numpy broadcasting: int32 when both are int32 and the function keeps integers, float32
     * otherwise; the varying axes are the union.
     *
     * @throws IllegalArgumentException if the shapes do not broadcast
     */
    static NDArray binary(NDArray x, BinaryOp op, NDArray y) {
        if (x.dtype == DType.BOOL && y.dtype == DType.BOOL) {
            return bothBool(x, op, y); // records itself
        }
        // a bool operand takes the other's dtype, as JAX promotes bool * 2 to int32 and bool * 2.0 to float32;
        // the conversion is recorded, and the operation then reads the converted operand
        if (x.dtype == DType.BOOL) {
            x = convert(x, y.dtype);
        } else if (y.dtype == DType.BOOL) {
            y = convert(y, x.dtype);
        }
        // int32 beside bfloat16 is converted to bfloat16 first (rounded), as JAX promotes before the operation
        if (x.dtype == DType.INT32 && y.dtype == DType.BFLOAT16) {
            x = convert(x, DType.BFLOAT16);
        } else if (y.dtype == DType.INT32 && x.dtype == DType.BFLOAT16) {
            y = convert(y, DType.BFLOAT16);
        }
        int[] outShape = Shapes.broadcast(x.shape, y.shape);
        Set<String> outVma = VaryingAxes.union(x.vma, y.vma);
        boolean ints = x.dtype == DType.INT32 && y.dtype == DType.INT32 && op.keepsIntegers();
        boolean same = Arrays.equals(x.shape, y.shape);
        NDArray out;
        if (ints) {
            int[] data = same ? ElementwiseKernels.binary(op, x.i, y.i)
                    : ElementwiseKernels.binary(op, x.i, offsets(x, outShape), y.i, offsets(y, outShape));
            out = NDArray.made(data, outShape, outVma, op, x, y);
        } else {
            float[] a = x.floatData();
            float[] b = y.floatData();
            float[] data;
            if (same) {
                data = ElementwiseKernels.binary(op, a, b);
            } else if (y.size() == 1 && x.size() > 1 && Arrays.equals(x.shape, outShape)) {
                data = ElementwiseKernels.binary(op, a, b[0]); // a scalar (or one-element) right operand
            } else if (x.size() == 1 && y.size() > 1 && Arrays.equals(y.shape, outShape)) {
                data = ElementwiseKernels.binary(op, a[0], b);
            } else {
                // the broadcast operands spelled out at the result's shape, then one pass of the same-shape kernel
                data = ElementwiseKernels.binary(op, spread(x, a, outShape), spread(y, b, outShape));
            }
            out = NDArray.made(data, outShape, outVma, op, x, y);
        }
        GradRecorder r = GradRecorders.current();
        if (r != null) {
            r.binary(op, x, y, out);
        }
        return out;
    }

    /**
     * op on two bool arrays, as JAX defines it: add and maximum are a logical or, multiply and minimum a logical and
     * (bool results); true division is float32.
     *
     * @throws IllegalArgumentException for subtract and floor_divide, which JAX refuses on bools too
     */
    private static NDArray bothBool(NDArray x, BinaryOp op, NDArray y) {
        switch (op) {
            case DIV: // the conversions and the division record themselves
                return binary(convert(x, DType.FLOAT32), op, convert(y, DType.FLOAT32));
            case ADD: case MAX: case MIN: case MUL: {
                BinaryOp on01 = op == BinaryOp.ADD || op == BinaryOp.MAX ? BinaryOp.MAX : BinaryOp.MIN;
                int[] outShape = Shapes.broadcast(x.shape, y.shape);
                int[] data = Arrays.equals(x.shape, y.shape) ? ElementwiseKernels.binary(on01, x.i, y.i)
                        : ElementwiseKernels.binary(on01, x.i, offsets(x, outShape), y.i, offsets(y, outShape));
                NDArray out = NDArray.made(DType.BOOL, data, outShape, VaryingAxes.union(x.vma, y.vma), op, x, y);
                GradRecorder r = GradRecorders.current();
                if (r != null) {
                    r.binary(op, x, y, out); // bool: the tape sees it and differentiates nothing
                }
                return out;
            }
            default:
                throw notOnBool(op.jaxName(), x);
        }
    }

    /** Where each element of a {@code target}-shaped result reads x (broadcast dimensions repeat). */
    /** x's float data at the broadcast shape target (x's own buffer when it has that shape). */
    private static float[] spread(NDArray x, float[] data, int[] target) {
        return Arrays.equals(x.shape, target) ? data
                : (float[]) DataKernels.strided(data, target, Shapes.broadcastStrides(x.shape, target));
    }

    /** x's int data at the broadcast shape target (x's own buffer when it has that shape). */
    private static Object spread(NDArray x, int[] data, int[] target) {
        return Arrays.equals(x.shape, target) ? data
                : DataKernels.strided(data, target, Shapes.broadcastStrides(x.shape, target));
    }

    private static int[] offsets(NDArray x, int[] target) {
        return Shapes.offsets(target, Shapes.broadcastStrides(x.shape, target));
    }

    /** A weakly typed Python-style scalar operand: rank 0, no vma, not an allocation the user sees. */
    static NDArray weak(int v) {
        return new NDArray(DType.INT32, null, new int[] {v}, new int[0], Set.of(), 0);
    }

    /** A weakly typed Python-style float operand: rank 0, no vma, not an allocation the user sees. */
    static NDArray weak(float v) {
        return new NDArray(DType.FLOAT32, new float[] {v}, null, new int[0], Set.of(), 0);
    }

    /**
     * A weakly typed scalar beside an array of dtype {@code beside}: beside bfloat16 it takes bfloat16 (rounded),
     * as JAX's weak types do ({@code x * 0.1} stays bfloat16), else {@link #weak(int)} / {@link #weak(float)}.
     */
    static NDArray weak(double v, boolean integral, DType beside) {
        if (beside == DType.BFLOAT16) {
            return new NDArray(DType.BFLOAT16, new float[] {BFloat16.round((float) v)}, null, new int[0], Set.of(),
                    0);
        }
        return integral ? weak((int) v) : weak((float) v);
    }

    /**
     * x in another dtype: float32 → int32 truncates toward zero (XLA's saturating conversion); to bool, any non-zero
     * value (NaN included) is true; from bool, true is 1. To bfloat16 the float32 value is rounded to nearest even
     * (an int32 is first rounded to float32, as XLA converts it); from bfloat16 the value is exact in float32.
     */
    static NDArray convert(NDArray x, DType dtype) {
        Object data;
        if (dtype == DType.BOOL) {
            int[] b = new int[x.size()];
            for (int k = 0; k < b.length; k++) {
                b[k] = (x.f != null ? x.f[k] != 0f : x.i[k] != 0) ? 1 : 0;
            }
            data = b;
        } else if (dtype.isFloating()) {
            data = x.f != null ? x.f.clone() : DataKernels.toFloats(x.i); // made(...) rounds it for bfloat16
        } else {
            data = x.f != null ? DataKernels.toInts(x.f) : x.i.clone();
        }
        NDArray out = NDArray.made(dtype, data, x.shape.clone(), x.vma, DataOp.CONVERT, x);
        GradRecorder r = GradRecorders.current();
        if (r != null) {
            r.convert(x, out);
        }
        return out;
    }

    /**
     * op(x, y) with numpy broadcasting, as bool: int32 and bool operands compare as integers, anything with a
     * float32 operand as float32.
     *
     * @throws IllegalArgumentException if the shapes do not broadcast
     */
    static NDArray compare(NDArray x, CompareOp op, NDArray y) {
        int[] outShape = Shapes.broadcast(x.shape, y.shape);
        int n = Shapes.size(outShape);
        // broadcast operands are spelled out at the result's shape first (a fill for a scalar): cheaper than
        // reading every element through an offsets table
        int[] out = x.f == null && y.f == null
                ? ElementwiseKernels.compare(op, (int[]) spread(x, x.i, outShape), null,
                        (int[]) spread(y, y.i, outShape), null, n)
                : ElementwiseKernels.compare(op, spread(x, x.floatData(), outShape), null,
                        spread(y, y.floatData(), outShape), null, n);
        return NDArray.made(DType.BOOL, out, outShape, VaryingAxes.union(x.vma, y.vma), op, x, y);
    }

    /**
     * {@code jnp.where(c, x, y)}: x where c is true (non-zero), else y, the three broadcast together. The dtype is
     * x's and y's when they agree, else float32 when either is float32, else int32.
     *
     * <p>While a {@link GradRecorder} is installed, an operand that is neither rank 0 nor of the result's shape is
     * first broadcast to it ({@link ShapeOps#broadcastTo}, recorded), because the recorder's select takes operands
     * of the result's shape or scalars; the result is the same, bit for bit. Without a recorder nothing extra
     * is made.
     *
     * @throws IllegalArgumentException if the shapes do not broadcast
     */
    static NDArray select(NDArray c, NDArray x, NDArray y) {
        int[] outShape = Shapes.broadcast(Shapes.broadcast(c.shape, x.shape), y.shape);
        GradRecorder r = GradRecorders.current();
        if (r != null) {
            c = fitted(c, outShape);
            x = fitted(x, outShape);
            y = fitted(y, outShape);
        }
        int n = Shapes.size(outShape);
        DType dtype = x.dtype == y.dtype ? x.dtype
                : x.dtype.isFloating() || y.dtype.isFloating() ? DType.promoteTypes(x.dtype, y.dtype) : DType.INT32;
        int[] oc = Arrays.equals(c.shape, outShape) ? null : offsets(c, outShape);
        boolean[] which = new boolean[n];
        for (int k = 0; k < n; k++) {
            int at = oc == null ? k : oc[k];
            which[k] = c.f != null ? c.f[at] != 0f : c.i[at] != 0;
        }
        int[] ox = Arrays.equals(x.shape, outShape) ? null : offsets(x, outShape);
        int[] oy = Arrays.equals(y.shape, outShape) ? null : offsets(y, outShape);
        Object data = dtype.isFloating() ? ElementwiseKernels.select(which, x.floatData(), ox, y.floatData(), oy)
                : ElementwiseKernels.select(which, x.i, ox, y.i, oy);
        NDArray out = NDArray.made(dtype, data, outShape,
                VaryingAxes.union(VaryingAxes.union(c.vma, x.vma), y.vma), DataOp.SELECT, c, x, y);
        if (r != null) {
            r.select(c, x, y, out);
        }
        return out;
    }

    /** x itself when it is rank 0 or of shape {@code target}, else x broadcast to it (recorded as a broadcast). */
    private static NDArray fitted(NDArray x, int[] target) {
        return x.shape.length == 0 || Arrays.equals(x.shape, target) ? x : ShapeOps.broadcastTo(x, target);
    }

    /** The error for arithmetic JAX defines on bool arrays in its own way (logical or for +, …). */
    static IllegalArgumentException notOnBool(String op, NDArray x) {
        return new IllegalArgumentException(op + " is not defined on bool arrays here (" + x.describe() + "): convert"
                + " first, e.g. x.astype(DType.INT32), or choose values with NDArray.where(mask, x, y)");
    }

    /**
     * The arrays added left to right, bit for bit as chained adds, into one new buffer; one array is copied.
     *
     * @throws IllegalArgumentException if the shapes differ
     */
    static NDArray addN(List<NDArray> list) {
        NDArray first = list.get(0);
        boolean ints = true;
        for (int k = 0; k < list.size(); k++) {
            NDArray x = list.get(k);
            if (!Arrays.equals(x.shape, first.shape)) {
                throw new IllegalArgumentException("addN needs operands of one shape, but the array at index 0 has"
                        + " shape " + Shapes.str(first.shape) + " and the array at index " + k + " has shape "
                        + Shapes.str(x.shape) + "; chain add(...) to broadcast");
            }
            ints &= !x.dtype.isFloating();
        }
        if (list.size() > 1 && list.stream().anyMatch(x -> x.dtype == DType.BOOL)) {
            // bool promotes (or, with another bool, is a logical or): exactly the chained adds addN stands for,
            // each recorded as the binary add it is
            NDArray acc = list.get(0);
            for (int k = 1; k < list.size(); k++) {
                acc = binary(acc, BinaryOp.ADD, list.get(k));
            }
            return acc;
        }
        NDArray out;
        if (list.size() == 1) {
            Object copy = ints ? first.i.clone() : first.floatData().clone();
            out = NDArray.made(copy, first.shape, first.vma, UnaryOp.COPY, first);
        } else {
            Object data;
            if (ints) {
                int[] acc = first.i.clone();
                for (int k = 1; k < list.size(); k++) {
                    ElementwiseKernels.addInto(acc, list.get(k).i);
                }
                data = acc;
            } else {
                float[][] xs = new float[list.size()][];
                for (int k = 0; k < xs.length; k++) {
                    xs[k] = list.get(k).floatData();
                }
                data = Kernels.addN(xs, first.size());
            }
            out = NDArray.made(data, first.shape.clone(), VaryingAxes.unionAll(list), AccumulateOp.ADD_N,
                    list.toArray(new NDArray[0]));
        }
        GradRecorder r = GradRecorders.current();
        if (r != null) {
            r.addN(List.copyOf(list), out); // one operand too: out = xs[0] (a copy)
        }
        return out;
    }
}
