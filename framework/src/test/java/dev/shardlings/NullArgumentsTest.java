package dev.shardlings;

import dev.shardlings.spmd.Tiling;
import dev.shardlings.array.KeepDims;
import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.random.PRNG;
import dev.shardlings.sharding.AxisType;
import dev.shardlings.sharding.Device;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.NamedSharding;
import dev.shardlings.sharding.PartitionSpec;
import dev.shardlings.sharding.ShardingVisualizer;
import dev.shardlings.spmd.Collectives;
import dev.shardlings.spmd.ShardMap;
import dev.shardlings.spmd.ShardedArray;
import dev.shardlings.events.Collective;
import dev.shardlings.events.DeviceTrace;
import dev.shardlings.events.Origin;
import dev.shardlings.events.ShardMapTrace;
import dev.shardlings.events.Trace;
import dev.shardlings.events.TraceEvent;
import dev.shardlings.events.Tracing;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Array;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Parameter;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BinaryOperator;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

import static dev.shardlings.sharding.PartitionSpec.P;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every public method and constructor of the user-facing API, called with null for each reference argument in
 * turn (the others valid), and with a container holding a null for each array or list argument: each call must
 * throw an exception whose message names the argument — for a null argument a NullPointerException (one exception
 * for it in the whole framework, NDArray included), for a container holding a null that or an
 * IllegalArgumentException — never a bare NullPointerException from inside, and never a result. Parameter names come from the class files (the framework
 * is compiled with {@code -parameters}).
 */
class NullArgumentsTest {

    /** The user-facing API: arrays, shardings, shardMap and collectives, PRNG, the trace. */
    static final List<Class<?>> API = List.of(NDArray.class, Mesh.class, AxisType.class, Device.class, NamedSharding.class,
            dev.shardlings.sharding.SingleDeviceSharding.class, dev.shardlings.spmd.ResultPrograms.class,
            NamedSharding.Index.class, PartitionSpec.class, PartitionSpec.AxisTuple.class, ShardingVisualizer.class,
            ShardedArray.class, ShardedArray.Shard.class, ShardMap.class, ShardMap.Unary.class, ShardMap.Binary.class,
            Collectives.class, PRNG.class, PRNG.Key.class, Collective.class, DeviceTrace.class, ShardMapTrace.class,
            Collective.BytesPerDevice.class, Origin.class, Trace.class, TraceEvent.class, TraceEvent.CollectiveEvent.class,
            TraceEvent.MatmulEvent.class, TraceEvent.LocalOpEvent.class, Tracing.class, Tracing.Traced.class,
            dev.shardlings.events.CollectiveParams.class, dev.shardlings.events.CollectiveParams.None.class,
            dev.shardlings.events.CollectiveParams.AllGather.class, dev.shardlings.events.CollectiveParams.ReduceScatter.class,
            dev.shardlings.events.CollectiveParams.AllToAll.class, dev.shardlings.events.CollectiveParams.Permute.class);

    /**
     * Arguments for which null means something, by "Class.method(parameter)": each with the reason. Nothing else
     * may accept a null.
     */
    static final Map<String, String> NULL_ALLOWED = Map.of(
            "PartitionSpec.P(entries)", "P((Object[]) null) is P(None), as in Python",
            "PartitionSpec.P(entries[])", "a null entry is None: the dimension is not split",
            "Tracing.Traced.<init>(value)", "a traced computation may return null",
            "ResultPrograms.of(value)", "what a traced computation returned, which may be null (no arrays)");

    /**
     * Arguments whose message keeps JAX's words, which name the argument in prose: Mesh's axis names ("Mesh axis
     * names cannot be None. Got: (None,)").
     */
    static final Map<String, String> ALIASES = Map.of("axisNames", "Mesh axis names");

