package dev.shardlings.spmd;

import dev.shardlings.array.NDArray;
import dev.shardlings.primitive.ManualRegion;
import dev.shardlings.array.OpObserver;
import dev.shardlings.array.OpObservers;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.PartitionSpec;
import dev.shardlings.events.DeviceTrace;
import dev.shardlings.events.Origin;
import dev.shardlings.events.ShardMapTrace;
import dev.shardlings.events.Tracing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BinaryOperator;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * {@code shardMap}: run a function once per device of a mesh, each on its own blocks, with explicit
 * communication through {@link Collectives} — the analogue of {@code jax.shard_map}.
 *
 * <pre>{@code
 * // A f32[S_X, D_Y] on a mesh (X, Y); every device averages its own block: out f32[X, Y].
 * ShardedArray out = shardMap(block -> block.mean(KeepDims.KEEP), mesh, P("X", "Y"), P("X", "Y")).apply(a);
 * }</pre>
 *
 * <h2>Semantics (jax-semantics.md §5)</h2>
 * <ul>
 *   <li><b>in_specs</b>: argument k is split by {@code NamedSharding(mesh, inSpecs[k])}; a device receives its
 *       block, of shape global / parts per dimension. Axes the spec does not mention replicate the argument.
 *       Arguments are {@link ShardedArray}s ({@link #call(List)}); one whose sharding differs is first re-laid
 *       out by the spec. Whole {@link NDArray}s go through {@link #callOnWhole(List)}, which lays them out first
 *       ({@code jax.device_put}).</li>
 *   <li><b>out_specs</b>: a device's output block is its shard of the global result under
 *       {@code NamedSharding(mesh, outSpec)}; the global shape is local × parts per dimension. Leaving a mesh axis
 *       out of an out spec promises the blocks are equal along it.</li>
 *   <li><b>check_vma</b> (on by default): every value carries the set of mesh axes it may vary over
 *       ({@link NDArray#varyingAxes()}): inputs vary over the axes their spec mentions, collectives add or remove
 *       axes as JAX's do. An output that may vary over an axis its out spec leaves out is an error naming the axis.
 *       {@link #checkVma(boolean) checkVma(false)} turns the check off; a broken promise then yields, like JAX,
 *       the block of the device at coordinate 0 along the axes left out.</li>
 *   <li>Devices run concurrently, one thread each. Collectives sum in a fixed (device) order, so results never
 *       depend on thread timing.</li>
 * </ul>
 *
 * <h2>Failure</h2>
 * <ul>
 *   <li>A spec that names an unknown axis (when the shardMap is built), as many arguments as there are in specs
 *       or not, a spec longer than its argument's rank or one that does not divide a dimension (before any
 *       device runs): {@link IllegalArgumentException} with JAX's text. As in JAX, every argument that fails a
 *       check is listed, one paragraph each.</li>
 *   <li>The function throws on a device: {@link DeviceFailureException} naming the device id and mesh
 *       coordinates, with the device's exception as cause (the first device in mesh order that threw).</li>
 *   <li>Devices call different collectives at the same step, or some wait in a collective while another has
 *       returned or failed: {@link CollectiveMismatchException} listing what every device was doing — raised as
 *       soon as the mismatch is visible, never a hang. Devices that wait longer than the collective time limit
 *       (default {@value #DEFAULT_TIMEOUT_SECONDS} s, {@link #collectiveTimeout(Duration)}) fail the same way.</li>
 *   <li>The function returns another number of outputs than there are out specs, an out spec longer than its
 *       output's rank, or (check_vma) an output that varies over an axis its out spec leaves out:
 *       {@link IllegalArgumentException} with JAX's text, listing every output that fails.</li>
 *   <li>The function returns null, or devices return different numbers of outputs or blocks whose shapes or
 *       dtypes differ (which a traced JAX function cannot): {@link IllegalStateException} naming the devices.</li>
 *   <li>shardMap inside a shardMap function: {@link IllegalStateException}.</li>
 * </ul>
 * The call returns only after every device thread has finished the function.
 *
 * <p>Tracing: when the calling thread is recording ({@link Tracing#record}), each call adds a
 * {@link ShardMapTrace} with every device's collectives, matmuls and largest allocation.
 *
 * <p>Instances are immutable and may be applied from several threads at once.
 *
 * <p>This class is the API and its configuration; the work is split by job: {@link BlockLayout} lays arguments
 * out and assembles outputs, {@link DeviceLauncher} runs the devices and collects their failures, and
 * {@link ShardMapErrors} holds the checks with their (JAX's) texts.
 */
public final class ShardMap {

    /** Default limit, in seconds, on how long devices wait for each other in one collective. */
    public static final long DEFAULT_TIMEOUT_SECONDS = 30;

    /** A function of several blocks returning several blocks, for shardMap calls with any number of arguments. */
    @FunctionalInterface
    public interface DeviceFunction {
        /** Computes this device's output blocks (one per out spec) from its input blocks (one per in spec). */
        List<NDArray> apply(List<NDArray> blocks);
    }

    /** Laying out arguments and assembling outputs on the host is not the devices' work: it is not traced. */
    /** Laid out or assembled by the runtime during the call: not the devices' work, but ids for provenance. */
    private static final OpObserver SILENT = OpObservers.idsOnly();

    private final DeviceFunction fn;
    private final BlockLayout layout;
    private final boolean checkVma;
    private final String name;
    private final Duration timeout;
    /** Axis groups by axes, shared by this map's calls and copies (a mesh's groups never change). */
    private final Map<List<String>, AxisGroups> groups;
    /** Who wrote the per-device program: a hand-written shardMap, or the framework for jit / a global-view op. */
    private final Origin origin;

    private ShardMap(DeviceFunction fn, BlockLayout layout, boolean checkVma, String name, Duration timeout,
                     Map<List<String>, AxisGroups> groups) {
        this(fn, layout, checkVma, name, timeout, groups, Origin.SHARD_MAP);
    }

    private ShardMap(DeviceFunction fn, BlockLayout layout, boolean checkVma, String name, Duration timeout,
                     Map<List<String>, AxisGroups> groups, Origin origin) {
        this.fn = fn;
        this.layout = layout;
        this.checkVma = checkVma;
        this.name = name;
        this.timeout = timeout;
        this.groups = groups;
        this.origin = origin;
    }

    /** A copy recorded in the trace as run by {@code origin} (the framework's own programs). */
    ShardMap origin(Origin o) {
        return new ShardMap(fn, layout, checkVma, name, timeout, groups, o);
    }

    /**
     * Maps a function of several blocks over the mesh ({@code jax.shard_map(fn, mesh=mesh, in_specs=inSpecs,
     * out_specs=outSpecs)}).
     *
     * @param fn       called once per device with that device's blocks; returns one block per out spec
     * @param mesh     the devices
     * @param inSpecs  one spec per argument
     * @param outSpecs one spec per output
     * @throws NullPointerException     if an argument or a spec is null (the message names it)
     * @throws IllegalArgumentException if a spec names an axis the mesh does not have, or names an axis twice
     *                                  (JAX's texts)
     */
    public static ShardMap shardMap(DeviceFunction fn, Mesh mesh, List<PartitionSpec> inSpecs,
                                    List<PartitionSpec> outSpecs) {
        Objects.requireNonNull(fn, "fn");
        Objects.requireNonNull(mesh, "mesh");
        List<PartitionSpec> in = specs(inSpecs, "inSpecs");
        List<PartitionSpec> out = specs(outSpecs, "outSpecs");
        return create(fn, mesh, in, true, out, true);
    }

    private static ShardMap create(DeviceFunction fn, Mesh mesh, List<PartitionSpec> in, boolean inAsList,
                                   List<PartitionSpec> out, boolean outAsList) {
        return new ShardMap(fn, new BlockLayout(mesh, in, inAsList, out, outAsList), true, "<lambda>",
                Duration.ofSeconds(DEFAULT_TIMEOUT_SECONDS), new ConcurrentHashMap<>());
    }

    private static List<PartitionSpec> specs(List<PartitionSpec> specs, String param) {
        Objects.requireNonNull(specs, param);
        for (int i = 0; i < specs.size(); i++) {
            Objects.requireNonNull(specs.get(i), param + "[" + i + "]");
        }
        return List.copyOf(specs);
    }

    /**
     * Maps a function of one block: {@code shardMap(f, mesh, P("X", "Y"), P("X", "Y")).apply(a)}.
     *
     * @throws NullPointerException     if an argument is null (the message names it)
     * @throws IllegalArgumentException as {@link #shardMap(DeviceFunction, Mesh, List, List)}
     */
    public static Unary shardMap(UnaryOperator<NDArray> f, Mesh mesh, PartitionSpec inSpec, PartitionSpec outSpec) {
        Objects.requireNonNull(f, "f");
        Objects.requireNonNull(mesh, "mesh");
        // One spec each, as jax.shard_map(f, in_specs=P(...), out_specs=P(...)) (no tuple: messages say in_specs).
        return new Unary(create(blocks -> List.of(ShardMapErrors.checkSingleResult(f.apply(blocks.get(0)))), mesh,
                List.of(Objects.requireNonNull(inSpec, "inSpec")), false,
                List.of(Objects.requireNonNull(outSpec, "outSpec")), false));
    }

    /**
     * Maps a function of two blocks: {@code shardMap((a, b) -> a.matmul(b), mesh, P("X", null), P(null, "Y"),
     * P("X", "Y")).apply(a, b)}.
     *
     * @throws NullPointerException     if an argument is null (the message names it)
     * @throws IllegalArgumentException as {@link #shardMap(DeviceFunction, Mesh, List, List)}
     */
    public static Binary shardMap(BinaryOperator<NDArray> f, Mesh mesh, PartitionSpec inSpec1,
                                  PartitionSpec inSpec2, PartitionSpec outSpec) {
        Objects.requireNonNull(f, "f");
        Objects.requireNonNull(mesh, "mesh");
        // As jax.shard_map(f, in_specs=(P(...), P(...)), out_specs=P(...)).
        return new Binary(create(blocks -> List.of(ShardMapErrors.checkSingleResult(f.apply(blocks.get(0),
                        blocks.get(1)))), mesh,
                List.of(Objects.requireNonNull(inSpec1, "inSpec1"), Objects.requireNonNull(inSpec2, "inSpec2")), true,
                List.of(Objects.requireNonNull(outSpec, "outSpec")), false));
    }

    /** A copy with JAX's {@code check_vma} switched on or off (on by default). */
    public ShardMap checkVma(boolean on) {
        return new ShardMap(fn, layout, on, name, timeout, groups, origin);
    }

    /**
     * A copy whose messages call the function {@code functionName}, where JAX prints the Python function's
     * {@code __name__}. By default a function is called {@code <lambda>}, which is what JAX prints for a Python
     * lambda (a Java lambda or method reference has no name to print).
     *
     * @throws NullPointerException if functionName is null
     */
    public ShardMap named(String functionName) {
        return new ShardMap(fn, layout, checkVma, Objects.requireNonNull(functionName, "functionName"), timeout,
                groups, origin);
    }

    /**
     * A copy whose devices wait at most {@code limit} for each other in one collective before the run fails with
     * {@link CollectiveMismatchException} (default {@value #DEFAULT_TIMEOUT_SECONDS} s).
     *
     * @throws NullPointerException     if limit is null
     * @throws IllegalArgumentException if the limit is not positive
     */
    public ShardMap collectiveTimeout(Duration limit) {
        Objects.requireNonNull(limit, "limit");
        if (limit.isNegative() || limit.isZero()) {
            throw new IllegalArgumentException("collective timeout must be a positive duration, got " + limit);
        }
        return new ShardMap(fn, layout, checkVma, name, limit, groups, origin);
    }

    /**
     * Runs the function on every device and assembles the outputs. An argument already laid out by its in spec on
     * this mesh is used as is; any other is first re-laid out by the spec (gathered, then split), as JAX reshards
     * an argument over Auto mesh axes.
     *
     * @param args one per in spec
     * @return one global array per out spec
     * @throws NullPointerException        if args or an argument is null (the message names it, e.g. args[1])
     * @throws IllegalArgumentException    for a wrong number of arguments or outputs, a spec that does not fit an
     *                                     argument or output, or check_vma's error (JAX's texts)
     * @throws DeviceFailureException      if the function threw on a device
     * @throws CollectiveMismatchException if the devices' collectives did not line up
     * @throws IllegalStateException       for a null output, outputs that differ between devices, or a nested
     *                                     shardMap
     */
    public List<ShardedArray> call(List<ShardedArray> args) {
        List<ShardedArray> a = checkArgs(args);
        if (a.stream().anyMatch(ShardedArray::isTraced)) {
            return stage(a);
        }
        return run(a.size(), () -> layout.argumentBlocks(name, a), true);
    }

    /**
     * This shardMap called on traced values inside {@code jit}: recorded as one {@link ManualRegion} equation
     * (JAX's shard_map inside jit). Its result's shape is found by running the function once, untraced, on zero
     * blocks of the arguments' shapes — which also raises here, while tracing, every error a real call would raise
     * (wrong specs, check_vma). A shardMap of several outputs is one region with one result per out spec: the
     * function runs once per device and call, not once per result.
     */
    private List<ShardedArray> stage(List<ShardedArray> args) {
        Staging.Binder binder = Staging.current();
        if (binder == null) {
            throw new IllegalStateException("shardMap " + name + " got a traced value outside the jit trace that"
                    + " made it; return the value from the jitted function instead of keeping it");
        }
        for (int k = 0; k < args.size(); k++) {
            if (!args.get(k).mesh().sameDevicesAs(layout.mesh)) {
                throw new IllegalArgumentException("shardMap " + name + ": args[" + k + "] lives on "
                        + args.get(k).mesh() + ", not on the shardMap's " + layout.mesh);
            }
        }
        List<NDArray> zeros;
        try (OpObservers.Scope ignored = OpObservers.install(SILENT)) {
            zeros = args.stream().map(x -> NDArray.zeros(x.dtype(), x.shape())).toList();
        }
        List<ShardedArray> shaped = run(args.size(), () -> layout.wholeArgumentBlocks(name, zeros), false);
        DeviceFunction body = fn;
        ManualRegion region = new ManualRegion(name, layout.inSpecs, layout.outSpecs, body::apply,
                shaped.stream().map(s -> new dev.shardlings.primitive.Primitive.Shaped(s.dtype(),
                        java.util.Arrays.stream(s.shape()).boxed().toList())).toList());
        return binder.bindRegion(region, new ArrayList<>(args));
    }

    /**
     * {@link #call(List)} with the arguments written out: {@code call(a, w, b)}.
     *
     * @throws NullPointerException as {@link #call(List)}
     */
    public List<ShardedArray> call(ShardedArray... args) {
        return call(Arrays.asList(Objects.requireNonNull(args, "args")));
    }

    /**
     * Runs the function on whole arrays: each argument is first laid out by its in spec
     * ({@code jax.device_put(x, NamedSharding(mesh, spec))}), then as {@link #call(List)}.
     *
     * @param args one whole array per in spec
     * @throws NullPointerException as {@link #call(List)}
     */
    public List<ShardedArray> callOnWhole(List<NDArray> args) {
        List<NDArray> a = checkArgs(args);
        return run(a.size(), () -> layout.wholeArgumentBlocks(name, a), true);
    }

    /** A copy of the arguments, none null; and no shardMap call may be nested, nor miscount its arguments. */
    private <T> List<T> checkArgs(List<T> args) {
        Objects.requireNonNull(args, "args");
        for (int i = 0; i < args.size(); i++) {
            Objects.requireNonNull(args.get(i), "args[" + i + "]");
        }
        ShardMapErrors.checkNotNested();
        ShardMapErrors.checkCount("in_specs", layout.inSpecs.size(), args.size());
        return List.copyOf(args);
    }

    /**
     * {@link #callOnWhole(List)} with the arguments written out: {@code callOnWhole(x, w, b)}.
     *
     * @throws NullPointerException as {@link #call(List)}
     */
    public List<ShardedArray> callOnWhole(NDArray... args) {
        return callOnWhole(Arrays.asList(Objects.requireNonNull(args, "args")));
    }

    /** Lays the arguments out, runs the devices, assembles the outputs and reports the trace. */
    @SuppressWarnings("try") // the observer scopes are used for their close(), not read
    private List<ShardedArray> run(int argc, Supplier<List<List<NDArray>>> layOut, boolean traced) {
        int n = layout.mesh.size();
        List<List<NDArray>> perDevice = new ArrayList<>(n);
        for (int d = 0; d < n; d++) {
            perDevice.add(new ArrayList<>(argc));
        }
        try (OpObservers.Scope ignored = OpObservers.install(SILENT)) {
            for (List<NDArray> blocks : layOut.get()) {
                for (int d = 0; d < n; d++) {
                    perDevice.get(d).add(blocks.get(d));
                }
            }
        }
        boolean tracing = traced && Tracing.isRecording();
        DeviceLauncher.Run run = DeviceLauncher.launch(fn, name, layout.mesh,
                perDevice.stream().map(List::copyOf).toList(), timeout.toNanos(), groups, tracing, checkVma);
        List<ShardedArray> result;
        try (OpObservers.Scope ignored = OpObservers.install(SILENT)) {
            result = layout.assemble(name, checkVma, run.outputs());
        }
        if (tracing) {
            List<DeviceTrace> traces = Arrays.stream(run.contexts()).map(DeviceContext::toTrace).toList();
            // Reported from here: Tracing accepts reports from this class only.
            Tracing.report(new ShardMapTrace(name, layout.mesh, layout.inSpecs, layout.outSpecs, traces, origin));
        }
        return result;
    }

    /** A shardMap of one argument and one output. Immutable. */
    public static final class Unary implements java.util.function.Function<ShardedArray, ShardedArray> {
        private final ShardMap map;

        Unary(ShardMap map) {
            this.map = map;
        }

        /**
         * Runs the map on a sharded argument.
         *
         * @throws NullPointerException if x is null
         * @see ShardMap#call(List)
         */
        @Override
        public ShardedArray apply(ShardedArray x) {
            return map.call(List.of(Objects.requireNonNull(x, "x"))).get(0);
        }

        /**
         * Runs the map on a whole array, first laid out by the in spec.
         *
         * @throws NullPointerException if x is null
         * @see ShardMap#callOnWhole(List)
         */
        public ShardedArray apply(NDArray x) {
            return map.callOnWhole(List.of(Objects.requireNonNull(x, "x"))).get(0);
        }

        /** @see ShardMap#checkVma(boolean) */
        public Unary checkVma(boolean on) {
            return new Unary(map.checkVma(on));
        }

        /** @see ShardMap#named(String) */
        public Unary named(String functionName) {
            return new Unary(map.named(functionName));
        }

        /** @see ShardMap#collectiveTimeout(Duration) */
        public Unary collectiveTimeout(Duration limit) {
            return new Unary(map.collectiveTimeout(limit));
        }
    }

    /** A shardMap of two arguments and one output. Immutable. */
    public static final class Binary implements java.util.function.BiFunction<ShardedArray, ShardedArray, ShardedArray> {
        private final ShardMap map;

        Binary(ShardMap map) {
            this.map = map;
        }

        /**
         * Runs the map.
         *
         * @throws NullPointerException if a or b is null
         * @see ShardMap#call(List)
         */
        @Override
        public ShardedArray apply(ShardedArray a, ShardedArray b) {
            return map.call(List.of(Objects.requireNonNull(a, "a"), Objects.requireNonNull(b, "b"))).get(0);
        }

        /** @see ShardMap#checkVma(boolean) */
        public Binary checkVma(boolean on) {
            return new Binary(map.checkVma(on));
        }

        /** @see ShardMap#named(String) */
        public Binary named(String functionName) {
            return new Binary(map.named(functionName));
        }

        /** @see ShardMap#collectiveTimeout(Duration) */
        public Binary collectiveTimeout(Duration limit) {
            return new Binary(map.collectiveTimeout(limit));
        }
    }
}
