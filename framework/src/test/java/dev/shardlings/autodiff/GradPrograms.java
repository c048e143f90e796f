package dev.shardlings.autodiff;

import dev.shardlings.array.DType;
import dev.shardlings.array.GradRecorder;
import dev.shardlings.array.GradRecorders;
import dev.shardlings.array.KeepDims;
import dev.shardlings.array.NDArray;
import dev.shardlings.spmd.ShardedArray;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.Supplier;

/**
 * Support for the gradient properties: random expression programs over a few input arrays, evaluated (a) by the
 * framework on {@link NDArray}s or {@link ShardedArray}s (float32, the code under test) and (b) by an independent
 * float64 reference written here from the math ({@link Ref}, which never calls NDArray), whose central finite
 * differences are the expected gradients.
 *
 * <p>Programs stay away from the places where the function is not differentiable or not defined: the reference
 * evaluates every generated program at its inputs first and rejects the inputs when an intermediate value is
 * closer than {@link #margin} to a kink (abs and relu at 0, where's comparison, maximum/minimum and max/min
 * reductions between different values, the int32 round trip at the integers), outside a domain (log and sqrt of
 * less than {@link #DOMAIN}, division by less than {@link #DIVISOR} in magnitude) or larger than {@link #BOUND}.
 * Exact ties of maximum/minimum and max/min reductions are allowed: with random real inputs a tie that holds
 * exactly in float64 is structural (the same function on both sides, e.g. a broadcast or repeated take indices),
 * so every way of splitting the cotangent among the tied elements gives the same gradient.
 */
final class GradPrograms {
    private GradPrograms() {
    }

    // ------------------------------------------------------------------------------------------ the programs

    enum U { NEG, ABS, EXP, LOG, SQRT, SIN, COS, TANH, RELU, SQUARE, GELU }

    enum B { ADD, SUB, MUL, DIV, MAX, MIN }

    enum R { SUM, MEAN, MAX, MIN }

    enum Cmp { GT, GE, LT, LE }

    /** astype(float32) (the identity conversion) or astype(int32).astype(float32) (zero gradient). */
    enum Cast { SAME, INT_ROUND_TRIP }

    /** A node of a program; every node knows its result shape. */
    sealed interface Expr permits In, Un, Bin, Scal, Red, Reshape, Transpose, Broadcast, Slice, Take, Concat,
            MatMul, Where, Conv, Roll, Mutant {
        int[] shape();
    }

    /** Input k. */
    record In(int k, int[] shape) implements Expr {
    }

    record Un(U op, Expr x) implements Expr {
        public int[] shape() {
            return x.shape();
        }
    }

    /** a op b with numpy broadcasting. */
    record Bin(B op, Expr a, Expr b, int[] shape) implements Expr {
    }

    /** a op c for a Java scalar c (float32). */
    record Scal(B op, Expr a, float c) implements Expr {
        public int[] shape() {
            return a.shape();
        }
    }

    /** A reduction over axes (as given to the API: possibly negative), with or without keepdims. */
    record Red(R op, Expr x, int[] axes, boolean keep, int[] shape) implements Expr {
    }

    record Reshape(Expr x, int[] shape) implements Expr {
    }

    record Transpose(Expr x, int[] perm, int[] shape) implements Expr {
    }

    record Broadcast(Expr x, int[] shape) implements Expr {
    }

    record Slice(Expr x, int axis, int start, int stop, int[] shape) implements Expr {
    }

    /** take(x, indices, axis) with int32 indices of shape idxShape (negative ones count from the end). */
    record Take(Expr x, int[] idx, int[] idxShape, int axis, int[] shape) implements Expr {
    }

    record Concat(int axis, List<Expr> parts, int[] shape) implements Expr {
    }

    record MatMul(Expr a, Expr b, int[] shape) implements Expr {
    }

    /**
     * where(l cmp r, x, y); r null: compare with the constant c; y null: the constant yc.
     */
    record Where(Cmp cmp, Expr l, Expr r, float c, Expr x, Expr y, float yc, int[] shape) implements Expr {
    }

    record Conv(Cast kind, Expr x) implements Expr {
        public int[] shape() {
            return x.shape();
        }
    }

    record Roll(Expr x, int shift, int axis) implements Expr {
        public int[] shape() {
            return x.shape();
        }
    }

    /**
     * sin(x) whose gradient rule is a planted bug (the local engine only): a test-made copy of sin's rule that
     * multiplies the cotangent by sin(x) instead of cos(x). The reference computes sin, so a property that sees
     * this node must fail.
     */
    record Mutant(Expr x) implements Expr {
        public int[] shape() {
            return x.shape();
        }
    }

    /**
     * A program: its outputs (expressions over the inputs), the inputs' shapes, and which inputs were drawn
     * positive.
     */
    record Program(List<Expr> outs, List<int[]> inputShapes, List<Boolean> positive) {
        @Override
        public String toString() {
            StringBuilder sb = new StringBuilder();
            for (int k = 0; k < inputShapes.size(); k++) {
                sb.append(k > 0 ? ", " : "inputs: ").append('x').append(k).append(str(inputShapes.get(k)))
                        .append(positive.get(k) ? "+" : "");
            }
            for (int k = 0; k < outs.size(); k++) {
                sb.append("\nout").append(k).append(str(outs.get(k).shape())).append(" = ").append(show(outs.get(k)));
            }
            return sb.toString();
        }
    }

    /** A program with input values and output weights (the cotangents): everything a try needs. */
    record Case(long seed, int size, Program program, List<float[]> inputs, List<float[]> weights, int draws) {
        @Override
        public String toString() {
            StringBuilder sb = new StringBuilder("Case(seed=" + seed + ", size=" + size + ", draws=" + draws + ")\n");
            sb.append(program);
            for (int k = 0; k < inputs.size(); k++) {
                sb.append("\nx").append(k).append(" = ").append(Arrays.toString(inputs.get(k)));
            }
            for (int k = 0; k < weights.size(); k++) {
                sb.append("\nw").append(k).append(" = ").append(Arrays.toString(weights.get(k)));
            }
            return sb.toString();
        }

        List<NDArray> inputArrays() {
            List<NDArray> out = new ArrayList<>();
            for (int k = 0; k < inputs.size(); k++) {
                out.add(NDArray.fromFloats(inputs.get(k), program.inputShapes().get(k)));
            }
            return out;
        }

        NDArray weightArray(int k) {
            return NDArray.fromFloats(weights.get(k), program.outs().get(k).shape());
        }
    }

    static String str(int[] s) {
        return Arrays.toString(s).replace(" ", "");
    }

