package dev.shardlings.array;

/**
 * The loops of the elementwise operations ({@link UnaryOp}, {@link BinaryOp}, add_n) on dense buffers, apart from
 * the user-facing operations that check arguments, work out shapes and dtypes and report (see {@link Elementwise}).
 * Same-shape float32 add, subtract, multiply and divide run the Vector-API kernels of {@link Kernels}; every other
 * function is one exactly rounded scalar operation per element (transcendental ones in {@link StrictMath}), so
 * results are bit-identical on every machine.
 */
final class ElementwiseKernels {

    private ElementwiseKernels() {
    }

    /** op(a[ia[k]], b[ib[k]]) as 1 or 0, for a comparison in float32 (ia, ib: offsets, or null for k). */
    static int[] compare(CompareOp op, float[] a, int[] ia, float[] b, int[] ib, int n) {
        int[] out = new int[n];
        for (int k = 0; k < n; k++) {
            out[k] = op.test(a[ia == null ? k : ia[k]], b[ib == null ? k : ib[k]]) ? 1 : 0;
        }
        return out;
    }

    /** op(a[ia[k]], b[ib[k]]) as 1 or 0, for a comparison of int32 (or bool) values. */
    static int[] compare(CompareOp op, int[] a, int[] ia, int[] b, int[] ib, int n) {
        int[] out = new int[n];
        for (int k = 0; k < n; k++) {
            out[k] = op.test(a[ia == null ? k : ia[k]], b[ib == null ? k : ib[k]]) ? 1 : 0;
        }
        return out;
    }

    /** c ? x : y per element, each read through its offsets (null: element k). */
    static float[] select(boolean[] c, float[] x, int[] ix, float[] y, int[] iy) {
        float[] out = new float[c.length];
        for (int k = 0; k < out.length; k++) {
            out[k] = c[k] ? x[ix == null ? k : ix[k]] : y[iy == null ? k : iy[k]];
        }
        return out;
    }

    /** c ? x : y per element for int32 (or bool) values. */
    static int[] select(boolean[] c, int[] x, int[] ix, int[] y, int[] iy) {
        int[] out = new int[c.length];
        for (int k = 0; k < out.length; k++) {
            out[k] = c[k] ? x[ix == null ? k : ix[k]] : y[iy == null ? k : iy[k]];
        }
        return out;
    }

    /** op(a[k]) for a function that keeps int32 ({@link UnaryOp#keepsIntegers()}; copy excepted). */
    static int[] unary(UnaryOp op, int[] a) {
        int n = a.length;
        int[] out = new int[n];
        for (int k = 0; k < n; k++) {
            int v = a[k];
            switch (op) {
                case NEG: out[k] = -v; break;
                case ABS: out[k] = Math.abs(v); break;
                case RELU: out[k] = Math.max(v, 0); break;
                case SQUARE: out[k] = v * v; break;
                default: throw new AssertionError(op + " has no int32 kernel");
            }
        }
        return out;
    }

    /** op(a[k]) in float32. */
    static float[] unary(UnaryOp op, float[] a) {
        int n = a.length;
        float[] out = new float[n];
        for (int k = 0; k < n; k++) {
            float v = a[k];
            // StrictMath: bit-identical results on every JVM and CPU (Math may use platform intrinsics)
            switch (op) {
                case NEG: out[k] = -v; break;
                case ABS: out[k] = Math.abs(v); break;
                case EXP: out[k] = (float) StrictMath.exp(v); break;
                case LOG: out[k] = (float) StrictMath.log(v); break;
                case SQRT: out[k] = (float) StrictMath.sqrt(v); break;
                case SIN: out[k] = (float) StrictMath.sin(v); break;
                case COS: out[k] = (float) StrictMath.cos(v); break;
                case TANH: out[k] = (float) StrictMath.tanh(v); break;
                case RELU: out[k] = Math.max(v, 0f); break;
                case GELU: out[k] = gelu(v); break;
                case SQUARE: out[k] = v * v; break;
                default: throw new AssertionError(op + " has no float32 kernel");
            }
        }
        return out;
    }

    /** jax.nn.gelu's tanh approximation, evaluated in double and rounded once. */
    private static float gelu(float x) {
        double v = x;
        return (float) (0.5 * v * (1.0 + StrictMath.tanh(Math.sqrt(2.0 / Math.PI) * (v + 0.044715 * v * v * v))));
    }

    /** op(a[k], b[k]) in int32 for operands of one shape. */
    static int[] binary(BinaryOp op, int[] a, int[] b) {
        int n = a.length;
        int[] out = new int[n];
        for (int k = 0; k < n; k++) {
            out[k] = apply(op, a[k], b[k]);
        }
        return out;
    }

