package dev.shardlings;

import dev.shardlings.array.KeepDims;
import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.NamedSharding;
import dev.shardlings.sharding.PartitionSpec;
import dev.shardlings.spmd.Collectives;
import dev.shardlings.spmd.ShardMap;
import dev.shardlings.spmd.ShardedArray;
import dev.shardlings.spmd.SpmdException;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Supplier;

import static dev.shardlings.spmd.Tiling.TILED;
import static dev.shardlings.spmd.Tiling.UNTILED;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * Fuzzing the public API with the inputs a learner can think of — meshes of any sizes and names, specs with
 * unknown, repeated and tupled axes, arrays of any shape and dtype, axes and dimensions out of range, permutations
 * that are not, collectives over any axes — and asserting that only the documented exceptions come out:
 * IllegalArgumentException (and its subclasses) for bad arguments, IllegalStateException for calls in the wrong
 * place, and the shardMap failures ({@link SpmdException}) whose cause is one of those. Never a
 * NullPointerException, ArrayIndexOutOfBoundsException, ClassCastException or ArithmeticException from inside, and
 * every message says something.
 */
class PublicApiFuzzProperties {

    private static final List<String> NAMES = List.of("x", "y", "z", "i", "X");

    /** One random program of API calls, as a seed (so a shrunk case is one number and reproducible). */
    @Property(tries = 400, seed = "7007")
    void onlyDocumentedExceptions(@ForAll("seeds") long seed) {
        Random r = new Random(seed);
        for (int step = 0; step < 6; step++) {
            int op = r.nextInt(12);
            Supplier<?> call = () -> call(op, r);
            try {
                assertNotNull(call.get());
            } catch (Throwable t) {
                assertDocumented(t, "operation " + op + " (seed " + seed + ")");
            }
        }
    }

    @Provide
    Arbitrary<Long> seeds() {
        return Arbitraries.longs();
    }

    private static void assertDocumented(Throwable t, String where) {
        Throwable root = t;
        if (t instanceof SpmdException && t.getCause() != null) {
            root = t.getCause();
        }
        boolean documented = t instanceof SpmdException && t.getCause() == null
                || root instanceof IllegalArgumentException || root instanceof IllegalStateException;
        if (!documented) {
            throw new AssertionError(where + ": undocumented " + t, t);
        }
        String msg = root.getMessage();
        assertFalse(msg == null || msg.isBlank(), where + ": an exception without a message: " + t);
    }

    // ------------------------------------------------------------------------------------------- generators

    private static int[] shape(Random r, int maxRank) {
        int rank = r.nextInt(maxRank + 1);
        int[] s = new int[rank];
        for (int i = 0; i < rank; i++) {
            s[i] = r.nextInt(10) == 0 ? r.nextInt(3) - 1 : 1 + r.nextInt(4); // sometimes 0 or −1
        }
        return s;
    }

    private static NDArray array(Random r) {
        int[] s = shape(r, 3);
        for (int i = 0; i < s.length; i++) {
            s[i] = Math.max(0, s[i]);
        }
        return r.nextBoolean() ? NDArray.zeros(DType.FLOAT32, s) : NDArray.zeros(DType.INT32, s);
    }

    private static Mesh mesh(Random r) {
        int axes = 1 + r.nextInt(3);
        int[] sizes = new int[axes];
        List<String> pool = new ArrayList<>(NAMES);
        java.util.Collections.shuffle(pool, r);
        String[] names = new String[axes];
        for (int i = 0; i < axes; i++) {
            sizes[i] = r.nextInt(12) == 0 ? r.nextInt(2) - 1 : 1 + r.nextInt(3);
            names[i] = r.nextInt(15) == 0 ? (r.nextBoolean() ? "" : NAMES.get(0)) : pool.get(i); // mostly distinct
        }
        return Mesh.makeMesh(sizes, names);
    }

    /** An axis name: mostly one of the mesh's, sometimes not. */
    private static String name(Random r, Mesh m) {
        return r.nextInt(6) == 0 ? NAMES.get(r.nextInt(NAMES.size())) : m.axisNames().get(r.nextInt(m.axisNames()
                .size()));
    }

    /** A spec over the mesh's axes (mostly valid), and an array shape that mostly divides by it. */
    private static PartitionSpec specFor(Random r, Mesh m, int[] shape) {
        Object[] e = new Object[Math.min(shape.length, r.nextInt(4))];
        List<String> used = new ArrayList<>();
        for (int i = 0; i < e.length; i++) {
            int pick = r.nextInt(4);
            String n = name(r, m);
            if (pick == 0 || used.contains(n) && r.nextInt(4) != 0) {
                e[i] = null;
                continue;
            }
            used.add(n);
            e[i] = n;
            if (r.nextInt(8) != 0 && m.axisNames().contains(n)) {
                shape[i] = m.axisSize(n) * (1 + r.nextInt(2)); // divisible
            }
        }
        return PartitionSpec.P(e);
    }

