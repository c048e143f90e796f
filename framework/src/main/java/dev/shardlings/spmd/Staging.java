package dev.shardlings.spmd;

import dev.shardlings.internal.Callers;
import dev.shardlings.primitive.ArrayType;
import dev.shardlings.primitive.Primitive;
import dev.shardlings.sharding.NamedSharding;

import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * Staging of global-view operations into a program instead of running them — how {@code jit} traces a function
 * (JAX's trace context). While a {@link Binder} is installed on a thread, every global-view operation of
 * {@link ShardedArray} on that thread is handed to it, and the values it returns are <em>traced</em> arrays: they
 * have a type and a sharding but no data until the program runs. Framework SPI: programs use {@code jit}.
 *
 * <p>Reading a traced array's data ({@link ShardedArray#gather()} and the other host reads) throws
 * {@link IllegalStateException}, as reading a tracer's value does in JAX.
 */
public final class Staging {
    private Staging() {
    }

    /** Receives each operation while a function is traced. */
    public interface Binder {
        /**
         * Records {@code p} applied to {@code operands} and returns its traced result.
         *
         * @param operands each a {@link ShardedArray} (traced, or concrete: a captured constant) or an
         *                 {@link dev.shardlings.array.NDArray} (an uncommitted constant)
         */
        ShardedArray bind(Primitive p, List<Object> operands);

        /**
         * Records a shardMap region of one or more results and returns its traced results, one per out spec.
         *
         * @param operands as {@link #bind}
         */
        List<ShardedArray> bindRegion(dev.shardlings.primitive.ManualRegion region, List<Object> operands);
    }

    private static final ThreadLocal<Binder> CURRENT = new ThreadLocal<>();
    private static final StackWalker WALKER = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE);

    /**
     * Runs {@code body} with {@code binder} receiving this thread's global-view operations; the previous binder
     * (if any) is restored afterwards, also when body throws.
     *
     * @throws NullPointerException   if an argument is null
     * @throws IllegalCallerException when called from outside the framework in a run where it is a named module
     *                                (the grader's sandbox): a binder decides what every operation does
     */
    public static <T> T run(Binder binder, Supplier<T> body) {
        Callers.requireFramework(WALKER.getCallerClass(), "Staging.run");
        Objects.requireNonNull(binder, "binder");
        Objects.requireNonNull(body, "body");
        Binder previous = CURRENT.get();
        CURRENT.set(binder);
        try {
            return body.get();
        } finally {
            if (previous == null) {
                CURRENT.remove();
            } else {
                CURRENT.set(previous);
            }
        }
    }

    /** The binder installed on this thread, or null when nothing is being traced. */
    public static Binder current() {
        return CURRENT.get();
    }

    /**
     * A traced array of this type, identified by {@code handle} (the tracer's own value, e.g. its variable).
     *
     * @param layout the sharding the traced value reports ({@link ShardedArray#sharding()})
     * @throws NullPointerException   if an argument is null
     * @throws IllegalCallerException when called from outside the framework in a run where it is a named module
     */
    public static ShardedArray tracer(ArrayType type, NamedSharding layout, Object handle) {
        Callers.requireFramework(WALKER.getCallerClass(), "Staging.tracer");
        return ShardedArray.traced(Objects.requireNonNull(type, "type"), Objects.requireNonNull(layout, "layout"),
                Objects.requireNonNull(handle, "handle"));
    }

    /**
     * The handle of a traced array, or null for a concrete one.
     *
     * @throws NullPointerException if x is null
     */
    public static Object handle(ShardedArray x) {
        return Objects.requireNonNull(x, "x").stagedHandle();
    }
}
