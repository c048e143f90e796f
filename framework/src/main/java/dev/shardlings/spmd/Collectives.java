package dev.shardlings.spmd;

import dev.shardlings.array.DType;
import dev.shardlings.array.GradRecorder;
import dev.shardlings.array.GradRecorders;
import dev.shardlings.array.NDArray;
import dev.shardlings.array.OpObservers;
import dev.shardlings.events.Collective;
import dev.shardlings.events.CollectiveParams;
import dev.shardlings.events.TraceEvent;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.BinaryOperator;
import java.util.function.Function;

/**
 * The collectives, callable inside a {@link ShardMap} function — the analogues of {@code jax.lax.psum},
 * {@code pmean}, {@code pmax}, {@code pmin}, {@code all_gather}, {@code psum_scatter}, {@code all_to_all},
 * {@code ppermute}, {@code axis_index} and {@code axis_size}. Use them with {@code import static}.
 *
 * <p>As in {@code jax/_src/lax/parallel.py}, each function checks its arguments and binds a primitive,
 * {@link Collective}, which holds the collective's shape, varying-axes, bytes and transpose rules; this class holds
 * the implementations that run on the devices.
 *
 * <h2>Groups</h2>
 * A collective over a mesh axis, or a tuple of axes, runs independently in each group of devices that share all
 * other coordinates. Inside a group a device's linear index ℓ = {@link #axisIndex(String...)} counts row-major
 * over the tuple in the order written (first name major); n = {@link #axisSize(String...)} is the group size.
 * Axis tuples are written as several names: {@code psum(x, "x", "y")}.
 *
 * <h2>Rules that hold for every collective</h2>
 * <ul>
 *   <li>Every device of the mesh must call the same collectives in the same order, with the same axes, operand
 *       shape, dtype and parameters; otherwise shardMap fails with {@link CollectiveMismatchException}.</li>
 *   <li>Reductions add in the fixed order ℓ = 0, 1, …, n−1, so results do not depend on thread timing and are
 *       identical on every device of a group.</li>
 *   <li>A null operand {@code x}, {@code axis}, {@code axes}, axis name ({@code axes[1]}), {@code perm} or pair
 *       ({@code perm[0]}): {@link NullPointerException} whose message names it.</li>
 *   <li>Called outside a shardMap function: {@link IllegalStateException} with JAX's text for an axis no
 *       shard_map binds ("Found an unbound axis name: i. To fix this, please call psum under `shardMap`." for the
 *       all-reduces, ppermute and axisIndex; "unbound axis name: i" for the others).</li>
 *   <li>Inside one: an axis the mesh does not have (the same texts) or an axis named twice ("repeated axis in
 *       `source` argument"): {@link IllegalArgumentException}; no axis at all is one too (JAX would return the
 *       operand unchanged). Thrown on a device, these reach the caller as the cause of a
 *       {@link DeviceFailureException}.</li>
 *   <li>Each call is recorded in the device's trace with the bytes it sends and receives under the ring model of
 *       the book (b = bytes of the operand): all-reduce 2(n−1)/n·b, all-gather (n−1)·b, reduce-scatter and
 *       all-to-all (n−1)/n·b, ppermute b to and from another device.</li>
 *   <li>Varying axes (for shardMap's check_vma): psum, pmean, pmax, pmin and {@link #allGatherInvariant} remove
 *       the axes from the operand's {@link NDArray#varyingAxes()}; allGather, psumScatter, allToAll and ppermute
 *       add them; axisIndex varies over exactly its axes. With check_vma on, psum, pmean and psumScatter over
 *       a tuple need an operand that varies over all of its axes or over none of them (JAX's rule: a sum over a mix
 *       would count the copies along the invarying axes without the program saying so); the others accept a
 *       mix.</li>
 * </ul>
 */
public final class Collectives {

    private static final CollectiveParams NONE = new CollectiveParams.None();

    private Collectives() {
    }

    // ------------------------------------------------------------------------------------------------ binding

    /*
     * JAX's prim.bind: each collective runs with the thread's gradient tape (if any) paused, so the local
     * operations it is built from are not recorded, and is then recorded as one operation whose cotangent is the
     * primitive's transpose rule (Collective.transpose). The tape psums a cotangent over axes its primal was
     * implicitly pvary'd over.
     */
    private static NDArray bind(Collective c, NDArray x, List<String> axes, CollectiveParams params) {
        GradRecorder r = GradRecorders.current();
        if (r == null) {
            return run(c, x, axes, params);
        }
        NDArray out;
        try (var ignored = GradRecorders.install(null)) {
            out = run(c, x, axes, params);
        }
        int[] operandShape = x.shape();
        r.custom(List.of(x), out,
                ct -> java.util.Collections.singletonList(c.transpose(ct, operandShape, axes, params, RUNTIME)));
        return out;
    }

