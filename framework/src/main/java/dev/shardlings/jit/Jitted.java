package dev.shardlings.jit;

import dev.shardlings.array.NDArray;
import dev.shardlings.primitive.ArrayType;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.NamedSharding;
import dev.shardlings.sharding.PartitionSpec;
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
 * A jitted function ({@link Jit#jit}): configuration (out shardings, name) and a cache of compiled programs, one
 * per signature. Immutable configuration; the cache is shared by copies made with the configuration methods only
 * if the configuration is the same (each method returns a new, empty-cached instance). Thread-safe.
 */
public final class Jitted {
    private final Function<List<ShardedArray>, List<ShardedArray>> fn;
    private final String name;
    private final List<PartitionSpec> outShardings;
    private final Integer arity;
    private final Map<List<Object>, Compiled> cache = new ConcurrentHashMap<>();
    private final AtomicInteger traces = new AtomicInteger();

    Jitted(Function<List<ShardedArray>, List<ShardedArray>> fn, String name, List<PartitionSpec> outShardings,
           Integer arity) {
        this.fn = fn;
        this.name = name;
        this.outShardings = outShardings;
        this.arity = arity;
    }

    Jitted arity(int n) {
        return new Jitted(fn, name, outShardings, n);
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
        return new Jitted(fn, name, List.of(specs), arity);
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
        return new Jitted(fn, Objects.requireNonNull(name, "name"), outShardings, arity);
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
        return compiled(p).call(p.arrays);
    }

    /**
     * A call inside another trace (an outer jit, or grad): JAX keeps a nested jit as a call in the outer program;
     * here its operations join the outer program directly, and its out shardings become sharding constraints.
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

    private record Placed(List<ShardedArray> arrays, Mesh mesh) {
    }

    private Placed place(List<Object> args) {
        if (arity != null && args.size() != arity) {
            throw new IllegalArgumentException(name + " takes " + arity + " argument" + (arity == 1 ? "" : "s")
                    + ", got " + args.size());
        }
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
                } else if (!mesh.sameDevicesAs(s.mesh())) {
                    ShardedArray f = (ShardedArray) args.get(first);
                    throw new IllegalArgumentException("Received incompatible devices for jitted computation. Got "
                            + describe(first, f) + " and " + describe(k, s));
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
        List<ShardedArray> arrays = new ArrayList<>();
        for (Object a : args) {
            arrays.add(a instanceof ShardedArray s ? s : ShardedArray.devicePut((NDArray) a, mesh, PartitionSpec.P()));
        }
        return new Placed(arrays, mesh);
    }

    private String describe(int k, ShardedArray s) {
        return "argument args[" + k + "] of " + name + " with shape " + s.dtype().jaxName() + Arrays.toString(s.shape())
                .replace(" ", "") + " and with device ids " + Arrays.toString(s.mesh().deviceIds()) + " on platform "
                + s.mesh().devices().get(0).platform().toUpperCase(java.util.Locale.ROOT);
    }

    private Compiled compiled(Placed p) {
        List<Object> key = new ArrayList<>();
        for (ShardedArray a : p.arrays) {
            key.add(a.dtype());
            key.add(Arrays.stream(a.shape()).boxed().toList());
            key.add(a.sharding());
        }
        return cache.computeIfAbsent(key, k -> trace(p));
    }

    private Compiled trace(Placed p) {
        traces.incrementAndGet();
        Tracer tracer = new Tracer();
        List<ShardedArray> tracedArgs = new ArrayList<>();
        List<ArrayType> layouts = new ArrayList<>();
        for (ShardedArray a : p.arrays) {
            tracedArgs.add(tracer.argument(a.type(), a.sharding()));
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
        Jaxpr jaxpr = tracer.jaxpr(outs).withoutDeadCode();
        return Partitioner.compile(name, jaxpr, p.mesh, layouts, outShardings);
    }
}