    /** Methods no test can call with a null: the reason. */
    static final Map<String, String> SKIPPED = Map.of(
            "Tracing.report", "refuses every caller but ShardMap (IllegalCallerException) before looking at its argument",
            "Collective.valueOf", "the enum's own valueOf (the JDK's NullPointerException: \"Name is null\")",
            "Origin.valueOf", "the enum's own valueOf (the JDK's NullPointerException: \"Name is null\")",
            "AxisType.valueOf", "the enum's own valueOf (the JDK's NullPointerException: \"Name is null\")");

    static final Mesh MESH = Mesh.makeMesh(new int[]{4}, "i");
    static final NDArray X = NDArray.arange(8);
    static final NamedSharding SHARDING = new NamedSharding(MESH, P("i"));
    static final ShardedArray SHARDED = ShardedArray.devicePut(X, SHARDING);
    /**
     * A trace with every kind of event. Made on first use, not in the static initializer: device threads calling a
     * lambda of a class still being initialised would wait for the initialiser, which waits for them.
     */
    static Trace trace;

    static synchronized Trace trace() {
        if (trace == null) {
            trace = Tracing.record(() -> ShardMap.shardMap(b -> Collectives.psum(b.reshape(2, 1)
                    .matmul(b.reshape(1, 2)).astype(DType.FLOAT32).add(1f), "i"), MESH, P("i"), P()).apply(X)).trace();
        }
        return trace;
    }

