package dev.shardlings.autodiff;

import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.jit.Jit;
import dev.shardlings.primitive.Full;
import dev.shardlings.sharding.PartitionSpec;
import dev.shardlings.spmd.ShardedArray;
import dev.shardlings.spmd.Staging;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.function.BinaryOperator;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * Reverse-mode differentiation: {@code jax.grad}, {@code jax.value_and_grad} and {@code jax.vjp}, by the transpose
 * rule of every primitive ({@link dev.shardlings.primitive.Primitive#vjp}) and of every collective.
 *
 * <pre>{@code
 * // L(W) = mean((x @ W)²) for In f32[B_X, D] and W f32[D, F]: dL/dW has W's shape and (here) its sharding
 * UnaryOperator<ShardedArray> dLoss = Autodiff.grad(w -> x.matmul(w).square().mean());
 * ShardedArray dw = dLoss.apply(w);
 * }</pre>
 *
 * <p><b>Two kinds of arrays, one API.</b> Functions of {@link ShardedArray}s (the global view) are differentiated
 * as traced programs: inside {@code jit} the backward pass becomes part of the jitted program, so
 * {@code jit(grad(f))} is one program that the compiler shards and partitions as a whole (a batch-sharded loss's
 * gradient gets its all-reduce there, as in JAX); called outside jit, {@code grad(f)} traces and runs its own
 * program, so it has the same shardings and values. {@code grad(jit(f))} works as well: the inner jit is inlined.
 * Functions of {@link NDArray}s are differentiated on the spot, on the calling thread — in particular inside a
 * shardMap body on every device, where the collectives' transposes are JAX's: psum's is a pvary (no
 * communication), the implicit pvary of an invariant value combined with a varying one is a psum of its
 * cotangent, all_gather's is psum_scatter and back, ppermute's is the inverse permutation, all_to_all's swaps the
 * split and concat axes. pmax and pmin have none (JAX's "Differentiation rule for 'pmax' not implemented").
 *
 * <p><b>Structures.</b> JAX differentiates pytrees; here a function takes a list of arrays (for example the
 * seed-001 MLP's parameters {@code [W1, b1, W2, b2, …]} followed by its batch) and the gradients come back as a
 * list, in the order of {@code argnums}.
 *
 * <p><b>Non-differentiable operations</b> give zero cotangents where JAX's do: comparisons, argmax, argsort,
 * the indices of take, floor_divide, conversions from or to integers.
 *
 * <p>Errors follow JAX: a non-scalar output of {@code grad} ("Gradient only defined for scalar-output functions.
 * Output had shape: (3,)."), an integer input ("grad requires real- or complex-valued inputs …") or output are an
 * {@link IllegalArgumentException} with JAX's text. Thread-safety: the returned functions may be called from any
 * thread; each call differentiates on the calling thread.
 */
public final class Autodiff {
    private Autodiff() {
    }

    // ------------------------------------------------------------------------------------------ public API

    /**
     * {@code jax.grad(f)} for a function of one array.
     *
     * @param <T> {@link NDArray} or {@link ShardedArray}
     * @return the gradient function: an array of the argument's dtype, shape and sharding
     * @throws NullPointerException if f is null
     */
    public static <T> UnaryOperator<T> grad(UnaryOperator<T> f) {
        Objects.requireNonNull(f, "f");
        return x -> differentiate(args -> f.apply(args.get(0)), List.of(x), new int[]{0}, false).grads().get(0);
    }

    /**
     * {@code jax.grad(f)} for a function of two arrays: the gradient with respect to the first (JAX's default
     * {@code argnums=0}).
     *
     * @throws NullPointerException if f is null
     */
    public static <T> BinaryOperator<T> grad(BinaryOperator<T> f) {
        Objects.requireNonNull(f, "f");
        return (x, y) -> differentiate(args -> f.apply(args.get(0), args.get(1)), List.of(x, y), new int[]{0}, false)
                .grads().get(0);
    }

    /**
     * {@code jax.grad(f, argnums)} for a function of a list of arrays.
     *
     * @param argnums the positions differentiated, in the order the gradients are returned; none: all of them
     * @return a function from the arguments to one gradient per entry of argnums
     * @throws NullPointerException if f or argnums is null
     */
    public static <T> Function<List<T>, List<T>> gradList(Function<List<T>, T> f, int... argnums) {
        Objects.requireNonNull(f, "f");
        int[] nums = Objects.requireNonNull(argnums, "argnums").clone();
        return args -> differentiate(f, args, nums, false).grads();
    }

    /**
     * {@code jax.value_and_grad(f)} for a function of one array.
     *
     * @throws NullPointerException if f is null
     */
    public static <T> Function<T, ValueAndGrad<T>> valueAndGrad(UnaryOperator<T> f) {
        Objects.requireNonNull(f, "f");
        return x -> differentiate(args -> f.apply(args.get(0)), List.of(x), new int[]{0}, true);
    }

    /**
     * {@code jax.value_and_grad(f, argnums)} for a function of a list of arrays.
     *
     * @param argnums as {@link #gradList}
     * @throws NullPointerException if f or argnums is null
     */
    public static <T> Function<List<T>, ValueAndGrad<T>> valueAndGradList(Function<List<T>, T> f, int... argnums) {
        Objects.requireNonNull(f, "f");
        int[] nums = Objects.requireNonNull(argnums, "argnums").clone();
        return args -> differentiate(f, args, nums, true);
    }

    /**
     * {@code jax.vjp(f, *primals)}: runs f and returns its outputs with the pullback. For {@link NDArray}s the
     * pullback may be called any number of times, on the thread that called vjp (inside a shardMap body: on the
     * same device, with every device calling it). For {@link ShardedArray}s inside a trace it must be called in
     * the same trace; outside one, each pullback call runs a program that recomputes f.
     *
     * @throws NullPointerException     if f, primals or a primal is null
     * @throws IllegalArgumentException for mixed array kinds
     */
    public static <T> VjpResult<T> vjp(Function<List<T>, List<T>> f, List<T> primals) {
        Objects.requireNonNull(f, "f");
        List<T> args = checked(primals);
        List<Integer> wrt = floating(args);
        if (args.get(0) instanceof NDArray) {
            @SuppressWarnings("unchecked")
            LocalTape.Forward fw = LocalTape.forward((Function<List<NDArray>, List<NDArray>>) (Function<?, ?>) f,
                    (List<NDArray>) args, wrt);
            @SuppressWarnings("unchecked")
            List<T> outs = (List<T>) fw.outputs();
            return new VjpResult<>(outs, cts -> {
                @SuppressWarnings("unchecked")
                List<NDArray> seeds = seeds((List<NDArray>) cts, fw.outputs());
                @SuppressWarnings("unchecked")
                List<T> r = (List<T>) spread(fw.pullback(seeds), (List<NDArray>) args, wrt);
                return r;
            });
        }
        @SuppressWarnings("unchecked")
        Function<List<ShardedArray>, List<ShardedArray>> g = (Function<List<ShardedArray>, List<ShardedArray>>) (Function<?, ?>) f;
        @SuppressWarnings("unchecked")
        List<ShardedArray> xs = (List<ShardedArray>) args;
        @SuppressWarnings("unchecked")
        VjpResult<T> r = (VjpResult<T>) (VjpResult<?>) globalVjp(g, xs, wrt);
        return r;
    }

    // ------------------------------------------------------------------------------------------ the work

    private static <T> ValueAndGrad<T> differentiate(Function<List<T>, T> f, List<T> given, int[] argnums,
                                                     boolean withValue) {
        List<T> args = checked(given);
        List<Integer> wrt = argnums(argnums, args.size());
        for (int k : wrt) {
            DType d = dtype(args.get(k));
            if (!d.isFloating()) {
                throw new IllegalArgumentException("grad requires real- or complex-valued inputs (input dtype that is"
                        + " a sub-dtype of np.inexact), but got " + d.jaxName() + ". If you want to use Boolean- or"
                        + " integer-valued inputs, use vjp or set allow_int to True.");
            }
        }
        Function<List<T>, List<T>> one = xs -> {
            T out = f.apply(xs);
            if (out == null) {
                throw new IllegalArgumentException("the differentiated function returned null; return its scalar"
                        + " value");
            }
            checkScalar(out);
            return List.of(out);
        };
        if (args.get(0) instanceof NDArray) {
            @SuppressWarnings("unchecked")
            LocalTape.Forward fw = LocalTape.forward((Function<List<NDArray>, List<NDArray>>) (Function<?, ?>) one,
                    (List<NDArray>) args, wrt);
            List<NDArray> grads = fw.pullbackOnce(List.of(NDArray.scalar(1f)));
            @SuppressWarnings("unchecked")
            ValueAndGrad<T> r = (ValueAndGrad<T>) new ValueAndGrad<>(fw.outputs().get(0), grads);
            return r;
        }
        @SuppressWarnings("unchecked")
        Function<List<ShardedArray>, List<ShardedArray>> g = (Function<List<ShardedArray>, List<ShardedArray>>) (Function<?, ?>) one;
        @SuppressWarnings("unchecked")
        List<ShardedArray> xs = (List<ShardedArray>) args;
        List<ShardedArray> valueAndGrads = inTrace(xs, traced -> {
            GlobalTape tape = new GlobalTape();
            List<ShardedArray> inputs = new ArrayList<>(traced);
            List<ShardedArray> watched = new ArrayList<>();
            for (int k : wrt) {
                ShardedArray fresh = tape.input(traced.get(k));
                inputs.set(k, fresh);
                watched.add(fresh);
            }
            ShardedArray out = tape.recording(() -> g.apply(java.util.Collections.unmodifiableList(inputs))).get(0);
            List<ShardedArray> result = new ArrayList<>();
            result.add(out);
            result.addAll(tape.backward(List.of(out), List.of(ones(out)), watched));
            return result;
        }, withValue ? "value_and_grad" : "grad");
        @SuppressWarnings("unchecked")
        ValueAndGrad<T> r = (ValueAndGrad<T>) new ValueAndGrad<>(valueAndGrads.get(0),
                valueAndGrads.subList(1, valueAndGrads.size()));
        return r;
    }

    private static VjpResult<ShardedArray> globalVjp(Function<List<ShardedArray>, List<ShardedArray>> f,
                                                     List<ShardedArray> args, List<Integer> wrt) {
        if (Staging.current() == null) {
            // outside a trace: the outputs from one program, each pullback call from another that recomputes f
            int n = args.size();
            List<ShardedArray> outs = Jit.jitList(f).named("vjp").call(args.toArray());
            return new VjpResult<>(outs, cts -> {
                List<Object> all = new ArrayList<>(args);
                all.addAll(cts);
                return Jit.jitList(xs -> globalVjp(f, xs.subList(0, n), wrt).pullback().apply(xs.subList(n, xs.size())))
                        .named("vjp_pullback").call(all.toArray());
            });
        }
        requireTraced(args, "vjp");
        GlobalTape tape = new GlobalTape();
        List<ShardedArray> inputs = new ArrayList<>(args);
        List<ShardedArray> watched = new ArrayList<>();
        for (int k : wrt) {
            ShardedArray fresh = tape.input(args.get(k));
            inputs.set(k, fresh);
            watched.add(fresh);
        }
        List<ShardedArray> outs = tape.recording(() -> f.apply(java.util.Collections.unmodifiableList(inputs)));
        if (outs == null || outs.contains(null)) {
            throw new IllegalArgumentException("the differentiated function returned null; return its outputs");
        }
        List<ShardedArray> fixed = List.copyOf(outs);
        return new VjpResult<>(fixed, cts -> {
            List<ShardedArray> seeds = seeds(cts, fixed);
            List<ShardedArray> grads = tape.backward(fixed, seeds, watched);
            List<ShardedArray> all = new ArrayList<>();
            int j = 0;
            for (int k = 0; k < args.size(); k++) {
                if (wrt.contains(k)) {
                    all.add(grads.get(j++));
                } else {
                    ShardedArray a = args.get(k);
                    all.add(Staging.current().bind(new Full(Arrays.stream(a.shape()).boxed().toList(), a.dtype(), 0,
                            a.mesh(), a.mesh().hasExplicitAxes() ? a.type().spec() : PartitionSpec.P()), List.of()));
                }
            }
            return all;
        });
    }

    /**
     * Runs {@code body} on traced values: directly when a trace is active (inside jit), else as a jitted program
     * of its own (grad called eagerly traces, partitions and runs one program; nothing is cached, so a function
     * that reads changing state sees it, as JAX's eager grad does).
     */
    private static List<ShardedArray> inTrace(List<ShardedArray> args,
                                              Function<List<ShardedArray>, List<ShardedArray>> body, String name) {
        if (Staging.current() != null) {
            requireTraced(args, name);
            return body.apply(args);
        }
        return Jit.jitList(body).named(name).call(args.toArray());
    }

    private static void requireTraced(List<ShardedArray> args, String name) {
        for (int k = 0; k < args.size(); k++) {
            if (!args.get(k).isTraced()) {
                throw new IllegalArgumentException(name + ": args[" + k + "] is a concrete array inside a jit trace;"
                        + " differentiate with respect to the jitted function's arguments (pass the array to it)");
            }
        }
    }

    private static ShardedArray ones(ShardedArray out) {
        return Staging.current().bind(new Full(List.of(), out.dtype(), 1, out.mesh(), PartitionSpec.P()), List.of());
    }

    // ------------------------------------------------------------------------------------------ checks

    private static <T> List<T> checked(List<T> given) {
        Objects.requireNonNull(given, "args");
        if (given.isEmpty()) {
            throw new IllegalArgumentException("the function needs at least one argument to differentiate");
        }
        for (int k = 0; k < given.size(); k++) {
            Object a = Objects.requireNonNull(given.get(k), "args[" + k + "]");
            if (!(a instanceof NDArray) && !(a instanceof ShardedArray)) {
                throw new IllegalArgumentException("args[" + k + "] must be an NDArray or a ShardedArray, got "
                        + a.getClass().getName());
            }
            if (a.getClass() != given.get(0).getClass()) {
                throw new IllegalArgumentException("args[" + k + "] is a " + a.getClass().getSimpleName()
                        + " but args[0] is a " + given.get(0).getClass().getSimpleName() + "; differentiate either"
                        + " global arrays (ShardedArray) or one device's arrays (NDArray)");
            }
        }
        return List.copyOf(given);
    }

    private static List<Integer> argnums(int[] argnums, int n) {
        if (argnums.length == 0) {
            List<Integer> all = new ArrayList<>();
            for (int k = 0; k < n; k++) {
                all.add(k);
            }
            return all;
        }
        List<Integer> out = new ArrayList<>();
        for (int a : argnums) {
            int k = a < 0 ? a + n : a;
            if (k < 0 || k >= n) {
                throw new IllegalArgumentException("differentiating with respect to argnums=" + tuple(argnums)
                        + " requires at least " + (Math.max(a, -a - 1) + 1) + " positional arguments to be passed by"
                        + " the caller, but got only " + n + " positional arguments.");
            }
            if (out.contains(k)) {
                throw new IllegalArgumentException("argnums " + tuple(argnums) + " names argument " + k + " twice");
            }
            out.add(k);
        }
        return out;
    }

    private static String tuple(int[] xs) {
        StringBuilder sb = new StringBuilder("(");
        for (int k = 0; k < xs.length; k++) {
            sb.append(k > 0 ? ", " : "").append(xs[k]);
        }
        return sb.append(xs.length == 1 ? ",)" : ")").toString();
    }

    private static List<Integer> floating(List<?> args) {
        List<Integer> out = new ArrayList<>();
        for (int k = 0; k < args.size(); k++) {
            if (dtype(args.get(k)).isFloating()) {
                out.add(k);
            }
        }
        return out;
    }

    private static DType dtype(Object a) {
        return a instanceof NDArray n ? n.dtype() : ((ShardedArray) a).dtype();
    }

    private static int[] shape(Object a) {
        return a instanceof NDArray n ? n.shape() : ((ShardedArray) a).shape();
    }

    private static void checkScalar(Object out) {
        int[] s = shape(out);
        if (s.length != 0) {
            StringBuilder t = new StringBuilder("(");
            for (int k = 0; k < s.length; k++) {
                t.append(k > 0 ? ", " : "").append(s[k]);
            }
            t.append(s.length == 1 ? ",)" : ")");
            throw new IllegalArgumentException("Gradient only defined for scalar-output functions. Output had shape: "
                    + t + ".");
        }
        DType d = dtype(out);
        if (!d.isFloating()) {
            throw new IllegalArgumentException("grad requires real-valued outputs (output dtype that is a sub-dtype"
                    + " of np.floating), but got " + d.jaxName() + ". For differentiation of functions with integer"
                    + " outputs, use jax.vjp directly.");
        }
    }

    /** The pullback's cotangents, checked against the outputs (one each, same dtype and shape). */
    private static <T> List<T> seeds(List<T> cts, List<T> outputs) {
        Objects.requireNonNull(cts, "cotangents");
        if (cts.size() != outputs.size()) {
            throw new IllegalArgumentException("the pullback takes one cotangent per output: " + outputs.size()
                    + " expected, got " + cts.size());
        }
        for (int k = 0; k < cts.size(); k++) {
            Object c = Objects.requireNonNull(cts.get(k), "cotangents[" + k + "]");
            Object o = outputs.get(k);
            if (!Arrays.equals(shape(c), shape(o)) || dtype(c) != dtype(o)) {
                throw new IllegalArgumentException("Shape of cotangent input to vjp pullback function "
                        + dtype(c).jaxName() + Arrays.toString(shape(c)).replace(" ", "") + " must be the same as the"
                        + " shape of corresponding primal input " + dtype(o).jaxName()
                        + Arrays.toString(shape(o)).replace(" ", "") + ".");
            }
        }
        return cts;
    }

    /** One cotangent per primal: the computed ones at their positions, zeros of the dtype for the others. */
    private static List<NDArray> spread(List<NDArray> grads, List<NDArray> primals, List<Integer> wrt) {
        List<NDArray> out = new ArrayList<>();
        int j = 0;
        for (int k = 0; k < primals.size(); k++) {
            out.add(wrt.contains(k) ? grads.get(j++) : NDArray.zeros(primals.get(k).dtype(), primals.get(k).shape()));
        }
        return out;
    }
}
