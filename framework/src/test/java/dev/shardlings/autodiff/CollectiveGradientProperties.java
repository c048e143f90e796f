package dev.shardlings.autodiff;

import dev.shardlings.array.DType;
import dev.shardlings.array.GradRecorder;
import dev.shardlings.array.GradRecorders;
import dev.shardlings.array.NDArray;
import dev.shardlings.autodiff.GradPrograms.D;
import dev.shardlings.sharding.AxisType;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.NamedSharding;
import dev.shardlings.sharding.PartitionSpec;
import dev.shardlings.spmd.Collectives;
import dev.shardlings.spmd.ShardMap;
import dev.shardlings.spmd.ShardedArray;
import dev.shardlings.spmd.Tiling;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Gradients through {@link ShardMap} programs and their collectives — psum, pmean, all_gather (tiled and untiled,
 * over one axis or a tuple), all_gather_invariant, psum_scatter, ppermute (random, possibly partial permutations),
 * all_to_all, and axis_index — on random meshes of 1–3 axes and at most 16 devices, differentiated
 * <ul>
 *   <li>outside the shardMap, by the global engine ({@code Autodiff.gradList} of a function of global arrays that
 *       calls the shardMap, then takes Σ⟨w, out⟩ of its result): the gradient is that of the global function;</li>
 *   <li>inside the body, by the local engine on every device ({@code Autodiff.gradList} of the device's scalar
 *       s = Σ⟨c, v⟩), the gradients returned with their arguments' in specs.</li>
 * </ul>
 * The reference simulates the devices in float64 — each collective written here from its documented meaning over
 * the device groups — and differentiates the resulting global function by central differences.
 *
 * <p>Inside the body the expected value follows JAX's varying-axes (vma) typing: a value that does not vary over an
 * axis is one value, not one per device. So the device-local gradients of s are those of
 * G = Σ over the distinct values of s = (Σ over all devices of s_d) / Π{|a| : s does not vary over a}, with respect
 * to the distinct values of each argument — which is how an invariant argument combined with varying values gets
 * its gradient psummed (the transpose of the implicit pvary), and how psum of an invariant value counts |A| copies.
 */
class CollectiveGradientProperties {

    private static final String[] NAMES = {"a", "b", "c"};

    // ------------------------------------------------------------------------------------------ the programs

    /** How the body starts from its blocks x and w (w broadcasts against x). */
    enum Start { MUL, ADD_SIN, SIN_MUL }

    enum LocalKind { SIN, TANH, SQUARE, SCALE, MUL_INDEX }

    sealed interface Step permits Local, Psum, Gather, Scatter, Permute, ToAll {
    }

    /** A local operation; MUL_INDEX multiplies by axis_index(axis) + 1. */
    record Local(LocalKind kind, String axis) implements Step {
    }

    /** psum, or pmean; buggy: pmean recorded with a planted bug (its transpose forgets the 1/n). */
    record Psum(List<String> axes, boolean mean, boolean buggy) implements Step {
    }

    record Gather(List<String> axes, int dim, boolean tiled, boolean invariant) implements Step {
    }

    record Scatter(List<String> axes, int dim, boolean tiled) implements Step {
    }

    /** ppermute by (source, destination) pairs; buggy: transposed by the same permutation, not its inverse. */
    record Permute(List<String> axes, int[][] perm, boolean buggy) implements Step {
        @Override
        public String toString() {
            return "Permute[axes=" + axes + ", perm=" + Arrays.deepToString(perm) + (buggy ? ", BUGGY" : "") + "]";
        }
    }

    record ToAll(List<String> axes, int split, int concat, boolean tiled) implements Step {
    }

    enum Mode { OUTER, INNER }