    /** op(a[oa[k]], b[ob[k]]) in int32: the operands read through broadcast offsets, one per result element. */
    static int[] binary(BinaryOp op, int[] a, int[] oa, int[] b, int[] ob) {
        int n = oa.length;
        int[] out = new int[n];
        for (int k = 0; k < n; k++) {
            out[k] = apply(op, a[oa[k]], b[ob[k]]);
        }
        return out;
    }

    /** op(a[k], b[k]) in float32 for operands of one shape: add, subtract, multiply and divide vectorised. */
    static float[] binary(BinaryOp op, float[] a, float[] b) {
        int n = a.length;
        float[] out = new float[n];
        switch (op) {
            case ADD: Kernels.add(a, b, out); break;
            case SUB: Kernels.sub(a, b, out); break;
            case MUL: Kernels.mul(a, b, out); break;
            case DIV: Kernels.div(a, b, out); break;
            default:
                for (int k = 0; k < n; k++) {
                    out[k] = apply(op, a[k], b[k]);
                }
        }
        return out;
    }

    /** op(a[k], s) in float32: a scalar right operand, the same IEEE operation per element. */
    static float[] binary(BinaryOp op, float[] a, float s) {
        int n = a.length;
        float[] out = new float[n];
        switch (op) {
            case ADD: for (int k = 0; k < n; k++) { out[k] = a[k] + s; } break;
            case SUB: for (int k = 0; k < n; k++) { out[k] = a[k] - s; } break;
            case MUL: for (int k = 0; k < n; k++) { out[k] = a[k] * s; } break;
            case DIV: for (int k = 0; k < n; k++) { out[k] = a[k] / s; } break;
            case MAX: for (int k = 0; k < n; k++) { out[k] = Math.max(a[k], s); } break;
            case MIN: for (int k = 0; k < n; k++) { out[k] = Math.min(a[k], s); } break;
            default:
                for (int k = 0; k < n; k++) {
                    out[k] = apply(op, a[k], s);
                }
        }
        return out;
    }

    /** op(s, b[k]) in float32: a scalar left operand. */
    static float[] binary(BinaryOp op, float s, float[] b) {
        int n = b.length;
        float[] out = new float[n];
        switch (op) {
            case ADD: for (int k = 0; k < n; k++) { out[k] = s + b[k]; } break;
            case SUB: for (int k = 0; k < n; k++) { out[k] = s - b[k]; } break;
            case MUL: for (int k = 0; k < n; k++) { out[k] = s * b[k]; } break;
            case DIV: for (int k = 0; k < n; k++) { out[k] = s / b[k]; } break;
            case MAX: for (int k = 0; k < n; k++) { out[k] = Math.max(s, b[k]); } break;
            case MIN: for (int k = 0; k < n; k++) { out[k] = Math.min(s, b[k]); } break;
            default:
                for (int k = 0; k < n; k++) {
                    out[k] = apply(op, s, b[k]);
                }
        }
        return out;
    }

    private static float apply(BinaryOp op, float a, float b) {
        switch (op) {
            case ADD: return a + b;
            case SUB: return a - b;
            case MUL: return a * b;
            case DIV: return a / b;
            case MAX: return Math.max(a, b);
            case MIN: return Math.min(a, b);
            default: return floorDivFloat(a, b);
        }
    }

    private static int apply(BinaryOp op, int a, int b) {
        switch (op) {
            case ADD: return a + b;
            case SUB: return a - b;
            case MUL: return a * b;
            case MAX: return Math.max(a, b);
            case MIN: return Math.min(a, b);
            case FLOOR_DIV:
                if (b == 0) {
                    throw new ArithmeticException("integer division by zero in floorDiv: the divisor has a 0 "
                            + "element (JAX would return an unspecified value); check the divisor, or use "
                            + "div for true division, which gives inf/nan");
                }
                return Math.floorDiv(a, b);
            default: throw new AssertionError("int32 " + op.jaxName() + " is computed in float32");
        }
    }

    /** JAX's float floor_divide ({@code _float_divmod}): fmod-based, then rounded half away from zero. */
    static float floorDivFloat(float a, float b) {
        float mod = a % b;
        float div = (a - mod) / b;
        if (mod != 0 && Math.signum(b) != Math.signum(mod)) {
            div -= 1f;
        }
        return (float) Math.copySign(Math.floor(Math.abs((double) div) + 0.5), div);
    }

    /** Adds b into acc elementwise, in int32 (wrapping). */
    static void addInto(int[] acc, int[] b) {
        for (int e = 0; e < acc.length; e++) {
            acc[e] += b[e];
        }
    }
}