    /** A valid value of each parameter type (by class, then by the element type of lists and sets). */
    static Object sample(Type type) {
        if (type instanceof ParameterizedType p) {
            Class<?> raw = (Class<?>) p.getRawType();
            Type[] args = p.getActualTypeArguments();
            if (raw == List.class) {
                return List.of(sample(args[0]));
            }
            if (raw == Set.class) {
                return Set.of(sample(args[0]));
            }
            return sample(raw);
        }
        if (!(type instanceof Class<?> c)) {
            return "x"; // a type variable: any value
        }
        Map<Class<?>, Supplier<Object>> byClass = new HashMap<>();
        byClass.put(NDArray.class, () -> X);
        byClass.put(DType.class, () -> DType.INT32);
        byClass.put(AxisType.class, () -> AxisType.EXPLICIT);
        byClass.put(Origin.class, () -> Origin.SHARD_MAP);
        byClass.put(dev.shardlings.events.CollectiveParams.class, dev.shardlings.events.CollectiveParams.None::new);
        byClass.put(dev.shardlings.events.CollectiveParams.None.class, dev.shardlings.events.CollectiveParams.None::new);
        byClass.put(dev.shardlings.events.CollectiveParams.AllGather.class,
                () -> new dev.shardlings.events.CollectiveParams.AllGather(0, true, false));
        byClass.put(dev.shardlings.events.CollectiveParams.ReduceScatter.class,
                () -> new dev.shardlings.events.CollectiveParams.ReduceScatter(0, true));
        byClass.put(dev.shardlings.events.CollectiveParams.AllToAll.class,
                () -> new dev.shardlings.events.CollectiveParams.AllToAll(0, 1, true));
        byClass.put(dev.shardlings.events.CollectiveParams.Permute.class,
                () -> new dev.shardlings.events.CollectiveParams.Permute(List.of(List.of(0, 1), List.of(1, 0))));
        byClass.put(dev.shardlings.array.LocalOp.class, () -> dev.shardlings.array.DataOp.SLICE);
        byClass.put(dev.shardlings.primitive.DotGeneral.class, () -> dev.shardlings.primitive.DotGeneral.matmul(P()));
        byClass.put(AxisType[].class, () -> new AxisType[]{AxisType.EXPLICIT});
        byClass.put(Mesh.class, () -> MESH);
        byClass.put(Device.class, () -> MESH.devices().get(0));
        byClass.put(PartitionSpec.class, () -> P("i"));
        byClass.put(NamedSharding.class, () -> SHARDING);
        byClass.put(NamedSharding.Index.class, () -> SHARDING.index(MESH.devices().get(0), 8));
        byClass.put(NamedSharding.Slice.class, () -> new NamedSharding.Slice(0, 2, false));
        byClass.put(ShardedArray.class, () -> SHARDED);
        byClass.put(PRNG.Key.class, () -> PRNG.key(0));
        byClass.put(String.class, () -> "i");
        byClass.put(Object.class, () -> "i");
        byClass.put(Integer.class, () -> 0);
        byClass.put(Long.class, () -> 1L);
        byClass.put(Duration.class, () -> Duration.ofSeconds(1));
        byClass.put(Collective.class, () -> Collective.PSUM);
        byClass.put(Collective.BytesPerDevice.class, () -> new Collective.BytesPerDevice(1, 2));
        byClass.put(Collective.Binder.class, () -> new Collective.Binder() {
            @Override
            public NDArray bind(Collective c, NDArray x, List<String> axes, dev.shardlings.events.CollectiveParams p) {
                return x;
            }

            @Override
            public int groupSize(Collective c, List<String> axes) {
                return 1;
            }

            @Override
            public int axisIndex(Collective c, List<String> axes) {
                return 0;
            }
        });
        byClass.put(KeepDims.class, () -> KeepDims.KEEP);
        byClass.put(Tiling.class, () -> Tiling.TILED);
        byClass.put(Trace.class, () -> trace());
        byClass.put(ShardMapTrace.class, () -> trace().shardMaps().get(0));
        byClass.put(DeviceTrace.class, () -> trace().shardMaps().get(0).devices().get(0));
        byClass.put(TraceEvent.class, () -> trace().shardMaps().get(0).devices().get(0).events().get(0));
        byClass.put(UnaryOperator.class, () -> (UnaryOperator<NDArray>) b -> b);
        byClass.put(BinaryOperator.class, () -> (BinaryOperator<NDArray>) (a, b) -> a);
        byClass.put(ShardMap.DeviceFunction.class, () -> (ShardMap.DeviceFunction) b -> b);
        byClass.put(Supplier.class, () -> (Supplier<Object>) () -> "done");
        byClass.put(dev.shardlings.sharding.SingleDeviceSharding.class,
                () -> new dev.shardlings.sharding.SingleDeviceSharding(MESH.devices().get(0)));
        byClass.put(int[].class, () -> new int[]{8});
        byClass.put(float[].class, () -> new float[]{0, 1, 2, 3, 4, 5, 6, 7});
        byClass.put(boolean[].class, () -> new boolean[]{true, false, true, false, true, false, true, false});
        byClass.put(int[][].class, () -> new int[][]{{0, 1}});
        byClass.put(float[][].class, () -> new float[][]{{0, 1}});
        byClass.put(String[].class, () -> new String[]{"i"});
        byClass.put(Object[].class, () -> new Object[]{"i"});
        byClass.put(NDArray[].class, () -> new NDArray[]{X});
        byClass.put(ShardedArray[].class, () -> new ShardedArray[]{SHARDED});
        Supplier<Object> s = byClass.get(c);
        if (s == null) {
            throw new AssertionError("no sample value of " + c.getName() + ": add one");
        }
        return s.get();
    }

    /** An instance to call instance methods on. */
    static Object receiver(Class<?> c) {
        if (c == ShardMap.class) {
            return ShardMap.shardMap(b -> b, MESH, List.of(P("i")), List.of(P("i")));
        }
        if (c == ShardMap.Unary.class) {
            return ShardMap.shardMap(b -> b, MESH, P("i"), P("i"));
        }
        if (c == ShardMap.Binary.class) {
            return ShardMap.shardMap((a, b) -> a, MESH, P("i"), P("i"), P("i"));
        }
        if (c == PartitionSpec.AxisTuple.class) {
            return PartitionSpec.tuple("i");
        }
        if (c == ShardedArray.Shard.class) {
            return SHARDED.addressableShards().get(0);
        }
        if (c == Tracing.Traced.class) {
            return Tracing.record(() -> "x");
        }
        if (TraceEvent.class.isAssignableFrom(c)) {
            return trace().shardMaps().get(0).devices().get(0).events().stream().filter(c::isInstance).findFirst()
                    .orElseThrow(() -> new AssertionError("the sample trace has no " + c.getSimpleName()));
        }
        return sample(c);
    }

