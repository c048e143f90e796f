package dev.shardlings.spmd;

import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.array.OpObserver;
import dev.shardlings.array.OpObservers;
import dev.shardlings.sharding.Device;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.NamedSharding;
import dev.shardlings.sharding.PartitionSpec;
import dev.shardlings.trace.DeviceTrace;
import dev.shardlings.trace.ShardMapTrace;
import dev.shardlings.trace.Tracing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BinaryOperator;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;

/**
 * {@code shardMap}: run a function once per device of a mesh, each on its own blocks, with explicit
 * communication through {@link Collectives} — the analogue of {@code jax.shard_map}.
 *
 * <pre>{@code
 * // A f32[S_X, D_Y] on a mesh (X, Y); every device averages its own block: out f32[X, Y].
 * ShardedArray out = shardMap(block -> block.mean(true), mesh, P("X", "Y"), P("X", "Y")).apply(a);
 * }</pre>
 *
 * <h2>Semantics (jax-semantics.md §5)</h2>
 * <ul>
 *   <li><b>in_specs</b>: argument k is split by {@code NamedSharding(mesh, inSpecs[k])}; a device receives its
 *       block, of shape global / parts per dimension. Axes the spec does not mention replicate the argument.
 *       A {@link ShardedArray} whose spec differs, or a plain {@link NDArray}, is first laid out by the spec.</li>
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
 *   <li>A spec that names an unknown axis, is longer than its value's rank, or does not divide a dimension:
 *       {@link IllegalArgumentException} with JAX's text, before any device runs.</li>
 *   <li>The function throws on a device: {@link DeviceFailureException} naming the device id and mesh
 *       coordinates, with the device's exception as cause (the first device in mesh order that threw).</li>
 *   <li>Devices call different collectives at the same step, or some wait in a collective while another has
 *       returned or failed: {@link CollectiveMismatchException} listing what every device was doing — raised as
 *       soon as the mismatch is visible, never a hang. Devices that wait longer than the collective time limit
 *       (default {@value #DEFAULT_TIMEOUT_SECONDS} s, {@link #collectiveTimeout(Duration)}) fail the same way.</li>
 *   <li>The function returns null, the wrong number of outputs, or blocks whose shapes or dtypes differ between
 *       devices: {@link IllegalStateException} naming the devices.</li>
 *   <li>shardMap inside a shardMap function: {@link IllegalStateException}.</li>
 * </ul>
 * The call returns only after every device thread has finished the function.
 *
 * <p>Tracing: when the calling thread is recording ({@link Tracing#record}), each call adds a
 * {@link ShardMapTrace} with every device's collectives, matmuls and largest allocation.
 *
 * <p>Instances are immutable and may be applied from several threads at once.
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

    private static final OpObserver SILENT = new OpObserver() {
        @Override
        public void allocated(DType dtype, int[] shape, long bytes) {
        }

        @Override
        public void matmul(int m, int k, int n, DType dtype) {
        }
    };

    private final DeviceFunction fn;
    private final Mesh mesh;
    private final List<PartitionSpec> inSpecs;
    private final List<PartitionSpec> outSpecs;
    private final boolean checkVma;
    private final String name;
    private final Duration timeout;
    /** Axis groups by axes, shared by this map's calls (a mesh's groups never change). */
    private final Map<List<String>, AxisGroups> groups = new ConcurrentHashMap<>();
    /** Per out spec, its sharding (which caches layouts by shape) and mentioned axes: the same on every call. */
    private final NamedSharding[] outShardings;
    private final List<Set<String>> outMentioned;
    /** Per in spec, the axes its blocks vary over. */
    private final List<Set<String>> inMentioned;

    private ShardMap(DeviceFunction fn, Mesh mesh, List<PartitionSpec> inSpecs, List<PartitionSpec> outSpecs,
                     boolean checkVma, String name, Duration timeout) {
        this.fn = fn;
        this.mesh = mesh;
        this.inSpecs = inSpecs;
        this.outSpecs = outSpecs;
        this.checkVma = checkVma;
        this.name = name;
        this.timeout = timeout;
        this.outShardings = outSpecs.stream().map(sp -> new NamedSharding(mesh, sp)).toArray(NamedSharding[]::new);
        this.outMentioned = outSpecs.stream().map(sp -> Set.copyOf(sp.mentionedAxes())).toList();
        this.inMentioned = inSpecs.stream().map(sp -> Set.copyOf(sp.mentionedAxes())).toList();
    }

    /**
     * Maps a function of several blocks over the mesh.
     *
     * @param fn       called once per device with that device's blocks; returns one block per out spec
     * @param mesh     the devices
     * @param inSpecs  one spec per argument
     * @param outSpecs one spec per output
     * @throws NullPointerException     if an argument or a spec is null
     * @throws IllegalArgumentException if a spec names an axis the mesh does not have, or names an axis twice
     */
    public static ShardMap shardMap(DeviceFunction fn, Mesh mesh, List<PartitionSpec> inSpecs,
                                    List<PartitionSpec> outSpecs) {
        Objects.requireNonNull(fn, "fn");
        Objects.requireNonNull(mesh, "mesh");
        List<PartitionSpec> in = List.copyOf(Objects.requireNonNull(inSpecs, "inSpecs"));
        List<PartitionSpec> out = List.copyOf(Objects.requireNonNull(outSpecs, "outSpecs"));
        for (PartitionSpec s : in) {
            validateSpec(mesh, s, "in_specs");
        }
        for (PartitionSpec s : out) {
            validateSpec(mesh, s, "out_specs");
        }
        return new ShardMap(fn, mesh, in, out, true, "<lambda>", Duration.ofSeconds(DEFAULT_TIMEOUT_SECONDS));
    }

    /**
     * Maps a function of one block: {@code shardMap(f, mesh, P("X", "Y"), P("X", "Y")).apply(a)}.
     *
     * @see #shardMap(DeviceFunction, Mesh, List, List)
     */
    public static Unary shardMap(UnaryOperator<NDArray> f, Mesh mesh, PartitionSpec inSpec, PartitionSpec outSpec) {
        Objects.requireNonNull(f, "f");
        return new Unary(shardMap(blocks -> List.of(nonNull(f.apply(blocks.get(0)))), mesh,
                List.of(Objects.requireNonNull(inSpec, "inSpec")), List.of(Objects.requireNonNull(outSpec, "outSpec"))));
    }

    /**
     * Maps a function of two blocks: {@code shardMap((a, b) -> a.matmul(b), mesh, P("X", null), P(null, "Y"),
     * P("X", "Y")).apply(a, b)}.
     *
     * @see #shardMap(DeviceFunction, Mesh, List, List)
     */
    public static Binary shardMap(BinaryOperator<NDArray> f, Mesh mesh, PartitionSpec inSpec1,
                                  PartitionSpec inSpec2, PartitionSpec outSpec) {
        Objects.requireNonNull(f, "f");
        return new Binary(shardMap(blocks -> List.of(nonNull(f.apply(blocks.get(0), blocks.get(1)))), mesh,
                List.of(Objects.requireNonNull(inSpec1, "inSpec1"), Objects.requireNonNull(inSpec2, "inSpec2")),
                List.of(Objects.requireNonNull(outSpec, "outSpec"))));
    }

    private static NDArray nonNull(NDArray x) {
        if (x == null) {
            throw new IllegalStateException("the function passed to shardMap returned null; it must return the"
                    + " device's output block as an NDArray");
        }
        return x;
    }

    /** A copy with JAX's {@code check_vma} switched on or off (on by default). */
    public ShardMap checkVma(boolean on) {
        return new ShardMap(fn, mesh, inSpecs, outSpecs, on, name, timeout);
    }

    /** A copy whose messages call the function {@code name} (JAX uses the Python function's name). */
    public ShardMap named(String functionName) {
        return new ShardMap(fn, mesh, inSpecs, outSpecs, checkVma, Objects.requireNonNull(functionName), timeout);
    }

    /**
     * A copy whose devices wait at most {@code limit} for each other in one collective before the run fails with
     * {@link CollectiveMismatchException}.
     *
     * @throws IllegalArgumentException if the limit is not positive
     */
    public ShardMap collectiveTimeout(Duration limit) {
        if (limit == null || limit.isNegative() || limit.isZero()) {
            throw new IllegalArgumentException("collective timeout must be a positive duration, got " + limit);
        }
        return new ShardMap(fn, mesh, inSpecs, outSpecs, checkVma, name, limit);
    }

    /** The mesh. */
    public Mesh mesh() {
        return mesh;
    }

    /** The in specs. */
    public List<PartitionSpec> inSpecs() {
        return inSpecs;
    }

    /** The out specs. */
    public List<PartitionSpec> outSpecs() {
        return outSpecs;
    }

    /**
     * Runs the function on every device and assembles the outputs.
     *
     * @param args one per in spec: a {@link ShardedArray} (used as is when its sharding matches the spec, else
     *             re-laid out) or a whole {@link NDArray}
     * @return one global array per out spec
     * @throws IllegalArgumentException    for a wrong number or type of arguments, or a spec that does not fit an
     *                                     argument or output (JAX's messages)
     * @throws DeviceFailureException      if the function threw on a device
     * @throws CollectiveMismatchException if the devices' collectives did not line up
     * @throws IllegalStateException       for a null or inconsistent output, or a nested shardMap
     */
    public List<ShardedArray> call(Object... args) {
        Objects.requireNonNull(args, "args");
        if (DeviceContext.current() != null) {
            throw new IllegalStateException("shardMap was called inside another shardMap's function. Nesting is not"
                    + " supported: use collectives inside the outer function instead.");
        }
        if (args.length != inSpecs.size()) {
            throw new IllegalArgumentException("shard_map applied to the function '" + name + "' got " + args.length
                    + " argument(s) but in_specs has " + inSpecs.size() + " entries; give one in spec per argument.");
        }
        int n = mesh.size();
        List<List<NDArray>> perDevice = new ArrayList<>();
        for (int d = 0; d < n; d++) {
            perDevice.add(new ArrayList<>());
        }
        try (OpObservers.Scope ignored = OpObservers.install(SILENT)) {
            for (int i = 0; i < args.length; i++) {
                List<NDArray> blocks = blocksFor(i, args[i]);
                for (int d = 0; d < n; d++) {
                    perDevice.get(d).add(blocks.get(d));
                }
            }
        }
        Exchange exchange = new Exchange(mesh, timeout.toNanos());
        boolean tracing = Tracing.isRecording();
        DeviceContext[] contexts = new DeviceContext[n];
        @SuppressWarnings("unchecked")
        List<NDArray>[] results = new List[n];
        Throwable[] failures = new Throwable[n];
        Thread[] threads = new Thread[n];
        AtomicInteger running = new AtomicInteger(n);
        Thread caller = Thread.currentThread();
        Runnable[] tasks = new Runnable[n];
        for (int d = 0; d < n; d++) {
            DeviceContext ctx = new DeviceContext(mesh, d, exchange, groups, tracing, checkVma);
            contexts[d] = ctx;
            List<NDArray> myArgs = List.copyOf(perDevice.get(d));
            int device = d;
            tasks[d] = () -> {
                try {
                    results[device] = runDevice(ctx, myArgs);
                } catch (Throwable t) {
                    failures[device] = t;
                } finally {
                    // The decrement publishes this device's result to the caller (happens-before).
                    if (running.decrementAndGet() == 0 && Thread.currentThread() != caller) {
                        LockSupport.unpark(caller);
                    }
                }
            };
        }
        // The calling thread runs device 0 itself, which saves a hand-off each way.
        threads[0] = caller;
        for (int d = 1; d < n; d++) {
            threads[d] = DeviceThreads.start(tasks[d]);
        }
        tasks[0].run();
        try {
            DeviceThreads.await(() -> running.get() == 0, DeviceThreads.NO_DEADLINE);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            for (int d = 1; d < n; d++) {
                threads[d].interrupt();
            }
            throw new IllegalStateException("interrupted while waiting for the devices of shardMap", e);
        }
        List<List<NDArray>> outputs = Arrays.asList(results);
        raiseFailures(exchange, failures);
        List<ShardedArray> result;
        try (OpObservers.Scope ignored = OpObservers.install(SILENT)) {
            result = assemble(outputs);
        }
        if (tracing) {
            List<DeviceTrace> traces = Arrays.stream(contexts).map(DeviceContext::toTrace).toList();
            Tracing.report(new ShardMapTrace(name, mesh, inSpecs, outSpecs, traces));
        }
        return result;
    }

    private List<NDArray> runDevice(DeviceContext ctx, List<NDArray> args) {
        ctx.bind();
        try (OpObservers.Scope ignored = OpObservers.install(ctx)) {
            List<NDArray> out;
            try {
                out = fn.apply(args);
                if (out == null) {
                    throw new IllegalStateException("the function passed to shardMap returned null instead of a"
                            + " list of output blocks");
                }
                for (int j = 0; j < out.size(); j++) {
                    if (out.get(j) == null) {
                        throw new IllegalStateException("the function passed to shardMap returned null as output "
                                + j + "; every output must be an NDArray block");
                    }
                }
                out = List.copyOf(out);
            } catch (Exchange.Aborted a) {
                throw a;
            } catch (Throwable t) {
                ctx.exchange.failed(ctx.flat, t);
                throw t;
            }
            ctx.exchange.returned(ctx.flat, ctx.steps());
            return out;
        } finally {
            DeviceContext.unbind();
        }
    }

    private void raiseFailures(Exchange exchange, Throwable[] failures) {
        int first = -1;
        int own = 0;
        for (int d = 0; d < failures.length; d++) {
            Throwable t = failures[d];
            if (t != null && !(t instanceof Exchange.Aborted)) {
                own++;
                if (first < 0) {
                    first = d;
                }
            }
        }
        SpmdException abort = exchange.abortCause();
        if (abort instanceof CollectiveMismatchException m) {
            throw m;
        }
        if (first >= 0) {
            Device dev = mesh.devices().get(first);
            Throwable cause = failures[first];
            String more = own > 1 ? " (and on " + (own - 1) + " other device(s))" : "";
            throw new DeviceFailureException("shard_map function '" + name + "' failed on device " + dev.id()
                    + " at mesh coordinates " + Exchange.coordsText(mesh, dev) + more + ": "
                    + cause.getClass().getSimpleName() + (cause.getMessage() == null ? "" : ": " + cause.getMessage()),
                    dev, own - 1, cause);
        }
        if (abort != null) {
            throw abort;
        }
    }

    private static void validateSpec(Mesh mesh, PartitionSpec spec, String which) {
        Objects.requireNonNull(spec, which + " entry");
        for (String axis : spec.mentionedAxes()) {
            if (!mesh.hasAxis(axis)) {
                throw new IllegalArgumentException("shard_map " + which + " argument must refer to an axis marked as"
                        + " manual (" + frozenset(mesh.axisNames()) + "), but:\n\n  " + which + " refers to '" + axis
                        + "'\n\nCheck the " + which + " values passed to shard_map.");
            }
        }
        spec.validate(mesh); // duplicate axes: JAX's DuplicateSpecError text
    }

    private List<NDArray> blocksFor(int i, Object arg) {
        PartitionSpec spec = inSpecs.get(i);
        ShardedArray sharded;
        NDArray whole;
        if (arg instanceof ShardedArray s) {
            sharded = s;
            whole = null;
        } else if (arg instanceof NDArray a) {
            sharded = null;
            whole = a;
        } else if (arg == null) {
            throw new IllegalArgumentException("shard_map applied to the function '" + name + "' got null as args["
                    + i + "]; pass a ShardedArray or an NDArray");
        } else {
            throw new IllegalArgumentException("shard_map applied to the function '" + name + "' got a "
                    + arg.getClass().getName() + " as args[" + i + "]; pass a ShardedArray or an NDArray");
        }
        int[] shape = sharded != null ? sharded.shape() : whole.shape();
        DType dtype = sharded != null ? sharded.dtype() : whole.dtype();
        if (spec.length() > shape.length) {
            throw new IllegalArgumentException("shard_map applied to the function '" + name + "' was given an in_specs"
                    + " entry which is too long to be compatible with the corresponding input value from the"
                    + " function:\n\nin_specs is " + spec + " which has length " + spec.length() + ", but the passed"
                    + " args[" + i + "] has shape " + typeString(dtype, shape) + ", which has rank " + shape.length
                    + " (and " + shape.length + " < " + spec.length() + ")\n\nEntries in in_specs must be of length no"
                    + " greater than the number of axes in the corresponding input value.\n\nEither revise the spec"
                    + " to be shorter, or modify '" + name + "' so that its inputs have sufficient rank.");
        }
        for (int dim = 0; dim < spec.length(); dim++) {
            List<String> axes = spec.axesAt(dim);
            int parts = axes.isEmpty() ? 1 : mesh.axisSize(axes);
            if (shape[dim] % parts != 0) {
                String target = axes.size() == 1
                        ? "mesh axis '" + axes.get(0) + "' (of size " + parts + ")"
                        : "mesh axes " + tupleRepr(axes) + " (of total size " + parts + ")";
                throw new IllegalArgumentException("shard_map applied to the function '" + name + "' was given"
                        + " argument arrays with axis sizes that are not evenly divisible by the corresponding mesh"
                        + " axis sizes:\n\nThe mesh given has shape " + intTupleRepr(mesh.axisSizes())
                        + " with corresponding axis names " + tupleRepr(mesh.axisNames()) + ".\n\nthe passed args["
                        + i + "] of shape " + typeString(dtype, shape) + " corresponds to in_specs of value " + spec
                        + ", which maps array axis " + dim + " (of size " + shape[dim] + ") to " + target + ", but "
                        + parts + " does not evenly divide " + shape[dim] + "\n\nArray arguments' axis sizes must be"
                        + " evenly divisible by the mesh axis or axes indicated by the corresponding elements of the"
                        + " argument's in_specs entry. Consider checking that in_specs are correct, and if so consider"
                        + " changing the mesh axis sizes or else padding the input and adapting '" + name
                        + "' appropriately.");
            }
        }
        ShardedArray placed;
        if (sharded != null && sharded.mesh().equals(mesh) && sharded.spec().isEquivalentTo(spec)) {
            placed = sharded;
        } else {
            placed = ShardedArray.devicePut(sharded != null ? sharded.gather() : whole, new NamedSharding(mesh, spec));
        }
        Set<String> varying = inMentioned.get(i);
        List<ShardedArray.Shard> shards = placed.addressableShards();
        List<NDArray> out = new ArrayList<>(shards.size());
        for (ShardedArray.Shard sh : shards) {
            out.add(sh.data().withVaryingAxes(varying));
        }
        return out;
    }

    private List<ShardedArray> assemble(List<List<NDArray>> outputs) {
        int n = outputs.size();
        for (int d = 0; d < n; d++) {
            if (outputs.get(d).size() != outSpecs.size()) {
                Device dev = mesh.devices().get(d);
                throw new IllegalStateException("the function passed to shardMap returned " + outputs.get(d).size()
                        + " output(s) on device " + dev.id() + " " + Exchange.coordsText(mesh, dev) + ", but out_specs"
                        + " has " + outSpecs.size() + " entries; return one block per out spec");
            }
        }
        List<ShardedArray> result = new ArrayList<>();
        for (int j = 0; j < outSpecs.size(); j++) {
            PartitionSpec spec = outSpecs.get(j);
            NDArray ref = outputs.get(0).get(j);
            List<NDArray> blocks = new ArrayList<>();
            Set<String> varying = new LinkedHashSet<>();
            for (int d = 0; d < n; d++) {
                NDArray b = outputs.get(d).get(j);
                if (!Arrays.equals(b.shape(), ref.shape()) || b.dtype() != ref.dtype()) {
                    Device d0 = mesh.devices().get(0);
                    Device dd = mesh.devices().get(d);
                    throw new IllegalStateException("output " + j + " of shardMap has different types on different"
                            + " devices: " + typeString(ref.dtype(), ref.shape()) + " on device " + d0.id() + " "
                            + Exchange.coordsText(mesh, d0) + " but " + typeString(b.dtype(), b.shape())
                            + " on device " + dd.id() + " " + Exchange.coordsText(mesh, dd)
                            + "; every device must return blocks of the same shape and dtype");
                }
                varying.addAll(b.varyingAxes());
                blocks.add(b);
            }
            int[] local = ref.shape();
            if (spec.length() > local.length) {
                String scalarHint = local.length == 0 ? "\n\nFor scalar values (rank 0), consider using an out_specs"
                        + " entry of P(). In particular, for rank 0 outputs which are not constant over the mesh, add"
                        + " at least one (singleton) axis to them so that they can be concatenated using out_specs." : "";
                throw new IllegalArgumentException("shard_map applied to the function '" + name + "' was given an"
                        + " out_specs entry which is too long to be compatible with the corresponding output value"
                        + " from the function:\n\nout_specs is " + spec + " which has length " + spec.length()
                        + ", but " + name + "(*args) has shape " + typeString(ref.dtype(), local) + ", which has rank "
                        + local.length + " (and " + local.length + " < " + spec.length() + ")\n\nEntries in out_specs"
                        + " must be of length no greater than the number of axes in the corresponding output value."
                        + scalarHint);
            }
            if (checkVma && !outMentioned.get(j).containsAll(varying)) {
                checkReplication(spec, varying);
            }
            int[] global = local.clone();
            for (int dim = 0; dim < spec.length(); dim++) {
                List<String> axes = spec.axesAt(dim);
                if (!axes.isEmpty()) {
                    global[dim] = local[dim] * mesh.axisSize(axes);
                }
            }
            result.add(ShardedArray.fromDeviceBlocks(outShardings[j], global, blocks));
        }
        return result;
    }

    /**
     * JAX's {@code _inout_vma_error}. With two or more axes left out of the spec, the three sets are, each in mesh
     * order: the axes the spec mentions; the left-out axes the value varies over; and the axes the value may vary
     * over once JAX has made it vary over the spec's own axes (its varying axes plus the mentioned ones).
     */
    private void checkReplication(PartitionSpec spec, Set<String> varying) {
        Set<String> mentioned = spec.mentionedAxes();
        List<String> unmentioned = mesh.axisNames().stream().filter(a -> !mentioned.contains(a)).toList();
        List<String> bad = unmentioned.stream().filter(varying::contains).toList();
        if (bad.isEmpty()) {
            return;
        }
        String middle;
        if (unmentioned.size() == 1) {
            middle = "out_specs is " + spec + " which implies that the corresponding output value is replicated across"
                    + " mesh axis '" + unmentioned.get(0) + "', but could not infer replication over any axes";
        } else {
            List<String> need = mesh.axisNames().stream().filter(mentioned::contains).toList();
            List<String> got = mesh.axisNames().stream().filter(a -> mentioned.contains(a) || varying.contains(a))
                    .toList();
            middle = "out_specs is " + spec + " which implies that the corresponding output value is only varying"
                    + " across mesh axes " + braces(need) + " and not " + braces(bad) + ", but it was"
                    + " inferred to be possibly varying over " + braces(got);
        }
        throw new IllegalArgumentException("shard_map applied to the function '" + name + "' was given out_specs which"
                + " require replication which can't be statically inferred given the mesh:\n\nThe mesh given has"
                + " shape " + intTupleRepr(mesh.axisSizes()) + " with corresponding axis names "
                + tupleRepr(mesh.axisNames()) + ".\n\n" + middle + "\n\nCheck if these output values are meant to"
                + " be replicated over those mesh axes. If not, consider revising the corresponding out_specs entries."
                + " If so, consider disabling the check by passing checkVma(false) to shardMap (JAX: check_vma=False)."
                + " Collectives that make a value equal along an axis (psum, pmean, pmax, pmin,"
                + " allGatherInvariant) remove that axis from the value's varying axes; allGather does not.");
    }

    /** JAX's short type string, e.g. {@code float32[8,4]} or {@code int32[]}. */
    static String typeString(DType dtype, int[] shape) {
        return dtype.jaxName() + Arrays.stream(shape).mapToObj(Integer::toString)
                .collect(Collectors.joining(",", "[", "]"));
    }

    /** Python's repr of a tuple of strings: {@code ('x',)}, {@code ('x', 'y')}. */
    static String tupleRepr(List<String> items) {
        String body = items.stream().map(s -> "'" + s + "'").collect(Collectors.joining(", "));
        return "(" + body + (items.size() == 1 ? ",)" : ")");
    }

    private static String intTupleRepr(List<Integer> items) {
        String body = items.stream().map(String::valueOf).collect(Collectors.joining(", "));
        return "(" + body + (items.size() == 1 ? ",)" : ")");
    }

    private static String frozenset(List<String> axes) {
        return "frozenset({" + axes.stream().map(s -> "'" + s + "'").collect(Collectors.joining(", ")) + "})";
    }

    private static String braces(List<String> axes) {
        return "{" + String.join(",", axes) + "}";
    }

    /** A shardMap of one argument and one output. Immutable. */
    public static final class Unary implements java.util.function.Function<ShardedArray, ShardedArray> {
        private final ShardMap map;

        Unary(ShardMap map) {
            this.map = map;
        }

        /** Runs the map on a sharded argument. @see ShardMap#call(Object...) */
        @Override
        public ShardedArray apply(ShardedArray x) {
            return map.call(x).get(0);
        }

        /** Runs the map on a whole array, first laid out by the in spec. @see ShardMap#call(Object...) */
        public ShardedArray apply(NDArray x) {
            return map.call(x).get(0);
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

        /** Runs the map. @see ShardMap#call(Object...) */
        @Override
        public ShardedArray apply(ShardedArray a, ShardedArray b) {
            return map.call(a, b).get(0);
        }

        /** Runs the map on whole arrays or sharded ones, in any mix. @see ShardMap#call(Object...) */
        public ShardedArray applyAny(Object a, Object b) {
            return map.call(a, b).get(0);
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