    /** The primitive's implementation on this device (JAX's impl rule), nothing recorded on a tape. */
    private static NDArray run(Collective c, NDArray x, List<String> axes, CollectiveParams params) {
        return switch (c) {
            case PSUM -> allReduce(c, x, axes, SUM);
            case PMAX -> allReduce(c, x, axes, MAX);
            case PMIN -> allReduce(c, x, axes, MIN);
            case PMEAN -> mean(x, axes);
            case ALL_GATHER -> gather(x, axes, (CollectiveParams.AllGather) params);
            case PSUM_SCATTER -> scatter(x, axes, (CollectiveParams.ReduceScatter) params);
            case ALL_TO_ALL -> toAll(x, axes, (CollectiveParams.AllToAll) params);
            case PPERMUTE -> permute(x, axes, (CollectiveParams.Permute) params);
        };
    }

    /** The transpose rules' access to the runtime: collectives run unrecorded, on the current device. */
    private static final Collective.Binder RUNTIME = new Collective.Binder() {
        @Override
        public NDArray bind(Collective c, NDArray x, List<String> axes, CollectiveParams params) {
            return run(c, x, axes, params);
        }

        @Override
        public int groupSize(Collective c, List<String> axes) {
            return DeviceContext.require(c.jaxName(), axes).groups(axes, c.jaxName()).groupSize;
        }

        @Override
        public int axisIndex(Collective c, List<String> axes) {
            DeviceContext ctx = DeviceContext.require(c.jaxName(), axes);
            return ctx.groups(axes, c.jaxName()).linearIndex[ctx.flat];
        }
    };

    // ----------------------------------------------------------------------------------------------- all-reduce

    /**
     * All-reduce with a sum ({@code jax.lax.psum}): every device of a group gets Σ_ℓ x_ℓ. Shape and dtype are
     * unchanged (int32 stays int32 and wraps on overflow). A value that does not vary over the axes is summed n
     * times, as in JAX.
     *
     * @throws IllegalArgumentException with JAX's text ("jax.lax.psum can only accept axis_name which corresponds to
     *                                  one of varying, unreduced, reduced or invarying state of the input. …") when
     *                                  check_vma is on and x varies over some of the axes but not all of them
     * @throws NullPointerException  if x, the axes or an axis name is null (the message names it)
     * @throws IllegalStateException outside a shardMap function (see the class comment)
     */
    public static NDArray psum(NDArray x, String... axes) {
        return bind(Collective.PSUM, x, axes(axes), NONE);
    }

    /**
     * {@link #psum(NDArray, String...)} with the axes as a list.
     *
     * @throws NullPointerException  if x, the axes or an axis name is null (the message names it)
     * @throws IllegalStateException outside a shardMap function (see the class comment)
     */
    public static NDArray psum(NDArray x, List<String> axes) {
        return bind(Collective.PSUM, x, axes(axes), NONE);
    }

    /**
     * All-reduce with a mean ({@code jax.lax.pmean}): psum, then true division by n. The result is float32 for
     * int32 input, as in JAX.
     *
     * @throws IllegalArgumentException as {@link #psum(NDArray, String...)} (JAX's text names jax.lax.psum) when
     *                                  check_vma is on and x varies over some of the axes but not all of them
     * @throws NullPointerException  if x, the axes or an axis name is null (the message names it)
     * @throws IllegalStateException outside a shardMap function (see the class comment)
     */
    public static NDArray pmean(NDArray x, String... axes) {
        return bind(Collective.PMEAN, x, axes(axes), NONE);
    }

    /**
     * {@link #pmean(NDArray, String...)} with the axes as a list.
     *
     * @throws NullPointerException  if x, the axes or an axis name is null (the message names it)
     * @throws IllegalStateException outside a shardMap function (see the class comment)
     */
    public static NDArray pmean(NDArray x, List<String> axes) {
        return bind(Collective.PMEAN, x, axes(axes), NONE);
    }

    private static NDArray mean(NDArray x, List<String> axes) {
        NDArray sum = allReduce(Collective.PMEAN, x, axes, SUM);
        AxisGroups g = DeviceContext.require(Collective.PMEAN.jaxName(), axes).groups(axes, "pmean");
        return sum.div(g.groupSize).withVaryingAxes(sum.varyingAxes());
    }

    /**
     * All-reduce with an elementwise maximum ({@code jax.lax.pmax}); shape and dtype unchanged. Unlike psum, x may
     * vary over some of the axes and not others, as in JAX.
     *
     * @throws NullPointerException  if x, the axes or an axis name is null (the message names it)
     * @throws IllegalStateException outside a shardMap function (see the class comment)
     */
    public static NDArray pmax(NDArray x, String... axes) {
        return bind(Collective.PMAX, x, axes(axes), NONE);
    }