    static String name(Executable e) {
        String owner = e.getDeclaringClass().getName().substring(e.getDeclaringClass().getPackageName().length() + 1)
                .replace('$', '.');
        return owner + "." + (e instanceof Constructor<?> ? "<init>" : e.getName());
    }

    static List<Executable> executables(Class<?> c) {
        List<Executable> out = new ArrayList<>();
        for (Constructor<?> k : c.getConstructors()) {
            out.add(k);
        }
        for (Method m : c.getDeclaredMethods()) {
            if (Modifier.isPublic(m.getModifiers()) && !m.isSynthetic() && !m.isBridge()
                    && !(m.getName().equals("equals") && m.getParameterCount() == 1)) {
                out.add(m);
            }
        }
        out.sort((a, b) -> a.toString().compareTo(b.toString()));
        return out;
    }

    /** The exception a call threw, or null when it returned. */
    static Throwable call(Executable e, Object receiver, Object[] args) {
        try {
            e.setAccessible(true);
            if (e instanceof Constructor<?> k) {
                k.newInstance(args);
            } else {
                ((Method) e).invoke(receiver, args);
            }
            return null;
        } catch (InvocationTargetException ex) {
            return ex.getCause();
        } catch (ReflectiveOperationException ex) {
            throw new AssertionError(name(e) + ": cannot call: " + ex, ex);
        }
    }

    /**
     * Null, or what is wrong with the outcome of calling e with a null for parameter p ({@code element}: with a
     * container holding a null, which may also be an IllegalArgumentException, e.g. JAX's "Mesh axis names cannot
     * be None").
     */
    static String problem(String what, String param, Throwable t, boolean element) {
        if (t == null) {
            return what + " returned instead of rejecting the null";
        }
        if (!(t instanceof NullPointerException || element && t instanceof IllegalArgumentException)) {
            return what + " threw " + t + (element ? "" : " (a null argument throws NullPointerException)");
        }
        String message = t.getMessage();
        if (t instanceof NullPointerException && message != null && message.startsWith("Cannot ")) {
            return what + " threw the JDK's NullPointerException from inside: " + message;
        }
        boolean named = message != null && (java.util.regex.Pattern.compile("(^|\\W)"
                + java.util.regex.Pattern.quote(param) + "($|\\W)").matcher(message).find()
                || ALIASES.containsKey(param) && message.contains(ALIASES.get(param)));
        if (!named) {
            return what + " threw " + t + ", whose message does not name '" + param + "'";
        }
        return null;
    }

