package dev.shardlings.autodiff;

import dev.shardlings.autodiff.GradPrograms.Case;
import dev.shardlings.autodiff.GradPrograms.Options;
import dev.shardlings.jit.Jit;
import dev.shardlings.primitive.ShardingTypeError;
import dev.shardlings.sharding.AxisType;
import dev.shardlings.sharding.DuplicateSpecException;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.NamedSharding;
import dev.shardlings.sharding.PartitionSpec;
import dev.shardlings.spmd.ShardedArray;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.statistics.Statistics;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The global reverse-mode engine ({@link Autodiff} on {@link ShardedArray}s, recorded into a jit trace) against
 * finite differences of the float64 reference: the programs of {@link GradientProperties} (without gelu, which
 * ShardedArray lacks; relu as maximum(x, 0); keepdims as a reduction and a reshape; take with index arrays of rank 0
 * and 1) on meshes of 1–16 devices with 1–3 axes, every input placed with a random PartitionSpec that divides it.
 * Both {@code jit(gradList(f))} and the eager {@code gradList(f)} must give the reference's gradients, each with its
 * input's shape and dtype.
 *
 * <p>On Explicit axes the typing rules refuse some programs with a {@link ShardingTypeError} while tracing (an
 * ambiguous matmul, a gather along a sharded dimension, …) or, where JAX's broadcasting rule gives one mesh axis to
 * two dimensions, with JAX's {@link DuplicateSpecException}: those tries are skipped — for these exceptions only,
 * and only when the forward program alone is refused — and counted; the property fails if more than half of its
 * tries are skipped. There each gradient must also have its input's sharding.
 */
class GlobalGradientProperties {

    private static final String[] NAMES = {"a", "b", "c"};

    /** A program, a mesh and one layout per input. */
    record Setup(Case c, int[] sizes, boolean explicit, List<PartitionSpec> specs) {
        Mesh mesh() {
            String[] names = Arrays.copyOf(NAMES, sizes.length);
            if (explicit) {
                return Mesh.makeMesh(sizes, names);
            }
            AxisType[] types = new AxisType[sizes.length];
            Arrays.fill(types, AxisType.AUTO);
            return Mesh.makeMesh(sizes, names, types);
        }

        List<ShardedArray> placed() {
            Mesh mesh = mesh();
            List<ShardedArray> xs = new ArrayList<>();
            List<dev.shardlings.array.NDArray> arrays = c.inputArrays();
            for (int k = 0; k < arrays.size(); k++) {
                xs.add(ShardedArray.devicePut(arrays.get(k), new NamedSharding(mesh, specs.get(k))));
            }
            return xs;
        }

        @Override
        public String toString() {
            return "mesh " + Arrays.toString(sizes) + (explicit ? " Explicit" : " Auto") + ", specs " + specs + "\n"
                    + c;
        }
    }

    /** Each mesh axis on a random dimension it divides (given the axes already there), or on none. */
    static PartitionSpec randomSpec(Random r, int[] shape, int[] sizes) {
        List<List<String>> dims = new ArrayList<>();
        int[] parts = new int[shape.length];
        for (int d = 0; d < shape.length; d++) {
            dims.add(new ArrayList<>());
            parts[d] = 1;
        }
        List<Integer> order = new ArrayList<>();
        for (int a = 0; a < sizes.length; a++) {
            order.add(a);
        }
        java.util.Collections.shuffle(order, r);
        for (int a : order) {
            List<Integer> fits = new ArrayList<>();
            for (int d = 0; d < shape.length; d++) {
                if (shape[d] % (parts[d] * sizes[a]) == 0) {
                    fits.add(d);
                }
            }
            if (!fits.isEmpty() && r.nextDouble() < 0.7) {
                int d = fits.get(r.nextInt(fits.size()));
                dims.get(d).add(NAMES[a]);
                parts[d] *= sizes[a];
            }
        }
        Object[] entries = new Object[shape.length];
        for (int d = 0; d < shape.length; d++) {
            List<String> e = dims.get(d);
            entries[d] = e.isEmpty() ? null : e.size() == 1 ? e.get(0) : PartitionSpec.tuple(e.toArray(String[]::new));
        }
        return PartitionSpec.P(entries);
    }