    /**
     * {@link #pmax(NDArray, String...)} with the axes as a list.
     *
     * @throws NullPointerException  if x, the axes or an axis name is null (the message names it)
     * @throws IllegalStateException outside a shardMap function (see the class comment)
     */
    public static NDArray pmax(NDArray x, List<String> axes) {
        return bind(Collective.PMAX, x, axes(axes), NONE);
    }

    /**
     * All-reduce with an elementwise minimum ({@code jax.lax.pmin}); shape and dtype unchanged. Like pmax, it accepts
     * a mix of varying and invarying axes.
     *
     * @throws NullPointerException  if x, the axes or an axis name is null (the message names it)
     * @throws IllegalStateException outside a shardMap function (see the class comment)
     */
    public static NDArray pmin(NDArray x, String... axes) {
        return bind(Collective.PMIN, x, axes(axes), NONE);
    }

    /**
     * {@link #pmin(NDArray, String...)} with the axes as a list.
     *
     * @throws NullPointerException  if x, the axes or an axis name is null (the message names it)
     * @throws IllegalStateException outside a shardMap function (see the class comment)
     */
    public static NDArray pmin(NDArray x, List<String> axes) {
        return bind(Collective.PMIN, x, axes(axes), NONE);
    }

    /** psum's reduction: left to right in device order, one pass (bit-identical to chained adds). */
    private static final Function<NDArray[], NDArray> SUM = xs -> NDArray.addN(Arrays.asList(xs));
    private static final Function<NDArray[], NDArray> MAX = xs -> chain(xs, NDArray::maximum);
    private static final Function<NDArray[], NDArray> MIN = xs -> chain(xs, NDArray::minimum);

    private static NDArray chain(NDArray[] xs, BinaryOperator<NDArray> op) {
        NDArray acc = xs[0];
        for (int l = 1; l < xs.length; l++) {
            acc = op.apply(acc, xs[l]);
        }
        return acc;
    }

    private static NDArray allReduce(Collective kind, NDArray x, List<String> axisList,
                                     Function<NDArray[], NDArray> reduce) {
        Objects.requireNonNull(x, "x");
        DeviceContext ctx = DeviceContext.require(kind.jaxName(), axisList);
        if (kind == Collective.PSUM || kind == Collective.PMEAN) {
            requireOneState(ctx, x, axisList, "jax.lax.psum"); // pmean is psum, then a division, in JAX too
            if (x.dtype() == DType.BOOL) {
                x = x.astype(DType.INT32); // JAX counts: psum of a bool array is int32 (pmax and pmin keep bool)
            }
        }
        AxisGroups g = ctx.groups(axisList, kind.jaxName());
        NDArray acc;
        if (g.groupSize < SHARED_REDUCTION_GROUP || reduce != SUM) {
            NDArray[] xs = exchange(ctx, g, kind, x, NONE);
            // A group of one: the result is still a buffer of its own, as on a real device.
            acc = xs.length == 1 ? fresh(x) : reduce.apply(xs);
        } else {
            // Each group reduced once, by the device that completes the step, and each member takes a copy:
            // the same bits as reducing on every member, without every member reading the whole group.
            acc = fresh(reducedOnce(ctx, g, kind, x, reduce));
        }
        long moved = kind.bytesPerDevice(g.groupSize).of(x.nbytes());
        record(ctx, kind, g, x, acc, moved, moved, NONE);
        return acc.withVaryingAxes(kind.varyingAxes(x.varyingAxes(), axisList, NONE));
    }

    // ----------------------------------------------------------------------------------------------- all-gather

    /**
     * {@code jax.lax.all_gather(x, axes)} with {@code axis=0, tiled=False}: stacks the group's blocks along a new
     * leading dimension of size n, in ℓ order.
     *
     * @throws NullPointerException  if x, the axes or an axis name is null (the message names it)
     * @throws IllegalStateException outside a shardMap function (see the class comment)
     */
    public static NDArray allGather(NDArray x, String axis) {
        return bind(Collective.ALL_GATHER, x, axis(axis), new CollectiveParams.AllGather(0, false, false));
    }

