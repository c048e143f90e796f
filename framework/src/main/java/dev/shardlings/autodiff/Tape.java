package dev.shardlings.autodiff;

import dev.shardlings.primitive.ArrayType;
import dev.shardlings.primitive.Primitive;
import dev.shardlings.primitive.Vjp;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * The reverse pass shared by both engines: the operations recorded while the function ran forward, in order,
 * walked backward, each node's pullback turning its results' cotangents into its inputs' (JAX's
 * {@code backward_pass}). Values are identified by object identity: each engine hands out a fresh object for every
 * differentiated input, so an input the function also captures as a constant is not confused with it. Only
 * operations that depend on a differentiated input are recorded ("live"), the others are constants.
 *
 * <p>Not thread-safe: one tape per trace or per device thread.
 *
 * @param <T> the engine's array type
 */
abstract class Tape<T> {
    /** One recorded operation: its inputs (values or constants), its results, and how to pull cotangents back. */
    interface Node<T> {
        List<Object> inputs();

        List<T> outputs();

        /**
         * The inputs' cotangents from the outputs' (an output's may be null: it got none).
         *
         * @param needs which inputs are live
         * @return one entry per input, null for none
         */
        List<T> pullback(List<T> outCts, boolean[] needs);
    }

    /**
     * One primitive's application; its pullback is the primitive's own {@link Primitive#vjp} rule, whose steps the
     * engine binds ({@link #bindRule}). Both engines record their primitives as these.
     */
    final class PrimitiveNode implements Node<T> {
        private final Primitive p;
        private final List<Object> inputs;
        private final List<T> outputs;

        PrimitiveNode(Primitive p, List<Object> inputs, List<T> outputs) {
            this.p = p;
            this.inputs = List.copyOf(inputs);
            this.outputs = List.copyOf(outputs);
        }

        @Override
        public List<Object> inputs() {
            return inputs;
        }

        @Override
        public List<T> outputs() {
            return outputs;
        }

        @Override
        public List<T> pullback(List<T> outCts, boolean[] needs) {
            T out = outputs.get(0);
            T ct = outCts.get(0);
            return p.vjp(new Vjp<>(inputs, needs) {
                @Override
                public T out() {
                    return out;
                }

                @Override
                public T ct() {
                    return ct;
                }

                @Override
                public T bind(Primitive q, List<Object> operands) {
                    return bindRule(q, operands, out);
                }

                @Override
                public ArrayType type(Object x) {
                    return typeOf(x);
                }
            });
        }
    }

    private final List<Node<T>> nodes = new ArrayList<>();
    private final Map<Object, Boolean> live = new IdentityHashMap<>();

    /** Marks {@code x} as a differentiated input. */
    final void watch(T x) {
        live.put(x, Boolean.TRUE);
    }

    final boolean isLive(Object x) {
        return x != null && live.containsKey(x);
    }

    /** Whether any of these inputs is live: only then is an operation worth recording. */
    final boolean anyLive(List<?> inputs) {
        for (Object o : inputs) {
            if (isLive(o)) {
                return true;
            }
        }
        return false;
    }

    /** Records a node whose inputs include a live value; its outputs become live. */
    final void record(Node<T> n) {
        nodes.add(n);
        for (T o : n.outputs()) {
            live.put(o, Boolean.TRUE);
        }
    }

    /** {@code a + b}. */
    abstract T add(T a, T b);

    /**
     * Applies a step of a vjp rule: {@code q} on operands that are {@code T}s or {@code NDArray} constants.
     *
     * @param out the primal result of the operation being differentiated
     */
    abstract T bindRule(Primitive q, List<Object> operands, T out);

    /** The type of a {@code T} or an {@code NDArray} constant, as a vjp rule sees it. */
    abstract ArrayType typeOf(Object x);

    /** A cotangent made to fit its primal's type (varying axes, or an Explicit sharding), before it is summed. */
    abstract T fit(T ct, Object primal);

    /** Zeros of {@code primal}'s type: the cotangent of an input the outputs do not depend on. */
    abstract T zerosLike(T primal);

    /** Whether cotangents flow through this value (a floating-point array). */
    abstract boolean differentiable(Object value);

    /**
     * Runs the reverse pass.
     *
     * @param outputs the function's outputs
     * @param seeds   their cotangents (null: none)
     * @param wrt     the differentiated inputs
     * @return each input's cotangent; zeros for one the outputs do not depend on
     */
    final List<T> backward(List<T> outputs, List<T> seeds, List<T> wrt) {
        Map<Object, T> ct = new IdentityHashMap<>();
        for (int k = 0; k < outputs.size(); k++) {
            T s = seeds.get(k);
            if (s != null && isLive(outputs.get(k))) {
                accumulate(ct, outputs.get(k), fit(s, outputs.get(k)));
            }
        }
        for (int i = nodes.size() - 1; i >= 0; i--) {
            Node<T> n = nodes.get(i);
            List<T> outCts = new ArrayList<>(n.outputs().size());
            boolean any = false;
            for (T o : n.outputs()) {
                T c = ct.remove(o);
                outCts.add(c);
                any |= c != null;
            }
            if (!any) {
                continue;
            }
            List<Object> in = n.inputs();
            boolean[] needs = new boolean[in.size()];
            boolean needed = false;
            for (int k = 0; k < needs.length; k++) {
                needs[k] = isLive(in.get(k)) && differentiable(in.get(k));
                needed |= needs[k];
            }
            if (!needed) {
                continue;
            }
            List<T> inCts = pullbackOf(n, outCts, needs);
            for (int k = 0; k < needs.length; k++) {
                T c = inCts.get(k);
                if (needs[k] && c != null) {
                    accumulate(ct, in.get(k), fit(c, in.get(k)));
                }
            }
        }
        List<T> result = new ArrayList<>(wrt.size());
        for (T x : wrt) {
            T c = ct.get(x);
            result.add(c != null ? c : zerosLike(x));
        }
        return result;
    }

    /** Runs one node's pullback; a tape may say whose work it is (see {@link LocalTape}). */
    List<T> pullbackOf(Node<T> n, List<T> outCts, boolean[] needs) {
        return n.pullback(outCts, needs);
    }

    private void accumulate(Map<Object, T> ct, Object key, T c) {
        T prev = ct.get(key);
        ct.put(key, prev == null ? c : add(prev, c));
    }
}