    static String show(Expr e) {
        if (e instanceof In n) {
            return "x" + n.k();
        }
        if (e instanceof Un u) {
            return u.op().name().toLowerCase() + "(" + show(u.x()) + ")";
        }
        if (e instanceof Bin b) {
            return b.op().name().toLowerCase() + "(" + show(b.a()) + ", " + show(b.b()) + ")";
        }
        if (e instanceof Scal s) {
            return s.op().name().toLowerCase() + "(" + show(s.a()) + ", " + s.c() + "f)";
        }
        if (e instanceof Red r) {
            return r.op().name().toLowerCase() + "(" + show(r.x()) + ", axes=" + str(r.axes())
                    + (r.keep() ? ", keep" : "") + ")";
        }
        if (e instanceof Reshape r) {
            return "reshape(" + show(r.x()) + ", " + str(r.shape()) + ")";
        }
        if (e instanceof Transpose t) {
            return "transpose(" + show(t.x()) + ", " + str(t.perm()) + ")";
        }
        if (e instanceof Broadcast b) {
            return "broadcastTo(" + show(b.x()) + ", " + str(b.shape()) + ")";
        }
        if (e instanceof Slice s) {
            return "slice(" + show(s.x()) + ", axis=" + s.axis() + ", " + s.start() + ":" + s.stop() + ")";
        }
        if (e instanceof Take t) {
            return "take(" + show(t.x()) + ", " + str(t.idx()) + "@" + str(t.idxShape()) + ", axis=" + t.axis() + ")";
        }
        if (e instanceof Concat c) {
            StringBuilder sb = new StringBuilder("concat(axis=" + c.axis());
            for (Expr p : c.parts()) {
                sb.append(", ").append(show(p));
            }
            return sb.append(")").toString();
        }
        if (e instanceof MatMul m) {
            return "matmul(" + show(m.a()) + ", " + show(m.b()) + ")";
        }
        if (e instanceof Where w) {
            return "where(" + w.cmp().name().toLowerCase() + "(" + show(w.l()) + ", "
                    + (w.r() == null ? w.c() + "f" : show(w.r())) + "), " + show(w.x()) + ", "
                    + (w.y() == null ? w.yc() + "f" : show(w.y())) + ")";
        }
        if (e instanceof Conv c) {
            return (c.kind() == Cast.SAME ? "astypeF32(" : "intRoundTrip(") + show(c.x()) + ")";
        }
        if (e instanceof Roll r) {
            return "roll(" + show(r.x()) + ", " + r.shift() + ", axis=" + r.axis() + ")";
        }
        return "MUTANT_sin(" + show(((Mutant) e).x()) + ")";
    }

    // ------------------------------------------------------------------------------------------ evaluation

    /** How an array type carries out each node. */
    interface Ops<A> {
        A input(int k);

        A unary(U op, A x);

        A binary(B op, A a, A b);

        A scalar(B op, A a, float c);

        A reduce(R op, A x, int[] axes, boolean keep, int[] outShape);

        A reshape(A x, int[] shape);

        A transpose(A x, int[] perm);

        A broadcast(A x, int[] shape);

        A slice(A x, int axis, int start, int stop);

        A take(A x, int[] idx, int[] idxShape, int axis);

        A concat(int axis, List<A> parts);

        A matmul(A a, A b);

        A where(Cmp cmp, A l, A r, float c, A x, A y, float yc);

        A cast(Cast kind, A x);

        A roll(A x, int shift, int axis);

        A mutant(A x);
    }

    static <A> A eval(Expr e, Ops<A> o) {
        A a = evalNode(e, o);
        if (a instanceof D d && !Arrays.equals(d.shape(), e.shape())) {
            throw new IllegalStateException("generator bug: " + show(e) + " is " + str(d.shape()) + ", not "
                    + str(e.shape()));
        }
        return a;
    }

    private static <A> A evalNode(Expr e, Ops<A> o) {
        if (e instanceof In n) {
            return o.input(n.k());
        }
        if (e instanceof Un u) {
            return o.unary(u.op(), eval(u.x(), o));
        }
        if (e instanceof Bin b) {
            return o.binary(b.op(), eval(b.a(), o), eval(b.b(), o));
        }
        if (e instanceof Scal s) {
            return o.scalar(s.op(), eval(s.a(), o), s.c());
        }
        if (e instanceof Red r) {
            return o.reduce(r.op(), eval(r.x(), o), r.axes(), r.keep(), r.shape());
        }
        if (e instanceof Reshape r) {
            return o.reshape(eval(r.x(), o), r.shape());
        }
        if (e instanceof Transpose t) {
            return o.transpose(eval(t.x(), o), t.perm());
        }
        if (e instanceof Broadcast b) {
            return o.broadcast(eval(b.x(), o), b.shape());
        }
        if (e instanceof Slice s) {
            return o.slice(eval(s.x(), o), s.axis(), s.start(), s.stop());
        }
        if (e instanceof Take t) {
            return o.take(eval(t.x(), o), t.idx(), t.idxShape(), t.axis());
        }
        if (e instanceof Concat c) {
            List<A> parts = new ArrayList<>();
            for (Expr p : c.parts()) {
                parts.add(eval(p, o));
            }
            return o.concat(c.axis(), parts);
        }
        if (e instanceof MatMul m) {
            return o.matmul(eval(m.a(), o), eval(m.b(), o));
        }
        if (e instanceof Where w) {
            A l = eval(w.l(), o);
            A r = w.r() == null ? null : eval(w.r(), o);
            A x = eval(w.x(), o);
            A y = w.y() == null ? null : eval(w.y(), o);
            return o.where(w.cmp(), l, r, w.c(), x, y, w.yc());
        }
        if (e instanceof Conv c) {
            return o.cast(c.kind(), eval(c.x(), o));
        }
        if (e instanceof Roll r) {
            return o.roll(eval(r.x(), o), r.shift(), r.axis());
        }
        return o.mutant(eval(((Mutant) e).x(), o));
    }

    // ------------------------------------------------------------------------------------------ framework: NDArray

    /** The program on NDArrays: the local engine's view. */
    static final class Local implements Ops<NDArray> {
        private final List<NDArray> args;

        Local(List<NDArray> args) {
            this.args = args;
        }

        @Override
        public NDArray input(int k) {
            return args.get(k);
        }

        @Override
        public NDArray unary(U op, NDArray x) {
            return switch (op) {
                case NEG -> x.neg();
                case ABS -> x.abs();
                case EXP -> x.exp();
                case LOG -> x.log();
                case SQRT -> x.sqrt();
                case SIN -> x.sin();
                case COS -> x.cos();
                case TANH -> x.tanh();
                case RELU -> x.relu();
                case SQUARE -> x.square();
                case GELU -> x.gelu();
            };
        }

        @Override
        public NDArray binary(B op, NDArray a, NDArray b) {
            return switch (op) {
                case ADD -> a.add(b);
                case SUB -> a.sub(b);
                case MUL -> a.mul(b);
                case DIV -> a.div(b);
                case MAX -> a.maximum(b);
                case MIN -> a.minimum(b);
            };
        }

        @Override
        public NDArray scalar(B op, NDArray a, float c) {
            return switch (op) {
                case ADD -> a.add(c);
                case SUB -> a.sub(c);
                case MUL -> a.mul(c);
                case DIV -> a.div(c);
                case MAX -> a.maximum(c);
                case MIN -> a.minimum(c);
            };
        }

        @Override
        public NDArray reduce(R op, NDArray x, int[] axes, boolean keep, int[] outShape) {
            KeepDims k = keep ? KeepDims.KEEP : KeepDims.DROP;
            return switch (op) {
                case SUM -> x.sum(k, axes);
                case MEAN -> x.mean(k, axes);
                case MAX -> x.max(k, axes);
                case MIN -> x.min(k, axes);
            };
        }

