package dev.shardlings.grader.parts;

import dev.shardlings.array.NDArray;
import dev.shardlings.grader.host.Sandbox;
import dev.shardlings.events.Trace;
import dev.shardlings.grader.sandbox.Wire;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.spmd.ShardedArray;

import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A method of the course the grader calls, by class, name and signature; each is declared once, in its chapter's
 * table of parts ({@code chapter0.Chapter0Checks}, …). The judge never links to the course classes (student code
 * must not run in the process that decides the grade), so it names them, and {@link #proxy()} turns one into an
 * implementation of the check's functional interface {@code F} whose calls run in the {@link Sandbox}.
 * {@code CourseMethodTest} checks that every one exists in exercises/ and solutions/ with exactly this signature, and
 * {@code CourseContractTest} compiles {@code F f = Class::method} for every one against both.
 *
 * @param <F> the functional interface the checks call the method through
 */
public final class CourseMethod<F> {

    private static final SecureRandom IDS = new SecureRandom();
    /** The trace of the last remote call on this thread, for {@link Guard} to pick up. */
    private static final ThreadLocal<Trace> LAST_TRACE = new ThreadLocal<>();
    /** The course method called last on this thread, for {@link CheckLog}. */
    private static final ThreadLocal<CourseMethod<?>> LAST_CALLED = new ThreadLocal<>();
    /** The time limit {@link Guard} set for calls on this thread. */
    private static final ThreadLocal<Duration> LIMIT = new ThreadLocal<>();
    /** Threads waiting for the sandbox now. */
    private static final java.util.Set<Thread> IN_CALL = java.util.concurrent.ConcurrentHashMap.newKeySet();

    private final Class<F> via;
    private final String viaType;
    private final String className;
    private final String method;
    private final Class<?> returns;
    private final List<Class<?>> params;

    /**
     * Made by {@link Part.Chapter#method}: a course method belongs to its chapter's table.
     *
     * @param via     the functional interface the checks call it through
     * @param viaType that interface as Java source, type arguments included (the compiled contract's text)
     */
    CourseMethod(Class<F> via, String viaType, String className, String method, Class<?> returns, Class<?>... params) {
        this.via = via;
        this.viaType = viaType;
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

    @Override
    public String toString() {
        return signature();
    }

    /** {@code Problem1.perShardMean(ShardedArray)}, for messages. */
    public String signature() {
        return className + "." + method + "(" + String.join(", ", params.stream().map(Class::getSimpleName).toList())
                + ")";
    }

    /** The functional interface the checks call this method through, as Java source ({@code Problem2Checks.Sharded}). */
    public String viaType() {
        return viaType;
    }

    /**
     * This method as an implementation of its functional interface: each call is sent to the
     * {@link Sandbox#shared() sandbox}, and its trace handed to {@link Guard}.
     */
    public F proxy() {
        Method sam = Arrays.stream(via.getMethods()).filter(m -> java.lang.reflect.Modifier.isAbstract(m.getModifiers()))
                .findFirst().orElseThrow(() -> new IllegalArgumentException(via + " has no abstract method"));
        if (sam.getParameterCount() != params.size()) {
            throw new IllegalArgumentException(via.getSimpleName() + "." + sam.getName() + " takes "
                    + sam.getParameterCount() + " arguments, " + signature() + " " + params.size());
        }
        Object proxy = Proxy.newProxyInstance(via.getClassLoader(), new Class<?>[]{via}, (self, m, args) -> {
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
        return via.cast(proxy);
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
    public static CourseMethod<?> takeLastCalled() {
        CourseMethod<?> m = LAST_CALLED.get();
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

        StudentException(CourseMethod<?> m, Wire.Thrown thrown) {
            super(m.signature() + " threw " + thrown.className() + ": " + thrown.message());
            this.thrown = thrown;
        }

        /** What was thrown. */
        public Wire.Thrown thrown() {
            return thrown;
        }
    }
}
