package dev.shardlings.grader;

import dev.shardlings.array.NDArray;
import dev.shardlings.grader.host.Sandbox;
import dev.shardlings.grader.sandbox.Wire;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.spmd.ShardedArray;
import dev.shardlings.events.Trace;

import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Every method of the course the grader calls, by class, name and signature. The judge never links to the course
 * classes (student code must not run in the process that decides the grade), so it names them here, in one place,
 * and {@link #as(Class)} turns one into an implementation of a check's functional interface whose calls run in
 * the {@link Sandbox}. {@code CourseMethodTest} checks that every entry exists in exercises/ and solutions/ with
 * exactly this signature.
 */
public enum CourseMethod {
    MATMUL_NO_COMMUNICATION("Chapter0", "matmulNoCommunication", ShardedArray.class, ShardedArray.class, ShardedArray.class),
    MATMUL_GATHER_A("Chapter0", "matmulGatherA", ShardedArray.class, ShardedArray.class, ShardedArray.class),
    MATMUL_PSUM("Chapter0", "matmulPsum", ShardedArray.class, ShardedArray.class, ShardedArray.class),
    MATMUL_REDUCE_SCATTER_ALL_GATHER("Chapter0", "matmulReduceScatterAllGather", ShardedArray.class,
            ShardedArray.class, ShardedArray.class),
    MATMUL_SAME_AXIS_GATHER_B("Chapter0", "matmulSameAxisGatherB", ShardedArray.class, ShardedArray.class, ShardedArray.class),
    MATMUL_SAME_AXIS_GATHER_A("Chapter0", "matmulSameAxisGatherA", ShardedArray.class, ShardedArray.class, ShardedArray.class),
    PARALLEL_NORMALIZE("Chapter0", "parallelNormalize", ShardedArray.class, ShardedArray.class),
    MATMUL_WITH_GATHERED_WEIGHT("Chapter0", "matmulWithGatheredWeight", ShardedArray.class, ShardedArray.class,
            ShardedArray.class),
    RING_SHIFT("Chapter0", "ringShift", ShardedArray.class, ShardedArray.class, int.class),
    SLICE_AND_AVERAGE("Chapter0", "sliceAndAverage", ShardedArray.class, ShardedArray.class),
    FOLD_KEY_OVER_AXIS("Chapter0", "foldKeyOverAxis", ShardedArray.class, NDArray.class, Mesh.class),

    PER_SHARD_MEAN("Problem1", "perShardMean", ShardedArray.class, ShardedArray.class),
    PER_SHARD_MEAN_GLOBAL("Problem1", "perShardMeanGlobal", ShardedArray.class, ShardedArray.class),
    ROLL_WITHIN_SHARDS("Problem1", "rollWithinShards", ShardedArray.class, ShardedArray.class, int.class),
    ROLL_WITHIN_SHARDS_GLOBAL("Problem1", "rollWithinShardsGlobal", ShardedArray.class, ShardedArray.class,
            int.class),

    MOE_LOCAL("Problem2", "moeLocal", NDArray.class, NDArray.class, NDArray.class, NDArray.class),
    MOE_JIT("Problem2", "moeJit", ShardedArray.class, ShardedArray.class, ShardedArray.class, ShardedArray.class),
    MOE_JIT_BYTES_RECEIVED("Problem2", "moeJitBytesReceived", int.class, ShardedArray.class, ShardedArray.class,
            ShardedArray.class),
    MOE_ALL_GATHER("Problem2", "moeAllGather", ShardedArray.class, ShardedArray.class, ShardedArray.class,
            ShardedArray.class),
    MOE_ALL_TO_ALL("Problem2", "moeAllToAll", ShardedArray.class, ShardedArray.class, ShardedArray.class,
            ShardedArray.class, int.class),
    MOE_TOP_K_LOCAL("Problem2", "moeTopKLocal", NDArray.class, NDArray.class, NDArray.class, NDArray.class),
    MOE_TOP_K_ALL_TO_ALL("Problem2", "moeTopKAllToAll", ShardedArray.class, ShardedArray.class, ShardedArray.class,
            ShardedArray.class, int.class),

    P3_ALL_GATHER_MATMUL("Problem3", "allGatherMatmul", ShardedArray.class, ShardedArray.class, ShardedArray.class),
    P3_ALL_GATHER_MATMUL_NAIVE("Problem3", "allGatherMatmulNaive", ShardedArray.class, ShardedArray.class,
            ShardedArray.class),
    P3_ALL_REDUCE_MATMUL("Problem3", "allReduceMatmul", ShardedArray.class, ShardedArray.class, ShardedArray.class,
            int.class),
    P3_REDUCE_SCATTER_MATMUL("Problem3", "reduceScatterMatmul", ShardedArray.class, ShardedArray.class,
            ShardedArray.class),
    TRANSFORMER_BLOCK("Problem3", "transformerBlock", ShardedArray.class, ShardedArray.class, ShardedArray.class,
            ShardedArray.class),
    TRANSFORMER_BLOCK_NAIVE("Problem3", "transformerBlockNaive", ShardedArray.class, ShardedArray.class,
            ShardedArray.class, ShardedArray.class),

    P4_ALL_GATHER_MATMUL("Problem4", "allGatherMatmul", ShardedArray.class, ShardedArray.class, ShardedArray.class),
    P4_ALL_REDUCE_MATMUL("Problem4", "allReduceMatmul", ShardedArray.class, ShardedArray.class, ShardedArray.class),
    P4_REDUCE_SCATTER_MATMUL("Problem4", "reduceScatterMatmul", ShardedArray.class, ShardedArray.class,
            ShardedArray.class),

    C5_MATMUL_WITHOUT_COMMUNICATION("Chapter5", "matmulWithoutCommunication", ShardedArray.class, NDArray.class,
            NDArray.class, Mesh.class),
    C5_MATMUL_REDUCE_SCATTER("Chapter5", "matmulReduceScatter", ShardedArray.class, ShardedArray.class,
            ShardedArray.class),
    C5_MATMUL_SQUARE("Chapter5", "matmulSquare", ShardedArray.class, ShardedArray.class, ShardedArray.class),
    C5_MATMUL_SQUARE_EXPLICIT("Chapter5", "matmulSquareExplicit", ShardedArray.class, ShardedArray.class,
            ShardedArray.class),

    C6_TRAIN_DATA_PARALLEL("Chapter6", "trainDataParallel", List.class, List.class, NDArray.class, NDArray.class,
            Mesh.class, int.class, float.class),
    C6_TRAIN_DATA_TENSOR_PARALLEL("Chapter6", "trainDataTensorParallel", List.class, List.class, NDArray.class,
            NDArray.class, Mesh.class, int.class, float.class),
    C6_DATA_PARALLEL_STEP("Chapter6", "dataParallelStep", List.class, List.class, ShardedArray.class,
            ShardedArray.class, float.class),
    C6_FSDP_STEP("Chapter6", "fsdpStep", List.class, List.class, ShardedArray.class, ShardedArray.class, float.class),
    C6_MEGATRON_MLP("Chapter6", "megatronMlp", List.class, ShardedArray.class, ShardedArray.class, ShardedArray.class,
            ShardedArray.class);

    private static final SecureRandom IDS = new SecureRandom();
    /** The trace of the last remote call on this thread, for {@link Guard} to pick up. */
    private static final ThreadLocal<Trace> LAST_TRACE = new ThreadLocal<>();
    /** The course method called last on this thread, for {@link CheckLog}. */
    private static final ThreadLocal<CourseMethod> LAST_CALLED = new ThreadLocal<>();
    /** The time limit {@link Guard} set for calls on this thread. */
    private static final ThreadLocal<Duration> LIMIT = new ThreadLocal<>();
    /** Threads waiting for the sandbox now. */
    private static final java.util.Set<Thread> IN_CALL = java.util.concurrent.ConcurrentHashMap.newKeySet();

    private final String className;
    private final String method;
    private final Class<?> returns;
    private final List<Class<?>> params;

    CourseMethod(String className, String method, Class<?> returns, Class<?>... params) {
        this.className = className;
        this.method = method;
        this.returns = returns;
        this.params = List.of(params);
    }

    /** The course class's simple name, e.g. {@code Problem1}. */
    public String className() {
        return className;
    }

    /** The method's name. */
    public String methodName() {
        return method;
    }

    /** The return type. */
    public Class<?> returnType() {
        return returns;
    }

    /** The parameter types, in order. */
    public List<Class<?>> parameterTypes() {
        return params;
    }

    /** {@code Problem1.perShardMean(ShardedArray)}, for messages. */
    public String signature() {
        return className + "." + method + "(" + String.join(", ", params.stream().map(Class::getSimpleName).toList())
                + ")";
    }

    /**
     * This method as an implementation of {@code iface} (a functional interface whose single method takes the same
     * arguments): each call is sent to the {@link Sandbox#shared() sandbox}, and its trace handed to {@link Guard}.
     *
     * @throws IllegalArgumentException if {@code iface} is not an interface with one abstract method of this arity
     */
    public <F> F as(Class<F> iface) {
        Method sam = Arrays.stream(iface.getMethods()).filter(m -> java.lang.reflect.Modifier.isAbstract(m.getModifiers()))
                .findFirst().orElseThrow(() -> new IllegalArgumentException(iface + " has no abstract method"));
        if (sam.getParameterCount() != params.size()) {
            throw new IllegalArgumentException(iface.getSimpleName() + "." + sam.getName() + " takes "
                    + sam.getParameterCount() + " arguments, " + signature() + " " + params.size());
        }
        Object proxy = Proxy.newProxyInstance(iface.getClassLoader(), new Class<?>[]{iface}, (self, m, args) -> {
            if (m.getDeclaringClass() == Object.class) {
                return switch (m.getName()) {
                    case "toString" -> signature() + " in the sandbox";
                    case "hashCode" -> System.identityHashCode(self);
                    case "equals" -> self == args[0];
                    // A proxy is sent no other method of Object.
                    default -> throw new AssertionError(m.getName());
                };
            }
            return call(args == null ? List.of() : Arrays.asList(args));
        });
        return iface.cast(proxy);
    }

    /** {@link #as(Class)} for a method of two ShardedArrays. */
    @SuppressWarnings("unchecked")
    public java.util.function.BinaryOperator<ShardedArray> binary() {
        return as(java.util.function.BinaryOperator.class);
    }

    /** {@link #as(Class)} for a method of one ShardedArray. */
    @SuppressWarnings("unchecked")
    public java.util.function.Function<ShardedArray, ShardedArray> unary() {
        return as(java.util.function.Function.class);
    }

    /**
     * Calls this method in the sandbox.
     *
     * @throws StudentException          when the student's code threw (or the method is missing)
     * @throws Sandbox.SandboxFailure    when the sandbox failed (time limit, exit, protocol)
     */
    public Object call(List<Object> args) {
        List<String> types = new ArrayList<>();
        for (Class<?> c : params) {
            types.add(c.getSimpleName());
        }
        LAST_CALLED.set(this);
        Wire.Request request = new Wire.Request(IDS.nextLong(), className, method, types, new ArrayList<>(args));
        Duration limit = LIMIT.get() == null ? Sandbox.DEFAULT_CALL_LIMIT : LIMIT.get();
        Wire.Reply reply;
        IN_CALL.add(Thread.currentThread());
        try {
            reply = Sandbox.shared().call(request, limit);
        } finally {
            IN_CALL.remove(Thread.currentThread());
        }
        if (reply.thrown() != null) {
            throw new StudentException(this, reply.thrown());
        }
        // an int or float method's value comes back boxed
        Class<?> boxed = returns == int.class ? Integer.class : returns == float.class ? Float.class : returns;
        if (reply.value() != null && !boxed.isInstance(reply.value())) {
            throw new Sandbox.SandboxFailure(Sandbox.FailureKind.PROTOCOL, "the sandbox answered with a "
                    + reply.value().getClass().getSimpleName() + " where " + signature() + " returns a "
                    + returns.getSimpleName(), "", null);
        }
        LAST_TRACE.set(reply.trace());
        return reply.value();
    }

    /** The course method called last on this thread (null if none), and forgets it. */
    public static CourseMethod takeLastCalled() {
        CourseMethod m = LAST_CALLED.get();
        LAST_CALLED.remove();
        return m;
    }

    /** True while {@code t} waits for the sandbox. */
    public static boolean inSandboxCall(Thread t) {
        return IN_CALL.contains(t);
    }

    /** Sets the time limit of calls on this thread ({@link Guard}). */
    public static void limitCalls(Duration limit) {
        LIMIT.set(limit);
    }

    /** The trace of the last call on this thread, once; null when none. */
    public static Trace takeTrace() {
        Trace t = LAST_TRACE.get();
        LAST_TRACE.remove();
        return t;
    }

    /** What student code threw in the sandbox, described. */
    public static final class StudentException extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final transient Wire.Thrown thrown;

        StudentException(CourseMethod m, Wire.Thrown thrown) {
            super(m.signature() + " threw " + thrown.className() + ": " + thrown.message());
            this.thrown = thrown;
        }

        /** What was thrown. */
        public Wire.Thrown thrown() {
            return thrown;
        }
    }
}