    static Arbitrary<Setup> setups(boolean explicit) {
        return Combinators.combine(Arbitraries.longs(), Arbitraries.integers().between(1, 4)).as((seed, size) -> {
            Case c = GradPrograms.generate(seed, size, new Options(true, 1, false));
            Random r = new Random(seed * 31 + 7);
            int[] sizes;
            do {
                sizes = new int[1 + r.nextInt(3)];
                for (int a = 0; a < sizes.length; a++) {
                    sizes[a] = new int[]{1, 2, 2, 4}[r.nextInt(4)];
                }
            } while (GradPrograms.size(sizes) > 16);
            List<PartitionSpec> specs = new ArrayList<>();
            for (int[] shape : c.program().inputShapes()) {
                specs.add(randomSpec(r, shape, sizes));
            }
            return new Setup(c, sizes, explicit, List.copyOf(specs));
        });
    }

    @Provide
    Arbitrary<Setup> autoSetups() {
        return setups(false);
    }

    @Provide
    Arbitrary<Setup> explicitSetups() {
        return setups(true);
    }

    /** Σ⟨w, out⟩ on global arrays (w an uncommitted NDArray). */
    static ShardedArray loss(Case c, List<ShardedArray> xs) {
        GradPrograms.Global ops = new GradPrograms.Global(xs);
        ShardedArray total = null;
        for (int k = 0; k < c.program().outs().size(); k++) {
            ShardedArray term = GradPrograms.eval(c.program().outs().get(k), ops).mul(c.weightArray(k)).sum();
            total = total == null ? term : total.add(term);
        }
        return total;
    }

    /** jit(gradList(f)) and the eager gradList(f), each checked for count, shape and dtype. */
    static List<List<ShardedArray>> frameworkGradients(Setup s) {
        List<ShardedArray> xs = s.placed();
        Function<List<ShardedArray>, ShardedArray> f = a -> loss(s.c(), a);
        List<ShardedArray> jitted = Jit.jitList(a -> Autodiff.<ShardedArray>gradList(f).apply(a)).call(xs.toArray());
        List<ShardedArray> eager = Autodiff.<ShardedArray>gradList(f).apply(xs);
        for (List<ShardedArray> gs : List.of(jitted, eager)) {
            assertEquals(xs.size(), gs.size(), "one gradient per input");
            for (int k = 0; k < xs.size(); k++) {
                assertArrayEquals(xs.get(k).shape(), gs.get(k).shape(), "shape of gradient " + k);
                assertEquals(xs.get(k).dtype(), gs.get(k).dtype(), "dtype of gradient " + k);
            }
        }
        return List.of(jitted, eager);
    }

    static String check(Setup s, List<List<ShardedArray>> both) {
        List<double[]> expected = GradPrograms.expectedGradients(s.c());
        String[] how = {"jit(grad)", "eager grad"};
        GradPrograms.beginCase();
        for (int j = 0; j < both.size(); j++) {
            for (int k = 0; k < expected.size(); k++) {
                String bad = GradPrograms.mismatch(how[j] + " d/dx" + k, expected.get(k),
                        both.get(j).get(k).gather().toFloatArray());
                if (bad != null) {
                    return GradPrograms.endCase(bad);
                }
            }
        }
        return GradPrograms.endCase(null);
    }

