package dev.shardlings.autodiff;

import dev.shardlings.array.GradRecorders;
import dev.shardlings.array.NDArray;

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
 *       third more in all). Every recomputed operation shows in the device's trace a second time.</li>
 *   <li><b>Memory:</b> the recomputed intermediates are held only while that block is pulled back; the device's
 *       {@link dev.shardlings.events.DeviceTrace#peakResidualBytes} shows the saving.</li>
 * </ul>
 *
 * <p>This works on one device's {@link NDArray}s: inside a shardMap body (each device rematerialises its own
 * block; collectives inside the block run again in the backward pass, on every device, as in JAX) or on the host.
 * Nested checkpoints recompute the inner block once more per level, as JAX's do. Outside differentiation (or when
 * no input is being differentiated) the function is simply called.
 *
 * <p>The block must take every differentiated array it reads as an argument: an array it captures from the
 * enclosing code would be a constant to its recomputation, so no cotangent would reach it (JAX closure-converts
 * instead). The backward pass detects such a read and throws {@link IllegalArgumentException}.
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
     * @return a function with f's values that the backward pass recomputes instead of saving its intermediates
     * @throws NullPointerException if f is null
     */
    public static UnaryOperator<NDArray> checkpoint(UnaryOperator<NDArray> f) {
        Objects.requireNonNull(f, "f");
        Function<List<NDArray>, List<NDArray>> g = checkpointList(xs -> List.of(f.apply(xs.get(0))));
        return x -> g.apply(Collections.singletonList(x)).get(0);
    }

    /**
     * {@code jax.checkpoint(f)} for a function of a list of arrays (a layer's activations and its weights, say)
     * returning a list of arrays.
     *
     * @return a function with f's values that the backward pass recomputes instead of saving its intermediates;
     *         it throws {@link NullPointerException} for a null argument list or array, and
     *         {@link IllegalArgumentException} when f returns null, no outputs or a null output
     * @throws NullPointerException if f is null
     */
    public static Function<List<NDArray>, List<NDArray>> checkpointList(Function<List<NDArray>, List<NDArray>> f) {
        Objects.requireNonNull(f, "f");
        return args -> {
            List<NDArray> in = checkedArguments(args);
            if (!(GradRecorders.current() instanceof LocalTape tape) || !tape.anyLive(in)) {
                return run(f, in); // nothing to differentiate through: the plain function
            }
            List<NDArray> outs;
            try (var unrecorded = GradRecorders.install(null)) {
                outs = run(f, in);
            }
            tape.keep(new Rematerialised(f, tape, List.<Object>copyOf(in), outs));
            return outs;
        };
    }

    /** The block as the outer tape sees it: its inputs and outputs; its pullback recomputes it. */
    private record Rematerialised(Function<List<NDArray>, List<NDArray>> f, LocalTape recordedOn,
                                  List<Object> inputs, List<NDArray> outputs) implements Tape.Node<NDArray> {

        @Override
        public List<NDArray> pullback(List<NDArray> outCts, boolean[] needs) {
            List<NDArray> primals = new ArrayList<>(inputs.size());
            List<Integer> wrt = new ArrayList<>();
            for (int k = 0; k < inputs.size(); k++) {
                primals.add((NDArray) inputs.get(k));
                if (needs[k]) {
                    wrt.add(k);
                }
            }
            // the recomputation: the block runs forward again, traced, on a tape of its own
            LocalTape.Forward again = LocalTape.forward(xs -> run(f, xs), primals, wrt, recordedOn);
            List<NDArray> cts = again.pullbackOnce(outCts);
            List<NDArray> result = new ArrayList<>(Collections.nCopies(inputs.size(), (NDArray) null));
            for (int j = 0; j < wrt.size(); j++) {
                result.set(wrt.get(j), cts.get(j));
            }
            return result;
        }
    }

    private static List<NDArray> checkedArguments(List<NDArray> args) {
        Objects.requireNonNull(args, "args");
        for (int k = 0; k < args.size(); k++) {
            Objects.requireNonNull(args.get(k), "args[" + k + "]");
        }
        return List.copyOf(args);
    }

    private static List<NDArray> run(Function<List<NDArray>, List<NDArray>> f, List<NDArray> in) {
        List<NDArray> outs = f.apply(in);
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
