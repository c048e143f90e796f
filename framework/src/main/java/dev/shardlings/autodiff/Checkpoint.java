package dev.shardlings.autodiff;

import dev.shardlings.array.GradRecorders;
import dev.shardlings.array.NDArray;
import dev.shardlings.array.OpObserver;
import dev.shardlings.array.OpObserver.Work;
import dev.shardlings.array.OpObservers;
import dev.shardlings.spmd.ShardedArray;
import dev.shardlings.spmd.Staging;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * Rematerialisation: {@code jax.checkpoint} (alias {@code jax.remat}) with its default policy, under which nothing
 * inside the block is saveable. A checkpointed function has the same values as the function; what changes is how
 * it is differentiated:
 *
 * <ul>
 *   <li><b>Saved:</b> only the block's inputs (and its outputs, which the rest of the program reads anyway). Its
 *       intermediates are dropped after the forward pass, so for a ReLU layer {@code relu(H[B, D] · W[D, F])} the
 *       tape keeps {@code H[B, D]} (and the output {@code [B, F]}) instead of also the product {@code [B, F]}.</li>
 *   <li><b>FLOPs:</b> the backward pass runs the block forward once more (on a tape of its own, then pulls the
 *       cotangents back through it), so differentiating a checkpointed block costs one forward of the block more:
 *       for a matmul layer 2·B·D·F more FLOPs, on top of the forward's 2·B·D·F and the backward's 4·B·D·F (about a
 *       third more in all). Every recomputed operation shows in the device's trace a second time, and the
 *       device's {@link dev.shardlings.events.DeviceTrace#recomputedFlops} counts the recomputed matmuls.</li>
 *   <li><b>Memory:</b> the recomputed intermediates are held only while that block is pulled back; the device's
 *       {@link dev.shardlings.events.DeviceTrace#peakResidualBytes} shows the saving.</li>
 * </ul>
 *
 * <p>On one device's {@link NDArray}s — inside a shardMap body (each device rematerialises its own block;
 * collectives inside the block run again in the backward pass, on every device, as in JAX) or on the host — the
 * saving shows in {@link dev.shardlings.events.DeviceTrace#peakResidualBytes}. On {@link ShardedArray}s inside a
 * traced {@code grad} the block is bound into the program twice, once in the forward pass and once where the
 * backward pass reaches it, so jit's program (its FLOPs, and the buffers' lifetimes that
 * {@link dev.shardlings.jit.ProgramTrace#peakBytes} counts) shows the recomputation. Nested checkpoints recompute
 * the inner block once more per level, as JAX's do. Outside differentiation (or when no input is being
 * differentiated) the function is simply called.
 *
 * <p>On one device's arrays a block may capture differentiated arrays from the enclosing code, as JAX's closure
 * conversion allows ({@code jax.checkpoint(lambda h: relu(h @ w))}): the forward pass notes every array live on
 * the tape that the block reads without taking it, and those become inputs of the block, recomputed from and given
 * their cotangents like its arguments (also when no argument is differentiated). This closure conversion is
 * implemented for one device's {@link NDArray}s only: on global arrays inside a traced {@code grad}, pass them as
 * arguments.
 *
 * <pre>{@code
 * // each layer keeps only its input H[B, D] for the backward pass
 * Function<List<NDArray>, List<NDArray>> layer =
 *         Checkpoint.checkpointList(a -> List.of(a.get(0).matmul(a.get(1)).relu()));
 * NDArray h = layer.apply(List.of(x, w1)).get(0);
 * }</pre>
 *
 * <p>Thread-safety: the returned functions may be called from any thread; each call works on the calling thread.
 */
public final class Checkpoint {
    private Checkpoint() {
    }

    /**
     * {@code jax.checkpoint(f)} for a function of one array.
     *
     * @param <T> {@link NDArray} or {@link ShardedArray}
     * @return a function with f's values that the backward pass recomputes instead of saving its intermediates
     * @throws NullPointerException if f is null
     */
    public static <T> UnaryOperator<T> checkpoint(UnaryOperator<T> f) {
        Objects.requireNonNull(f, "f");
        Function<List<T>, List<T>> g = checkpointList(xs -> List.of(f.apply(xs.get(0))));
        return x -> g.apply(Collections.singletonList(x)).get(0);
    }

    /**
     * {@code jax.checkpoint(f)} for a function of a list of arrays (a layer's activations and its weights, say)
     * returning a list of arrays.
     *
     * @param <T> {@link NDArray} or {@link ShardedArray}
     * @return a function with f's values that the backward pass recomputes instead of saving its intermediates;
     *         it throws {@link NullPointerException} for a null argument list or array, and
     *         {@link IllegalArgumentException} for arguments of mixed kinds, and when f returns null, no outputs or
     *         a null output
     * @throws NullPointerException if f is null
     */
    public static <T> Function<List<T>, List<T>> checkpointList(Function<List<T>, List<T>> f) {
        Objects.requireNonNull(f, "f");
        return args -> {
            List<T> in = checkedArguments(args);
            if (!in.isEmpty() && in.get(0) instanceof ShardedArray) {
                @SuppressWarnings("unchecked")
                List<T> outs = (List<T>) global((Function<List<ShardedArray>, List<ShardedArray>>) (Function<?, ?>) f,
                        (List<ShardedArray>) in);
                return outs;
            }
            @SuppressWarnings("unchecked")
            List<T> outs = (List<T>) local((Function<List<NDArray>, List<NDArray>>) (Function<?, ?>) f,
                    (List<NDArray>) in);
            return outs;
        };
    }

    private static List<NDArray> local(Function<List<NDArray>, List<NDArray>> f, List<NDArray> in) {
        if (!(GradRecorders.current() instanceof LocalTape tape) || tape.probing()) {
            return run(f, in); // nothing to differentiate through, or an enclosing block's probe sees it all
        }
        // the forward pass records nothing, but notes the differentiated arrays f captures: as JAX's closure
        // conversion does, they become inputs of the block, recomputed from and given their cotangents
        LocalTape probe = LocalTape.probe(tape, in);
        List<NDArray> outs;
        try (var unrecorded = GradRecorders.install(probe)) {
            outs = run(f, in);
        }
        List<NDArray> captured = probe.captured();
        if (!tape.anyLive(in) && captured.isEmpty()) {
            return outs; // nothing differentiated reaches the block: a constant
        }
        List<Object> inputs = new ArrayList<>(in);
        inputs.addAll(captured);
        tape.keep(new Rematerialised(f, tape, in.size(), List.copyOf(inputs), outs));
        return outs;
    }

    /**
     * On global arrays inside a trace: f is bound into the program once unrecorded, and its pullback binds f again
     * (on a tape of its own) where the backward pass reaches it, so jit's program computes it twice and its
     * intermediates live only from that recomputation to their last use.
     */
    private static List<ShardedArray> global(Function<List<ShardedArray>, List<ShardedArray>> f,
                                             List<ShardedArray> in) {
        if (!(Staging.current() instanceof GlobalTape tape) || !tape.anyLive(in)) {
            return run(f, in);
        }
        List<ShardedArray> outs = tape.unrecorded(() -> run(f, in));
        tape.record(new GlobalRematerialised(f, List.<Object>copyOf(in), outs));
        return outs;
    }

    /**
     * The block as the outer tape sees it: its inputs (its {@code arguments} arguments, then the arrays it
     * captured) and outputs; its pullback recomputes it.
     */
    private record Rematerialised(Function<List<NDArray>, List<NDArray>> f, LocalTape recordedOn, int arguments,
                                  List<Object> inputs, List<NDArray> outputs) implements Tape.Node<NDArray> {

        @Override
        public List<NDArray> pullback(List<NDArray> outCts, boolean[] needs) {
            List<NDArray> primals = new ArrayList<>(arguments);
            List<NDArray> captured = new ArrayList<>();
            List<Integer> wrt = new ArrayList<>();
            for (int k = 0; k < inputs.size(); k++) {
                if (k < arguments) {
                    primals.add((NDArray) inputs.get(k));
                } else if (needs[k]) {
                    captured.add((NDArray) inputs.get(k));
                }
                if (needs[k]) {
                    wrt.add(k);
                }
            }
            // the recomputation: the block runs forward again, traced, on a tape of its own; its matmuls are
            // counted as recomputed (DeviceTrace.recomputedFlops), which a hand-written backward cannot fake
            OpObserver observer = OpObservers.current();
            Work before = observer == null ? null : observer.work(Work.RECOMPUTE);
            LocalTape.Forward again;
            try {
                again = LocalTape.forward(xs -> run(f, xs), primals,
                        wrt.stream().filter(k -> k < arguments).toList(), recordedOn, captured);
            } finally {
                if (observer != null) {
                    observer.work(before);
                }
            }
            List<NDArray> cts = again.pullbackOnce(outCts);
            return spread(cts, wrt, inputs.size());
        }
    }

    /** {@link Rematerialised} in a trace: the pullback binds the block's forward again, then its vjp. */
    private record GlobalRematerialised(Function<List<ShardedArray>, List<ShardedArray>> f, List<Object> inputs,
                                        List<ShardedArray> outputs) implements Tape.Node<ShardedArray> {

        @Override
        public List<ShardedArray> pullback(List<ShardedArray> outCts, boolean[] needs) {
            GlobalTape again = new GlobalTape();
            List<ShardedArray> args = new ArrayList<>(inputs.size());
            List<ShardedArray> watched = new ArrayList<>();
            List<Integer> wrt = new ArrayList<>();
            for (int k = 0; k < inputs.size(); k++) {
                ShardedArray x = (ShardedArray) inputs.get(k);
                if (needs[k]) {
                    x = again.input(x);
                    watched.add(x);
                    wrt.add(k);
                }
                args.add(x);
            }
            List<ShardedArray> outs = again.recording(() -> run(f, Collections.unmodifiableList(args)));
            return spread(again.backward(outs, outCts, watched), wrt, inputs.size());
        }
    }

    /** One cotangent per input: those computed at their positions, null for the others. */
    private static <T> List<T> spread(List<T> cts, List<Integer> wrt, int inputs) {
        List<T> result = new ArrayList<>(Collections.nCopies(inputs, (T) null));
        for (int j = 0; j < wrt.size(); j++) {
            result.set(wrt.get(j), cts.get(j));
        }
        return result;
    }

    private static <T> List<T> checkedArguments(List<T> args) {
        Objects.requireNonNull(args, "args");
        for (int k = 0; k < args.size(); k++) {
            Object a = Objects.requireNonNull(args.get(k), "args[" + k + "]");
            if (!(a instanceof NDArray) && !(a instanceof ShardedArray) || a.getClass() != args.get(0).getClass()) {
                throw new IllegalArgumentException("checkpoint: args[" + k + "] is a " + a.getClass().getSimpleName()
                        + " but args[0] is a " + args.get(0).getClass().getSimpleName() + "; a block takes either"
                        + " global arrays (ShardedArray) or one device's arrays (NDArray)");
            }
        }
        return List.copyOf(args);
    }

    private static <T> List<T> run(Function<List<T>, List<T>> f, List<T> in) {
        List<T> outs = f.apply(in);
        if (outs == null) {
            throw new IllegalArgumentException("checkpoint: the checkpointed function returned null; return the"
                    + " arrays the rest of the computation reads");
        }
        if (outs.isEmpty()) {
            throw new IllegalArgumentException("checkpoint: the checkpointed function returned no outputs; a block"
                    + " whose results nothing reads has nothing to differentiate");
        }
        for (int k = 0; k < outs.size(); k++) {
            if (outs.get(k) == null) {
                throw new IllegalArgumentException("checkpoint: the checkpointed function returned null as output "
                        + k);
            }
        }
        return List.copyOf(outs);
    }
}