    /**
     * {@code jax.lax.all_gather(x, axes, axis=dim, tiled=tiled)}.
     *
     * <p>Untiled: the result has a new dimension of size n inserted at {@code dim} (in [−(r+1), r] for rank r),
     * holding x_0 … x_{n−1}. Tiled: the blocks are concatenated along {@code dim} (in [−r, r−1]), whose size
     * becomes n·x.shape[dim]. Every device of a group gets the same values, but the result still varies over the
     * axes (use {@link #allGatherInvariant} for a value an out spec may leave the axes out of).
     *
     * @throws IllegalArgumentException if dim is out of range (JAX's "axis 2 is out of bounds for array of
     *                                  dimension 2"; a tiled gather of a scalar has no dimension 0)
     * @throws NullPointerException  if x, the axes or an axis name is null (the message names it)
     * @throws IllegalStateException outside a shardMap function (see the class comment)
     */
    public static NDArray allGather(NDArray x, String axis, int dim, Tiling tiling) {
        return bind(Collective.ALL_GATHER, x, axis(axis),
                new CollectiveParams.AllGather(dim, tiling(tiling), false));
    }

    /**
     * {@link #allGather(NDArray, String, int, Tiling)} over a tuple of axes (first name major).
     *
     * @throws NullPointerException  if x, the axes or an axis name is null (the message names it)
     * @throws IllegalStateException outside a shardMap function (see the class comment)
     */
    public static NDArray allGather(NDArray x, List<String> axes, int dim, Tiling tiling) {
        return bind(Collective.ALL_GATHER, x, axes(axes),
                new CollectiveParams.AllGather(dim, tiling(tiling), false));
    }

    /**
     * {@code jax.lax.all_gather(..., to='invarying')} (also {@code all_gather_invariant}): the same values as
     * {@link #allGather(NDArray, List, int, Tiling)}, but the result no longer varies over the axes, so an out
     * spec may leave them out.
     *
     * @throws NullPointerException  if x, the axes or an axis name is null (the message names it)
     * @throws IllegalStateException outside a shardMap function (see the class comment)
     */
    public static NDArray allGatherInvariant(NDArray x, List<String> axes, int dim, Tiling tiling) {
        return bind(Collective.ALL_GATHER, x, axes(axes),
                new CollectiveParams.AllGather(dim, tiling(tiling), true));
    }

    /**
     * {@link #allGatherInvariant(NDArray, List, int, Tiling)} over one axis.
     *
     * @throws NullPointerException  if x, the axes or an axis name is null (the message names it)
     * @throws IllegalStateException outside a shardMap function (see the class comment)
     */
    public static NDArray allGatherInvariant(NDArray x, String axis, int dim, Tiling tiling) {
        return bind(Collective.ALL_GATHER, x, axis(axis),
                new CollectiveParams.AllGather(dim, tiling(tiling), true));
    }

    /** The tiled flag of a {@link Tiling}, naming the argument when it is null. */
    private static boolean tiling(Tiling tiling) {
        return Objects.requireNonNull(tiling, "tiling").tiled();
    }

    private static NDArray gather(NDArray x, List<String> axes, CollectiveParams.AllGather params) {
        Objects.requireNonNull(x, "x");
        int dim = params.axis();
        boolean tiled = params.tiled();
        DeviceContext ctx = DeviceContext.require("all_gather", axes);
        AxisGroups g = ctx.groups(axes, "all_gather");
        int r = x.rank();
        int d = normalise(dim, tiled ? r : r + 1);
        // variant and invariant gathers of one program meet in the same exchange
        NDArray[] xs = exchange(ctx, g, Collective.ALL_GATHER, x, new CollectiveParams.AllGather(dim, tiled, false));
        NDArray out = tiled ? NDArray.concat(d, xs) : NDArray.stack(d, xs);
        long moved = Collective.ALL_GATHER.bytesPerDevice(g.groupSize).of(x.nbytes());
        record(ctx, Collective.ALL_GATHER, g, x, out, moved, moved, params);
        return out.withVaryingAxes(Collective.ALL_GATHER.varyingAxes(x.varyingAxes(), axes, params));
    }

    // ------------------------------------------------------------------------------------------- reduce-scatter

    /**
     * Reduce-scatter ({@code jax.lax.psum_scatter(x, axes, scatter_dimension=dim, tiled=tiled)}): let S be the
     * sum over the group. Tiled: device ℓ gets chunk ℓ of S split into n equal parts along dim (rank kept).
     * Untiled: x.shape[dim] must equal n and device ℓ gets S[ℓ] along dim (that dimension removed).
     *
     * @throws IllegalArgumentException with JAX's text when x.shape[dim] is not n (untiled) or not divisible by n
     *                                  (tiled), or dim is out of range; and, first, when check_vma is on and x
     *                                  varies over some of the axes but not all of them ("jax.lax.psum_scatter can
     *                                  only accept axis_name which corresponds to one of varying, unreduced, reduced
     *                                  or invarying state of the input. …")
     * @throws NullPointerException  if x, the axes or an axis name is null (the message names it)
     * @throws IllegalStateException outside a shardMap function (see the class comment)
     */
    public static NDArray psumScatter(NDArray x, String axis, int dim, Tiling tiling) {
        return bind(Collective.PSUM_SCATTER, x, axis(axis),
                new CollectiveParams.ReduceScatter(dim, tiling(tiling)));
    }

