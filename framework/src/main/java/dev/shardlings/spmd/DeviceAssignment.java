package dev.shardlings.spmd;

import dev.shardlings.array.BinaryOp;
import dev.shardlings.array.CompareOp;

import java.util.Arrays;
import java.util.Locale;

/**
 * JAX's dispatch check that the committed arguments of one computation live on one device assignment (the mesh's
 * devices in flat order), made before any typing rule runs. An eager {@code jnp} function is a jitted computation
 * in JAX, so {@code x + y} on arrays committed to devices [0..3] and [4..7], or to the same devices in another
 * order, is refused with the text {@code pjit} prints. Package-private: {@link ShardedArray}'s global-view methods
 * call it with the name and parameter names of the {@code jax.numpy} function they mirror.
 */
final class DeviceAssignment {
    private static final String[] X_Y = {"x", "y"};
    private static final String[] X1_X2 = {"x1", "x2"};

    private DeviceAssignment() {
    }

    /**
     * Checks that every non-null argument has the first one's device assignment.
     *
     * @param function the mirrored function's {@code __name__} as JAX prints it, e.g. {@code "add"}, {@code "_where"}
     * @param names    its parameter names, one per argument, e.g. {@code x}, {@code y}
     * @param args     the arguments; null for one that is not a committed array (a scalar)
     * @throws IllegalArgumentException JAX's {@code ValueError}: "Received incompatible devices for jitted
     *                                  computation. Got argument x of add with shape int32[24] and with device ids
     *                                  [0, 1, 2, 3] on platform CPU and argument y of add …"
     */
    static void check(String function, String[] names, ShardedArray... args) {
        int first = -1;
        for (int k = 0; k < args.length; k++) {
            if (args[k] == null) {
                continue;
            }
            if (first < 0) {
                first = k;
            } else if (!Arrays.equals(args[first].mesh().deviceIds(), args[k].mesh().deviceIds())) {
                throw new IllegalArgumentException("Received incompatible devices for jitted computation. Got "
                        + describe(function, names[first], args[first]) + " and "
                        + describe(function, names[k], args[k]));
            }
        }
    }

    /**
     * {@link #check} for {@code jnp.add(x, y)} and the other two-array elementwise functions: JAX's true and floor
     * division name their operands x1 and x2, and {@code x / y} is {@code true_divide}.
     */
    static void elementwise(BinaryOp op, ShardedArray x, ShardedArray y) {
        String[] names = op == BinaryOp.DIV || op == BinaryOp.FLOOR_DIV ? X1_X2 : X_Y;
        check(op == BinaryOp.DIV ? "true_divide" : op.jaxName(), names, x, y);
    }

    /** {@link #check} for {@code jnp.greater(x, y)} and the other comparisons. */
    static void comparison(CompareOp op, ShardedArray x, ShardedArray y) {
        check(op.jaxName(), X_Y, x, y);
    }

    /** Names {@code prefix[0]}, {@code prefix[1]}, … (JAX's names for the elements of a {@code *args} list). */
    static String[] indexed(String prefix, int n) {
        String[] out = new String[n];
        for (int k = 0; k < n; k++) {
            out[k] = prefix + "[" + k + "]";
        }
        return out;
    }

    private static String describe(String function, String name, ShardedArray a) {
        // the shape is jax.typeof's (f32[8@X] on Explicit axes); the platform is upper case, as JAX prints it
        return "argument " + name + " of " + function + " with shape " + a.type() + " and with device ids "
                + Arrays.toString(a.mesh().deviceIds()) + " on platform "
                + a.mesh().devices().get(0).platform().toUpperCase(Locale.ROOT);
    }
}
