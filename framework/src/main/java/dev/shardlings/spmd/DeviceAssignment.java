package dev.shardlings.spmd;

import dev.shardlings.array.BinaryOp;
import dev.shardlings.array.CompareOp;

import dev.shardlings.sharding.AxisType;
import dev.shardlings.sharding.Mesh;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
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

    /**
     * The operands of one eager operation on one mesh. Placed operands on other Auto meshes over the same devices
     * in the same order (an 8-device mesh and a 4×2 one) are written on the finer of the meshes, which can name
     * every layout of the coarser ({@link Mesh#finer}): JAX runs such an operation, since on Auto axes XLA sees
     * device groups, not axis names. Operands with Explicit or Manual axes stay where they are, so typing reports
     * JAX's "Mesh for all inputs should be equal".
     *
     * @param operands the operands, the first placed one deciding where the result goes
     * @param result   the first placed operand's mesh: JAX puts the result there ({@link #resultOn})
     */
    record OneMesh(List<GlobalOps.Operand> operands, Mesh result) {
        /** The result written on the first operand's mesh when that mesh can name its layout, else as it is. */
        ShardedArray resultOn(ShardedArray r) {
            return result == null ? r : r.onMesh(result).orElse(r);
        }
    }

    /**
     * See {@link OneMesh}.
     *
     * @param function the primitive's name, for the error
     * @throws IllegalArgumentException when neither of two such meshes can name the other's layouts (a 4×2 and a
     *                                  2×4 mesh): a framework limit, JAX would run it
     */
    static OneMesh onOneMesh(String function, List<GlobalOps.Operand> operands) {
        Mesh first = null;
        Mesh program = null;
        for (GlobalOps.Operand o : operands) {
            if (o instanceof GlobalOps.Placed p && !p.array().isTraced() && onlyAuto(p.array().mesh())) {
                Mesh m = p.array().mesh();
                if (first == null) {
                    first = m;
                    program = m;
                } else if (!m.equals(program) && program.sameDeviceAssignment(m)) {
                    Mesh current = program;
                    program = program.finer(m).orElseThrow(() -> new IllegalArgumentException(function
                            + ": operands on " + current + " and " + m + " over the same devices, neither of which"
                            + " can name the other's layouts; the framework runs an operation on one mesh (JAX would"
                            + " run it): reshard one of them first"));
                }
            }
        }
        Mesh chosen = program;
        if (chosen == null || chosen.equals(first) && operands.stream().allMatch(
                o -> !(o instanceof GlobalOps.Placed p) || p.array().mesh().equals(chosen))) {
            return new OneMesh(operands, null);
        }
        List<GlobalOps.Operand> out = new ArrayList<>(operands.size());
        for (GlobalOps.Operand o : operands) {
            if (o instanceof GlobalOps.Placed p && !p.array().isTraced() && onlyAuto(p.array().mesh())
                    && program.canName(p.array().mesh())) {
                out.add(GlobalOps.of(p.array().onMesh(program).orElseThrow()));
            } else {
                out.add(o);
            }
        }
        return new OneMesh(out, first);
    }

    private static boolean onlyAuto(Mesh m) {
        return m.axisTypes().stream().allMatch(t -> t == AxisType.AUTO);
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