    /**
     * {@link #psumScatter(NDArray, String, int, Tiling)} over a tuple of axes (first name major).
     *
     * @throws NullPointerException  if x, the axes or an axis name is null (the message names it)
     * @throws IllegalStateException outside a shardMap function (see the class comment)
     */
    public static NDArray psumScatter(NDArray x, List<String> axes, int dim, Tiling tiling) {
        return bind(Collective.PSUM_SCATTER, x, axes(axes),
                new CollectiveParams.ReduceScatter(dim, tiling(tiling)));
    }

    private static NDArray scatter(NDArray x, List<String> axes, CollectiveParams.ReduceScatter params) {
        Objects.requireNonNull(x, "x");
        int dim = params.scatterDimension();
        boolean tiled = params.tiled();
        DeviceContext ctx = DeviceContext.require("psum_scatter", axes);
        requireOneState(ctx, x, axes, "jax.lax.psum_scatter");
        AxisGroups g = ctx.groups(axes, "psum_scatter");
        int d = normalise(dim, x.rank());
        int n = g.groupSize;
        int size = x.shape(d);
        if (tiled && size % n != 0) {
            throw new IllegalArgumentException("tiled reduce_scatter operand scatter dimension size " + size
                    + " must be divisible by shard_count " + n);
        }
        if (!tiled && size != n) {
            throw new IllegalArgumentException("reduce_scatter operand scatter dimension size " + size
                    + " must match shard count " + n);
        }
        NDArray[] xs = exchange(ctx, g, Collective.PSUM_SCATTER, x, params);
        int me = g.linearIndex[ctx.flat];
        // Sum only this device's chunk: the same additions, in the same order, as summing everything first.
        int chunk = size / n;
        NDArray acc = null;
        if (x.dtype() == DType.BFLOAT16) {
            // XLA:CPU accumulates bfloat16 in float32 and rounds once, as psum does: one addN, not chained adds
            List<NDArray> parts = new ArrayList<>();
            for (NDArray xi : xs) {
                parts.add(xi.slice(d, me * chunk, (me + 1) * chunk));
            }
            acc = NDArray.addN(parts);
        }
        for (NDArray xi : acc == null ? xs : new NDArray[0]) {
            NDArray part = xi.slice(d, me * chunk, (me + 1) * chunk);
            acc = acc == null ? part : acc.add(part);
        }
        NDArray out = tiled ? acc : acc.squeeze(d);
        long moved = Collective.PSUM_SCATTER.bytesPerDevice(n).of(x.nbytes());
        record(ctx, Collective.PSUM_SCATTER, g, x, out, moved, moved, params);
        return out.withVaryingAxes(Collective.PSUM_SCATTER.varyingAxes(x.varyingAxes(), axes, params));
    }

    // ---------------------------------------------------------------------------------------------- all-to-all

    /**
     * {@code jax.lax.all_to_all(x, axes, split_axis, concat_axis, tiled=tiled)}.
     *
     * <p>Tiled: device ℓ splits x into n chunks along splitAxis and sends chunk j to device j; each device
     * concatenates what it receives along concatAxis in source order (shape[split]/n, shape[concat]·n). Untiled:
     * x.shape[splitAxis] must equal n; out_j has the split dimension removed and a new dimension of size n
     * inserted at concatAxis holding x_ℓ[j] for ℓ = 0 … n−1.
     *
     * @throws IllegalArgumentException with JAX's text when the split dimension does not fit n, or an axis is out
     *                                  of range
     * @throws NullPointerException  if x, the axes or an axis name is null (the message names it)
     * @throws IllegalStateException outside a shardMap function (see the class comment)
     */
    public static NDArray allToAll(NDArray x, String axis, int splitAxis, int concatAxis, Tiling tiling) {
        return bind(Collective.ALL_TO_ALL, x, axis(axis), new CollectiveParams.AllToAll(splitAxis, concatAxis,
                tiling(tiling)));
    }

    /**
     * {@link #allToAll(NDArray, String, int, int, Tiling)} over a tuple of axes (first name major).
     *
     * @throws NullPointerException  if x, the axes or an axis name is null (the message names it)
     * @throws IllegalStateException outside a shardMap function (see the class comment)
     */
    public static NDArray allToAll(NDArray x, List<String> axes, int splitAxis, int concatAxis, Tiling tiling) {
        return bind(Collective.ALL_TO_ALL, x, axes(axes), new CollectiveParams.AllToAll(splitAxis, concatAxis,
                tiling(tiling)));
    }