        @Override
        public NDArray reshape(NDArray x, int[] shape) {
            return x.reshape(shape);
        }

        @Override
        public NDArray transpose(NDArray x, int[] perm) {
            return x.transpose(perm);
        }

        @Override
        public NDArray broadcast(NDArray x, int[] shape) {
            return x.broadcastTo(shape);
        }

        @Override
        public NDArray slice(NDArray x, int axis, int start, int stop) {
            return x.slice(axis, start, stop);
        }

        @Override
        public NDArray take(NDArray x, int[] idx, int[] idxShape, int axis) {
            return x.take(NDArray.fromInts(idx, idxShape), axis);
        }

        @Override
        public NDArray concat(int axis, List<NDArray> parts) {
            return NDArray.concat(axis, parts);
        }

        @Override
        public NDArray matmul(NDArray a, NDArray b) {
            return a.matmul(b);
        }

        @Override
        public NDArray where(Cmp cmp, NDArray l, NDArray r, float c, NDArray x, NDArray y, float yc) {
            NDArray cond = switch (cmp) {
                case GT -> r == null ? l.greater(c) : l.greater(r);
                case GE -> r == null ? l.greaterEqual(c) : l.greaterEqual(r);
                case LT -> r == null ? l.less(c) : l.less(r);
                case LE -> r == null ? l.lessEqual(c) : l.lessEqual(r);
            };
            return y == null ? NDArray.where(cond, x, yc) : NDArray.where(cond, x, y);
        }

        @Override
        public NDArray cast(Cast kind, NDArray x) {
            return kind == Cast.SAME ? x.astype(DType.FLOAT32) : x.astype(DType.INT32).astype(DType.FLOAT32);
        }

        @Override
        public NDArray roll(NDArray x, int shift, int axis) {
            return x.roll(shift, axis);
        }

        /** sin, recorded with a planted bug in a copy of its rule: ct·sin(x) where the rule is ct·cos(x). */
        @Override
        public NDArray mutant(NDArray x) {
            GradRecorder r = GradRecorders.current();
            NDArray out;
            try (var ignored = GradRecorders.install(null)) {
                out = x.sin();
            }
            if (r != null) {
                r.custom(List.of(x), out, ct -> List.of(ct.mul(x.sin())));
            }
            return out;
        }
    }

    // ------------------------------------------------------------------------------------------ framework: global

    /** The program on ShardedArrays: the global engine's view (no gelu, relu as maximum(x, 0), take of rank ≤ 1). */
    static final class Global implements Ops<ShardedArray> {
        private final List<ShardedArray> args;

        Global(List<ShardedArray> args) {
            this.args = args;
        }

        @Override
        public ShardedArray input(int k) {
            return args.get(k);
        }

        @Override
        public ShardedArray unary(U op, ShardedArray x) {
            return switch (op) {
                case NEG -> x.neg();
                case ABS -> x.abs();
                case EXP -> x.exp();
                case LOG -> x.log();
                case SQRT -> x.sqrt();
                case SIN -> x.sin();
                case COS -> x.cos();
                case TANH -> x.tanh();
                case RELU -> x.maximum(0.0);
                case SQUARE -> x.square();
                case GELU -> throw new IllegalStateException("ShardedArray has no gelu");
            };
        }

        @Override
        public ShardedArray binary(B op, ShardedArray a, ShardedArray b) {
            return switch (op) {
                case ADD -> a.add(b);
                case SUB -> a.sub(b);
                case MUL -> a.mul(b);
                case DIV -> a.div(b);
                case MAX -> a.maximum(b);
                case MIN -> a.minimum(b);
            };
        }

        @Override
        public ShardedArray scalar(B op, ShardedArray a, float c) {
            return switch (op) {
                case ADD -> a.add(c);
                case SUB -> a.sub(c);
                case MUL -> a.mul(c);
                case DIV -> a.div(c);
                case MAX -> a.maximum(c);
                case MIN -> a.minimum(c);
            };
        }

        @Override
        public ShardedArray reduce(R op, ShardedArray x, int[] axes, boolean keep, int[] outShape) {
            ShardedArray r = switch (op) {
                case SUM -> x.sum(axes);
                case MEAN -> x.mean(axes);
                case MAX -> x.max(axes);
                case MIN -> x.min(axes);
            };
            return keep ? r.reshape(outShape) : r;
        }

        @Override
        public ShardedArray reshape(ShardedArray x, int[] shape) {
            return x.reshape(shape);
        }

        @Override
        public ShardedArray transpose(ShardedArray x, int[] perm) {
            return x.transpose(perm);
        }

        @Override
        public ShardedArray broadcast(ShardedArray x, int[] shape) {
            return x.broadcastTo(shape);
        }

        @Override
        public ShardedArray slice(ShardedArray x, int axis, int start, int stop) {
            return x.slice(axis, start, stop);
        }

        @Override
        public ShardedArray take(ShardedArray x, int[] idx, int[] idxShape, int axis) {
            return x.take(NDArray.fromInts(idx, idxShape), axis);
        }

        @Override
        public ShardedArray concat(int axis, List<ShardedArray> parts) {
            return ShardedArray.concatenate(axis, parts.toArray(new ShardedArray[0]));
        }

        @Override
        public ShardedArray matmul(ShardedArray a, ShardedArray b) {
            return a.matmul(b);
        }

        @Override
        public ShardedArray where(Cmp cmp, ShardedArray l, ShardedArray r, float c, ShardedArray x, ShardedArray y,
                                  float yc) {
            ShardedArray cond = switch (cmp) {
                case GT -> r == null ? l.greater(c) : l.greater(r);
                case GE -> r == null ? l.greaterEqual(c) : l.greaterEqual(r);
                case LT -> r == null ? l.less(c) : l.less(r);
                case LE -> r == null ? l.lessEqual(c) : l.lessEqual(r);
            };
            return y == null ? ShardedArray.where(cond, x, yc) : ShardedArray.where(cond, x, y);
        }

        @Override
        public ShardedArray cast(Cast kind, ShardedArray x) {
            return kind == Cast.SAME ? x.astype(DType.FLOAT32) : x.astype(DType.INT32).astype(DType.FLOAT32);
        }

        @Override
        public ShardedArray roll(ShardedArray x, int shift, int axis) {
            return x.roll(shift, axis);
        }

        @Override
        public ShardedArray mutant(ShardedArray x) {
            throw new IllegalStateException("the planted bug is for the local engine");
        }
    }

    // ------------------------------------------------------------------------------------------ the reference

    /** Intermediate values stay within ±BOUND, so float32's relative error stays small in absolute terms. */
    static final double BOUND = 60;
    /** log and sqrt read at least this much. */
    static final double DOMAIN = 0.05;
    /** Divisors are at least this large in magnitude. */
    static final double DIVISOR = 0.1;

    /**
     * How far (in float64) a value must stay from a kink: far beyond float32's error on values within
     * {@link #BOUND} (about 1e-5) and beyond the finite-difference step (1e-6) times any slope here.
     */
    static double margin(double v) {
        return 0.02 + 1e-3 * Math.abs(v);
    }

