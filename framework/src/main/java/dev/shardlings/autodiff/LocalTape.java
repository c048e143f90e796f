package dev.shardlings.autodiff;

import dev.shardlings.array.BinaryOp;
import dev.shardlings.array.GradRecorder;
import dev.shardlings.array.NDArray;
import dev.shardlings.array.OpObserver;
import dev.shardlings.array.OpObserver.Work;
import dev.shardlings.array.OpObservers;
import dev.shardlings.array.ReduceOp;
import dev.shardlings.array.UnaryOp;
import dev.shardlings.primitive.ArrayType;
import dev.shardlings.primitive.Binary;
import dev.shardlings.primitive.BroadcastInDim;
import dev.shardlings.primitive.Concatenate;
import dev.shardlings.primitive.ConvertType;
import dev.shardlings.primitive.DotGeneral;
import dev.shardlings.primitive.Primitive;
import dev.shardlings.primitive.Pvary;
import dev.shardlings.primitive.Reduce;
import dev.shardlings.primitive.Reshape;
import dev.shardlings.primitive.Select;
import dev.shardlings.primitive.Slice;
import dev.shardlings.primitive.Take;
import dev.shardlings.primitive.Transpose;
import dev.shardlings.primitive.Unary;
import dev.shardlings.spmd.Collectives;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The reverse-mode engine on one device's {@link NDArray}s: installed as the thread's {@link GradRecorder} while
 * the function runs, it records every differentiable operation on a live value, each as the {@link Primitive}
 * whose {@link Primitive#vjp} rule pulls its cotangent back; collectives record their primitive's transpose rule
 * ({@link dev.shardlings.events.Collective#transpose}). An operation that jnp composes of several primitives (roll,
 * mean, addN, a reduction with keepdims) is recorded as those primitives, as the tracer sees them, so each vjp rule
 * has one place. The backward pass runs at once on the same thread, with nothing recorded.
 *
 * <p>Varying axes (JAX's vma typing): a value combined with one that varies over more mesh axes was implicitly
 * pvary'd; the transpose of that is a psum of the cotangent over those axes, which {@link #fit} inserts. Inside a
 * shardMap every device runs the same backward pass, so those psums line up.
 */
final class LocalTape extends Tape<NDArray> implements GradRecorder {

    /** What this tape keeps for its backward pass, reported to the device's observer as activation memory. */
    private final Residuals residuals = new Residuals();
    /** While a checkpointed block is recomputed: the tape that recorded the block; null otherwise. */
    private final LocalTape enclosing;

    /**
     * While a checkpointed block first runs forward: its arguments (nothing is recorded; the tape only looks for
     * the arrays the block captures); null on a recording tape.
     */
    private final Set<Object> probedArguments;
    /** The floating-point arrays live on an enclosing tape that the probed block read without taking them. */
    private final List<NDArray> captured = new ArrayList<>();

    private LocalTape(LocalTape enclosing) {
        this.enclosing = enclosing;
        this.probedArguments = null;
    }

    private LocalTape(LocalTape enclosing, List<NDArray> arguments) {
        this.enclosing = enclosing;
        this.probedArguments = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        this.probedArguments.addAll(arguments);
    }

    /**
     * A tape that records nothing while a checkpointed block's forward pass runs under it, but notes every array
     * live on {@code tape} (or a tape enclosing it) that the block reads other than through {@code arguments}:
     * JAX closure-converts such captured values into inputs of the checkpoint, so they must be recomputed from and
     * receive their cotangents like arguments ({@link #captured()}).
     */
    static LocalTape probe(LocalTape tape, List<NDArray> arguments) {
        return new LocalTape(tape, arguments);
    }

    /** Whether this tape only looks for captured arrays ({@link #probe}). */
    boolean probing() {
        return probedArguments != null;
    }

    /** What the probed block captured, each once, in the order it first read them. */
    List<NDArray> captured() {
        return List.copyOf(captured);
    }

    // ------------------------------------------------------------------------------------------ recording

    /** A collective's transpose, as {@link dev.shardlings.spmd.Collectives} gives it through {@link #custom}. */
    private record CollectiveNode(List<Object> inputs, List<NDArray> outputs,
                                  Function<NDArray, List<NDArray>> rule) implements Node<NDArray> {
        @Override
        public List<NDArray> pullback(List<NDArray> outCts, boolean[] needs) {
            return rule.apply(outCts.get(0));
        }
    }

    private void primitive(Primitive p, NDArray out, NDArray... inputs) {
        List<Object> in = Arrays.asList((Object[]) inputs);
        if (recorded(in)) {
            keep(new PrimitiveNode(p, in, List.of(out)));
        }
    }

    /**
     * Whether an operation on {@code inputs} is recorded (one of them is live). A checkpointed block recomputed on
     * this tape must not read a floating-point value live on an enclosing tape other than through its arguments:
     * no cotangent would reach it.
     */
    private boolean recorded(List<?> inputs) {
        if (probing()) {
            for (Object o : inputs) {
                if (o instanceof NDArray a && a.dtype().isFloating() && !probedArguments.contains(a)
                        && liveOnEnclosing(a)) {
                    probedArguments.add(a); // noted once
                    captured.add(a);
                }
            }
            return false;
        }
        for (LocalTape t = enclosing; t != null; t = t.enclosing) {
            for (Object o : inputs) {
                if (o instanceof NDArray a && a.dtype().isFloating() && t.isLive(a) && !isLive(a)) {
                    throw new IllegalArgumentException("checkpoint: the checkpointed function reads a "
                            + a.dtype().jaxName() + Arrays.toString(a.shape()).replace(" ", "") + " that is being"
                            + " differentiated but is not one of its arguments; pass it in the argument list (a"
                            + " captured array is a constant to the recomputation, so no gradient would reach it)");
                }
            }
        }
        return anyLive(inputs);
    }

    private boolean liveOnEnclosing(NDArray a) {
        for (LocalTape t = enclosing; t != null; t = t.enclosing) {
            if (t.isLive(a)) {
                return true;
            }
        }
        return false;
    }

    /** Records {@code n}; the arrays it reads and makes stay held until the backward pass has run. */
    void keep(Node<NDArray> n) {
        record(n);
        residuals.hold(n.inputs());
        residuals.hold(n.outputs());
    }

    /**
     * The value of an intermediate of an operation recorded as several primitives: nothing recorded, nothing
     * observed (the operation itself was, once, as the user wrote it).
     */
    private static NDArray quietly(Supplier<NDArray> f) {
        try (var r = dev.shardlings.array.GradRecorders.install(null);
             var o = OpObservers.install(null)) {
            return f.get();
        }
    }

    private static List<Integer> boxed(int[] xs) {
        return Arrays.stream(xs).boxed().toList();
    }

    @Override
    public void unary(UnaryOp op, NDArray x, NDArray out) {
        primitive(new Unary(op), out, x);
    }

    @Override
    public void binary(BinaryOp op, NDArray x, NDArray y, NDArray out) {
        primitive(new Binary(op), out, x, y);
    }

    @Override
    public void convert(NDArray x, NDArray out) {
        primitive(new ConvertType(out.dtype()), out, x);
    }

    @Override
    public void select(NDArray which, NDArray onTrue, NDArray onFalse, NDArray out) {
        primitive(new Select(), out, which, onFalse, onTrue);
    }

    /**
     * Chained adds, as {@code functools.reduce(jnp.add, xs)} traces: each operand first pvary'd to the result's
     * varying axes (JAX's implicit pvary), so its cotangent is psummed over the axes it lacked in one step.
     */
    @Override
    public void addN(List<NDArray> xs, NDArray out) {
        if (!recorded(xs)) {
            return;
        }
        Pvary widen = new Pvary(List.copyOf(new TreeSet<>(out.varyingAxes())));
        if (xs.size() == 1) {
            primitive(widen, out, xs.get(0)); // a copy: the identity
            return;
        }
        List<NDArray> wide = new ArrayList<>(xs.size());
        for (NDArray x : xs) {
            NDArray w = x;
            if (!x.varyingAxes().equals(out.varyingAxes())) {
                w = quietly(() -> widen.apply(List.of(x)));
                primitive(widen, w, x);
            }
            wide.add(w);
        }
        Binary add = new Binary(BinaryOp.ADD);
        NDArray acc = wide.get(0);
        for (int k = 1; k < wide.size(); k++) {
            NDArray a = acc;
            NDArray b = wide.get(k);
            NDArray sum = k == wide.size() - 1 ? out : quietly(() -> add.apply(List.of(a, b)));
            primitive(add, sum, a, b);
            acc = sum;
        }
    }

    /**
     * The reduction without keepdims, then a reshape for a kept dimension; mean is a sum times {@code 1/count}
     * ({@code jnp.mean}'s own composition).
     */
    @Override
    public void reduce(ReduceOp op, int[] axes, NDArray x, NDArray out) {
        if (!recorded(List.of(x))) {
            return;
        }
        List<Integer> ax = boxed(axes);
        int[] reduced = reducedShape(x.shape(), axes);
        boolean keep = !Arrays.equals(reduced, out.shape());
        NDArray plain = keep ? quietly(() -> out.reshape(reduced)) : out;
        if (op == ReduceOp.MEAN) {
            long count = 1;
            for (int a : axes) {
                count *= x.shape(a);
            }
            NDArray inverse = NDArray.scalar(1f / count);
            NDArray sum = quietly(() -> x.sum(axes));
            primitive(new Reduce(ReduceOp.SUM, ax), sum, x);
            primitive(new Binary(BinaryOp.MUL), plain, sum, inverse);
        } else {
            primitive(new Reduce(op, ax), plain, x);
        }
        if (keep) {
            primitive(new Reshape(boxed(out.shape()), null), out, plain);
        }
    }

    private static int[] reducedShape(int[] shape, int[] axes) {
        Set<Integer> drop = new HashSet<>(boxed(axes));
        List<Integer> out = new ArrayList<>();
        for (int d = 0; d < shape.length; d++) {
            if (!drop.contains(d)) {
                out.add(shape[d]);
            }
        }
        return out.stream().mapToInt(Integer::intValue).toArray();
    }

    @Override
    public void reshape(NDArray x, NDArray out) {
        primitive(new Reshape(boxed(out.shape()), null), out, x);
    }

    @Override
    public void transpose(int[] perm, NDArray x, NDArray out) {
        primitive(new Transpose(boxed(perm)), out, x);
    }

    @Override
    public void broadcast(NDArray x, NDArray out) {
        int lead = out.rank() - x.rank();
        List<Integer> dims = new ArrayList<>();
        for (int d = 0; d < x.rank(); d++) {
            dims.add(lead + d);
        }
        primitive(new BroadcastInDim(boxed(out.shape()), dims), out, x);
    }

    @Override
    public void slice(int axis, int start, int stop, NDArray x, NDArray out) {
        primitive(Slice.inDim(x.shape(), axis, start, stop), out, x);
    }

    @Override
    public void gather(int axis, NDArray x, NDArray indices, NDArray out) {
        primitive(new Take(axis), out, x, indices);
    }

    /**
     * As jnp traces it: {@code concatenate[x[n-shift:], x[:n-shift]]} along the axis; a roll of the flattened
     * array is that roll between two reshapes.
     */
    @Override
    public void roll(int shift, int axis, NDArray x, NDArray out) {
        if (!recorded(List.of(x))) {
            return;
        }
        if (axis >= 0) {
            rollAlong(shift, axis, x, out);
            return;
        }
        int[] flat = {x.size()};
        NDArray line = quietly(() -> x.reshape(flat));
        primitive(new Reshape(boxed(flat), null), line, x);
        NDArray rolled = quietly(() -> line.roll(shift, 0));
        rollAlong(shift, 0, line, rolled);
        primitive(new Reshape(boxed(out.shape()), null), out, rolled);
    }

    /** {@code out = roll(x, shift, axis)}, {@code 0 <= shift < n}. */
    private void rollAlong(int shift, int axis, NDArray x, NDArray out) {
        int n = x.shape(axis);
        if (shift == 0) {
            primitive(Slice.inDim(x.shape(), axis, 0, n), out, x); // the whole: the identity
            return;
        }
        NDArray tail = quietly(() -> x.slice(axis, n - shift, n));
        NDArray head = quietly(() -> x.slice(axis, 0, n - shift));
        primitive(Slice.inDim(x.shape(), axis, n - shift, n), tail, x);
        primitive(Slice.inDim(x.shape(), axis, 0, n - shift), head, x);
        primitive(new Concatenate(axis), out, tail, head);
    }

    @Override
    public void concatenate(int axis, List<NDArray> xs, NDArray out) {
        primitive(new Concatenate(axis), out, xs.toArray(new NDArray[0]));
    }

    @Override
    public void matmul(NDArray a, NDArray b, NDArray out) {
        primitive(DotGeneral.matmul(null), out, a, b);
    }

    @Override
    public void pvary(NDArray x, NDArray out) {
        primitive(new Pvary(List.copyOf(new TreeSet<>(out.varyingAxes()))), out, x);
    }

    @Override
    public void custom(List<NDArray> inputs, NDArray out, Function<NDArray, List<NDArray>> pullback) {
        List<Object> in = new ArrayList<>(inputs);
        if (recorded(in)) {
            keep(new CollectiveNode(in, List.of(out), pullback));
        }
    }

    // ------------------------------------------------------------------------------------------ entry points

    /** What a forward run left: the outputs and the tape to pull cotangents back through. */
    record Forward(List<NDArray> outputs, LocalTape tape, List<NDArray> wrt) {
        /** The wrt inputs' cotangents from the outputs' (null: none); nothing is recorded meanwhile. */
        List<NDArray> pullback(List<NDArray> seeds) {
            try (var ignored = dev.shardlings.array.GradRecorders.install(null)) {
                return tape.backward(outputs, seeds, wrt);
            }
        }

        /** {@link #pullback} for a tape that is not used again: its residuals are released after it. */
        List<NDArray> pullbackOnce(List<NDArray> seeds) {
            try {
                return pullback(seeds);
            } finally {
                tape.residuals.release();
            }
        }
    }

    /**
     * Runs {@code f} forward with a tape recording; the inputs at the positions in {@code wrt} are replaced by
     * fresh views that the tape watches.
     */
    static Forward forward(Function<List<NDArray>, List<NDArray>> f, List<NDArray> primals, List<Integer> wrt) {
        return forward(f, primals, wrt, null);
    }

    /** {@link #forward}, recomputing a block that {@code enclosing} recorded (null: none). */
    static Forward forward(Function<List<NDArray>, List<NDArray>> f, List<NDArray> primals, List<Integer> wrt,
                           LocalTape enclosing) {
        return forward(f, primals, wrt, enclosing, List.of());
    }

    /**
     * {@link #forward}, recomputing a block that captured {@code captured} (arrays live on {@code enclosing} that
     * it reads without taking them): the tape watches them as they are, since the block reads those very objects,
     * and their cotangents follow the arguments' in {@link Forward#wrt()}.
     */
    static Forward forward(Function<List<NDArray>, List<NDArray>> f, List<NDArray> primals, List<Integer> wrt,
                           LocalTape enclosing, List<NDArray> captured) {
        LocalTape tape = new LocalTape(enclosing);
        List<NDArray> args = new ArrayList<>(primals);
        List<NDArray> watched = new ArrayList<>();
        primals.forEach(tape.residuals::exclude); // resident for the whole call anyway: not activation memory
        for (int k : wrt) {
            NDArray fresh = primals.get(k).pvary(); // a view: a new identity for the same data
            tape.watch(fresh);
            tape.residuals.exclude(fresh);
            args.set(k, fresh);
            watched.add(fresh);
        }
        for (NDArray c : captured) {
            tape.watch(c);
            tape.residuals.exclude(c); // held by the enclosing tape already
            watched.add(c);
        }
        List<NDArray> outs;
        try {
            try (var ignored = dev.shardlings.array.GradRecorders.install(tape)) {
                outs = f.apply(java.util.Collections.unmodifiableList(args));
            }
            if (outs == null) {
                throw new IllegalArgumentException("the differentiated function returned null; return its outputs");
            }
            for (int k = 0; k < outs.size(); k++) {
                if (outs.get(k) == null) {
                    throw new IllegalArgumentException("the differentiated function returned null as output " + k);
                }
            }
        } catch (RuntimeException | Error e) {
            // no backward pass will release what the tape holds (a checkpointed block that throws while it is
            // recomputed included): release it here, or the device's residual count stays high for good
            tape.residuals.release();
            throw e;
        }
        return new Forward(List.copyOf(outs), tape, watched);
    }

    /**
     * The body of a shardMap region's pullback, on one device: reruns the region's function on its blocks with a
     * tape and pulls the given cotangents back.
     *
     * @param primals the region's operand blocks
     * @param wanted  the operands whose cotangents are returned
     * @param seeded  the results that have a cotangent
     * @param cts     those cotangents' blocks, in order
     */
    static List<NDArray> regionPullback(Function<List<NDArray>, List<NDArray>> body, List<NDArray> primals,
                                        List<Integer> wanted, List<Integer> seeded, List<NDArray> cts,
                                        int results) {
        Forward fw = forward(body, primals, wanted);
        List<NDArray> seeds = new ArrayList<>(java.util.Collections.nCopies(results, (NDArray) null));
        for (int j = 0; j < seeded.size(); j++) {
            seeds.set(seeded.get(j), cts.get(j));
        }
        return fw.pullbackOnce(seeds);
    }

    // ------------------------------------------------------------------------------------------ the pass

    /**
     * Tells the device's observer that a vjp rule's matmuls are the autodiff's backward pass
     * ({@link dev.shardlings.events.DeviceTrace#pullbackFlops}). Only {@link PrimitiveNode}s count: a collective's
     * transpose does no matmul, a checkpoint says itself which of its work is recomputation, and a pullback handed
     * to {@link #custom} by other code is that code's work, so a backward pass written by hand cannot pass for the
     * autodiff's.
     */
    @Override
    List<NDArray> pullbackOf(Node<NDArray> n, List<NDArray> outCts, boolean[] needs) {
        OpObserver observer = OpObservers.current();
        if (observer == null) {
            return n.pullback(outCts, needs);
        }
        Work before = observer.work(n instanceof PrimitiveNode ? Work.PULLBACK : Work.PROGRAM);
        try {
            return n.pullback(outCts, needs);
        } finally {
            observer.work(before);
        }
    }

    @Override
    NDArray add(NDArray a, NDArray b) {
        return a.add(b);
    }

    @Override
    NDArray bindRule(Primitive q, List<Object> operands, NDArray out) {
        List<NDArray> xs = new ArrayList<>(operands.size());
        for (Object o : operands) {
            xs.add((NDArray) o);
        }
        return q.apply(xs);
    }

    @Override
    ArrayType typeOf(Object x) {
        NDArray a = (NDArray) x;
        return ArrayType.unsharded(a.dtype(), a.shape());
    }

    /**
     * The cotangent with the primal's varying axes: summed (psum) over the axes the primal was implicitly
     * pvary'd over, pvary'd over the axes it lacks.
     */
    @Override
    NDArray fit(NDArray ct, Object primal) {
        NDArray p = (NDArray) primal;
        Set<String> extra = new java.util.TreeSet<>(ct.varyingAxes());
        extra.removeAll(p.varyingAxes());
        if (!extra.isEmpty()) {
            ct = Collectives.psum(ct, new ArrayList<>(extra));
        }
        Set<String> missing = new java.util.TreeSet<>(p.varyingAxes());
        missing.removeAll(ct.varyingAxes());
        if (!missing.isEmpty()) {
            ct = ct.pvary(missing.toArray(new String[0]));
        }
        if (ct.dtype() != p.dtype() && p.dtype().isFloating()) {
            ct = ct.astype(p.dtype());
        }
        return ct;
    }

    @Override
    NDArray zerosLike(NDArray primal) {
        NDArray z = NDArray.zeros(primal.dtype(), primal.shape());
        return primal.varyingAxes().isEmpty() ? z : z.pvary(primal.varyingAxes().toArray(new String[0]));
    }

    @Override
    boolean differentiable(Object value) {
        return value instanceof NDArray a && a.dtype().isFloating();
    }
}