    private static Object specEntry(Random r) {
        switch (r.nextInt(5)) {
            case 0: return null;
            case 1: return List.of(NAMES.get(r.nextInt(NAMES.size())), NAMES.get(r.nextInt(NAMES.size())));
            case 2: return PartitionSpec.tuple(NAMES.get(r.nextInt(NAMES.size())));
            default: return NAMES.get(r.nextInt(NAMES.size()));
        }
    }

    private static PartitionSpec spec(Random r) {
        Object[] e = new Object[r.nextInt(4)];
        for (int i = 0; i < e.length; i++) {
            e[i] = specEntry(r);
        }
        return PartitionSpec.P(e);
    }

    private static int axis(Random r) {
        return r.nextInt(9) - 4;
    }

    // ------------------------------------------------------------------------------------------------ calls

    private static Object call(int op, Random r) {
        switch (op) {
            case 0: return mesh(r);
            case 1: return spec(r);
            case 2: return new NamedSharding(mesh(r), spec(r)).shardShape(shape(r, 3));
            case 3: {
                Mesh m = mesh(r);
                int[] s = shape(r, 2);
                for (int i = 0; i < s.length; i++) {
                    s[i] = Math.max(1, s[i]);
                }
                PartitionSpec p = r.nextInt(5) == 0 ? spec(r) : specFor(r, m, s);
                ShardedArray x = ShardedArray.devicePut(NDArray.zeros(DType.FLOAT32, s), m, p);
                return x.visualize() + x.gather() + x.perDeviceText();
            }
            case 4: return array(r).reshape(shape(r, 3));
            case 5: {
                NDArray a = array(r);
                int[] perm = new int[a.rank()];
                for (int i = 0; i < perm.length; i++) {
                    perm[i] = r.nextInt(a.rank() + 2) - 1;
                }
                return a.transpose(perm);
            }
            case 6: {
                NDArray a = array(r);
                return a.slice(axis(r), r.nextInt(6) - 1, r.nextInt(6) - 1);
            }
            case 7: {
                NDArray a = array(r);
                int[] idx = new int[r.nextInt(4)];
                for (int i = 0; i < idx.length; i++) {
                    idx[i] = r.nextInt(9) - 4;
                }
                return a.take(NDArray.fromInts(idx, idx.length), axis(r));
            }
            case 8: return array(r).sum(r.nextBoolean() ? KeepDims.KEEP : KeepDims.DROP, axis(r));
            case 9: return array(r).matmul(array(r));
            case 10: {
                List<NDArray> xs = new ArrayList<>();
                for (int i = r.nextInt(3); i >= 0; i--) {
                    xs.add(array(r));
                }
                return r.nextBoolean() ? NDArray.concat(axis(r), xs) : NDArray.stack(axis(r), xs);
            }
            default: return shardMapCall(r);
        }
    }

    /** A shardMap with random specs whose body calls a random collective with random arguments. */
    private static Object shardMapCall(Random r) {
        Mesh mesh = mesh(r);
        int[] shape = shape(r, 3);
        for (int i = 0; i < shape.length; i++) {
            shape[i] = Math.max(1, shape[i]);
        }
        PartitionSpec in = specFor(r, mesh, shape);
        NDArray a = r.nextBoolean() ? NDArray.zeros(DType.FLOAT32, shape) : NDArray.zeros(DType.INT32, shape);
        PartitionSpec out = r.nextBoolean() ? in : specFor(r, mesh, shape.clone());
        String ax = name(r, mesh);
        int kind = r.nextInt(7);
        int dim = r.nextInt(4) == 0 ? axis(r) : r.nextInt(Math.max(1, shape.length));
        int[][] perm = new int[r.nextInt(3)][];
        for (int i = 0; i < perm.length; i++) {
            perm[i] = new int[]{r.nextInt(4) - 1, r.nextInt(4) - 1};
        }
        boolean tiled = r.nextBoolean();
        ShardMap.Unary f = ShardMap.shardMap(b -> {
            switch (kind) {
                case 0: return Collectives.psum(b, ax);
                case 1: return Collectives.allGather(b, ax, dim, tiled ? TILED : UNTILED);
                case 2: return Collectives.psumScatter(b, ax, dim, tiled ? TILED : UNTILED);
                case 3: return Collectives.allToAll(b, ax, dim, axisOr(dim), tiled ? TILED : UNTILED);
                case 4: return Collectives.ppermute(b, ax, perm);
                case 5: return Collectives.pmean(b, ax, name(new Random(dim), mesh));
                default: return b.add(Collectives.axisIndex(ax));
            }
        }, mesh, in, out);
        return r.nextBoolean() ? f.checkVma(false).apply(a) : f.apply(a);
    }

    private static int axisOr(int dim) {
        return dim == 0 ? 1 : 0;
    }
}