    /**
     * A refusal by the sharding type system: JAX's ShardingTypeError, or — where a broadcasting rule gives one mesh
     * axis to two dimensions, as JAX's does too — the DuplicateSpecError of the NamedSharding it then builds.
     */
    static boolean isTypingError(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof ShardingTypeError || t instanceof DuplicateSpecException) {
                return true;
            }
        }
        return false;
    }

    /** Whether the forward program alone (jit of the loss, no differentiation) is refused by the type system. */
    static boolean forwardRefused(Setup s) {
        try {
            Jit.jitList(a -> List.of(loss(s.c(), a))).call(s.placed().toArray());
            return false;
        } catch (RuntimeException e) {
            if (isTypingError(e)) {
                return true;
            }
            throw e;
        }
    }

    @Property(tries = 200, seed = "8080", edgeCases = EdgeCasesMode.NONE)
    void gradientsOnAutoMeshesEqualFiniteDifferencesOfTheReference(@ForAll("autoSetups") Setup s) {
        String bad = check(s, frameworkGradients(s));
        if (bad != null) {
            fail(bad + "\n" + s);
        }
    }

    /**
     * As on Auto meshes, and each gradient has its input's sharding type (JAX's cotangent type is the primal's).
     * A program whose forward pass the type system refuses is skipped and counted; a refusal in the backward pass
     * only is a failure: the transposes of well-typed operations must be well typed.
     */
    @Property(tries = 200, seed = "9090", edgeCases = EdgeCasesMode.NONE)
    void gradientsOnExplicitMeshesEqualFiniteDifferencesOfTheReference(@ForAll("explicitSetups") Setup s) {
        List<List<ShardedArray>> both;
        try {
            both = frameworkGradients(s);
        } catch (RuntimeException e) {
            if (!isTypingError(e)) {
                throw new AssertionError("differentiating failed: " + e + "\n" + s, e);
            }
            if (!forwardRefused(s)) {
                throw new AssertionError("the forward program types, but its gradient is refused: " + e + "\n" + s, e);
            }
            Statistics.label("forward refused by the type system").collect("skipped");
            Statistics.label("forward refused by the type system")
                    .coverage(c -> c.check("skipped").percentage(p -> p <= 50.0));
            return;
        }
        Statistics.label("forward refused by the type system").collect("ran");
        Statistics.label("forward refused by the type system")
                .coverage(c -> c.check("skipped").percentage(p -> p <= 50.0));
        List<ShardedArray> xs = s.placed();
        for (List<ShardedArray> gs : both) {
            for (int k = 0; k < xs.size(); k++) {
                PartitionSpec want = xs.get(k).sharding().spec();
                PartitionSpec got = gs.get(k).sharding().spec();
                assertTrue(got.isEquivalentTo(want), "gradient " + k + " has sharding " + got + ", its input " + want
                        + "\n" + s);
            }
        }
        String bad = check(s, both);
        if (bad != null) {
            fail(bad + "\n" + s);
        }
    }

    /**
     * The oracle has teeth: doubled gradients are caught whenever a gradient is not ~0. Programs the framework cannot
     * differentiate (a bug the properties report) are left out.
     */
    @Example
    void aDoubledGradientIsCaught() {
        Random r = new Random(5);
        int usable = 0;
        for (int t = 0; t < 40 && usable < 20; t++) {
            Setup s = setups(false).generator(1000).next(new Random(r.nextLong())).value();
            List<List<ShardedArray>> both;
            try {
                both = frameworkGradients(s);
            } catch (RuntimeException e) {
                continue;
            }
            if (check(s, both) != null) {
                continue;
            }
            boolean zero = both.get(0).stream().allMatch(g -> {
                for (float x : g.gather().toFloatArray()) {
                    if (Math.abs(x) > 0.01) {
                        return false;
                    }
                }
                return true;
            });
            if (zero) {
                continue;
            }
            usable++;
            List<List<ShardedArray>> doubled = List.of(both.get(0).stream().map(g -> g.mul(2.0)).toList());
            assertTrue(check(s, doubled) != null, "a doubled gradient was not caught\n" + s);
        }
        assertTrue(usable >= 10, "only " + usable + " usable programs");
    }

    @AfterContainer
    static void report() {
        System.out.println("GlobalGradientProperties: worst |g - fd| / (1 + |fd|) of the matching cases: "
                + GradPrograms.worstRatio + " (tolerance " + GradPrograms.RTOL + ")");
        GradPrograms.worstRatio = 0;
    }
}
