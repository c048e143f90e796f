package dev.shardlings.array;

import java.util.Set;

/**
 * The matrix multiplication behind {@link NDArray#matmul(NDArray)}: {@link AccumulateOp#DOT} of two matrices whose
 * shapes were checked, in int32 when both are int32 and in float32 otherwise, by the kernels of {@link Kernels}.
 * Reports the matmul (m, k, n) and then the operation; an installed {@link GradRecorder} sees it once.
 */
final class Contraction {

    private Contraction() {
    }

    /**
     * [m,k]·[k,n] → [m,n].
     *
     * @throws IllegalArgumentException if the result would be too large
     */
    static NDArray matmul(NDArray a, NDArray b) {
        return matmul(a, false, b, false);
    }

    /**
     * [m,k]·[k,n] → [m,n] in float32 from bfloat16 (or float32) operands: {@code preferred_element_type=float32},
     * the float32 accumulation left unrounded. While a {@link GradRecorder} is installed the operands are converted
     * to float32 first (recorded; the same bits, since bfloat16 → float32 is exact), so the tape sees only
     * operations it differentiates.
     */
    static NDArray matmulFloat32(NDArray a, NDArray b) {
        if (GradRecorders.current() != null || a.dtype != b.dtype) {
            // the trace still says which of the caller's operands were bfloat16: the conversions are this matmul's own
            return matmul(Elementwise.convert(a, DType.FLOAT32), false, Elementwise.convert(b, DType.FLOAT32), false,
                    a.dtype, b.dtype);
        }
        int m = a.shape[0];
        int k = a.shape[1];
        int n = b.shape[1];
        Shapes.checkedSize(new int[] {m, n});
        float[] c = Kernels.matmul(a.f, false, b.f, false, m, k, n);
        OpObservers.matmul(m, k, n, DType.FLOAT32, a.dtype, b.dtype);
        return NDArray.made(DType.FLOAT32, c, new int[] {m, n}, VaryingAxes.union(a.vma, b.vma), AccumulateOp.DOT,
                a, b);
    }

    /**
     * (a or aᵀ)·(b or bᵀ) for float32 matrices with no {@link GradRecorder} installed: the kernel reads a
     * transposed operand through its packing, so no transposed copy is made or reported; the same bits as
     * transposing first. Otherwise (a recorder, an int32 or bool operand) the transposes run and are recorded.
     */
    static NDArray matmul(NDArray a, boolean ta, NDArray b, boolean tb) {
        return matmul(a, ta, b, tb, null, null);
    }

    /**
     * As {@link #matmul(NDArray, boolean, NDArray, boolean)}, reported as of a left operand in {@code lhs} and a
     * right one in {@code rhs} (null: the operands' own dtype).
     */
    private static NDArray matmul(NDArray a, boolean ta, NDArray b, boolean tb, DType lhs, DType rhs) {
        // int32 beside bfloat16 is rounded to bfloat16 first, as JAX promotes the operands before the dot
        if (a.dtype == DType.INT32 && b.dtype == DType.BFLOAT16) {
            a = Elementwise.convert(a, DType.BFLOAT16);
        } else if (b.dtype == DType.INT32 && a.dtype == DType.BFLOAT16) {
            b = Elementwise.convert(b, DType.BFLOAT16);
        }
        if ((ta || tb) && (GradRecorders.current() != null || !a.dtype.isFloating() || !b.dtype.isFloating())) {
            return matmul(ta ? ShapeOps.transpose(a, new int[] {1, 0}) : a, false,
                    tb ? ShapeOps.transpose(b, new int[] {1, 0}) : b, false, lhs, rhs);
        }
        int m = a.shape[ta ? 1 : 0];
        int k = a.shape[ta ? 0 : 1];
        int n = b.shape[tb ? 0 : 1];
        Shapes.checkedSize(new int[] {m, n});
        Set<String> outVma = VaryingAxes.union(a.vma, b.vma);
        int[] outShape = {m, n};
        if (a.dtype == DType.BOOL || b.dtype == DType.BOOL) {
            throw Elementwise.notOnBool("matmul", a.dtype == DType.BOOL ? a : b);
        }
        NDArray out;
        if (a.dtype == DType.INT32 && b.dtype == DType.INT32) {
            int[] c = Kernels.matmul(a.i, b.i, m, k, n);
            OpObservers.matmul(m, k, n, DType.INT32);
            out = NDArray.made(c, outShape, outVma, AccumulateOp.DOT, a, b);
        } else {
            float[] c = Kernels.matmul(a.floatData(), ta, b.floatData(), tb, m, k, n);
            DType natural = DType.promoteTypes(a.dtype, b.dtype);
            // a bfloat16 × float32 dot (JAX's transpose of a bfloat16 one) names each operand's own dtype
            OpObservers.matmul(m, k, n, natural, lhs != null ? lhs : a.dtype.isFloating() ? a.dtype : natural,
                    rhs != null ? rhs : b.dtype.isFloating() ? b.dtype : natural);
            out = NDArray.made(c, outShape, outVma, AccumulateOp.DOT, a, b);
        }
        GradRecorder r = GradRecorders.current();
        if (r != null) {
            r.matmul(a, b, out);
        }
        return out;
    }
}