    /**
     * A shardMap program with its data.
     *
     * @param xDims      per dimension, the mesh axes splitting x (its in spec)
     * @param wDims      per dimension, the mesh axes splitting w (its in spec)
     * @param psumEnd    the final scalar is psummed over the axes it varies over
     * @param outDims    OUTER with a block result: its out spec; null: the result is the (psummed) scalar sum
     * @param weights    OUTER: w of Σ⟨w, out⟩ (the global result's shape); INNER: c of s = Σ⟨c, v⟩ (a block)
     * @param endVma     the axes the value before the end varies over
     */
    record Program(long seed, Mode mode, int[] sizes, boolean explicit, int[] xBlock, List<List<String>> xDims,
                   int[] wBlock, List<List<String>> wDims, Start start, List<Step> steps, int[] endShape,
                   Set<String> endVma, boolean psumEnd, List<String> psumAxes, List<List<String>> outDims,
                   float[] x, float[] w, float[] weights) {

        int[] xGlobal() {
            return global(xBlock, xDims);
        }

        int[] wGlobal() {
            return global(wBlock, wDims);
        }

        int[] global(int[] block, List<List<String>> dims) {
            int[] g = block.clone();
            for (int d = 0; d < g.length; d++) {
                g[d] *= axesSize(dims.get(d));
            }
            return g;
        }

        int axesSize(List<String> axes) {
            int n = 1;
            for (String a : axes) {
                n *= sizes[Arrays.asList(NAMES).indexOf(a)];
            }
            return n;
        }

        int[] outGlobal() {
            return outDims == null ? new int[0] : global(endShape, outDims);
        }

        Mesh mesh() {
            String[] names = Arrays.copyOf(NAMES, sizes.length);
            if (explicit) {
                return Mesh.makeMesh(sizes, names);
            }
            AxisType[] types = new AxisType[sizes.length];
            Arrays.fill(types, AxisType.AUTO);
            return Mesh.makeMesh(sizes, names, types);
        }

        @Override
        public String toString() {
            return "Program(seed=" + seed + ", " + mode + ", mesh " + Arrays.toString(sizes) + (explicit ? " Explicit"
                    : " Auto") + ")\n  x block " + GradPrograms.str(xBlock) + " spec " + spec(xDims) + " (global "
                    + GradPrograms.str(xGlobal()) + "), w block " + GradPrograms.str(wBlock) + " spec " + spec(wDims)
                    + " (global " + GradPrograms.str(wGlobal()) + ")\n  v = " + start + "(x, w); then " + steps
                    + "\n  end: v " + GradPrograms.str(endShape) + " varying over " + endVma
                    + (mode == Mode.OUTER ? (outDims == null ? ", out = " + (psumEnd ? "psum(" : "(") + "sum(v)"
                    + (psumEnd ? ", " + psumAxes : "") + ") P()" : ", out = v with out spec " + spec(outDims))
                    + ", loss Σ⟨w, out⟩" : ", s = " + (psumEnd ? "psum(" : "(") + "Σ⟨c, v⟩" + (psumEnd ? ", "
                    + psumAxes : "") + "), gradList inside the body")
                    + "\n  x = " + Arrays.toString(x) + "\n  w = " + Arrays.toString(w) + "\n  weights = "
                    + Arrays.toString(weights);
        }
    }

    static PartitionSpec spec(List<List<String>> dims) {
        Object[] entries = new Object[dims.size()];
        for (int d = 0; d < dims.size(); d++) {
            List<String> e = dims.get(d);
            entries[d] = e.isEmpty() ? null : e.size() == 1 ? e.get(0) : PartitionSpec.tuple(e.toArray(String[]::new));
        }
        return PartitionSpec.P(entries);
    }

    // ------------------------------------------------------------------------------------------ the generator

    /** Which planted bug to force into a program (NONE for the properties). */
    enum Bug { NONE, PMEAN_WITHOUT_DIVISION, PPERMUTE_NOT_INVERTED }

