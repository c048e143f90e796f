package dev.shardlings.nn;

import dev.shardlings.array.NDArray;
import dev.shardlings.spmd.ShardedArray;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The Adam optimizer as optax 0.2.8 computes it ({@code optax.adam(learning_rate, b1, b2, eps, eps_root)}), on a
 * list of parameters that are all {@link NDArray}s (eager, or one device's blocks inside a shardMap) or all
 * {@link ShardedArray}s (global arrays, eager or under jit). Each update, elementwise in the parameter's dtype with
 * optax's order of operations (so float32 results equal optax's on CPU):
 *
 * <pre>{@code
 * count ← count + 1                         (int, saturating at 2^31 − 1 as optax.safe_increment)
 * mu    ← (1 − b1)·g + b1·mu                first moment
 * nu    ← (1 − b2)·g² + b2·nu               second moment
 * û     = (mu / (1 − b1^count)) / (sqrt(nu / (1 − b2^count) + eps_root) + eps)
 * update = −learning_rate · û               (optax.scale_by_learning_rate)
 * }</pre>
 *
 * eps is added outside the square root, eps_root inside (optax's placement); the bias corrections 1 − b^count are
 * computed in float32 before dividing, as optax does. State per parameter: mu and nu, each the parameter's shape,
 * dtype and layout — two extra copies of the parameters, which is what ZeRO-1 shards.
 *
 * @param learningRate the step size (optax's learning_rate, a constant)
 * @param b1           decay of the first moment (optax default 0.9)
 * @param b2           decay of the second moment (optax default 0.999)
 * @param eps          added to the root of the second moment (optax default 1e-8)
 * @param epsRoot      added to the second moment inside the root (optax default 0)
 */
public record Adam(double learningRate, double b1, double b2, double eps, double epsRoot) {

    /** @throws IllegalArgumentException if a hyperparameter is not finite */
    public Adam {
        for (double v : new double[] {learningRate, b1, b2, eps, epsRoot}) {
            if (!Double.isFinite(v)) {
                throw new IllegalArgumentException("Adam's hyperparameters must be finite, got " + v);
            }
        }
    }

    /** {@code optax.adam(learning_rate)}: b1 0.9, b2 0.999, eps 1e-8, eps_root 0. */
    public static Adam of(double learningRate) {
        return new Adam(learningRate, 0.9, 0.999, 1e-8, 0.0);
    }

    /**
     * optax's {@code ScaleByAdamState} (the state {@code optax.adam(...).init} returns holds it first).
     *
     * @param count the number of updates made (optax's int32 count)
     * @param mu    the first moments, one per parameter, in the parameters' order
     * @param nu    the second moments, likewise
     * @param <T>   {@link NDArray} or {@link ShardedArray}
     */
    public record State<T>(int count, List<T> mu, List<T> nu) {
        /**
         * @throws IllegalArgumentException if count is negative or mu and nu differ in length
         * @throws NullPointerException     if a list or an element is null
         */
        public State {
            mu = List.copyOf(mu);
            nu = List.copyOf(nu);
            if (count < 0 || mu.size() != nu.size()) {
                throw new IllegalArgumentException("an Adam state needs a count >= 0 and as many mu as nu, got count "
                        + count + ", " + mu.size() + " mu and " + nu.size() + " nu");
            }
        }
    }

    /**
     * What {@code optimizer.update(grads, state)} returns.
     *
     * @param updates the updates to add to the parameters ({@link #applyUpdates})
     * @param state   the state after this step
     * @param <T>     {@link NDArray} or {@link ShardedArray}
     */
    public record Update<T>(List<T> updates, State<T> state) {
        /** @throws NullPointerException if an argument or an element is null */
        public Update {
            updates = List.copyOf(updates);
            Objects.requireNonNull(state, "state");
        }
    }

    /**
     * {@code optimizer.init(params)}: count 0, mu and nu zeros of each parameter's shape and dtype (a
     * ShardedArray's zeros keep its sharding, as {@code jnp.zeros_like}).
     *
     * @throws IllegalArgumentException if the parameters are not all NDArrays or all ShardedArrays
     * @throws NullPointerException     if params or an element is null
     */
    public <T> State<T> init(List<T> params) {
        Ops<T> ops = ops(params);
        List<T> zeros = params.stream().map(ops::zerosLike).toList();
        return new State<>(0, zeros, zeros);
    }

    /**
     * {@code optimizer.update(grads, state)}: the updates −learning_rate·û and the next state (see the class
     * comment). Each gradient must have its moment's shape (the elementwise ops report a mismatch).
     *
     * @throws IllegalArgumentException if grads are not all NDArrays or all ShardedArrays, or their number differs
     *                                  from the state's
     * @throws NullPointerException     if an argument or an element is null
     */
    public <T> Update<T> update(List<T> grads, State<T> state) {
        Ops<T> ops = ops(grads);
        Objects.requireNonNull(state, "state");
        if (grads.size() != state.mu().size()) {
            throw new IllegalArgumentException("Adam's state holds " + state.mu().size() + " moments, got "
                    + grads.size() + " gradients");
        }
        int count = state.count() == Integer.MAX_VALUE ? Integer.MAX_VALUE : state.count() + 1;
        // optax computes decay**count in float32, then 1 - it in float32, and divides by that float.
        float correction1 = 1f - (float) Math.pow((float) b1, count);
        float correction2 = 1f - (float) Math.pow((float) b2, count);
        List<T> mu = new ArrayList<>();
        List<T> nu = new ArrayList<>();
        List<T> updates = new ArrayList<>();
        for (int i = 0; i < grads.size(); i++) {
            T g = grads.get(i);
            T m = ops.add(ops.scale(g, 1 - b1), ops.scale(state.mu().get(i), b1));
            T v = ops.add(ops.scale(ops.square(g), 1 - b2), ops.scale(state.nu().get(i), b2));
            T mHat = ops.divide(m, correction1);
            T vHat = ops.divide(v, correction2);
            T direction = ops.div(mHat, ops.shift(ops.sqrt(ops.shift(vHat, epsRoot)), eps));
            mu.add(m);
            nu.add(v);
            updates.add(ops.scale(direction, -learningRate));
        }
        return new Update<>(updates, new State<>(count, mu, nu));
    }

    /**
     * {@code optax.apply_updates(params, updates)}: params + updates, each in its parameter's dtype.
     *
     * @throws IllegalArgumentException if the lists differ in length or mix NDArrays and ShardedArrays
     * @throws NullPointerException     if an argument or an element is null
     */
    public static <T> List<T> applyUpdates(List<T> params, List<T> updates) {
        Ops<T> ops = ops(params);
        ops(updates);
        if (params.size() != updates.size()) {
            throw new IllegalArgumentException("apply_updates needs one update per parameter, got "
                    + params.size() + " parameters and " + updates.size() + " updates");
        }
        List<T> out = new ArrayList<>();
        for (int i = 0; i < params.size(); i++) {
            out.add(ops.castLike(ops.add(params.get(i), updates.get(i)), params.get(i)));
        }
        return List.copyOf(out);
    }

    // ------------------------------------------------------------------------------------------ the two kinds

    /**
     * The few elementwise operations Adam needs, on one of the two array kinds (they share no supertype): local
     * for NDArrays, else ShardedArrays.
     */
    @SuppressWarnings("unchecked")
    private record Ops<T>(boolean local) {
        T add(T x, T y) {
            return local ? (T) ((NDArray) x).add((NDArray) y) : (T) ((ShardedArray) x).add((ShardedArray) y);
        }

        T div(T x, T y) {
            return local ? (T) ((NDArray) x).div((NDArray) y) : (T) ((ShardedArray) x).div((ShardedArray) y);
        }

        T scale(T x, double s) {
            return local ? (T) ((NDArray) x).mul(s) : (T) ((ShardedArray) x).mul(s);
        }

        T shift(T x, double s) {
            return local ? (T) ((NDArray) x).add(s) : (T) ((ShardedArray) x).add(s);
        }

        T divide(T x, double s) {
            return local ? (T) ((NDArray) x).div(s) : (T) ((ShardedArray) x).div(s);
        }

        T square(T x) {
            return local ? (T) ((NDArray) x).square() : (T) ((ShardedArray) x).square();
        }

        T sqrt(T x) {
            return local ? (T) ((NDArray) x).sqrt() : (T) ((ShardedArray) x).sqrt();
        }

        T zerosLike(T x) {
            if (local) {
                NDArray a = (NDArray) x;
                return (T) NDArray.zeros(a.dtype(), a.shape());
            }
            ShardedArray a = (ShardedArray) x;
            return (T) ShardedArray.devicePut(NDArray.zeros(a.dtype(), a.shape()), a.sharding());
        }

        /** {@code x.astype(like.dtype)}, which JAX elides when the dtypes agree. */
        T castLike(T x, T like) {
            if (local) {
                NDArray a = (NDArray) x;
                NDArray p = (NDArray) like;
                return a.dtype() == p.dtype() ? x : (T) a.astype(p.dtype());
            }
            ShardedArray a = (ShardedArray) x;
            ShardedArray p = (ShardedArray) like;
            return a.dtype() == p.dtype() ? x : (T) a.astype(p.dtype());
        }
    }

    private static <T> Ops<T> ops(List<T> xs) {
        Objects.requireNonNull(xs, "the list of arrays");
        boolean local = xs.stream().allMatch(x -> Objects.requireNonNull(x, "an array") instanceof NDArray);
        boolean global = xs.stream().allMatch(x -> x instanceof ShardedArray);
        if (local || global) {
            return new Ops<>(local);
        }
        throw new IllegalArgumentException("Adam works on lists of NDArrays or of ShardedArrays, got "
                + xs.stream().map(x -> x.getClass().getSimpleName()).distinct().toList());
    }
}
