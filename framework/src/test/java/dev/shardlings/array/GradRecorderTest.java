package dev.shardlings.array;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The {@link GradRecorder} hooks of the op families: every public {@link NDArray} method that computes an array
 * from arrays is recorded as a connected chain of operations (each reported once, with the very objects read and
 * returned), and replaying each recorded operation gives its recorded result bit for bit. The methods are listed
 * one by one in {@link #floatCases()} and {@link #mixedCases()}.
 */
@SuppressWarnings("try") // recorder scopes are used for their effect, not referenced in the body
class GradRecorderTest {

    /** One recorded operation: the recorder method, its op and int arguments, what it read and what it returned. */
    record Entry(String method, LocalOp op, int[] ints, List<NDArray> ins, NDArray out) {
        @Override
        public String toString() {
            return method + (op == null ? "" : "(" + op + ")") + (ints.length == 0 ? "" : Arrays.toString(ints))
                    + " " + ins.stream().map(NDArray::describe).toList() + " -> " + out.describe();
        }
    }

    /** Logs every call; checks nothing on the spot (an array op here would be recorded too). */
    static final class Log implements GradRecorder {
        final List<Entry> entries = new ArrayList<>();

        private void add(String method, LocalOp op, int[] ints, List<NDArray> ins, NDArray out) {
            entries.add(new Entry(method, op, ints.clone(), List.copyOf(ins), out));
        }

        @Override
        public void unary(UnaryOp op, NDArray x, NDArray out) {
            add("unary", op, new int[0], List.of(x), out);
        }

        @Override
        public void binary(BinaryOp op, NDArray x, NDArray y, NDArray out) {
            add("binary", op, new int[0], List.of(x, y), out);
        }

        @Override
        public void convert(NDArray x, NDArray out) {
            add("convert", null, new int[0], List.of(x), out);
        }

        @Override
        public void select(NDArray which, NDArray onTrue, NDArray onFalse, NDArray out) {
            add("select", null, new int[0], List.of(which, onTrue, onFalse), out);
        }

        @Override
        public void addN(List<NDArray> xs, NDArray out) {
            add("addN", null, new int[0], xs, out);
        }

        @Override
        public void reduce(ReduceOp op, int[] axes, NDArray x, NDArray out) {
            add("reduce", op, axes, List.of(x), out);
        }

        @Override
        public void reshape(NDArray x, NDArray out) {
            add("reshape", null, new int[0], List.of(x), out);
        }

        @Override
        public void transpose(int[] perm, NDArray x, NDArray out) {
            add("transpose", null, perm, List.of(x), out);
        }

        @Override
        public void broadcast(NDArray x, NDArray out) {
            add("broadcast", null, new int[0], List.of(x), out);
        }

        @Override
        public void slice(int axis, int start, int stop, NDArray x, NDArray out) {
            add("slice", null, new int[] {axis, start, stop}, List.of(x), out);
        }

        @Override
        public void gather(int axis, NDArray x, NDArray indices, NDArray out) {
            add("gather", null, new int[] {axis}, List.of(x, indices), out);
        }

        @Override
        public void roll(int shift, int axis, NDArray x, NDArray out) {
            add("roll", null, new int[] {shift, axis}, List.of(x), out);
        }

        @Override
        public void concatenate(int axis, List<NDArray> xs, NDArray out) {
            add("concatenate", null, new int[] {axis}, xs, out);
        }

        @Override
        public void matmul(NDArray a, NDArray b, NDArray out) {
            add("matmul", null, new int[0], List.of(a, b), out);
        }

        @Override
        public void pvary(NDArray x, NDArray out) {
            add("pvary", null, new int[0], List.of(x), out);
        }

        List<String> methods() {
            return entries.stream().map(Entry::method).toList();
        }
    }

    // ------------------------------------------------------------------------------------------------ the table

    /**
     * One public method called once: its array inputs, the call, the recorder methods expected in order, and the
     * values of the Python-style scalar constants it makes (rank-0 operands that are no input of the call).
     */
    record Case(String name, List<NDArray> inputs, Supplier<Object> call, List<String> methods, float[] constants) {
        @Override
        public String toString() {
            return name;
        }
    }

    private static Case op(String name, List<NDArray> inputs, Supplier<Object> call, String methods,
            float... constants) {
        return new Case(name, inputs, call, List.of(methods.split(",")), constants);
    }

    private static List<NDArray> in(NDArray... xs) {
        return List.of(xs);
    }

    static final NDArray A = NDArray.of(new float[][] {{0.5f, -1.25f, 2f}, {3.5f, -0.75f, 1f}});
    static final NDArray B = NDArray.of(new float[][] {{2f, 0.5f, -3f}, {1.5f, 4f, -0.25f}});
    static final NDArray ROW = NDArray.of(1.5f, -2f, 0.25f);
    static final NDArray COL = NDArray.of(new float[][] {{2f}, {-1f}});
    static final NDArray M = NDArray.fromFloats(new float[] {1, -2, 3, 0.5f, 4, 1, -1, 2, 0.25f, 3, -0.5f, 1},
            3, 4);
    static final NDArray S = NDArray.scalar(1.75f);
    static final NDArray A3 = NDArray.arange(24, DType.FLOAT32).div(7f).sin().reshape(2, 3, 4);
    static final NDArray ONES1 = NDArray.fromFloats(new float[] {1, 2, 3, 4, 5, 6}, 2, 1, 3);
    static final NDArray V = NDArray.of(3f, -1f, 2f, 0.5f);
    static final NDArray IDX = NDArray.of(2, 0, -1, 1);
    static final NDArray MASK = NDArray.fromBooleans(new boolean[] {true, false, true, false, false, true}, 2, 3);
    static final NDArray MASK_ROW = NDArray.fromBooleans(new boolean[] {false, true, true}, 3);
    static final NDArray I = NDArray.of(new int[][] {{1, -2, 3}, {4, 5, -6}});
    static final NDArray IM = NDArray.of(new int[][] {{1, 2}, {3, 4}, {5, 6}});

    /** Every public method that computes a float32 array from float32 arrays (and scalars), one call each. */
    static List<Case> floatCases() {
        NDArray a = A;
        NDArray b = B;
        return List.of(
                // unary
                op("neg", in(a), a::neg, "unary"),
                op("abs", in(a), a::abs, "unary"),
                op("exp", in(a), a::exp, "unary"),
                op("log", in(a), a::log, "unary"),
                op("sqrt", in(a), a::sqrt, "unary"),
                op("sin", in(a), a::sin, "unary"),
                op("cos", in(a), a::cos, "unary"),
                op("gelu", in(a), a::gelu, "unary"),
                op("tanh", in(a), a::tanh, "unary"),
                op("relu", in(a), a::relu, "unary"),
                op("square", in(a), a::square, "unary"),
                // binary, same shapes and broadcast
                op("add(NDArray)", in(a, b), () -> a.add(b), "binary"),
                op("add(NDArray) broadcast row", in(a, ROW), () -> a.add(ROW), "binary"),
                op("add(NDArray) broadcast col", in(COL, ROW), () -> COL.add(ROW), "binary"),
                op("add(NDArray) rank 0", in(a, S), () -> a.add(S), "binary"),
                op("sub(NDArray)", in(a, b), () -> a.sub(b), "binary"),
                op("mul(NDArray)", in(a, ROW), () -> a.mul(ROW), "binary"),
                op("div(NDArray)", in(a, b), () -> a.div(b), "binary"),
                op("floorDiv(NDArray)", in(a, b), () -> a.floorDiv(b), "binary"),
                op("maximum(NDArray)", in(a, b), () -> a.maximum(b), "binary"),
                op("minimum(NDArray)", in(a, COL), () -> a.minimum(COL), "binary"),
                // binary with a Python-style scalar: the weak constant is the operand recorded
                op("add(int)", in(a), () -> a.add(2), "binary", 2f),
                op("add(float)", in(a), () -> a.add(2.5f), "binary", 2.5f),
                op("add(double)", in(a), () -> a.add(0.1), "binary", (float) 0.1),
                op("sub(int)", in(a), () -> a.sub(3), "binary", 3f),
                op("sub(float)", in(a), () -> a.sub(-1.5f), "binary", -1.5f),
                op("sub(double)", in(a), () -> a.sub(2.25), "binary", 2.25f),
                op("mul(int)", in(a), () -> a.mul(3), "binary", 3f),
                op("mul(float)", in(a), () -> a.mul(0.5f), "binary", 0.5f),
                op("mul(double)", in(a), () -> a.mul(1e-3), "binary", (float) 1e-3),
                op("div(int)", in(a), () -> a.div(4), "binary", 4f),
                op("div(float)", in(a), () -> a.div(0.25f), "binary", 0.25f),
                op("div(double)", in(a), () -> a.div(3.0), "binary", 3f),
                op("floorDiv(int)", in(a), () -> a.floorDiv(2), "binary", 2f),
                op("floorDiv(float)", in(a), () -> a.floorDiv(0.5f), "binary", 0.5f),
                op("floorDiv(double)", in(a), () -> a.floorDiv(1.5), "binary", 1.5f),
                op("maximum(int)", in(a), () -> a.maximum(1), "binary", 1f),
                op("maximum(float)", in(a), () -> a.maximum(0f), "binary", 0f),
                op("maximum(double)", in(a), () -> a.maximum(-0.5), "binary", -0.5f),
                op("minimum(int)", in(a), () -> a.minimum(2), "binary", 2f),
                op("minimum(float)", in(a), () -> a.minimum(1.25f), "binary", 1.25f),
                op("minimum(double)", in(a), () -> a.minimum(0.75), "binary", 0.75f),
                // addN
                op("addN(3)", in(a, b), () -> NDArray.addN(List.of(a, b, a)), "addN"),
                op("addN(1)", in(a), () -> NDArray.addN(List.of(a)), "addN"),
                // where: operands of another shape are broadcast first while recording
                op("where(c, x, y)", in(MASK, a, b), () -> NDArray.where(MASK, a, b), "select"),
                op("where(c, x, y) broadcast", in(MASK_ROW, a, ROW), () -> NDArray.where(MASK_ROW, a, ROW),
                        "broadcast,broadcast,select"),
                op("where(c, x, y) scalar y", in(MASK, a, S), () -> NDArray.where(MASK, a, S), "select"),
                op("where(c, x, double)", in(MASK, a), () -> NDArray.where(MASK, a, 0.5), "select", 0.5f),
                op("where(c, double, double)", in(MASK), () -> NDArray.where(MASK, 1.0, 0.0), "select", 1f, 0f),
                op("where(c, double, y)", in(MASK, b), () -> NDArray.where(MASK, 2.0, b), "select", 2f),
                op("where(c, double, col)", in(MASK, COL), () -> NDArray.where(MASK, -1.0, COL),
                        "broadcast,select", -1f),
                // conversion
                op("astype(FLOAT32) of float32 (a view)", in(a), () -> a.astype(DType.FLOAT32), "convert"),
                op("astype(FLOAT32) of int32", in(I), () -> I.astype(DType.FLOAT32), "convert"),
                // reductions
                op("sum()", in(a), () -> a.sum(), "reduce"),
                op("sum(axis)", in(a), () -> a.sum(1), "reduce"),
                op("sum(axes unsorted, negative)", in(A3), () -> A3.sum(-1, 0), "reduce"),
                op("sum(KEEP, axis)", in(a), () -> a.sum(KeepDims.KEEP, 1), "reduce"),
                op("sum(KEEP, no axes)", in(A3), () -> A3.sum(KeepDims.KEEP), "reduce"),
                op("sum() of rank 0", in(S), () -> S.sum(), "reduce"),
                op("mean()", in(a), () -> a.mean(), "reduce"),
                op("mean(axis)", in(a), () -> a.mean(0), "reduce"),
                op("mean(KEEP, axes)", in(A3), () -> A3.mean(KeepDims.KEEP, 2, 0), "reduce"),
                op("max()", in(a), () -> a.max(), "reduce"),
                op("max(axis)", in(a), () -> a.max(1), "reduce"),
                op("max(KEEP, axis)", in(A3), () -> A3.max(KeepDims.KEEP, 1), "reduce"),
                op("min()", in(a), () -> a.min(), "reduce"),
                op("min(axis)", in(a), () -> a.min(-2), "reduce"),
                op("min(KEEP, axes)", in(A3), () -> A3.min(KeepDims.KEEP, 0, 1), "reduce"),
                // linear algebra
                op("matmul", in(a, M), () -> a.matmul(M), "matmul"),
                // shape
                op("reshape", in(a), () -> a.reshape(3, 2), "reshape"),
                op("reshape(-1)", in(a), () -> a.reshape(-1), "reshape"),
                op("transpose()", in(a), () -> a.transpose(), "transpose"),
                op("transpose(perm)", in(A3), () -> A3.transpose(1, -1, 0), "transpose"),
                op("swapAxes", in(A3), () -> A3.swapAxes(0, 2), "transpose"),
                op("expandDims", in(a), () -> a.expandDims(1), "reshape"),
                op("expandDims(-1)", in(a), () -> a.expandDims(-1), "reshape"),
                op("squeeze(axis)", in(ONES1), () -> ONES1.squeeze(1), "reshape"),
                op("squeeze()", in(ONES1), () -> ONES1.squeeze(), "reshape"),
                op("broadcastTo", in(ROW), () -> ROW.broadcastTo(4, 2, 3), "broadcast"),
                op("broadcastTo own shape (a view)", in(a), () -> a.broadcastTo(2, 3), "broadcast"),
                op("pvary", in(a), () -> a.pvary("x", "y"), "pvary"),
                // indexing
                op("slice", in(a), () -> a.slice(1, 1, 3), "slice"),
                op("dynamicSlice", in(a), () -> a.dynamicSlice(1, 5, 2), "slice"),
                op("index", in(a), () -> a.index(1), "slice,reshape"),
                op("index(-1)", in(A3), () -> A3.index(-1), "slice,reshape"),
                op("take(axis, idx)", in(A3), () -> A3.take(2, -3), "slice,reshape"),
                op("take(indices, axis)", in(a, IDX), () -> a.take(IDX, 1), "gather"),
                op("roll(shift, axis)", in(a), () -> a.roll(-4, 1), "roll"),
                op("roll(shift)", in(a), () -> a.roll(7), "roll"),
                op("concat(varargs)", in(a, b), () -> NDArray.concat(0, a, b), "concatenate"),
                op("concat(list)", in(a, b), () -> NDArray.concat(-2, List.of(a, b)),
                        "concatenate"),
                op("stack(varargs)", in(a, b), () -> NDArray.stack(0, a, b), "reshape,reshape,concatenate"),
                op("stack(list)", in(a, b), () -> NDArray.stack(-1, List.of(a, b, a)),
                        "reshape,reshape,reshape,concatenate"),
                op("split", in(A3), () -> A3.split(1, 3), "slice,slice,slice"),
                op("chain", in(a, b, ROW), () -> a.mul(b).sum(KeepDims.KEEP, 0).add(1.0).sin().transpose()
                        .matmul(ROW.reshape(1, 3)).mean(),
                        "binary,reduce,binary,unary,transpose,reshape,matmul,reduce", 1f));
    }

    /** Calls on int32 and bool arrays: recorded (the tape ignores what is not float32) without failing. */
    static List<Case> mixedCases() {
        return List.of(
                op("int32 + float32", in(I, A), () -> I.add(A), "binary"),
                op("bool + float32", in(MASK, A), () -> MASK.add(A), "convert,binary"),
                op("float32 * bool", in(A, MASK_ROW), () -> A.mul(MASK_ROW), "convert,binary"),
                op("bool + bool", in(MASK, MASK_ROW), () -> MASK.add(MASK_ROW), "binary"),
                op("bool / bool", in(MASK, MASK_ROW), () -> MASK.div(MASK_ROW), "convert,convert,binary"),
                op("bool * int", in(MASK), () -> MASK.mul(2), "convert,binary", 2f),
                op("addN with bool", in(MASK, A), () -> NDArray.addN(List.of(MASK, A)), "convert,binary"),
                op("addN of int32", in(I), () -> NDArray.addN(List.of(I, I)), "addN"),
                op("sum of bool", in(MASK), () -> MASK.sum(), "convert,reduce"),
                op("mean of bool", in(MASK), () -> MASK.mean(1), "convert,reduce"),
                op("max of bool", in(MASK), () -> MASK.max(0), "reduce"),
                op("astype(INT32)", in(A), () -> A.astype(DType.INT32), "convert"),
                op("astype(BOOL)", in(A), () -> A.astype(DType.BOOL), "convert"),
                op("relu of int32", in(I), () -> I.relu(), "unary"),
                op("sin of int32", in(I), () -> I.sin(), "unary"),
                op("int32 matmul", in(I, IM), () -> I.matmul(IM), "matmul"),
                op("int32 @ float32", in(I, M), () -> I.matmul(M), "matmul"),
                op("where with int32 x", in(MASK, I, A), () -> NDArray.where(MASK, I, A), "select"),
                op("where of int32", in(MASK, I), () -> NDArray.where(MASK, I, 0.0), "select", 0f),
                op("where with float condition", in(A, B), () -> NDArray.where(A, B, 1.0), "select", 1f),
                op("take of bool", in(MASK, IDX), () -> MASK.take(IDX, 1), "gather"),
                op("index of int32", in(I), () -> I.index(0), "slice,reshape"),
                op("concat int32 and float32", in(I, A), () -> NDArray.concat(0, I, A), "concatenate"),
                op("stack of bool", in(MASK), () -> NDArray.stack(0, MASK, MASK), "reshape,reshape,concatenate"),
                op("roll of int32", in(I), () -> I.roll(1), "roll"),
                op("transpose of bool", in(MASK), () -> MASK.transpose(), "transpose"),
                op("broadcastTo of int32", in(IDX), () -> IDX.broadcastTo(2, 4), "broadcast"),
                op("pvary of int32", in(I), () -> I.pvary("x"), "pvary"));
    }

    @TestFactory
    Stream<DynamicTest> everyFloatMethodIsRecordedAsAConnectedChain() {
        return floatCases().stream().map(c -> DynamicTest.dynamicTest(c.name(), () -> check(c)));
    }

    @TestFactory
    Stream<DynamicTest> intAndBoolOperationsAreRecordedWithoutFailing() {
        return mixedCases().stream().map(c -> DynamicTest.dynamicTest(c.name(), () -> check(c)));
    }

    // ------------------------------------------------------------------------------------------------ the checks

    /**
     * Runs the case without and with a recorder and checks: the same result bit for bit; the expected recorder
     * methods; (a) the last entry's out is the returned object (for split, every piece is an out); (b) every input
     * is a call input, an earlier entry's out, or one of the case's scalar constants; (c) no out is reported twice
     * or is an input of the call; every out is used (read later or returned); each entry replayed gives its out.
     */
    private static void check(Case c) {
        assertNull(GradRecorders.current(), "no recorder outside a scope");
        Object plain = c.call().get();
        Log log = new Log();
        Object recorded;
        try (OpObservers.Scope s = GradRecorders.install(log)) {
            recorded = c.call().get();
        }
        assertNull(GradRecorders.current(), "the scope restores no recorder");
        List<NDArray> results = results(recorded);
        List<NDArray> plainResults = results(plain);
        assertEquals(plainResults.size(), results.size());
        for (int k = 0; k < results.size(); k++) {
            assertEquals(plainResults.get(k), results.get(k), "recording changed the result");
            assertEquals(plainResults.get(k).varyingAxes(), results.get(k).varyingAxes());
        }
        List<Entry> es = log.entries;
        assertEquals(c.methods(), log.methods(), () -> "recorded " + es);

        // (a) the result is what was recorded last; every piece of a list result was recorded
        assertSame(results.get(results.size() - 1), es.get(es.size() - 1).out(), () -> "last entry of " + es);
        for (NDArray r : results) {
            assertTrue(es.stream().anyMatch(e -> e.out() == r), () -> "result " + r.describe() + " not in " + es);
        }
        // (c) each out once, and never an input of the call
        Set<NDArray> outs = identitySet();
        for (Entry e : es) {
            assertTrue(outs.add(e.out()), () -> "out reported twice: " + e);
            assertTrue(c.inputs().stream().noneMatch(x -> x == e.out()), () -> "out is a call input: " + e);
        }
        // (b) connected: inputs of the call, outs of earlier entries, or the case's scalar constants
        Set<NDArray> known = identitySet();
        known.addAll(c.inputs());
        Set<NDArray> constants = identitySet();
        List<Float> constantValues = new ArrayList<>();
        for (Entry e : es) {
            for (NDArray x : e.ins()) {
                if (known.contains(x)) {
                    continue;
                }
                assertTrue(!outs.contains(x), () -> "input read before it was recorded as an out: " + e);
                assertEquals(0, x.rank(), () -> "an input from nowhere (not a scalar constant): " + e);
                if (constants.add(x)) {
                    constantValues.add(x.item());
                }
            }
            known.add(e.out());
        }
        float[] seen = new float[constantValues.size()];
        for (int k = 0; k < seen.length; k++) {
            seen[k] = constantValues.get(k);
        }
        assertArrayEquals(c.constants(), seen, () -> "scalar constants read by " + es);
        // nothing dangles: every out is read by a later entry or returned
        for (int k = 0; k < es.size(); k++) {
            NDArray out = es.get(k).out();
            boolean used = results.stream().anyMatch(r -> r == out)
                    || es.subList(k + 1, es.size()).stream().anyMatch(e -> e.ins().stream().anyMatch(x -> x == out));
            int at = k;
            assertTrue(used, () -> "entry " + at + " is used by nothing: " + es);
        }
        for (Entry e : es) {
            replay(e);
        }
    }

    private static List<NDArray> results(Object r) {
        if (r instanceof NDArray x) {
            return List.of(x);
        }
        List<NDArray> xs = new ArrayList<>();
        for (Object o : (List<?>) r) {
            xs.add((NDArray) o);
        }
        return xs;
    }

    private static Set<NDArray> identitySet() {
        return Collections.newSetFromMap(new IdentityHashMap<>());
    }

    /**
     * Checks an entry against the recorder's contract and recomputes it from its inputs (no recorder installed):
     * the recomputed array must equal the recorded out bit for bit, dtype and shape included.
     */
    private static void replay(Entry e) {
        assertNull(GradRecorders.current());
        NDArray out = e.out();
        List<NDArray> ins = e.ins();
        NDArray x = ins.get(0);
        int[] n = e.ints();
        NDArray expected;
        switch (e.method()) {
            case "unary":
                expected = Elementwise.unary(x, (UnaryOp) e.op());
                break;
            case "binary":
                expected = Elementwise.binary(x, (BinaryOp) e.op(), ins.get(1));
                break;
            case "convert":
                expected = x.astype(out.dtype());
                break;
            case "select":
                for (NDArray operand : ins) {
                    assertTrue(operand.rank() == 0 || Arrays.equals(operand.shape(), out.shape()),
                            () -> "select operands must have out's shape or be scalars: " + e);
                }
                expected = NDArray.where(x, ins.get(1), ins.get(2));
                break;
            case "addN":
                for (NDArray operand : ins) {
                    assertArrayEquals(out.shape(), operand.shape(), () -> "addN of one shape: " + e);
                }
                expected = NDArray.addN(ins);
                break;
            case "reduce": {
                assertTrue(n.length > 0 || x.rank() == 0, () -> "a reduction over no axes: " + e);
                for (int k = 0; k < n.length; k++) {
                    int at = k;
                    assertTrue(n[k] >= 0 && n[k] < x.rank() && (k == 0 || n[k - 1] < n[k]),
                            () -> "axes must be sorted, distinct and in range: " + e + " at " + at);
                }
                expected = Reductions.reduce(x, (ReduceOp) e.op(), false, n);
                if (out.rank() != expected.rank()) {
                    int[] keep = x.shape();
                    for (int a : n) {
                        keep[a] = 1;
                    }
                    assertArrayEquals(keep, out.shape(), () -> "keepdims shape: " + e);
                    expected = expected.reshape(keep);
                }
                break;
            }
            case "reshape":
                expected = x.reshape(out.shape());
                break;
            case "transpose": {
                int[] sorted = n.clone();
                Arrays.sort(sorted);
                int[] identity = new int[n.length];
                Arrays.setAll(identity, k -> k);
                assertArrayEquals(identity, sorted, () -> "perm must be a permutation of the axes: " + e);
                expected = x.transpose(n);
                break;
            }
            case "broadcast":
                expected = x.broadcastTo(out.shape());
                break;
            case "slice":
                assertTrue(n[0] >= 0, () -> "slice axis normalised: " + e);
                expected = x.slice(n[0], n[1], n[2]);
                break;
            case "gather":
                expected = x.take(ins.get(1), n[0]);
                break;
            case "roll":
                expected = n[1] == -1 ? x.roll(n[0]) : x.roll(n[0], n[1]);
                break;
            case "concatenate":
                assertTrue(n[0] >= 0 && n[0] < x.rank(), () -> "concatenate axis normalised: " + e);
                expected = NDArray.concat(n[0], ins);
                break;
            case "matmul":
                expected = x.matmul(ins.get(1));
                break;
            case "pvary":
                assertTrue(out.varyingAxes().containsAll(x.varyingAxes()), () -> "pvary only adds axes: " + e);
                expected = x;
                break;
            default:
                fail("unknown method " + e.method());
                return;
        }
        assertEquals(expected, out, () -> "replaying " + e);
    }

    // -------------------------------------------------------------------------------------------- other tests

    @Test
    void withoutARecorderNothingIsRecorded() {
        Log log = new Log();
        try (OpObservers.Scope s = GradRecorders.install(log)) {
            assertSame(log, GradRecorders.current());
        }
        assertNull(GradRecorders.current());
        for (Case c : floatCases()) {
            c.call().get();
        }
        for (Case c : mixedCases()) {
            c.call().get();
        }
        assertEquals(List.of(), log.entries);
    }

    @Test
    void aNullScopeInsideARecordingRecordsNothingAndThenResumes() {
        Log log = new Log();
        try (OpObservers.Scope s = GradRecorders.install(log)) {
            A.add(B);
            try (OpObservers.Scope inner = GradRecorders.install(null)) {
                assertNull(GradRecorders.current());
                A.mul(B).sum();
                A.index(0);
            }
            A.neg();
        }
        assertEquals(List.of("binary", "unary"), log.methods());
    }

    @Test
    void otherThreadsAreNotRecorded() throws InterruptedException {
        Log log = new Log();
        try (OpObservers.Scope s = GradRecorders.install(log)) {
            Thread t = new Thread(() -> A.add(B).sum());
            t.start();
            t.join();
        }
        assertEquals(List.of(), log.entries);
    }

    @Test
    void comparisonsArgmaxAndArgsortAreNotRecorded() {
        Log log = new Log();
        List<NDArray> made = new ArrayList<>();
        try (OpObservers.Scope s = GradRecorders.install(log)) {
            made.add(A.greater(B));
            made.add(A.greater(0.5));
            made.add(A.greaterEqual(B));
            made.add(A.greaterEqual(1));
            made.add(A.less(ROW));
            made.add(A.less(-1));
            made.add(A.lessEqual(B));
            made.add(A.lessEqual(0.0));
            made.add(A.equal(B));
            made.add(I.equal(2));
            made.add(A.notEqual(B));
            made.add(MASK.notEqual(0));
            made.add(A.argmax(1));
            made.add(A3.argmax(-1));
            made.add(V.argsort());
            made.add(IDX.argsort());
        }
        assertEquals(List.of(), log.entries);
        assertEquals(16, made.size());
    }

    @Test
    void withVaryingAxesIsTheRuntimesRetypingAndIsNotRecorded() {
        Log log = new Log();
        try (OpObservers.Scope s = GradRecorders.install(log)) {
            A.withVaryingAxes(Set.of("x"));
        }
        assertEquals(List.of(), log.entries);
    }

    @Test
    void recordedArgumentsAreNormalised() {
        Log log = new Log();
        try (OpObservers.Scope s = GradRecorders.install(log)) {
            A3.sum(KeepDims.KEEP, -1, 0);
            A3.take(-2, 1);
            A3.transpose(-1, 0, 1);
            A.roll(-1, -1);
            A.roll(-1);
            NDArray.concat(-1, A, B);
            A3.slice(-1, 1, 3);
        }
        List<Entry> es = log.entries;
        assertEquals(List.of("reduce", "slice", "reshape", "transpose", "roll", "roll", "concatenate", "slice"),
                log.methods());
        assertEquals(ReduceOp.SUM, es.get(0).op());
        assertArrayEquals(new int[] {0, 2}, es.get(0).ints());
        assertArrayEquals(new int[] {1, 1, 2}, es.get(1).ints()); // axis 1, [1, 2)
        assertArrayEquals(new int[] {2, 1, 4}, es.get(1).out().shape());
        assertArrayEquals(new int[] {2, 4}, es.get(2).out().shape());
        assertArrayEquals(new int[] {2, 0, 1}, es.get(3).ints());
        assertArrayEquals(new int[] {2, 1}, es.get(4).ints()); // -1 mod 3 along axis 1
        assertArrayEquals(new int[] {5, -1}, es.get(5).ints()); // -1 mod 6, flattened
        assertArrayEquals(new int[] {1}, es.get(6).ints());
        assertArrayEquals(new int[] {2, 1, 3}, es.get(7).ints());
    }
}