    private static NDArray toAll(NDArray x, List<String> axes, CollectiveParams.AllToAll params) {
        Objects.requireNonNull(x, "x");
        boolean tiled = params.tiled();
        DeviceContext ctx = DeviceContext.require("all_to_all", axes);
        AxisGroups g = ctx.groups(axes, "all_to_all");
        int n = g.groupSize;
        int s = normalise(params.splitAxis(), x.rank());
        int c = normalise(params.concatAxis(), x.rank());
        if (tiled && x.shape(s) % n != 0) {
            // JAX prints the axis_name argument: a name as is, a tuple as Python's tuple.
            throw new IllegalArgumentException("The size of all_to_all split_axis (" + x.shape(s) + ") has to be"
                    + " divisible by the size of the named axis " + (axes.size() == 1 ? axes.get(0)
                    : ShardMapErrors.tupleRepr(axes)) + " (" + n + ")");
        }
        if (!tiled && x.shape(s) != n) {
            throw new IllegalArgumentException("all_to_all requires the size of the mapped axis axis_name to equal"
                    + " x.shape[split_axis], but they are " + n + " and " + x.shape(s) + " respectively.");
        }
        NDArray[] xs = exchange(ctx, g, Collective.ALL_TO_ALL, x, params);
        int me = g.linearIndex[ctx.flat];
        int chunk = x.shape(s) / n;
        List<NDArray> received = new ArrayList<>(n);
        for (NDArray xi : xs) {
            received.add(tiled ? xi.slice(s, me * chunk, (me + 1) * chunk) : xi.take(s, me));
        }
        NDArray out = tiled ? NDArray.concat(c, received) : NDArray.stack(c, received);
        long moved = Collective.ALL_TO_ALL.bytesPerDevice(n).of(x.nbytes());
        record(ctx, Collective.ALL_TO_ALL, g, x, out, moved, moved, params);
        return out.withVaryingAxes(Collective.ALL_TO_ALL.varyingAxes(x.varyingAxes(), axes, params));
    }

    // ------------------------------------------------------------------------------------------------ ppermute

    /**
     * {@code jax.lax.ppermute(x, axes, perm)}: for each (source, destination) pair, the destination gets the
     * source's x; devices that are no destination get zeros. Indices are linear indices in [0, n).
     *
     * <p>Choices where JAX is loose: an index outside [0, n) (JAX raises IndexError or wraps negatives) is an
     * error here; a tuple of axes uses the tuple order (first name major), consistent with axisIndex.
     *
     * @param perm pairs {@code {source, destination}}, e.g. {@code new int[][]{{0, 1}, {1, 2}, {2, 3}, {3, 0}}}
     * @throws IllegalArgumentException if a pair is not two ints, an index is out of range, or a source or
     *                                  destination repeats ("ppermute sources and destinations must be unique")
     * @throws NullPointerException  if x, an axis name, perm or a pair of it is null (the message names it)
     * @throws IllegalStateException outside a shardMap function (see the class comment)
     */
    public static NDArray ppermute(NDArray x, String axis, int[][] perm) {
        List<String> axisList = axis(axis);
        Objects.requireNonNull(x, "x");
        return bind(Collective.PPERMUTE, x, axisList, permutation(perm));
    }

    /**
     * {@link #ppermute(NDArray, String, int[][])} over a tuple of axes.
     *
     * @throws NullPointerException  if x, an axis name, perm or a pair of it is null (the message names it)
     * @throws IllegalStateException outside a shardMap function (see the class comment)
     */
    public static NDArray ppermute(NDArray x, List<String> axes, int[][] perm) {
        List<String> axisList = axes(axes);
        Objects.requireNonNull(x, "x");
        return bind(Collective.PPERMUTE, x, axisList, permutation(perm));
    }

    /** perm as the primitive's parameter, checked for nulls (the pairs themselves are checked on the device). */
    private static CollectiveParams.Permute permutation(int[][] perm) {
        Objects.requireNonNull(perm, "perm");
        List<List<Integer>> pairs = new ArrayList<>(perm.length);
        for (int i = 0; i < perm.length; i++) {
            Objects.requireNonNull(perm[i], "perm[" + i + "]");
            pairs.add(Arrays.stream(perm[i]).boxed().toList());
        }
        return new CollectiveParams.Permute(pairs);
    }