    @Test
    void everyNullArgumentIsRejectedByName() {
        List<String> problems = new ArrayList<>();
        int checked = 0;
        for (Class<?> c : API) {
            for (Executable e : executables(c)) {
                String method = name(e);
                if (SKIPPED.containsKey(method)) {
                    continue;
                }
                Object receiver = Modifier.isStatic(e.getModifiers()) || e instanceof Constructor<?> ? null
                        : receiver(c);
                Parameter[] ps = e.getParameters();
                Object[] valid = new Object[ps.length];
                for (int k = 0; k < ps.length; k++) {
                    assertTrue(ps[k].isNamePresent(), method + ": compile the framework with -parameters");
                    valid[k] = ps[k].getType().isPrimitive() ? primitive(ps[k].getType())
                            : sample(ps[k].getParameterizedType());
                }
                for (int k = 0; k < ps.length; k++) {
                    Class<?> type = ps[k].getType();
                    if (type.isPrimitive()) {
                        continue;
                    }
                    String param = ps[k].getName();
                    String key = method + "(" + param + ")";
                    Object[] args = valid.clone();
                    args[k] = null;
                    checked++;
                    if (!NULL_ALLOWED.containsKey(key)) {
                        String p = problem(key + " with null", param, call(e, receiver, args), false);
                        if (p != null) {
                            problems.add(p);
                        }
                    }
                    Object holdingNull = holdingNull(valid[k], type);
                    if (holdingNull != null && !NULL_ALLOWED.containsKey(method + "(" + param + "[])")) {
                        args[k] = holdingNull;
                        checked++;
                        String p = problem(key + " holding a null", param, call(e, receiver, args), true);
                        if (p != null) {
                            problems.add(p);
                        }
                    }
                }
            }
        }
        assertTrue(checked > 150, "only " + checked + " arguments checked: is the API list right?");
        assertTrue(problems.isEmpty(), problems.size() + " problem(s):\n" + String.join("\n", problems));
    }

    /** For an array or list of references: one like the valid value with its first element null; else null. */
    static Object holdingNull(Object valid, Class<?> type) {
        if (type.isArray() && !type.getComponentType().isPrimitive()) {
            Object a = Array.newInstance(type.getComponentType(), Math.max(1, Array.getLength(valid)));
            for (int i = 1; i < Array.getLength(a); i++) {
                Array.set(a, i, Array.get(valid, i));
            }
            return a;
        }
        if (valid instanceof List<?> l) {
            List<Object> copy = new ArrayList<>(l.isEmpty() ? List.of("i") : l);
            copy.set(0, null);
            return Collections.unmodifiableList(copy);
        }
        if (valid instanceof Set<?>) {
            return Collections.singleton(null);
        }
        return null;
    }

    static Object primitive(Class<?> c) {
        if (c == int.class) {
            return 1;
        }
        if (c == long.class) {
            return 1L;
        }
        if (c == float.class) {
            return 1f;
        }
        if (c == double.class) {
            return 1.0;
        }
        if (c == boolean.class) {
            return true;
        }
        throw new AssertionError("no sample of " + c);
    }

    @Test
    void theApiListHoldsEveryPublicClassOfSharingRandomAndTrace() throws Exception {
        // A public class added to these packages must be added to API (exceptions and interfaces aside).
        java.nio.file.Path root = java.nio.file.Path.of(Mesh.class.getProtectionDomain().getCodeSource().getLocation()
                .toURI());
        List<String> missing = new ArrayList<>();
        for (String pkg : List.of("dev.shardlings.sharding", "dev.shardlings.random", "dev.shardlings.events")) {
            try (var files = java.nio.file.Files.list(root.resolve(pkg.replace('.', '/')))) {
                for (java.nio.file.Path f : (Iterable<java.nio.file.Path>) files::iterator) {
                    String file = f.getFileName().toString();
                    if (!file.endsWith(".class")) {
                        continue;
                    }
                    Class<?> c = Class.forName(pkg + "." + file.substring(0, file.length() - 6));
                    boolean publicApi = Modifier.isPublic(c.getModifiers()) && !c.isInterface()
                            && !Throwable.class.isAssignableFrom(c) && !c.isAnonymousClass() && !c.isSynthetic()
                            && (c.getEnclosingClass() == null || Modifier.isPublic(c.getEnclosingClass().getModifiers()));
                    if (publicApi && !API.contains(c) && !NO_REFERENCE_ARGUMENTS.contains(c)) {
                        missing.add(c.getName());
                    }
                }
            }
        }
        assertTrue(missing.isEmpty(), "public classes not in API: " + missing);
    }

    /** Public classes of those packages whose methods take no reference argument (so nothing to check). */
    static final List<Class<?>> NO_REFERENCE_ARGUMENTS = List.of(NamedSharding.Slice.class);
}