    @SuppressWarnings("unchecked")
    static Program generate(long seed, Mode mode, Bug bug) {
        Random r = new Random(seed);
        int[] sizes;
        do {
            sizes = new int[1 + r.nextInt(3)];
            for (int a = 0; a < sizes.length; a++) {
                sizes[a] = new int[]{1, 2, 2, 4, 3}[r.nextInt(5)];
            }
            if (bug != Bug.NONE) {
                sizes[0] = 4;
            }
        } while (GradPrograms.size(sizes) > 16);
        List<String> axes = Arrays.asList(NAMES).subList(0, sizes.length);
        int[] xBlock = new int[1 + r.nextInt(2)];
        for (int d = 0; d < xBlock.length; d++) {
            xBlock[d] = new int[]{1, 2, 2, 4}[r.nextInt(4)];
        }
        List<List<String>> xDims = layout(r, xBlock.length, axes, 0.65, bug == Bug.PPERMUTE_NOT_INVERTED ? "a" : null);
        int[] wBlock = switch (r.nextInt(3)) {
            case 0 -> xBlock.clone();
            case 1 -> new int[]{xBlock[xBlock.length - 1]};
            default -> new int[0];
        };
        List<List<String>> wDims = r.nextBoolean() ? layout(r, wBlock.length, axes, 0, null)
                : layout(r, wBlock.length, axes, 0.5, null);
        Start start = Start.values()[r.nextInt(Start.values().length)];
        Set<String> vma = new LinkedHashSet<>();
        xDims.forEach(vma::addAll);
        wDims.forEach(vma::addAll);
        int[] shape = xBlock.clone();
        List<Step> steps = new ArrayList<>();
        int n = 1 + r.nextInt(3);
        boolean collective = false;
        boolean squared = false;
        if (bug != Bug.NONE) {
            List<String> a = List.of("a");
            if (bug == Bug.PMEAN_WITHOUT_DIVISION) {
                steps.add(new Psum(a, true, true));
                vma.remove("a");
            } else {
                int[] cycle = {1, 2, 3, 0};
                int[][] perm = new int[4][];
                for (int k = 0; k < 4; k++) {
                    perm[k] = new int[]{k, cycle[k]};
                }
                steps.add(new Permute(a, perm, true));
                // a cotangent equal on every device would hide the bug (any permutation of it is the same)
                steps.add(new Local(LocalKind.MUL_INDEX, "a"));
                vma.add("a");
            }
            collective = true;
        }
        for (int k = 0; (k < n || !collective) && k < 12; k++) {
            Object[] made = step(r, shape, vma, axes, sizes, squared);
            if (made == null) {
                continue;
            }
            Step s = (Step) made[0];
            steps.add(s);
            shape = (int[]) made[1];
            vma = (Set<String>) made[2];
            collective |= !(s instanceof Local);
            squared |= s instanceof Local l && l.kind() == LocalKind.SQUARE;
        }
        boolean psumEnd = !vma.isEmpty() && r.nextBoolean();
        List<String> psumAxes = new ArrayList<>(vma);
        Collections.shuffle(psumAxes, r);
        List<List<String>> outDims = null;
        if (mode == Mode.OUTER) {
            if (shape.length == 0 || r.nextDouble() < 0.3) {
                psumEnd = !vma.isEmpty();
            } else {
                psumEnd = false;
                outDims = new ArrayList<>();
                for (int d = 0; d < shape.length; d++) {
                    outDims.add(new ArrayList<>());
                }
                List<String> order = new ArrayList<>(axes);
                Collections.shuffle(order, r);
                for (String a : order) {
                    if (vma.contains(a) || r.nextDouble() < 0.3) {
                        outDims.get(r.nextInt(shape.length)).add(a);
                    }
                }
            }
        }
        Program shapeOnly = new Program(seed, mode, sizes, r.nextBoolean(), xBlock, xDims, wBlock, wDims, start,
                List.copyOf(steps), shape, Set.copyOf(vma), psumEnd, List.copyOf(psumAxes), outDims, null, null, null);
        float[] x = values(r, GradPrograms.size(shapeOnly.xGlobal()));
        float[] w = values(r, GradPrograms.size(shapeOnly.wGlobal()));
        float[] weights = values(r, GradPrograms.size(mode == Mode.OUTER ? shapeOnly.outGlobal() : shape));
        return new Program(seed, mode, sizes, shapeOnly.explicit(), xBlock, xDims, wBlock, wDims, start,
                List.copyOf(steps), shape, Set.copyOf(vma), psumEnd, List.copyOf(psumAxes), outDims, x, w, weights);
    }

