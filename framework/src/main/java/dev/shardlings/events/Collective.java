package dev.shardlings.events;

import dev.shardlings.array.NDArray;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The collective primitives, one object per collective as JAX's {@code psum_p}, {@code all_gather_p}, … in
 * {@code jax/_src/lax/parallel.py}: each carries its name and its rules — the shape rule ({@link #outShape}), the
 * varying-axes rule of check_vma ({@link #varyingAxes}), the bytes a device moves ({@link #bytesPerDevice}, the
 * one formula the runtime, the trace, the compiled program's text and the cost model use) and the transpose rule
 * ({@link #transpose}). Their static parameters are {@link CollectiveParams} records; the public functions of
 * {@code spmd.Collectives} check arguments and bind these primitives.
 *
 * <p>The rules take parameters that the binding function has already checked (dimensions in range, sizes that
 * divide); a parameter record of the wrong kind is a {@link ClassCastException}, a null argument a
 * {@link NullPointerException} that names it.
 */
public enum Collective {
    /** {@code jax.lax.psum}: all-reduce with a sum. Transpose: pvary (JAX's psum ↔ pvary). */
    PSUM("psum") {
        @Override
        NDArray transposeRule(NDArray ct, int[] operandShape, List<String> axes, CollectiveParams params,
                              Binder bind) {
            return varyingOver(ct, axes);
        }
    },
    /** {@code jax.lax.pmean}: all-reduce with a sum, then true division by the group size. Transpose: pvary / n. */
    PMEAN("pmean") {
        @Override
        NDArray transposeRule(NDArray ct, int[] operandShape, List<String> axes, CollectiveParams params,
                              Binder bind) {
            int n = bind.groupSize(this, axes);
            return varyingOver(ct, axes).div(n);
        }
    },
    /** {@code jax.lax.pmax}: all-reduce with an elementwise maximum (not differentiable, as in JAX). */
    PMAX("pmax"),
    /** {@code jax.lax.pmin}: all-reduce with an elementwise minimum (not differentiable, as in JAX). */
    PMIN("pmin"),
    /**
     * {@code jax.lax.all_gather} ({@link CollectiveParams.AllGather}). Transpose: psum_scatter with the same
     * dimension and tiling; for {@code all_gather_invariant}, each device's own chunk of the cotangent.
     */
    ALL_GATHER("all_gather") {
        @Override
        int[] shapeRule(int[] in, int groupSize, CollectiveParams params) {
            CollectiveParams.AllGather p = (CollectiveParams.AllGather) params;
            int d = dimension(p.axis(), p.tiled() ? in.length : in.length + 1);
            return p.tiled() ? scaled(in, d, groupSize, 1) : inserted(in, d, groupSize);
        }

        @Override
        Set<String> vmaRule(Set<String> in, List<String> axes, CollectiveParams params) {
            return ((CollectiveParams.AllGather) params).invariant() ? minus(in, axes) : plus(in, axes);
        }

        @Override
        public BytesPerDevice bytesPerDevice(int groupSize) {
            return new BytesPerDevice(groupSize - 1, 1);
        }

        @Override
        NDArray transposeRule(NDArray ct, int[] operandShape, List<String> axes, CollectiveParams params,
                              Binder bind) {
            CollectiveParams.AllGather p = (CollectiveParams.AllGather) params;
            if (!p.invariant()) {
                return bind.bind(PSUM_SCATTER, ct, axes, new CollectiveParams.ReduceScatter(p.axis(), p.tiled()));
            }
            // the result does not vary: each device's input is its own chunk of the one cotangent
            int me = bind.axisIndex(this, axes);
            int d = dimension(p.axis(), p.tiled() ? operandShape.length : operandShape.length + 1);
            return p.tiled() ? ct.slice(d, me * operandShape[d], (me + 1) * operandShape[d]) : ct.take(d, me);
        }
    },
    /**
     * {@code jax.lax.psum_scatter}: reduce-scatter ({@link CollectiveParams.ReduceScatter}). Transpose: all_gather
     * with the same dimension and tiling.
     */
    PSUM_SCATTER("psum_scatter") {
        @Override
        int[] shapeRule(int[] in, int groupSize, CollectiveParams params) {
            CollectiveParams.ReduceScatter p = (CollectiveParams.ReduceScatter) params;
            int d = dimension(p.scatterDimension(), in.length);
            return p.tiled() ? scaled(in, d, 1, groupSize) : removed(in, d);
        }

        @Override
        Set<String> vmaRule(Set<String> in, List<String> axes, CollectiveParams params) {
            return plus(in, axes);
        }

        @Override
        public BytesPerDevice bytesPerDevice(int groupSize) {
            return new BytesPerDevice(groupSize - 1, groupSize);
        }

        @Override
        NDArray transposeRule(NDArray ct, int[] operandShape, List<String> axes, CollectiveParams params,
                              Binder bind) {
            CollectiveParams.ReduceScatter p = (CollectiveParams.ReduceScatter) params;
            return bind.bind(ALL_GATHER, ct, axes, new CollectiveParams.AllGather(p.scatterDimension(), p.tiled(),
                    false));
        }
    },
    /**
     * {@code jax.lax.all_to_all} ({@link CollectiveParams.AllToAll}). Transpose: all_to_all with split and concat
     * axes swapped.
     */
    ALL_TO_ALL("all_to_all") {
        @Override
        int[] shapeRule(int[] in, int groupSize, CollectiveParams params) {
            CollectiveParams.AllToAll p = (CollectiveParams.AllToAll) params;
            int s = dimension(p.splitAxis(), in.length);
            int c = dimension(p.concatAxis(), in.length);
            return p.tiled() ? scaled(scaled(in, s, 1, groupSize), c, groupSize, 1)
                    : inserted(removed(in, s), c, groupSize);
        }

        @Override
        Set<String> vmaRule(Set<String> in, List<String> axes, CollectiveParams params) {
            return plus(in, axes);
        }

        @Override
        public BytesPerDevice bytesPerDevice(int groupSize) {
            return new BytesPerDevice(groupSize - 1, groupSize);
        }

        @Override
        NDArray transposeRule(NDArray ct, int[] operandShape, List<String> axes, CollectiveParams params,
                              Binder bind) {
            CollectiveParams.AllToAll p = (CollectiveParams.AllToAll) params;
            return bind.bind(this, ct, axes, new CollectiveParams.AllToAll(p.concatAxis(), p.splitAxis(), p.tiled()));
        }
    },
    /**
     * {@code jax.lax.ppermute}: point-to-point sends along a permutation ({@link CollectiveParams.Permute}).
     * Transpose: ppermute by the inverse permutation.
     */
    PPERMUTE("ppermute") {
        @Override
        Set<String> vmaRule(Set<String> in, List<String> axes, CollectiveParams params) {
            return plus(in, axes);
        }

        /** The operand, sent to one other device and received from one other device (0 for a device without). */
        @Override
        public BytesPerDevice bytesPerDevice(int groupSize) {
            return new BytesPerDevice(1, 1);
        }

        @Override
        NDArray transposeRule(NDArray ct, int[] operandShape, List<String> axes, CollectiveParams params,
                              Binder bind) {
            List<List<Integer>> inverse = new ArrayList<>();
            for (List<Integer> pair : ((CollectiveParams.Permute) params).pairs()) {
                inverse.add(List.of(pair.get(1), pair.get(0)));
            }
            return bind.bind(this, ct, axes, new CollectiveParams.Permute(inverse));
        }
    };

    private final String jaxName;

    Collective(String jaxName) {
        this.jaxName = jaxName;
    }

    /** The name of the JAX primitive, e.g. {@code "all_gather"}. */
    public String jaxName() {
        return jaxName;
    }

    /**
     * The shape rule: the result's block shape for an operand block of shape {@code in} over groups of
     * {@code groupSize} devices. All-reduces and ppermute keep the shape; all_gather multiplies its dimension by
     * n (tiled) or inserts one of size n; psum_scatter divides it (tiled) or removes it; all_to_all divides the
     * split dimension and multiplies the concat dimension (tiled), or removes the one and inserts n at the other.
     */
    public int[] outShape(int[] in, int groupSize, CollectiveParams params) {
        Objects.requireNonNull(in, "in");
        Objects.requireNonNull(params, "params");
        return shapeRule(in, groupSize, params);
    }

    int[] shapeRule(int[] in, int groupSize, CollectiveParams params) {
        return in.clone();
    }

    /**
     * The check_vma rule: the mesh axes the result varies over, from those the operand varies over. The
     * all-reduces and {@code all_gather_invariant} remove the axes; all_gather, psum_scatter, all_to_all and
     * ppermute add them.
     */
    public Set<String> varyingAxes(Set<String> in, List<String> axes, CollectiveParams params) {
        for (String a : Objects.requireNonNull(in, "in")) {
            Objects.requireNonNull(a, "in holds a null axis name");
        }
        Lists.copyOfNonNull(axes, "axes");
        Objects.requireNonNull(params, "params");
        return vmaRule(in, axes, params);
    }

    Set<String> vmaRule(Set<String> in, List<String> axes, CollectiveParams params) {
        return minus(in, axes);
    }

    /**
     * The bytes one device receives (and sends) under the ring model of the book, as a multiple of the operand's
     * bytes b over groups of n devices: all-reduce 2(n−1)/n·b (a reduce-scatter, then an all-gather), all-gather
     * (n−1)·b, reduce-scatter and all-to-all (n−1)/n·b, ppermute b to and from another device.
     */
    public BytesPerDevice bytesPerDevice(int groupSize) {
        return new BytesPerDevice(2L * (groupSize - 1), groupSize);
    }

    /**
     * The transpose rule (JAX's, as the linear map of the collective): the operand's cotangent from the result's
     * cotangent {@code ct}, binding collectives through {@code bind}. psum ↔ pvary, all_gather ↔ psum_scatter,
     * ppermute ↔ the inverse permutation, all_to_all ↔ all_to_all with split and concat swapped.
     *
     * @param operandShape the primal operand's block shape
     * @throws NullPointerException          if an argument, or an axis name, is null (the message names it)
     * @throws UnsupportedOperationException for pmax and pmin, with JAX's text ("Differentiation rule for 'pmax'
     *                                       not implemented")
     */
    public NDArray transpose(NDArray ct, int[] operandShape, List<String> axes, CollectiveParams params, Binder bind) {
        Objects.requireNonNull(ct, "ct");
        Objects.requireNonNull(operandShape, "operandShape");
        Lists.copyOfNonNull(axes, "axes");
        Objects.requireNonNull(params, "params");
        Objects.requireNonNull(bind, "bind");
        return transposeRule(ct, operandShape, axes, params, bind);
    }

    NDArray transposeRule(NDArray ct, int[] operandShape, List<String> axes, CollectiveParams params, Binder bind) {
        throw new UnsupportedOperationException("Differentiation rule for '" + jaxName + "' not implemented");
    }

    /**
     * How a transpose rule runs collectives on the device it is differentiated on (JAX's {@code prim.bind}); the
     * runtime implements it.
     */
    public interface Binder {
        /** Runs collective {@code c} on x over the axes with the given parameters, unrecorded by any tape. */
        NDArray bind(Collective c, NDArray x, List<String> axes, CollectiveParams params);

        /** n: the size of this device's group over the axes. */
        int groupSize(Collective c, List<String> axes);

        /** ℓ: this device's linear index in its group over the axes. */
        int axisIndex(Collective c, List<String> axes);
    }

    /**
     * Bytes per device as a multiple of the operand's bytes b: {@code b·times/per}, in integer arithmetic for
     * bytes counted and in floating point for the cost model's times.
     *
     * @param times the multiplier
     * @param per   the divisor (the group size, or 1)
     */
    public record BytesPerDevice(long times, long per) {
        /** b·times/per, rounded down. */
        public long of(long operandBytes) {
            return times * operandBytes / per;
        }

        /** b·times/per in floating point (b may be fractional in a modelled dtype). */
        public double of(double operandBytes) {
            return times * operandBytes / per;
        }
    }

    /** ct made varying over {@code axes} too (a pvary: no data movement). */
    private static NDArray varyingOver(NDArray ct, List<String> axes) {
        List<String> missing = new ArrayList<>(axes);
        missing.removeAll(ct.varyingAxes());
        return missing.isEmpty() ? ct : ct.pvary(missing.toArray(new String[0]));
    }

    /** A dimension in [−rank, rank) as one in [0, rank) (checked by the binding function). */
    private static int dimension(int dim, int rank) {
        return dim < 0 ? dim + rank : dim;
    }

    private static int[] scaled(int[] in, int dim, int mul, int div) {
        int[] out = in.clone();
        out[dim] = out[dim] * mul / div;
        return out;
    }

    private static int[] inserted(int[] in, int dim, int size) {
        int[] out = new int[in.length + 1];
        for (int d = 0, k = 0; d < out.length; d++) {
            out[d] = d == dim ? size : in[k++];
        }
        return out;
    }

    private static int[] removed(int[] in, int dim) {
        int[] out = new int[in.length - 1];
        for (int d = 0, k = 0; d < in.length; d++) {
            if (d != dim) {
                out[k++] = in[d];
            }
        }
        return out;
    }

    private static Set<String> minus(Set<String> a, List<String> b) {
        if (b.size() == a.size() && a.containsAll(b)) {
            return Set.of(); // the common psum case: the value varied over exactly the reduced axes
        }
        Set<String> s = new LinkedHashSet<>(a);
        b.forEach(s::remove);
        return s;
    }

    private static Set<String> plus(Set<String> a, List<String> b) {
        if (a.containsAll(b)) {
            return a;
        }
        Set<String> s = new LinkedHashSet<>(a);
        s.addAll(b);
        return s;
    }
}
