package dev.shardlings.jit;

import dev.shardlings.array.NDArray;
import dev.shardlings.primitive.ArrayType;
import dev.shardlings.sharding.AxisType;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.NamedSharding;
import dev.shardlings.sharding.PartitionSpec;
import dev.shardlings.spmd.MeshContext;
import dev.shardlings.spmd.ShardedArray;
import dev.shardlings.spmd.Staging;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * A jitted function ({@link Jit#jit}): configuration (in and out shardings, name) and a cache of compiled
 * programs, one per signature. Immutable configuration; the cache is shared by copies made with the
 * configuration methods only if the configuration is the same (each method returns a new, empty-cached
 * instance). Thread-safe.
 */
public final class Jitted {
    private final Function<List<ShardedArray>, List<ShardedArray>> fn;
    private final String name;
    private final List<PartitionSpec> outShardings;
    /** Each a PartitionSpec (on the mesh in context at the call) or a NamedSharding; null when not given. */
    private final List<Object> inShardings;
    private final Integer arity;
    private final Map<List<Object>, Compiled> cache = new ConcurrentHashMap<>();
    private final AtomicInteger traces = new AtomicInteger();

    Jitted(Function<List<ShardedArray>, List<ShardedArray>> fn, String name, List<PartitionSpec> outShardings,
           List<Object> inShardings, Integer arity) {
        this.fn = fn;
        this.name = name;
        this.outShardings = outShardings;
        this.inShardings = inShardings;
        this.arity = arity;
    }

    Jitted arity(int n) {
        return new Jitted(fn, name, outShardings, inShardings, n);
    }

    /**
     * {@code jax.jit(f, in_shardings=(P(…), …))} under {@code jax.set_mesh}: the layout of each argument, one spec
     * per argument, each on the mesh in context ({@link dev.shardlings.spmd.MeshContext}) when the function is
     * called. A whole {@link NDArray} argument (uncommitted) is placed with its spec; a {@link ShardedArray}
     * argument must already have that sharding (JAX does not reshard a committed argument).
     *
     * <p>When called, besides {@link #call}'s exceptions: {@link IllegalStateException} without a mesh in context
     * (JAX's "jit requires a non-empty mesh in context if you are passing `PartitionSpec`s to in_shardings. …"),
     * and {@link IllegalArgumentException} for a count other than the number of arguments (JAX's "pjit
     * in_shardings specification must be a tree prefix of the positional arguments tuple. …"), a spec longer than
     * its argument's rank, an argument of another sharding (JAX's "Sharding passed to jit does not match the
     * sharding on the respective arg. …"), or a dimension the spec does not divide (JAX's IndivisibleError text).
     * JAX's single-sharding form, one spec for every argument, is {@link #inShardingsForAll(PartitionSpec)} (a
     * one-element list here is JAX's tuple of length 1, which fits a function of one argument only).
     *
     * @throws NullPointerException if specs or a spec is null
     */
    public Jitted inShardings(PartitionSpec... specs) {
        return new Jitted(fn, name, outShardings, nonNull(specs, "specs"), arity);
    }

    /**
     * {@code jax.jit(f, in_shardings=(NamedSharding(mesh, P(…)), …))}: as {@link #inShardings(PartitionSpec...)},
     * each on its own mesh, so no mesh needs to be in context.
     *
     * @throws NullPointerException if shardings or a sharding is null
     */
    public Jitted inShardings(NamedSharding... shardings) {
        return new Jitted(fn, name, outShardings, nonNull(shardings, "shardings"), arity);
    }

    /**
     * {@code jax.jit(f, in_shardings=P(…))} under {@code jax.set_mesh}: JAX's single-sharding form, the same spec for
     * every argument, however many the call passes. Otherwise as {@link #inShardings(PartitionSpec...)} (the rank
     * check applies to each argument).
     *
     * @throws NullPointerException if spec is null
     */
    public Jitted inShardingsForAll(PartitionSpec spec) {
        return new Jitted(fn, name, outShardings, List.of(new ForAll(Objects.requireNonNull(spec, "spec"))), arity);
    }

    /**
     * {@code jax.jit(f, in_shardings=NamedSharding(mesh, P(…)))}: as {@link #inShardingsForAll(PartitionSpec)}, on
     * the sharding's own mesh, so no mesh needs to be in context.
     *
     * @throws NullPointerException if sharding is null
     */
    public Jitted inShardingsForAll(NamedSharding sharding) {
        return new Jitted(fn, name, outShardings, List.of(new ForAll(Objects.requireNonNull(sharding, "sharding"))),
                arity);
    }

    /** The single-sharding form of in_shardings: a PartitionSpec or a NamedSharding for every argument. */
    private record ForAll(Object sharding) {
    }

    /** The in sharding of each of n arguments: the single-sharding form repeated, else the list as given. */
    private List<Object> inShardingsOf(int n) {
        return inShardings.size() == 1 && inShardings.get(0) instanceof ForAll all
                ? java.util.Collections.nCopies(n, all.sharding()) : inShardings;
    }

    private static List<Object> nonNull(Object[] entries, String label) {
        Objects.requireNonNull(entries, label);
        for (int k = 0; k < entries.length; k++) {
            Objects.requireNonNull(entries[k], label + "[" + k + "]");
        }
        return List.of(entries);
    }

    /**
     * {@code jax.jit(f, out_shardings=…)}: the layout of each result (one spec per output, on the arguments' mesh).
     *
     * @throws NullPointerException if specs or a spec is null
     */
    public Jitted outShardings(PartitionSpec... specs) {
        Objects.requireNonNull(specs, "specs");
        for (int k = 0; k < specs.length; k++) {
            Objects.requireNonNull(specs[k], "specs[" + k + "]");
        }
        return new Jitted(fn, name, List.of(specs), inShardings, arity);
    }

    /**
     * {@link #outShardings(PartitionSpec...)} from shardings.
     *
     * @throws NullPointerException if shardings or a sharding is null
     */
    public Jitted outShardings(NamedSharding... shardings) {
        Objects.requireNonNull(shardings, "shardings");
        PartitionSpec[] specs = new PartitionSpec[shardings.length];
        for (int k = 0; k < specs.length; k++) {
            specs[k] = Objects.requireNonNull(shardings[k], "shardings[" + k + "]").spec();
        }
        return outShardings(specs);
    }

    /**
     * The name used in the compiled text ({@code HloModule jit_<name>}) and in messages.
     *
     * @throws NullPointerException if name is null
     */
    public Jitted named(String name) {
        return new Jitted(fn, Objects.requireNonNull(name, "name"), outShardings, inShardings, arity);
    }

    /** How many times the function has been traced (once per new signature). */
    public int traceCount() {
        return traces.get();
    }

    /**
     * Calls the function: compiles it for these arguments' signature (or reuses the program compiled for it) and
     * runs it. Arguments are placed arrays ({@link ShardedArray}) on one mesh, or whole {@link NDArray}s
     * (uncommitted: placed replicated on that mesh).
     *
     * @throws NullPointerException     if args or an argument is null
     * @throws IllegalArgumentException for arguments on incompatible devices (JAX's text), no argument on a
     *                                  mesh, or a wrong number of arguments
     * @throws dev.shardlings.primitive.ShardingTypeError when tracing meets a sharding type error (Explicit axes)
     */
    public List<ShardedArray> call(Object... args) {
        Objects.requireNonNull(args, "args");
        if (Staging.current() != null) {
            return inline(Arrays.asList(args));
        }
        Placed p = place(Arrays.asList(args));
        return compiled(p).call(p.arrays).stream().map(p::result).toList();
    }

    /**
     * A call inside another trace (an outer jit, or grad): JAX keeps a nested jit as a call in the outer program;
     * here its operations join the outer program directly, and its in and out shardings become sharding
     * constraints.
     */
    private List<ShardedArray> inline(List<Object> args) {
        if (arity != null && args.size() != arity) {
            throw new IllegalArgumentException(name + " takes " + arity + " argument" + (arity == 1 ? "" : "s")
                    + ", got " + args.size());
        }
        Mesh mesh = null;
        for (Object a : args) {
            if (a instanceof ShardedArray s) {
                mesh = s.mesh();
                break;
            }
        }
        List<ShardedArray> arrays = new ArrayList<>();
        for (int k = 0; k < args.size(); k++) {
            Object a = Objects.requireNonNull(args.get(k), "args[" + k + "]");
            if (a instanceof ShardedArray s) {
                arrays.add(s);
            } else if (a instanceof NDArray n && mesh != null) {
                arrays.add(ShardedArray.devicePut(n, mesh, PartitionSpec.P()));
            } else {
                throw new IllegalArgumentException("args[" + k + "] must be a ShardedArray or an NDArray (with a"
                        + " placed argument beside it), got " + a.getClass().getName());
            }
        }
        if (inShardings != null) {
            // As out shardings are below: inside an outer trace an in sharding becomes a constraint on the value.
            List<Object> checked = withInShardings(new ArrayList<>(arrays));
            for (int k = 0; k < checked.size(); k++) {
                Object want = inShardingsOf(checked.size()).get(k);
                arrays.set(k, ((ShardedArray) checked.get(k)).withShardingConstraint(
                        want instanceof NamedSharding ns ? ns.spec() : (PartitionSpec) want));
            }
        }
        List<ShardedArray> outs = fn.apply(List.copyOf(arrays));
        if (outs == null) {
            throw new IllegalArgumentException(name + " returned null; return a list of arrays");
        }
        if (outShardings == null) {
            return outs;
        }
        if (outShardings.size() != outs.size()) {
            throw new IllegalArgumentException(name + " returned " + outs.size() + " outputs but out_shardings has "
                    + outShardings.size() + " entries");
        }
        List<ShardedArray> constrained = new ArrayList<>();
        for (int k = 0; k < outs.size(); k++) {
            constrained.add(outs.get(k).withShardingConstraint(outShardings.get(k)));
        }
        return constrained;
    }

    /**
     * {@code jit(f).lower(*args)}: traces and partitions for these arguments without running.
     *
     * @throws NullPointerException     if args or an argument is null
     * @throws IllegalArgumentException as {@link #call}
     */
    public Compiled lower(Object... args) {
        Objects.requireNonNull(args, "args");
        return compiled(place(Arrays.asList(args)));
    }

    /**
     * @param uncommitted per argument, true for a whole NDArray: JAX types it unsharded whatever layout its in
     *                    sharding gives it, so on Explicit axes the program first gathers it to that type
     * @param mesh        the mesh the program runs on: the first placed argument's, or a finer Auto mesh over the
     *                    same devices that another argument lives on ({@link Mesh#finer})
     * @param results     the first placed argument's mesh, where JAX puts the results
     */
    private record Placed(List<ShardedArray> arrays, Mesh mesh, List<Boolean> uncommitted, Mesh results) {
        /** A result on the first argument's mesh when that mesh can name its layout, else as it is. */
        ShardedArray result(ShardedArray r) {
            return r.mesh().equals(results) ? r : r.onMesh(results).orElse(r);
        }
    }

    private Placed place(List<Object> given) {
        if (arity != null && given.size() != arity) {
            throw new IllegalArgumentException(name + " takes " + arity + " argument" + (arity == 1 ? "" : "s")
                    + ", got " + given.size());
        }
        List<Object> args = new ArrayList<>(inShardings == null ? given : withInShardings(given));
        Mesh mesh = null;
        int first = -1;
        for (int k = 0; k < args.size(); k++) {
            Object a = Objects.requireNonNull(args.get(k), "args[" + k + "]");
            if (a instanceof ShardedArray s) {
                if (s.isTraced()) {
                    throw new IllegalArgumentException("args[" + k + "] is a traced value; nested jit is not"
                            + " supported: call the inner function directly");
                }
                if (mesh == null) {
                    mesh = s.mesh();
                    first = k;
                } else if (!mesh.sameDeviceAssignment(s.mesh())) {
                    // JAX compares device assignments (the flat device order), not meshes
                    ShardedArray f = (ShardedArray) args.get(first);
                    throw new IllegalArgumentException("Received incompatible devices for jitted computation. Got "
                            + describe(first, f) + " and " + describe(k, s));
                } else if (!mesh.equals(s.mesh()) && onlyAuto(mesh) && onlyAuto(s.mesh())) {
                    mesh = finer(mesh, s.mesh());
                }
            } else if (!(a instanceof NDArray)) {
                throw new IllegalArgumentException("args[" + k + "] must be a ShardedArray or an NDArray, got "
                        + a.getClass().getName());
            }
        }
        if (mesh == null) {
            throw new IllegalArgumentException(name + ": no argument is placed on a mesh; place one with"
                    + " ShardedArray.devicePut (whole NDArrays are uncommitted and follow the others)");
        }
        Mesh results = ((ShardedArray) args.get(first)).mesh();
        List<ShardedArray> arrays = new ArrayList<>();
        for (Object a : args) {
            arrays.add(a instanceof ShardedArray s ? onProgramMesh(s, mesh)
                    : ShardedArray.devicePut((NDArray) a, mesh, PartitionSpec.P()));
        }
        return new Placed(arrays, mesh, given.stream().map(a -> a instanceof NDArray).toList(), results);
    }

    /**
     * JAX's pjit checks of in_shardings, in its order: the count, then each argument's rank, then a committed
     * argument's sharding; an uncommitted one is placed with its in sharding.
     */
    private List<Object> withInShardings(List<Object> args) {
        List<Object> given = inShardingsOf(args.size());
        if (given.size() != args.size()) {
            throw new IllegalArgumentException("pjit in_shardings specification must be a tree prefix of the"
                    + " positional arguments tuple. In particular, pjit in_shardings must either be a Sharding, a"
                    + " PartitionSpec, or a tuple of length equal to the number of positional arguments. But pjit"
                    + " in_shardings is the wrong length: got a tuple or list of length " + inShardings.size()
                    + " for an args tuple of length " + args.size() + ".");
        }
        List<NamedSharding> shardings = new ArrayList<>();
        for (Object s : given) {
            shardings.add(s instanceof NamedSharding ns ? ns : new NamedSharding(MeshContext.current().orElseThrow(
                    () -> new IllegalStateException("jit requires a non-empty mesh in context if you are passing"
                            + " `PartitionSpec`s to in_shardings. You can define a context mesh via"
                            + " `jax.set_mesh(mesh)`. Alternatively, provide `Sharding`s to in_shardings and then the"
                            + " mesh context manager is not required.")), (PartitionSpec) s));
        }
        List<Object> placed = new ArrayList<>();
        for (int k = 0; k < args.size(); k++) {
            Object a = Objects.requireNonNull(args.get(k), "args[" + k + "]");
            NamedSharding want = shardings.get(k);
            int rank = a instanceof ShardedArray s ? s.rank() : a instanceof NDArray n ? n.rank() : -1;
            if (rank >= 0 && want.spec().length() > rank) {
                throw new IllegalArgumentException("One of pjit arguments with pytree key path args[" + k + "] is"
                        + " incompatible with its sharding annotation " + want + ": Sharding " + want + " is only"
                        + " valid for values of rank at least " + want.spec().length() + ", but was applied to a"
                        + " value of rank " + rank + ".");
            }
            if (a instanceof ShardedArray s && !s.isTraced()) {
                NamedSharding got = s.sharding();
                if (!got.mesh().equals(want.mesh()) || !got.spec().isEquivalentTo(want.spec())) {
                    throw new IllegalArgumentException("Sharding passed to jit does not match the sharding on the"
                            + " respective arg. Got jit sharding: " + want + ",\narg sharding: " + got
                            + " for arg type: " + s.type());
                }
                placed.add(s);
            } else if (a instanceof NDArray n) {
                placed.add(ShardedArray.devicePut(n, want));
            } else {
                placed.add(a); // a traced value or a wrong type: place() reports it
            }
        }
        return placed;
    }

    private String describe(int k, ShardedArray s) {
        // the shape is jax.typeof's: f32[24@x] on Explicit axes
        return "argument args[" + k + "] of " + name + " with shape " + s.type() + " and with device ids "
                + Arrays.toString(s.mesh().deviceIds()) + " on platform "
                + s.mesh().devices().get(0).platform().toUpperCase(java.util.Locale.ROOT);
    }

    private static boolean onlyAuto(Mesh m) {
        return m.axisTypes().stream().allMatch(t -> t == AxisType.AUTO);
    }

    /**
     * Of two Auto meshes over the same devices in the same order, the one that can name the other's layouts: JAX
     * compiles such a call (XLA sees device groups, not axis names), and the framework's programs run on one mesh.
     */
    private Mesh finer(Mesh a, Mesh b) {
        return a.finer(b).orElseThrow(() -> new IllegalArgumentException(name + ": arguments on " + a + " and " + b
                + " over the same devices, neither of which can name the other's layouts; the framework compiles a"
                + " program on one mesh (JAX would compile it): reshard one of them first"));
    }

    /** An argument on a coarser Auto mesh, written on the program's mesh; any other stays as it is. */
    private static ShardedArray onProgramMesh(ShardedArray s, Mesh mesh) {
        return onlyAuto(s.mesh()) && mesh.canName(s.mesh()) ? s.onMesh(mesh).orElseThrow() : s;
    }

    private Compiled compiled(Placed p) {
        List<Object> key = new ArrayList<>();
        for (ShardedArray a : p.arrays) {
            key.add(a.dtype());
            key.add(Arrays.stream(a.shape()).boxed().toList());
            key.add(a.sharding());
        }
        key.add(p.uncommitted);
        return cache.computeIfAbsent(key, k -> trace(p));
    }

    private Compiled trace(Placed p) {
        traces.incrementAndGet();
        Tracer tracer = new Tracer();
        List<ShardedArray> tracedArgs = new ArrayList<>();
        List<ArrayType> layouts = new ArrayList<>();
        List<NamedSharding> committed = new ArrayList<>();
        for (int k = 0; k < p.arrays.size(); k++) {
            ShardedArray a = p.arrays.get(k);
            committed.add(p.uncommitted.get(k) ? null : a.sharding());
            ArrayType type = p.uncommitted.get(k)
                    ? ArrayType.of(a.dtype(), a.shape(), new NamedSharding(p.mesh, PartitionSpec.P())) : a.type();
            tracedArgs.add(tracer.argument(type, a.sharding()));
            layouts.add(ArrayType.layoutOf(a.dtype(), a.shape(), a.sharding()));
        }
        List<ShardedArray> outs = Staging.run(tracer, () -> fn.apply(List.copyOf(tracedArgs)));
        if (outs == null) {
            throw new IllegalArgumentException(name + " returned null; return a list of arrays");
        }
        if (outShardings != null && outShardings.size() != outs.size()) {
            throw new IllegalArgumentException(name + " returned " + outs.size() + " outputs but out_shardings has "
                    + outShardings.size() + " entries: " + outShardings.stream().map(Object::toString)
                    .collect(Collectors.joining(", ")));
        }
        for (int k = 0; k < p.arrays.size(); k++) {
            // typing has already refused any operation combining them, with JAX's mesh error
            if (!p.arrays.get(k).mesh().sameDevicesAs(p.mesh)) {
                throw new IllegalArgumentException(name + ": args[" + k + "] lives on " + p.arrays.get(k).mesh()
                        + " and another argument on " + p.mesh + ", over the same devices with Explicit axes; the"
                        + " framework compiles a program on one mesh (JAX would pass the array through on its own"
                        + " mesh): jit the arrays of each mesh separately");
            }
        }
        Jaxpr jaxpr = tracer.jaxpr(outs).withoutDeadCode();
        return Partitioner.compile(name, jaxpr, p.mesh, layouts, committed, outShardings);
    }
}
