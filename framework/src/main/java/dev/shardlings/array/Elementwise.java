package dev.shardlings.array;

import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * The elementwise operations behind {@link NDArray}: {@link UnaryOp} and {@link BinaryOp} functions with numpy
 * broadcasting and JAX's dtype rules, dtype conversion and add_n. Each works out the result's shape, dtype and
 * varying axes, runs its loop in {@link ElementwiseKernels} (or {@link DataKernels} for conversion) and reports
 * one operation.
 */
final class Elementwise {

    private Elementwise() {
    }

    /** op(x): int32 stays int32 for the functions that keep integers, everything else computes in float32. */
    static NDArray unary(NDArray x, UnaryOp op) {
        Object out = x.i != null && op.keepsIntegers() ? ElementwiseKernels.unary(op, x.i)
                : ElementwiseKernels.unary(op, x.floatData());
        return NDArray.made(out, x.shape.clone(), x.vma, op, x);
    }

    /**
     * op(x, y) with numpy broadcasting: int32 when both are int32 and the function keeps integers, float32
     * otherwise; the varying axes are the union.
     *
     * @throws IllegalArgumentException if the shapes do not broadcast
     */
    static NDArray binary(NDArray x, BinaryOp op, NDArray y) {
        int[] outShape = Shapes.broadcast(x.shape, y.shape);
        Set<String> outVma = VaryingAxes.union(x.vma, y.vma);
        boolean ints = x.dtype == DType.INT32 && y.dtype == DType.INT32 && op.keepsIntegers();
        boolean same = Arrays.equals(x.shape, y.shape);
        if (ints) {
            int[] out = same ? ElementwiseKernels.binary(op, x.i, y.i)
                    : ElementwiseKernels.binary(op, x.i, offsets(x, outShape), y.i, offsets(y, outShape));
            return NDArray.made(out, outShape, outVma, op, x, y);
        }
        float[] a = x.floatData();
        float[] b = y.floatData();
        float[] out = same ? ElementwiseKernels.binary(op, a, b)
                : ElementwiseKernels.binary(op, a, offsets(x, outShape), b, offsets(y, outShape));
        return NDArray.made(out, outShape, outVma, op, x, y);
    }

    /** Where each element of a {@code target}-shaped result reads x (broadcast dimensions repeat). */
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

    /** x in the other dtype: float32 → int32 truncates toward zero (XLA's saturating conversion). */
    static NDArray convert(NDArray x, DType dtype) {
        Object out = dtype == DType.FLOAT32 ? DataKernels.toFloats(x.i) : DataKernels.toInts(x.f);
        return NDArray.made(out, x.shape.clone(), x.vma, DataOp.CONVERT, x);
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
            ints &= x.dtype == DType.INT32;
        }
        if (list.size() == 1) {
            Object copy = ints ? first.i.clone() : first.floatData().clone();
            return NDArray.made(copy, first.shape, first.vma, UnaryOp.COPY, first);
        }
        Object out;
        if (ints) {
            int[] acc = first.i.clone();
            for (int k = 1; k < list.size(); k++) {
                ElementwiseKernels.addInto(acc, list.get(k).i);
            }
            out = acc;
        } else {
            float[] acc = new float[first.size()];
            Kernels.add(first.floatData(), list.get(1).floatData(), acc);
            for (int k = 2; k < list.size(); k++) {
                Kernels.add(acc, list.get(k).floatData(), acc); // elementwise, so in place is safe
            }
            out = acc;
        }
        return NDArray.made(out, first.shape.clone(), VaryingAxes.unionAll(list), AccumulateOp.ADD_N,
                list.toArray(new NDArray[0]));
    }
}