    private static NDArray permute(NDArray x, List<String> axes, CollectiveParams.Permute params) {
        Objects.requireNonNull(x, "x");
        DeviceContext ctx = DeviceContext.require("ppermute", axes);
        AxisGroups g = ctx.groups(axes, "ppermute");
        int n = g.groupSize;
        Set<Integer> srcs = new HashSet<>();
        Set<Integer> dsts = new HashSet<>();
        boolean unique = true;
        for (List<Integer> p : params.pairs()) {
            if (p.size() != 2) {
                throw new IllegalArgumentException("ppermute perm entries must be (source, destination) pairs of two"
                        + " ints, got " + p);
            }
            for (int v : p) {
                if (v < 0 || v >= n) {
                    throw new IllegalArgumentException("ppermute index " + v + " in pair " + p
                            + " is out of range: axis size of " + axes + " is " + n + ", so indices must be in [0, "
                            + n + ")");
                }
            }
            unique &= srcs.add(p.get(0));
            unique &= dsts.add(p.get(1));
        }
        if (!unique) {
            throw new IllegalArgumentException("ppermute sources and destinations must be unique, got "
                    + params.pairsRepr() + ".");
        }
        NDArray[] xs = exchange(ctx, g, Collective.PPERMUTE, x, params);
        int me = g.linearIndex[ctx.flat];
        long partner = Collective.PPERMUTE.bytesPerDevice(n).of(x.nbytes());
        NDArray out = null;
        long sent = 0;
        long received = 0;
        for (List<Integer> p : params.pairs()) {
            int source = p.get(0);
            int destination = p.get(1);
            if (destination == me) {
                out = fresh(xs[source]); // the receive buffer
                received = source == me ? 0 : partner;
            }
            if (source == me && destination != me) {
                sent = partner;
            }
        }
        if (out == null) {
            out = NDArray.zeros(x.dtype(), x.shape());
        }
        record(ctx, Collective.PPERMUTE, g, x, out, sent, received, params);
        return out.withVaryingAxes(Collective.PPERMUTE.varyingAxes(x.varyingAxes(), axes, params));
    }

    // ---------------------------------------------------------------------------------------------- axis index

    /**
     * {@code jax.lax.axis_index(axes)}: this device's linear index ℓ along the axes (first name major), as an
     * int32 scalar that varies over those axes. Not a collective: nothing is recorded.
     *
     * @throws NullPointerException  if the axes or an axis name is null (the message names it)
     * @throws IllegalStateException outside a shardMap function (see the class comment)
     */
    public static NDArray axisIndex(String... axes) {
        List<String> axisList = axes(axes);
        DeviceContext ctx = DeviceContext.require("axis_index", axisList);
        AxisGroups g = ctx.groups(axisList, "axis_index");
        return NDArray.scalar(g.linearIndex[ctx.flat]).withVaryingAxes(Set.copyOf(axisList));
    }

    /**
     * {@code jax.lax.axis_size(axes)} (also {@code psum(1, axes)}): the product of the axes' sizes.
     *
     * @throws NullPointerException  if the axes or an axis name is null (the message names it)
     * @throws IllegalStateException outside a shardMap function (see the class comment)
     */
    public static int axisSize(String... axes) {
        List<String> axisList = axes(axes);
        return DeviceContext.require("axis_size", axisList).groups(axisList, "axis_size").groupSize;
    }

    // ------------------------------------------------------------------------------------------------ plumbing

    /**
     * JAX's {@code _get_from} (lax/parallel.py), run by psum, pmean and psum_scatter under check_vma: the operand
     * must be varying over all of the axes or over none of them; a sum over a mix is refused, because summing a
     * value that is equal along some of the axes would count it several times without the program saying so.
     * JAX prints the states as a Python set, whose order depends on the string hash seed; this prints them in the
     * order they first occur along the axes, which is what JAX 0.10.2 prints with {@code PYTHONHASHSEED=0}.
     * Called before the axes are validated, as in JAX (an axis the mesh does not have counts as invarying).
     *
     * @throws IllegalArgumentException (JAX: ValueError) with JAX's text when the states differ
     */
    private static void requireOneState(DeviceContext ctx, NDArray x, List<String> axes, String jaxFunction) {
        if (!ctx.checkVma || axes.size() < 2) {
            return;
        }
        Set<String> vma = x.varyingAxes();
        List<String> states = new ArrayList<>(2);
        for (String a : axes) {
            String state = vma.contains(a) ? "varying" : "invarying";
            if (!states.contains(state)) {
                states.add(state);
            }
        }
        if (states.size() > 1) {
            throw new IllegalArgumentException(jaxFunction + " can only accept axis_name which corresponds to one of"
                    + " varying, unreduced, reduced or invarying state of the input. Got input type: "
                    + ShardMapErrors.typeString(x.dtype(), x.shape()) + ShardMapErrors.vmaSuffix(ctx.mesh, vma) + ", axes: "
                    + ShardMapErrors.tupleRepr(axes) + " and input state: {'" + String.join("', '", states) + "'}");
        }
    }