    /** A float64 array of a shape, row-major. */
    record D(double[] v, int[] shape) {
        static D of(float[] data, int[] shape) {
            double[] v = new double[data.length];
            for (int i = 0; i < v.length; i++) {
                v[i] = data[i];
            }
            return new D(v, shape);
        }

        int size() {
            return v.length;
        }
    }

    static int size(int[] s) {
        int n = 1;
        for (int d : s) {
            n *= d;
        }
        return n;
    }

    static int[] strides(int[] s) {
        int[] st = new int[s.length];
        int acc = 1;
        for (int d = s.length - 1; d >= 0; d--) {
            st[d] = acc;
            acc *= s[d];
        }
        return st;
    }

    static int[] unravel(int flat, int[] shape) {
        int[] idx = new int[shape.length];
        for (int d = shape.length - 1; d >= 0; d--) {
            idx[d] = flat % shape[d];
            flat /= shape[d];
        }
        return idx;
    }

    static int ravel(int[] idx, int[] shape) {
        int f = 0;
        for (int d = 0; d < shape.length; d++) {
            f = f * shape[d] + idx[d];
        }
        return f;
    }

    /** numpy's broadcast of two shapes (they must be compatible). */
    static int[] broadcastShapes(int[] a, int[] b) {
        int r = Math.max(a.length, b.length);
        int[] out = new int[r];
        for (int d = 0; d < r; d++) {
            int x = d - (r - a.length) >= 0 ? a[d - (r - a.length)] : 1;
            int y = d - (r - b.length) >= 0 ? b[d - (r - b.length)] : 1;
            if (x != y && x != 1 && y != 1) {
                throw new IllegalArgumentException("shapes do not broadcast: " + str(a) + " " + str(b));
            }
            out[d] = x == 1 ? y : x;
        }
        return out;
    }

    static D bcast(D x, int[] shape) {
        if (Arrays.equals(x.shape(), shape)) {
            return x;
        }
        int lead = shape.length - x.shape().length;
        int[] xs = strides(x.shape());
        double[] out = new double[size(shape)];
        for (int i = 0; i < out.length; i++) {
            int[] idx = unravel(i, shape);
            int src = 0;
            for (int d = 0; d < x.shape().length; d++) {
                src += (x.shape()[d] == 1 ? 0 : idx[d + lead]) * xs[d];
            }
            out[i] = x.v()[src];
        }
        return new D(out, shape.clone());
    }

    static D concat(int axis, List<D> parts) {
        int[] shape = parts.get(0).shape().clone();
        int total = 0;
        for (D p : parts) {
            total += p.shape()[axis];
        }
        shape[axis] = total;
        double[] out = new double[size(shape)];
        for (int i = 0; i < out.length; i++) {
            int[] idx = unravel(i, shape);
            int j = idx[axis];
            int k = 0;
            while (j >= parts.get(k).shape()[axis]) {
                j -= parts.get(k).shape()[axis];
                k++;
            }
            idx[axis] = j;
            out[i] = parts.get(k).v()[ravel(idx, parts.get(k).shape())];
        }
        return new D(out, shape);
    }

    static D slice(D x, int axis, int start, int stop) {
        int[] shape = x.shape().clone();
        shape[axis] = stop - start;
        double[] out = new double[size(shape)];
        for (int i = 0; i < out.length; i++) {
            int[] idx = unravel(i, shape);
            idx[axis] += start;
            out[i] = x.v()[ravel(idx, x.shape())];
        }
        return new D(out, shape);
    }

    /** x with one more axis of size 1 at position d. */
    static D expand(D x, int d) {
        int[] s = new int[x.shape().length + 1];
        for (int k = 0, j = 0; k < s.length; k++) {
            s[k] = k == d ? 1 : x.shape()[j++];
        }
        return new D(x.v(), s);
    }

    /** x with its axis d (of size 1) removed. */
    static D squeeze(D x, int d) {
        int[] s = new int[x.shape().length - 1];
        for (int k = 0, j = 0; k < x.shape().length; k++) {
            if (k != d) {
                s[j++] = x.shape()[k];
            }
        }
        return new D(x.v(), s);
    }

    static D zip(D a, D b, java.util.function.DoubleBinaryOperator f) {
        int[] s = broadcastShapes(a.shape(), b.shape());
        D x = bcast(a, s);
        D y = bcast(b, s);
        double[] out = new double[size(s)];
        for (int i = 0; i < out.length; i++) {
            out[i] = f.applyAsDouble(x.v()[i], y.v()[i]);
        }
        return new D(out, s);
    }

    static D map(D a, java.util.function.DoubleUnaryOperator f) {
        double[] out = new double[a.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = f.applyAsDouble(a.v()[i]);
        }
        return new D(out, a.shape());
    }