    static float[] values(Random r, int n) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = (float) (r.nextDouble() * 2 - 1);
        }
        return v;
    }

    /** Each axis on a random dimension with probability p (always for {@code must}); rank 0 gets none. */
    static List<List<String>> layout(Random r, int rank, List<String> axes, double p, String must) {
        List<List<String>> dims = new ArrayList<>();
        for (int d = 0; d < rank; d++) {
            dims.add(new ArrayList<>());
        }
        List<String> order = new ArrayList<>(axes);
        Collections.shuffle(order, r);
        for (String a : order) {
            if (rank > 0 && (a.equals(must) || r.nextDouble() < p)) {
                dims.get(r.nextInt(rank)).add(a);
            }
        }
        return dims;
    }

    /** A random applicable step for a value of this shape and vma: {step, new shape, new vma}, or null. */
    static Object[] step(Random r, int[] shape, Set<String> vma, List<String> axes, int[] sizes, boolean squared) {
        int kind = r.nextInt(12);
        List<String> tuple = new ArrayList<>(axes);
        Collections.shuffle(tuple, r);
        tuple = new ArrayList<>(tuple.subList(0, 1 + r.nextInt(Math.min(2, axes.size()))));
        int n = 1;
        for (String a : tuple) {
            n *= sizes[axes.indexOf(a)];
        }
        boolean allIn = vma.containsAll(tuple);
        boolean noneIn = tuple.stream().noneMatch(vma::contains);
        int rank = shape.length;
        Set<String> plus = new LinkedHashSet<>(vma);
        plus.addAll(tuple);
        Set<String> minus = new LinkedHashSet<>(vma);
        minus.removeAll(tuple);
        switch (kind) {
            case 0, 1: {
                LocalKind k = LocalKind.values()[r.nextInt(LocalKind.values().length)];
                if (k == LocalKind.SQUARE && squared) {
                    k = LocalKind.TANH;
                }
                String axis = axes.get(r.nextInt(axes.size()));
                Set<String> v = new LinkedHashSet<>(vma);
                if (k == LocalKind.MUL_INDEX) {
                    v.add(axis);
                }
                return new Object[]{new Local(k, k == LocalKind.MUL_INDEX ? axis : null), shape, v};
            }
            case 2, 3: {
                if (!allIn && !noneIn) {
                    return null;
                }
                return new Object[]{new Psum(tuple, r.nextBoolean(), false), shape, minus};
            }
            case 4, 5: {
                boolean tiled = rank > 0 && r.nextBoolean();
                boolean invariant = allIn && r.nextDouble() < 0.4;
                int d = r.nextInt(tiled ? rank : rank + 1);
                int[] out;
                if (tiled) {
                    out = shape.clone();
                    out[d] *= n;
                } else {
                    out = new int[rank + 1];
                    for (int j = 0, i = 0; j < out.length; j++) {
                        out[j] = j == d ? n : shape[i++];
                    }
                }
                if (GradPrograms.size(out) > 64) {
                    return null;
                }
                int dim = r.nextDouble() < 0.25 ? d - out.length : d; // negative: counted from the end
                return new Object[]{new Gather(tuple, dim, tiled, invariant), out, invariant ? minus : plus};
            }
            case 6, 7: {
                // psum_scatter over a tuple whose size fits a dimension (tiled: divides it; untiled: equals it)
                boolean tiled = r.nextBoolean();
                for (List<String> t : tuples(r, axes)) {
                    int m = size(t, axes, sizes);
                    boolean ok = vma.containsAll(t) || t.stream().noneMatch(vma::contains);
                    List<Integer> fits = new ArrayList<>();
                    for (int d = 0; d < rank && ok; d++) {
                        if (tiled ? shape[d] % m == 0 : shape[d] == m) {
                            fits.add(d);
                        }
                    }
                    if (fits.isEmpty()) {
                        continue;
                    }
                    int d = fits.get(r.nextInt(fits.size()));
                    int[] out;
                    if (tiled) {
                        out = shape.clone();
                        out[d] /= m;
                    } else {
                        out = new int[rank - 1];
                        for (int j = 0, i = 0; i < rank; i++) {
                            if (i != d) {
                                out[j++] = shape[i];
                            }
                        }
                    }
                    Set<String> v = new LinkedHashSet<>(vma);
                    v.addAll(t);
                    int dim = r.nextDouble() < 0.25 ? d - rank : d;
                    return new Object[]{new Scatter(t, dim, tiled), out, v};
                }
                return null;
            }
            case 8, 9: {
                List<Integer> targets = new ArrayList<>();
                for (int k = 0; k < n; k++) {
                    targets.add(k);
                }
                Collections.shuffle(targets, r);
                List<int[]> pairs = new ArrayList<>();
                boolean partial = r.nextDouble() < 0.3;
                for (int k = 0; k < n; k++) {
                    if (!partial || r.nextBoolean()) {
                        pairs.add(new int[]{k, targets.get(k)});
                    }
                }
                if (pairs.isEmpty()) {
                    pairs.add(new int[]{0, targets.get(0)});
                }
                Collections.shuffle(pairs, r);
                return new Object[]{new Permute(tuple, pairs.toArray(new int[0][]), false), shape, plus};
            }
            default: {
                // all_to_all over a tuple whose size fits the split dimension
                boolean tiled = r.nextBoolean();
                for (List<String> t : tuples(r, axes)) {
                    int m = size(t, axes, sizes);
                    List<Integer> fits = new ArrayList<>();
                    for (int d = 0; d < rank; d++) {
                        if (tiled ? shape[d] % m == 0 : shape[d] == m) {
                            fits.add(d);
                        }
                    }
                    if (fits.isEmpty()) {
                        continue;
                    }
                    int sp = fits.get(r.nextInt(fits.size()));
                    int c = r.nextInt(rank);
                    int[] out;
                    if (tiled) {
                        out = shape.clone();
                        out[sp] /= m;
                        out[c] *= m;
                    } else {
                        List<Integer> rest = new ArrayList<>();
                        for (int d = 0; d < rank; d++) {
                            if (d != sp) {
                                rest.add(shape[d]);
                            }
                        }
                        rest.add(c, m);
                        out = rest.stream().mapToInt(Integer::intValue).toArray();
                    }
                    Set<String> v = new LinkedHashSet<>(vma);
                    v.addAll(t);
                    return new Object[]{new ToAll(t, sp, c, tiled), out, v};
                }
                return null;
            }
        }
    }

    /** Every tuple of one or two distinct axes, in a random order. */
    static List<List<String>> tuples(Random r, List<String> axes) {
        List<List<String>> out = new ArrayList<>();
        for (String a : axes) {
            out.add(List.of(a));
            for (String b : axes) {
                if (!a.equals(b)) {
                    out.add(List.of(a, b));
                }
            }
        }
        Collections.shuffle(out, r);
        return out;
    }

    static int size(List<String> tuple, List<String> axes, int[] sizes) {
        int n = 1;
        for (String a : tuple) {
            n *= sizes[axes.indexOf(a)];
        }
        return n;
    }

    // ------------------------------------------------------------------------------------------ the framework

    static NDArray startValue(Start start, NDArray x, NDArray w) {
        return switch (start) {
            case MUL -> x.mul(w);
            case ADD_SIN -> x.add(w.sin());
            case SIN_MUL -> x.sin().mul(w);
        };
    }

    static Tiling tiling(boolean tiled) {
        return tiled ? Tiling.TILED : Tiling.UNTILED;
    }

    /** A value made varying over the axes it lacks (a pvary). */
    static NDArray varyingOver(NDArray ct, List<String> axes) {
        List<String> missing = new ArrayList<>(axes);
        missing.removeAll(ct.varyingAxes());
        return missing.isEmpty() ? ct : ct.pvary(missing.toArray(new String[0]));
    }

    static NDArray apply(Step s, NDArray v) {
        if (s instanceof Local l) {
            return switch (l.kind()) {
                case SIN -> v.sin();
                case TANH -> v.tanh();
                case SQUARE -> v.square();
                case SCALE -> v.mul(0.7f);
                case MUL_INDEX -> v.mul(Collectives.axisIndex(l.axis()).astype(DType.FLOAT32).add(1f));
            };
        }
        if (s instanceof Psum p) {
            if (p.buggy()) {
                // a copy of pmean's rule with a planted bug: the cotangent is not divided by n
                GradRecorder rec = GradRecorders.current();
                NDArray out;
                try (var ignored = GradRecorders.install(null)) {
                    out = Collectives.pmean(v, p.axes());
                }
                if (rec != null) {
                    rec.custom(List.of(v), out, ct -> List.of(varyingOver(ct, p.axes())));
                }
                return out;
            }
            return p.mean() ? Collectives.pmean(v, p.axes()) : Collectives.psum(v, p.axes());
        }
        if (s instanceof Gather g) {
            return g.invariant() ? Collectives.allGatherInvariant(v, g.axes(), g.dim(), tiling(g.tiled()))
                    : Collectives.allGather(v, g.axes(), g.dim(), tiling(g.tiled()));
        }
        if (s instanceof Scatter sc) {
            return Collectives.psumScatter(v, sc.axes(), sc.dim(), tiling(sc.tiled()));
        }
        if (s instanceof Permute p) {
            if (p.buggy()) {
                // a copy of ppermute's rule with a planted bug: transposed by the permutation, not its inverse
                GradRecorder rec = GradRecorders.current();
                NDArray out;
                try (var ignored = GradRecorders.install(null)) {
                    out = Collectives.ppermute(v, p.axes(), p.perm());
                }
                if (rec != null) {
                    rec.custom(List.of(v), out, ct -> List.of(Collectives.ppermute(ct, p.axes(), p.perm())));
                }
                return out;
            }
            return Collectives.ppermute(v, p.axes(), p.perm());
        }
        ToAll t = (ToAll) s;
        return Collectives.allToAll(v, t.axes(), t.split(), t.concat(), tiling(t.tiled()));
    }

    static NDArray body(Program p, NDArray x, NDArray w) {
        NDArray v = startValue(p.start(), x, w);
        for (Step s : p.steps()) {
            v = apply(s, v);
        }
        return v;
    }

    /** INNER: the device's scalar s = Σ⟨c, v⟩, psummed over its axes when psumEnd. */
    static NDArray innerScalar(Program p, NDArray x, NDArray w) {
        NDArray s = body(p, x, w).mul(NDArray.fromFloats(p.weights(), p.endShape())).sum();
        return p.psumEnd() ? Collectives.psum(s, p.psumAxes()) : s;
    }

    /** OUTER: the body's result block. */
    static NDArray outerResult(Program p, NDArray x, NDArray w) {
        NDArray v = body(p, x, w);
        if (p.outDims() != null) {
            return v;
        }
        NDArray s = v.sum();
        return p.psumEnd() ? Collectives.psum(s, p.psumAxes()) : s;
    }

    /** The framework's gradients with respect to the global x and w, gathered. */
    static List<float[]> frameworkGradients(Program p) {
        Mesh mesh = p.mesh();
        ShardedArray xs = ShardedArray.devicePut(NDArray.fromFloats(p.x(), p.xGlobal()),
                new NamedSharding(mesh, spec(p.xDims())));
        ShardedArray ws = ShardedArray.devicePut(NDArray.fromFloats(p.w(), p.wGlobal()),
                new NamedSharding(mesh, spec(p.wDims())));
        List<PartitionSpec> in = List.of(spec(p.xDims()), spec(p.wDims()));
        List<ShardedArray> grads;
        if (p.mode() == Mode.OUTER) {
            PartitionSpec out = p.outDims() == null ? PartitionSpec.P() : spec(p.outDims());
            ShardMap sm = ShardMap.shardMap(bs -> List.of(outerResult(p, bs.get(0), bs.get(1))), mesh, in,
                    List.of(out));
            NDArray weights = NDArray.fromFloats(p.weights(), p.outGlobal());
            grads = Autodiff.<ShardedArray>gradList(a -> sm.call(a).get(0).mul(weights).sum()).apply(List.of(xs, ws));
        } else {
            grads = ShardMap.shardMap(bs -> Autodiff.<NDArray>gradList(a -> innerScalar(p, a.get(0), a.get(1)))
                    .apply(bs), mesh, in, in).call(xs, ws);
        }
        assertEquals(2, grads.size());
        assertArrayEquals(p.xGlobal(), grads.get(0).shape(), "shape of d/dx");
        assertArrayEquals(p.wGlobal(), grads.get(1).shape(), "shape of d/dw");
        assertEquals(DType.FLOAT32, grads.get(0).dtype());
        assertEquals(DType.FLOAT32, grads.get(1).dtype());
        return List.of(grads.get(0).gather().toFloatArray(), grads.get(1).gather().toFloatArray());
    }

    // ------------------------------------------------------------------------------------------ the reference

    /** The devices of the mesh, simulated in float64. */
    static final class Sim {
        final Program p;
        final int[] sizes;
        final int devices;

        Sim(Program p) {
            this.p = p;
            this.sizes = p.sizes();
            this.devices = GradPrograms.size(sizes);
        }

        int coord(int dev, String axis) {
            int a = Arrays.asList(NAMES).indexOf(axis);
            return GradPrograms.unravel(dev, sizes)[a];
        }

        /** The device's linear index along a tuple of axes, first name major. */
        int lin(int dev, List<String> axes) {
            int l = 0;
            for (String a : axes) {
                l = l * sizes[Arrays.asList(NAMES).indexOf(a)] + coord(dev, a);
            }
            return l;
        }

        /** The device's group along the axes, in linear-index order. */
        int[] group(int dev, List<String> axes) {
            int[] me = GradPrograms.unravel(dev, sizes);
            int n = p.axesSize(axes);
            int[] g = new int[n];
            for (int q = 0; q < devices; q++) {
                int[] c = GradPrograms.unravel(q, sizes);
                boolean same = true;
                for (int a = 0; a < sizes.length; a++) {
                    if (!axes.contains(NAMES[a]) && c[a] != me[a]) {
                        same = false;
                    }
                }
                if (same) {
                    g[lin(q, axes)] = q;
                }
            }
            return g;
        }

        /** The device's block of a global array laid out by dims. */
        D block(D global, List<List<String>> dims, int dev) {
            D b = global;
            for (int d = 0; d < dims.size(); d++) {
                int parts = p.axesSize(dims.get(d));
                int size = global.shape()[d] / parts;
                int at = lin(dev, dims.get(d)) * size;
                b = GradPrograms.slice(b, d, at, at + size);
            }
            return b;
        }

        /** The global array of the devices' blocks laid out by dims; replicas must agree. */
        D assemble(List<D> blocks, List<List<String>> dims) {
            int[] bs = blocks.get(0).shape();
            int[] gs = p.global(bs, dims);
            double[] out = new double[GradPrograms.size(gs)];
            boolean[] seen = new boolean[out.length];
            for (int dev = 0; dev < devices; dev++) {
                D b = blocks.get(dev);
                for (int i = 0; i < b.size(); i++) {
                    int[] idx = GradPrograms.unravel(i, bs);
                    for (int d = 0; d < idx.length; d++) {
                        idx[d] += lin(dev, dims.get(d)) * bs[d];
                    }
                    int o = GradPrograms.ravel(idx, gs);
                    if (seen[o] && Math.abs(out[o] - b.v()[i]) > 1e-9 * (1 + Math.abs(out[o]))) {
                        throw new IllegalStateException("reference: replicas differ, the program's vma is wrong\n" + p);
                    }
                    seen[o] = true;
                    out[o] = b.v()[i];
                }
            }
            return new D(out, gs);
        }

        List<D> start(D x, D w) {
            List<D> v = new ArrayList<>();
            for (int dev = 0; dev < devices; dev++) {
                D xb = block(x, p.xDims(), dev);
                D wb = block(w, p.wDims(), dev);
                v.add(switch (p.start()) {
                    case MUL -> GradPrograms.zip(xb, wb, (a, b) -> a * b);
                    case ADD_SIN -> GradPrograms.zip(xb, wb, (a, b) -> a + Math.sin(b));
                    case SIN_MUL -> GradPrograms.zip(xb, wb, (a, b) -> Math.sin(a) * b);
                });
            }
            return v;
        }

        D sum(List<D> vs, int[] group) {
            D acc = vs.get(group[0]);
            for (int k = 1; k < group.length; k++) {
                acc = GradPrograms.zip(acc, vs.get(group[k]), Double::sum);
            }
            return acc;
        }

        static int norm(int d, int rank) {
            return d < 0 ? d + rank : d;
        }

        List<D> apply(Step s, List<D> vs) {
            List<D> out = new ArrayList<>();
            for (int dev = 0; dev < devices; dev++) {
                D v = vs.get(dev);
                if (s instanceof Local l) {
                    double idx = l.kind() == LocalKind.MUL_INDEX ? coord(dev, l.axis()) + 1 : 0;
                    out.add(GradPrograms.map(v, t -> switch (l.kind()) {
                        case SIN -> Math.sin(t);
                        case TANH -> Math.tanh(t);
                        case SQUARE -> t * t;
                        case SCALE -> t * (double) 0.7f;
                        case MUL_INDEX -> t * idx;
                    }));
                    continue;
                }
                if (s instanceof Psum ps) {
                    int[] g = group(dev, ps.axes());
                    D total = sum(vs, g);
                    out.add(ps.mean() ? GradPrograms.map(total, t -> t / g.length) : total);
                    continue;
                }
                if (s instanceof Gather ga) {
                    int[] g = group(dev, ga.axes());
                    List<D> parts = new ArrayList<>();
                    int d = norm(ga.dim(), ga.tiled() ? v.shape().length : v.shape().length + 1);
                    for (int q : g) {
                        parts.add(ga.tiled() ? vs.get(q) : GradPrograms.expand(vs.get(q), d));
                    }
                    out.add(GradPrograms.concat(d, parts));
                    continue;
                }
                if (s instanceof Scatter sc) {
                    int[] g = group(dev, sc.axes());
                    D total = sum(vs, g);
                    int d = norm(sc.dim(), v.shape().length);
                    int me = lin(dev, sc.axes());
                    int chunk = v.shape()[d] / g.length;
                    D piece = GradPrograms.slice(total, d, me * chunk, (me + 1) * chunk);
                    out.add(sc.tiled() ? piece : GradPrograms.squeeze(piece, d));
                    continue;
                }
                if (s instanceof Permute pe) {
                    int[] g = group(dev, pe.axes());
                    int me = lin(dev, pe.axes());
                    D got = new D(new double[v.size()], v.shape());
                    for (int[] pair : pe.perm()) {
                        if (pair[1] == me) {
                            got = vs.get(g[pair[0]]);
                        }
                    }
                    out.add(got);
                    continue;
                }
                ToAll t = (ToAll) s;
                int[] g = group(dev, t.axes());
                int me = lin(dev, t.axes());
                int chunk = v.shape()[t.split()] / g.length;
                List<D> parts = new ArrayList<>();
                for (int q : g) {
                    D piece = GradPrograms.slice(vs.get(q), t.split(), me * chunk, (me + 1) * chunk);
                    parts.add(t.tiled() ? piece
                            : GradPrograms.expand(GradPrograms.squeeze(piece, t.split()), t.concat()));
                }
                out.add(GradPrograms.concat(t.concat(), parts));
            }
            return out;
        }

        List<D> run(D x, D w) {
            List<D> v = start(x, w);
            for (Step s : p.steps()) {
                v = apply(s, v);
            }
            return v;
        }

        /** Each device's scalar: Σ v (OUTER) or Σ⟨c, v⟩ (INNER), psummed over psumAxes when psumEnd. */
        List<D> scalars(List<D> vs, float[] c) {
            List<D> s = new ArrayList<>();
            for (D v : vs) {
                double t = 0;
                for (int i = 0; i < v.size(); i++) {
                    t += (c == null ? 1 : c[i]) * v.v()[i];
                }
                s.add(new D(new double[]{t}, new int[0]));
            }
            if (!p.psumEnd()) {
                return s;
            }
            List<D> out = new ArrayList<>();
            for (int dev = 0; dev < devices; dev++) {
                out.add(sum(s, group(dev, p.psumAxes())));
            }
            return out;
        }

        /** OUTER: Σ⟨w, out⟩ of the global result. INNER: G = Σ over the distinct values of s. */
        double objective(D x, D w) {
            List<D> v = run(x, w);
            if (p.mode() == Mode.OUTER) {
                D out = p.outDims() == null ? assemble(scalars(v, null), List.of()) : assemble(v, p.outDims());
                double total = 0;
                for (int i = 0; i < out.size(); i++) {
                    total += p.weights()[i] * out.v()[i];
                }
                return total;
            }
            List<D> s = scalars(v, p.weights());
            Set<String> vma = p.psumEnd() ? Set.of() : p.endVma();
            int copies = 1;
            for (int a = 0; a < sizes.length; a++) {
                if (!vma.contains(NAMES[a])) {
                    copies *= sizes[a];
                }
            }
            double total = 0;
            for (D d : s) {
                total += d.v()[0];
            }
            return total / copies;
        }
    }

    static List<double[]> expectedGradients(Program p) {
        Sim sim = new Sim(p);
        List<double[]> at = List.of(D.of(p.x(), p.xGlobal()).v(), D.of(p.w(), p.wGlobal()).v());
        return GradPrograms.centralDifferences(at, xs -> sim.objective(new D(xs.get(0), p.xGlobal()),
                new D(xs.get(1), p.wGlobal())));
    }

    static String check(Program p, List<float[]> got) {
        List<double[]> expected = expectedGradients(p);
        String[] names = {"d/dx", "d/dw"};
        GradPrograms.beginCase();
        for (int k = 0; k < 2; k++) {
            String bad = GradPrograms.mismatch(names[k], expected.get(k), got.get(k));
            if (bad != null) {
                return GradPrograms.endCase(bad);
            }
        }
        return GradPrograms.endCase(null);
    }

    // ------------------------------------------------------------------------------------------ the properties

    @Provide
    Arbitrary<Program> outerPrograms() {
        return Arbitraries.longs().map(seed -> generate(seed, Mode.OUTER, Bug.NONE));
    }

    @Provide
    Arbitrary<Program> innerPrograms() {
        return Arbitraries.longs().map(seed -> generate(seed, Mode.INNER, Bug.NONE));
    }

    @Property(tries = 200, seed = "31337", edgeCases = EdgeCasesMode.NONE)
    void gradOutsideTheShardMapEqualsFiniteDifferencesOfTheGlobalFunction(@ForAll("outerPrograms") Program p) {
        String bad = check(p, frameworkGradients(p));
        if (bad != null) {
            fail(bad + "\n" + p);
        }
    }

    @Property(tries = 200, seed = "27182", edgeCases = EdgeCasesMode.NONE)
    void gradInsideTheBodyEqualsFiniteDifferencesOfTheSumOverDistinctValues(@ForAll("innerPrograms") Program p) {
        String bad = check(p, frameworkGradients(p));
        if (bad != null) {
            fail(bad + "\n" + p);
        }
    }

    /**
     * The oracle has teeth: copies of pmean's and ppermute's rules with planted bugs (no 1/n; the permutation
     * instead of its inverse, for a 4-cycle over a value that varies) are caught, differentiated outside the
     * shardMap and inside it.
     */
    @Example
    void plantedBugsInCopiesOfCollectiveRulesAreCaught() {
        for (Bug bug : new Bug[]{Bug.PMEAN_WITHOUT_DIVISION, Bug.PPERMUTE_NOT_INVERTED}) {
            for (Mode mode : Mode.values()) {
                int n = 12;
                int caught = 0;
                for (long seed = 1; seed <= n; seed++) {
                    Program p = generate(seed, mode, bug);
                    if (check(p, frameworkGradients(p)) != null) {
                        caught++;
                    }
                }
                assertTrue(caught >= n * 0.75, bug + " " + mode + ": caught in " + caught + " of " + n);
            }
        }
    }

    @AfterContainer
    static void report() {
        System.out.println("CollectiveGradientProperties: worst |g - fd| / (1 + |fd|) of the matching cases: "
                + GradPrograms.worstRatio + " (tolerance " + GradPrograms.RTOL + ")");
        GradPrograms.worstRatio = 0;
    }
}