    /**
     * The group size from which an all-reduce is computed once per group rather than on every member. Why not
     * always: with groups of two or three, every member reducing in parallel on the machine's cores beats one
     * device reducing while the others wait and then copying; from four on, the n-fold repeated reads cost more
     * (with 256 devices in a group, a psum on each device read all 256 operands: quadratic in the mesh). Sums
     * only: addN allocates one result as the copy does, so each device's memory in the trace is unchanged
     * (pmax and pmin chain pairwise maxima, whose intermediates the trace counts).
     */
    static final int SHARED_REDUCTION_GROUP = 4;

    /** This device's group's reduction, computed once per group with nothing observed or recorded. */
    private static NDArray reducedOnce(DeviceContext ctx, AxisGroups g, Collective kind, NDArray x,
                                       Function<NDArray[], NDArray> reduce) {
        ctx.beginCollective(x);
        int step = ctx.nextStep();
        Exchange.Signature signature = new Exchange.Signature(kind, g.axes, x.dtype(), x.shape(), NONE);
        Exchange.Arrival arrival = ctx.exchange.exchange(ctx.flat, step, new Exchange.Post(signature, x), posts -> {
            NDArray[] byLeader = new NDArray[posts.length];
            // Not this device's work: its observer (trace, memory) and tape see none of it.
            try (var quiet = OpObservers.install(null); var noTape = GradRecorders.install(null)) {
                for (int d = 0; d < posts.length; d++) {
                    int[] members = g.members[d];
                    if (members[0] == d) {
                        NDArray[] xs = new NDArray[members.length];
                        for (int l = 0; l < members.length; l++) {
                            xs[l] = posts[members[l]].operand();
                        }
                        byLeader[d] = reduce.apply(xs);
                    }
                }
            }
            return byLeader;
        });
        return ((NDArray[]) arrival.combined())[g.members[ctx.flat][0]];
    }

    private static NDArray[] exchange(DeviceContext ctx, AxisGroups g, Collective kind, NDArray x,
                                      CollectiveParams params) {
        ctx.beginCollective(x);
        int step = ctx.nextStep();
        Exchange.Signature signature = new Exchange.Signature(kind, g.axes, x.dtype(), x.shape(), params);
        Exchange.Post[] posts = ctx.exchange.exchange(ctx.flat, step, new Exchange.Post(signature, x));
        int[] members = g.members[ctx.flat];
        NDArray[] xs = new NDArray[members.length];
        for (int l = 0; l < members.length; l++) {
            xs[l] = posts[members[l]].operand();
        }
        return xs;
    }

    private static void record(DeviceContext ctx, Collective kind, AxisGroups g, NDArray in, NDArray out,
                               long sent, long received, CollectiveParams params) {
        ctx.record(() -> new TraceEvent.CollectiveEvent(kind, g.axes, g.groupSize, in.dtype(),
                boxed(in.shape()), boxed(out.shape()), sent, received, params, ctx.collectiveId(),
                ctx.collectiveInput()));
    }

    /** A copy with its own buffer (values, including -0.0 and NaN, unchanged). */
    private static NDArray fresh(NDArray x) {
        return x.dtype().isFloating() ? x.mul(1.0f) : x.dtype() == DType.BOOL ? NDArray.addN(List.of(x)) : x.add(0);
    }

    /** A dimension in [−rank, rank) as one in [0, rank); numpy's and all_gather's text otherwise. */
    private static int normalise(int dim, int rank) {
        int d = dim < 0 ? dim + rank : dim;
        if (d < 0 || d >= rank) {
            throw new IllegalArgumentException("axis " + dim + " is out of bounds for array of dimension " + rank);
        }
        return d;
    }

    /** The axes as an immutable list, checked at the API boundary. */
    private static List<String> axes(String[] axes) {
        Objects.requireNonNull(axes, "axes");
        for (int i = 0; i < axes.length; i++) {
            Objects.requireNonNull(axes[i], "axes[" + i + "]");
        }
        return List.of(axes);
    }

    private static List<String> axes(List<String> axes) {
        Objects.requireNonNull(axes, "axes");
        for (int i = 0; i < axes.size(); i++) {
            Objects.requireNonNull(axes.get(i), "axes[" + i + "]");
        }
        return List.copyOf(axes);
    }

    private static List<String> axis(String axis) {
        return List.of(Objects.requireNonNull(axis, "axis"));
    }

    private static List<Integer> boxed(int[] shape) {
        return Arrays.stream(shape).boxed().toList();
    }
}