    static double gelu(double x) {
        return 0.5 * x * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (x + 0.044715 * x * x * x)));
    }

    /**
     * The float64 reference, written from the math. With {@code check} it records the first place where the
     * program comes near a kink, leaves a domain or grows beyond {@link #BOUND} ({@link #violation}).
     */
    static final class Ref implements Ops<D> {
        private final List<D> args;
        private final boolean check;
        String violation;

        Ref(List<D> args, boolean check) {
            this.args = args;
            this.check = check;
        }

        private void require(boolean ok, Supplier<String> why) {
            if (check && !ok && violation == null) {
                violation = why.get();
            }
        }

        private D bounded(D x) {
            if (check) {
                for (double v : x.v()) {
                    require(Double.isFinite(v) && Math.abs(v) <= BOUND, () -> "value " + v + " beyond the bound");
                }
            }
            return x;
        }

        private void away(double v, double kink, String what) {
            require(Math.abs(v - kink) >= margin(v), () -> what + " at " + v + " is near its kink " + kink);
        }

        @Override
        public D input(int k) {
            return args.get(k);
        }

        @Override
        public D unary(U op, D x) {
            if (check) {
                for (double v : x.v()) {
                    switch (op) {
                        case ABS, RELU -> away(v, 0, op.name());
                        case LOG, SQRT -> require(v >= DOMAIN, () -> op + " of " + v);
                        default -> {
                        }
                    }
                }
            }
            return bounded(map(x, v -> switch (op) {
                case NEG -> -v;
                case ABS -> Math.abs(v);
                case EXP -> Math.exp(v);
                case LOG -> Math.log(v);
                case SQRT -> Math.sqrt(v);
                case SIN -> Math.sin(v);
                case COS -> Math.cos(v);
                case TANH -> Math.tanh(v);
                case RELU -> Math.max(v, 0);
                case SQUARE -> v * v;
                case GELU -> gelu(v);
            }));
        }

        private double apply(B op, double a, double b) {
            switch (op) {
                case DIV -> require(Math.abs(b) >= DIVISOR, () -> "division by " + b);
                case MAX, MIN -> {
                    if (a != b) {
                        away(a, b, op.name());
                    }
                }
                default -> {
                }
            }
            return switch (op) {
                case ADD -> a + b;
                case SUB -> a - b;
                case MUL -> a * b;
                case DIV -> a / b;
                case MAX -> Math.max(a, b);
                case MIN -> Math.min(a, b);
            };
        }

        @Override
        public D binary(B op, D a, D b) {
            return bounded(zip(a, b, (x, y) -> apply(op, x, y)));
        }

        @Override
        public D scalar(B op, D a, float c) {
            return bounded(map(a, x -> apply(op, x, c)));
        }

        @Override
        public D reduce(R op, D x, int[] axes, boolean keep, int[] outShape) {
            int rank = x.shape().length;
            boolean[] red = new boolean[rank];
            for (int a : axes) {
                red[a < 0 ? a + rank : a] = true;
            }
            int[] kept = x.shape().clone();
            int count = 1;
            for (int d = 0; d < rank; d++) {
                if (red[d]) {
                    count *= kept[d];
                    kept[d] = 1;
                }
            }
            int n = size(kept);
            double[] acc = new double[n];
            int[] owner = new int[x.size()];
            boolean chooser = op == R.MAX || op == R.MIN;
            if (chooser) {
                Arrays.fill(acc, op == R.MAX ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY);
            }
            for (int i = 0; i < x.size(); i++) {
                int[] idx = unravel(i, x.shape());
                for (int d = 0; d < rank; d++) {
                    if (red[d]) {
                        idx[d] = 0;
                    }
                }
                int o = ravel(idx, kept);
                owner[i] = o;
                double v = x.v()[i];
                acc[o] = switch (op) {
                    case SUM, MEAN -> acc[o] + v;
                    case MAX -> Math.max(acc[o], v);
                    case MIN -> Math.min(acc[o], v);
                };
            }
            if (op == R.MEAN) {
                for (int o = 0; o < n; o++) {
                    acc[o] /= count;
                }
            }
            if (chooser && check) {
                // the chosen value must be clear of every other distinct value of its group
                for (int i = 0; i < x.size(); i++) {
                    double v = x.v()[i];
                    double best = acc[owner[i]];
                    if (v != best) {
                        away(v, best, op.name() + " reduction");
                    }
                }
            }
            return bounded(new D(acc, outShape.clone()));
        }

        @Override
        public D reshape(D x, int[] shape) {
            return new D(x.v(), shape.clone());
        }

        @Override
        public D transpose(D x, int[] perm) {
            int rank = perm.length;
            int[] p = new int[rank];
            for (int d = 0; d < rank; d++) {
                p[d] = perm[d] < 0 ? perm[d] + rank : perm[d];
            }
            int[] shape = new int[rank];
            for (int d = 0; d < rank; d++) {
                shape[d] = x.shape()[p[d]];
            }
            double[] out = new double[x.size()];
            for (int i = 0; i < out.length; i++) {
                int[] o = unravel(i, shape);
                int[] src = new int[rank];
                for (int d = 0; d < rank; d++) {
                    src[p[d]] = o[d];
                }
                out[i] = x.v()[ravel(src, x.shape())];
            }
            return new D(out, shape);
        }

        @Override
        public D broadcast(D x, int[] shape) {
            return bcast(x, shape);
        }

        @Override
        public D slice(D x, int axis, int start, int stop) {
            return GradPrograms.slice(x, axis, start, stop);
        }

        @Override
        public D take(D x, int[] idx, int[] idxShape, int axis) {
            int rank = x.shape().length;
            int n = x.shape()[axis];
            int ir = idxShape.length;
            int[] shape = new int[rank - 1 + ir];
            for (int d = 0; d < axis; d++) {
                shape[d] = x.shape()[d];
            }
            for (int d = 0; d < ir; d++) {
                shape[axis + d] = idxShape[d];
            }
            for (int d = axis + 1; d < rank; d++) {
                shape[d - 1 + ir] = x.shape()[d];
            }
            double[] out = new double[size(shape)];
            for (int i = 0; i < out.length; i++) {
                int[] o = unravel(i, shape);
                int[] mid = Arrays.copyOfRange(o, axis, axis + ir);
                int j = idx[ravel(mid, idxShape)];
                int[] src = new int[rank];
                for (int d = 0; d < axis; d++) {
                    src[d] = o[d];
                }
                src[axis] = j < 0 ? j + n : j;
                for (int d = axis + 1; d < rank; d++) {
                    src[d] = o[d - 1 + ir];
                }
                out[i] = x.v()[ravel(src, x.shape())];
            }
            return new D(out, shape);
        }

        @Override
        public D concat(int axis, List<D> parts) {
            return GradPrograms.concat(axis, parts);
        }

        @Override
        public D matmul(D a, D b) {
            int m = a.shape()[0];
            int k = a.shape()[1];
            int n = b.shape()[1];
            double[] out = new double[m * n];
            for (int i = 0; i < m; i++) {
                for (int j = 0; j < n; j++) {
                    double s = 0;
                    for (int t = 0; t < k; t++) {
                        s += a.v()[i * k + t] * b.v()[t * n + j];
                    }
                    out[i * n + j] = s;
                }
            }
            return bounded(new D(out, new int[]{m, n}));
        }

        @Override
        public D where(Cmp cmp, D l, D r, float c, D x, D y, float yc) {
            D rr = r == null ? new D(new double[]{c}, new int[0]) : r;
            D cond = zip(l, rr, (a, b) -> {
                require(Math.abs(a - b) >= margin(a), () -> "where compares " + a + " with " + b);
                return switch (cmp) {
                    case GT -> a > b ? 1 : 0;
                    case GE -> a >= b ? 1 : 0;
                    case LT -> a < b ? 1 : 0;
                    case LE -> a <= b ? 1 : 0;
                };
            });
            D yy = y == null ? new D(new double[]{yc}, new int[0]) : y;
            int[] s = broadcastShapes(cond.shape(), broadcastShapes(x.shape(), yy.shape()));
            D c3 = bcast(cond, s);
            D x3 = bcast(x, s);
            D y3 = bcast(yy, s);
            double[] out = new double[size(s)];
            for (int i = 0; i < out.length; i++) {
                out[i] = c3.v()[i] != 0 ? x3.v()[i] : y3.v()[i];
            }
            return new D(out, s);
        }

        @Override
        public D cast(Cast kind, D x) {
            if (kind == Cast.SAME) {
                return x;
            }
            if (check) {
                for (double v : x.v()) {
                    // truncation jumps at every integer but 0
                    double kink = Math.abs(v) < 0.5 ? Math.signum(v) : Math.rint(v);
                    away(v, kink == 0 ? 1 : kink, "int round trip");
                }
            }
            return map(x, v -> (double) (long) v);
        }

        @Override
        public D roll(D x, int shift, int ax) {
            int axis = ax < 0 ? ax + x.shape().length : ax;
            int n = x.shape()[axis];
            double[] out = new double[x.size()];
            for (int i = 0; i < out.length; i++) {
                int[] idx = unravel(i, x.shape());
                idx[axis] = Math.floorMod(idx[axis] - shift, n);
                out[i] = x.v()[ravel(idx, x.shape())];
            }
            return new D(out, x.shape());
        }

        @Override
        public D mutant(D x) {
            return unary(U.SIN, x);
        }
    }

    /** The reference's outputs at these inputs. */
    static List<D> reference(Program p, List<D> inputs) {
        Ref ref = new Ref(inputs, false);
        List<D> outs = new ArrayList<>();
        for (Expr e : p.outs()) {
            outs.add(eval(e, ref));
        }
        return outs;
    }

    /** Σ_k ⟨w_k, out_k⟩ in float64. */
    static double weightedSum(Program p, List<D> inputs, List<float[]> weights) {
        List<D> outs = reference(p, inputs);
        double s = 0;
        for (int k = 0; k < outs.size(); k++) {
            double[] v = outs.get(k).v();
            for (int i = 0; i < v.length; i++) {
                s += weights.get(k)[i] * v[i];
            }
        }
        return s;
    }

    /** Finite-difference step: central differences in float64 have error O(h²·f''') + O(ε·|f|/h) ≈ 1e-9. */
    static final double H = 1e-6;

    /** Central differences in float64 of a function of several arrays, with respect to every element. */
    static List<double[]> centralDifferences(List<double[]> at, java.util.function.ToDoubleFunction<List<double[]>> f) {
        List<double[]> out = new ArrayList<>();
        List<double[]> xs = new ArrayList<>();
        for (double[] a : at) {
            xs.add(a.clone());
        }
        for (int k = 0; k < xs.size(); k++) {
            double[] x = xs.get(k);
            double[] g = new double[x.length];
            for (int i = 0; i < x.length; i++) {
                double v = x[i];
                x[i] = v + H;
                double up = f.applyAsDouble(xs);
                x[i] = v - H;
                double down = f.applyAsDouble(xs);
                x[i] = v;
                g[i] = (up - down) / (2 * H);
            }
            out.add(g);
        }
        return out;
    }

    /** The expected gradients of Σ_k ⟨w_k, out_k⟩ with respect to every input. */
    static List<double[]> expectedGradients(Case c) {
        List<double[]> at = new ArrayList<>();
        for (float[] x : c.inputs()) {
            at.add(D.of(x, new int[]{x.length}).v());
        }
        return centralDifferences(at, xs -> {
            List<D> ds = new ArrayList<>();
            for (int k = 0; k < xs.size(); k++) {
                ds.add(new D(xs.get(k), c.program().inputShapes().get(k)));
            }
            return weightedSum(c.program(), ds, c.weights());
        });
    }

    // ------------------------------------------------------------------------------------------ comparison

    /**
     * Tolerance of a float32 gradient against the float64 finite difference: |g − fd| ≤ RTOL·(1 + |fd|).
     * float32 rounds each operation to ~6e-8 relative; a program here has a few dozen operations at most, on values
     * within ±{@link #BOUND}, whose slopes are at most 1/{@link #DOMAIN} = 20 (log) and 1/{@link #DIVISOR}² = 100
     * (division), so a gradient entry is off by ~1e-5 of the size of its terms at worst; the finite differences
     * add ~1e-9 (see {@link #H}). Measured over all the properties, the worst ratio of a correct gradient is ~2e-6
     * (each property class prints its own). 5e-4 leaves more than two orders of magnitude for sums whose terms
     * partly cancel, and stays far below the error of a wrong rule: a wrong factor, sign, transpose, permutation or
     * a missing broadcast sum changes entries by O(1) relative.
     */
    static final double RTOL = 5e-4;

    /**
     * The worst |g − fd| / (1 + |fd|) of the cases that matched so far (reported by the properties, to show the
     * tolerance's margin).
     */
    static volatile double worstRatio;

    /** Null when every entry is within tolerance, else a description of the first one that is not. */
    static String mismatch(String what, double[] expected, float[] got) {
        if (expected.length != got.length) {
            return what + ": " + got.length + " entries, expected " + expected.length;
        }
        double worst = 0;
        for (int i = 0; i < got.length; i++) {
            double ratio = Math.abs(got[i] - expected[i]) / (1 + Math.abs(expected[i]));
            worst = Math.max(worst, ratio);
            if (!(ratio <= RTOL)) {
                return what + "[" + i + "]: got " + got[i] + ", expected " + expected[i] + " (finite differences)\n"
                        + "  got      " + Arrays.toString(got) + "\n  expected " + Arrays.toString(round(expected));
            }
        }
        pending = Math.max(pending, worst);
        return null;
    }

    private static double pending;

    /** Starts the comparison of one case's arrays. */
    static void beginCase() {
        pending = 0;
    }

    /** Ends it: the worst ratio counts toward {@link #worstRatio} when every array of the case matched. */
    static String endCase(String bad) {
        if (bad == null && pending > worstRatio) {
            worstRatio = pending;
        }
        return bad;
    }

    static double[] round(double[] xs) {
        double[] out = new double[xs.length];
        for (int i = 0; i < xs.length; i++) {
            out[i] = Math.round(xs[i] * 1e6) / 1e6;
        }
        return out;
    }

    // ------------------------------------------------------------------------------------------ the generator

    /** Which programs to generate. */
    record Options(boolean global, int outputs, boolean mutantAtRoot) {
        static final Options LOCAL = new Options(false, 1, false);
    }

    /**
     * A program and inputs drawn from (seed, size): size bounds the depth. Inputs are redrawn until the reference
     * finds the program smooth there, and the program is redrawn if no inputs do.
     */
    static Case generate(long seed, int size, Options opt) {
        Random r = new Random(seed);
        for (int attempt = 0; attempt < 200; attempt++) {
            Gen g = new Gen(r, opt);
            List<Expr> outs = new ArrayList<>();
            for (int k = 0; k < opt.outputs(); k++) {
                int[] shape = g.shape(3);
                Expr e = g.gen(shape, size + 1, false);
                outs.add(opt.mutantAtRoot() && k == 0 ? new Mutant(e) : e);
            }
            Program p = new Program(List.copyOf(outs), List.copyOf(g.shapes), List.copyOf(g.positive));
            for (int draw = 0; draw < 30; draw++) {
                List<float[]> inputs = new ArrayList<>();
                List<D> ds = new ArrayList<>();
                for (int k = 0; k < p.inputShapes().size(); k++) {
                    float[] v = new float[size(p.inputShapes().get(k))];
                    for (int i = 0; i < v.length; i++) {
                        double u = r.nextDouble();
                        v[i] = (float) (p.positive().get(k) ? 0.3 + 1.7 * u
                                : (r.nextBoolean() ? 1 : -1) * (0.15 + 1.85 * u));
                    }
                    inputs.add(v);
                    ds.add(D.of(v, p.inputShapes().get(k)));
                }
                Ref check = new Ref(ds, true);
                for (Expr e : outs) {
                    eval(e, check);
                }
                if (check.violation == null) {
                    List<float[]> weights = new ArrayList<>();
                    for (Expr e : outs) {
                        float[] w = new float[size(e.shape())];
                        for (int i = 0; i < w.length; i++) {
                            w[i] = (float) (r.nextDouble() * 2 - 1);
                        }
                        weights.add(w);
                    }
                    return new Case(seed, size, p, inputs, weights, attempt * 30 + draw + 1);
                }
            }
        }
        throw new IllegalStateException("no smooth program found for seed " + seed);
    }


    private enum Kind { LEAF, UNARY, BINARY, SCALAR, REDUCE, RESHAPE, TRANSPOSE, BROADCAST, SLICE, TAKE, CONCAT,
        MATMUL, WHERE, CAST, ROLL }

    private static final Kind[] WEIGHTED = {Kind.UNARY, Kind.UNARY, Kind.UNARY, Kind.BINARY, Kind.BINARY,
        Kind.BINARY, Kind.SCALAR, Kind.REDUCE, Kind.REDUCE, Kind.RESHAPE, Kind.TRANSPOSE, Kind.BROADCAST, Kind.SLICE,
        Kind.TAKE, Kind.TAKE, Kind.CONCAT, Kind.MATMUL, Kind.WHERE, Kind.CAST, Kind.ROLL};

    /** Top-down generation: every node is made for a wanted result shape; positive asks for values ≳ 0.1. */
    static final class Gen {
        static final int MAX_INPUTS = 4;
        static final int MAX_ELEMENTS = 48;
        final Random r;
        final Options opt;
        final List<int[]> shapes = new ArrayList<>();
        final List<Boolean> positive = new ArrayList<>();

        Gen(Random r, Options opt) {
            this.r = r;
            this.opt = opt;
        }

        int dim() {
            if (opt.global()) {
                return new int[]{1, 2, 2, 4, 4, 3}[r.nextInt(6)];
            }
            return 1 + r.nextInt(4);
        }

        int[] shape(int maxRank) {
            int[] s = new int[r.nextInt(maxRank + 1)];
            for (int d = 0; d < s.length; d++) {
                s[d] = dim();
            }
            return s;
        }

        boolean small(int[] s) {
            return size(s) <= MAX_ELEMENTS && s.length <= 4;
        }

        Expr gen(int[] t, int depth, boolean pos) {
            if (depth <= 0 || r.nextDouble() < 0.12) {
                return leaf(t, pos);
            }
            for (int attempt = 0; attempt < 30; attempt++) {
                Expr e = node(WEIGHTED[r.nextInt(WEIGHTED.length)], t, depth - 1, pos);
                if (e != null) {
                    return e;
                }
            }
            return leaf(t, pos);
        }

        Expr leaf(int[] t, boolean pos) {
            List<Integer> same = new ArrayList<>();
            for (int k = 0; k < shapes.size(); k++) {
                if (Arrays.equals(shapes.get(k), t) && (positive.get(k) || !pos)) {
                    same.add(k);
                }
            }
            boolean room = shapes.size() < MAX_INPUTS && (size(t) <= 32 || shapes.isEmpty());
            if (!same.isEmpty() && (!room || r.nextDouble() < 0.6)) {
                int k = same.get(r.nextInt(same.size()));
                return new In(k, t);
            }
            if (room) {
                shapes.add(t.clone());
                positive.add(pos || r.nextDouble() < 0.3);
                return new In(shapes.size() - 1, t.clone());
            }
            // no room for another input: a mean of an existing one, broadcast (exp'd when a positive value is due)
            int k = r.nextInt(shapes.size());
            int[] s = shapes.get(k);
            Expr e = new In(k, s);
            if (s.length > 0) {
                int[] all = new int[s.length];
                for (int d = 0; d < all.length; d++) {
                    all[d] = d;
                }
                e = new Red(R.MEAN, e, all, false, new int[0]);
            }
            if (pos && !positive.get(k)) {
                e = new Un(U.EXP, e);
            }
            return t.length == 0 ? e : new Broadcast(e, t.clone());
        }

        /** A shape that broadcasts to t (numpy rules), usually not t itself. */
        int[] under(int[] t) {
            int rank = r.nextInt(t.length + 1);
            int[] s = Arrays.copyOfRange(t, t.length - rank, t.length);
            for (int d = 0; d < s.length; d++) {
                if (r.nextDouble() < 0.35) {
                    s[d] = 1;
                }
            }
            return s;
        }

        /** A shape that, broadcast with a, gives t. */
        int[] complement(int[] a, int[] t) {
            int lead = t.length - a.length;
            int need = lead > 0 ? t.length : 0; // the lowest rank the other operand needs
            for (int d = 0; d < t.length; d++) {
                boolean covered = d >= lead && a[d - lead] == t[d];
                if (!covered && t[d] != 1 && need == 0) {
                    need = t.length - d;
                }
            }
            int rank = need + r.nextInt(t.length - need + 1);
            int[] s = Arrays.copyOfRange(t, t.length - rank, t.length);
            for (int d = 0; d < s.length; d++) {
                int td = t.length - rank + d;
                boolean covered = td >= lead && a[td - lead] == t[td];
                if (covered && r.nextDouble() < 0.4) {
                    s[d] = 1;
                }
            }
            return s;
        }

        Expr node(Kind kind, int[] t, int depth, boolean pos) {
            switch (kind) {
                case UNARY: {
                    List<U> ops = new ArrayList<>();
                    for (U u : U.values()) {
                        if (opt.global() && u == U.GELU) {
                            continue;
                        }
                        if (pos && !(u == U.EXP || u == U.SQRT || u == U.ABS || u == U.RELU || u == U.SQUARE
                                || u == U.GELU)) {
                            continue;
                        }
                        ops.add(u);
                    }
                    U u = ops.get(r.nextInt(ops.size()));
                    boolean childPos = u == U.LOG || u == U.SQRT || (pos && u != U.EXP);
                    return new Un(u, gen(t, depth, childPos));
                }
                case BINARY: {
                    B op = B.values()[r.nextInt(B.values().length)];
                    int[] sa = r.nextDouble() < 0.4 ? t.clone() : under(t);
                    int[] sb = complement(sa, t);
                    if (r.nextBoolean() && op != B.DIV) {
                        int[] tmp = sa;
                        sa = sb;
                        sb = tmp;
                    }
                    if (op == B.DIV) {
                        Expr a = gen(sa, depth, pos);
                        Expr b = gen(sb, depth, true);
                        if (!pos && r.nextBoolean()) {
                            b = new Un(U.NEG, b);
                        }
                        return new Bin(op, a, b, t.clone());
                    }
                    boolean pa = pos;
                    boolean pb = pos && op != B.MAX;
                    if (pos && op == B.SUB) {
                        return null;
                    }
                    return new Bin(op, gen(sa, depth, pa), gen(sb, depth, pb), t.clone());
                }
                case SCALAR: {
                    B op = B.values()[r.nextInt(B.values().length)];
                    float c = (float) (0.25 + 1.5 * r.nextDouble());
                    if (!pos && op != B.DIV && r.nextBoolean()) {
                        c = -c;
                    }
                    if (pos && op == B.SUB) {
                        return null;
                    }
                    if (!pos && (op == B.MAX || op == B.MIN)) {
                        c = (float) (r.nextDouble() * 2 - 1);
                    }
                    return new Scal(op, gen(t, depth, pos && op != B.MAX), c);
                }
                case REDUCE: {
                    R op = R.values()[r.nextInt(R.values().length)];
                    List<Integer> ones = new ArrayList<>();
                    for (int d = 0; d < t.length; d++) {
                        if (t[d] == 1) {
                            ones.add(d);
                        }
                    }
                    boolean keep = !ones.isEmpty() && r.nextBoolean();
                    int[] child;
                    List<Integer> axes = new ArrayList<>();
                    if (keep) {
                        child = t.clone();
                        for (int d : ones) {
                            if (axes.isEmpty() || r.nextBoolean()) {
                                axes.add(d);
                                child[d] = 1 + r.nextInt(4);
                            }
                        }
                    } else {
                        int k = 1 + r.nextInt(2);
                        if (t.length + k > 4) {
                            return null;
                        }
                        List<Integer> c = new ArrayList<>();
                        for (int d : t) {
                            c.add(d);
                        }
                        List<Integer> inserted = new ArrayList<>();
                        for (int j = 0; j < k; j++) {
                            int at = r.nextInt(c.size() + 1);
                            c.add(at, dim());
                            for (int q = 0; q < inserted.size(); q++) {
                                if (inserted.get(q) >= at) {
                                    inserted.set(q, inserted.get(q) + 1);
                                }
                            }
                            inserted.add(at);
                        }
                        child = c.stream().mapToInt(Integer::intValue).toArray();
                        axes.addAll(inserted);
                    }
                    if (!small(child)) {
                        return null;
                    }
                    java.util.Collections.shuffle(axes, r);
                    int[] ax = new int[axes.size()];
                    for (int j = 0; j < ax.length; j++) {
                        ax[j] = r.nextDouble() < 0.3 ? axes.get(j) - child.length : axes.get(j);
                    }
                    return new Red(op, gen(child, depth, pos), ax, keep, t.clone());
                }
                case RESHAPE: {
                    int n = size(t);
                    int rank = n == 1 ? r.nextInt(3) : 1 + r.nextInt(3);
                    int[] s = new int[rank];
                    Arrays.fill(s, 1);
                    int m = n;
                    for (int f = 2; m > 1; ) {
                        if (m % f == 0) {
                            s[r.nextInt(rank)] *= f;
                            m /= f;
                        } else {
                            f++;
                        }
                    }
                    if (Arrays.equals(s, t)) {
                        return null;
                    }
                    return new Reshape(gen(s, depth, pos), t.clone());
                }
                case TRANSPOSE: {
                    if (t.length < 2) {
                        return null;
                    }
                    List<Integer> p = new ArrayList<>();
                    for (int d = 0; d < t.length; d++) {
                        p.add(d);
                    }
                    java.util.Collections.shuffle(p, r);
                    int[] perm = p.stream().mapToInt(Integer::intValue).toArray();
                    int[] child = new int[t.length];
                    for (int d = 0; d < t.length; d++) {
                        child[perm[d]] = t[d];
                    }
                    return new Transpose(gen(child, depth, pos), perm, t.clone());
                }
                case BROADCAST: {
                    int[] s = under(t);
                    if (Arrays.equals(s, t)) {
                        return null;
                    }
                    return new Broadcast(gen(s, depth, pos), t.clone());
                }
                case SLICE: {
                    if (t.length == 0) {
                        return null;
                    }
                    int a = r.nextInt(t.length);
                    int extra = 1 + r.nextInt(opt.global() ? 3 : 2);
                    int[] child = t.clone();
                    child[a] += extra;
                    if (!small(child)) {
                        return null;
                    }
                    int start = r.nextInt(extra + 1);
                    return new Slice(gen(child, depth, pos), a, start, start + t[a], t.clone());
                }
                case TAKE: {
                    int ir = r.nextInt(opt.global() ? 2 : 3);
                    if (t.length < ir || (ir == 0 && t.length > 3)) {
                        return null;
                    }
                    int a = r.nextInt(t.length - ir + 1);
                    int n = dim();
                    int[] idxShape = Arrays.copyOfRange(t, a, a + ir);
                    int[] child = new int[t.length - ir + 1];
                    for (int d = 0; d < a; d++) {
                        child[d] = t[d];
                    }
                    child[a] = n;
                    for (int d = a + ir; d < t.length; d++) {
                        child[d - ir + 1] = t[d];
                    }
                    if (!small(child)) {
                        return null;
                    }
                    int[] idx = new int[size(idxShape)];
                    for (int i = 0; i < idx.length; i++) {
                        idx[i] = r.nextInt(n);
                        if (i > 0 && r.nextDouble() < 0.25) {
                            idx[i] = Math.floorMod(idx[r.nextInt(i)], n); // a repeated index
                        }
                        if (r.nextDouble() < 0.25) {
                            idx[i] -= n; // counted from the end
                        }
                    }
                    return new Take(gen(child, depth, pos), idx, idxShape, a, t.clone());
                }
                case CONCAT: {
                    List<Integer> axes = new ArrayList<>();
                    for (int d = 0; d < t.length; d++) {
                        if (t[d] >= 2) {
                            axes.add(d);
                        }
                    }
                    if (axes.isEmpty()) {
                        return null;
                    }
                    int a = axes.get(r.nextInt(axes.size()));
                    int parts = 2 + r.nextInt(Math.min(2, t[a] - 1));
                    List<Integer> cuts = new ArrayList<>();
                    int left = t[a];
                    for (int k = 0; k < parts - 1; k++) {
                        int c = 1 + r.nextInt(left - (parts - 1 - k));
                        cuts.add(c);
                        left -= c;
                    }
                    cuts.add(left);
                    List<Expr> es = new ArrayList<>();
                    for (int c : cuts) {
                        int[] s = t.clone();
                        s[a] = c;
                        es.add(gen(s, depth, pos));
                    }
                    return new Concat(a, es, t.clone());
                }
                case MATMUL: {
                    if (t.length != 2) {
                        return null;
                    }
                    int k = dim();
                    return new MatMul(gen(new int[]{t[0], k}, depth, pos), gen(new int[]{k, t[1]}, depth, pos),
                            t.clone());
                }
                case WHERE: {
                    // one of x and y has the whole shape (x when y is a constant), the others broadcast to it
                    boolean constY = r.nextDouble() < 0.3;
                    int[] sx = t.clone();
                    int[] sc = under(t);
                    int[] sy = under(t);
                    if (!constY && r.nextBoolean()) {
                        int[] tmp = sx;
                        sx = sy;
                        sy = tmp;
                    }
                    Cmp cmp = Cmp.values()[r.nextInt(4)];
                    Expr l = gen(sc, depth - 1, false);
                    Expr rr = r.nextBoolean() ? null : gen(under(sc), depth - 1, false);
                    float c = (float) (r.nextDouble() - 0.5);
                    Expr x = gen(sx, depth, pos);
                    Expr y = constY ? null : gen(sy, depth, pos);
                    float yc = (float) (pos ? 0.5 : r.nextDouble() - 0.5);
                    return new Where(cmp, l, rr, c, x, y, yc, t.clone());
                }
                case CAST: {
                    Cast k = pos || r.nextBoolean() ? Cast.SAME : Cast.INT_ROUND_TRIP;
                    return new Conv(k, gen(t, depth, pos));
                }
                case ROLL: {
                    if (t.length == 0) {
                        return null;
                    }
                    int a = r.nextInt(t.length);
                    int shift = r.nextInt(11) - 5;
                    return new Roll(gen(t, depth, pos), shift, r.nextDouble() < 0.3 ? a - t.length : a);
                }
                default:
                    return null;
            }
        }
    }
}
