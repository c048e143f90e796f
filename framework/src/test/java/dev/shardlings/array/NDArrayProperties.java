package dev.shardlings.array;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/** Properties of NDArray operations against simple scalar reference loops written here. */
class NDArrayProperties {
    /** A random shape of rank 0..4 with dims 0..5 (at most a few hundred elements). */
    @Provide
    Arbitrary<int[]> shapes() {
        return Arbitraries.integers().between(0, 5).array(int[].class).ofMinSize(0).ofMaxSize(4);
    }

    /** A float32 array of a random shape, values in [-100, 100], from a seed so shrinking stays simple. */
    private static NDArray randomFloats(int[] shape, long seed) {
        Random r = new Random(seed);
        float[] d = new float[Shapes.size(shape)];
        for (int k = 0; k < d.length; k++) {
            d[k] = (r.nextFloat() - 0.5f) * 200f;
        }
        return NDArray.fromFloats(d, shape);
    }

    private static NDArray randomInts(int[] shape, long seed) {
        Random r = new Random(seed);
        int[] d = new int[Shapes.size(shape)];
        for (int k = 0; k < d.length; k++) {
            d[k] = r.nextInt(201) - 100;
        }
        return NDArray.fromInts(d, shape);
    }

    private static int[] index(int flat, int[] shape) {
        int[] idx = new int[shape.length];
        for (int d = shape.length - 1; d >= 0; d--) {
            idx[d] = flat % shape[d];
            flat /= shape[d];
        }
        return idx;
    }

    private static int flat(int[] idx, int[] shape) {
        int off = 0;
        for (int d = 0; d < shape.length; d++) {
            off = off * shape[d] + idx[d];
        }
        return off;
    }

    @Property(tries = 200, seed = "1001")
    void matmulMatchesATripleLoopWithDoubleAccumulation(@ForAll @IntRange(min = 1, max = 24) int m,
                                                        @ForAll @IntRange(min = 0, max = 24) int k,
                                                        @ForAll @IntRange(min = 1, max = 24) int n,
                                                        @ForAll long seed) {
        NDArray a = randomFloats(new int[] {m, k}, seed);
        NDArray b = randomFloats(new int[] {k, n}, seed + 1);
        float[] c = a.matmul(b).toFloatArray();
        float[] av = a.toFloatArray();
        float[] bv = b.toFloatArray();
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                double ref = 0;
                double mag = 0;
                for (int kk = 0; kk < k; kk++) {
                    ref += (double) av[i * k + kk] * bv[kk * n + j];
                    mag += Math.abs((double) av[i * k + kk] * bv[kk * n + j]);
                }
                double tol = 1e-6 * mag + 1e-30;
                assertTrue(Math.abs(c[i * n + j] - ref) <= tol, "C[" + i + "," + j + "] = " + c[i * n + j]
                        + " vs " + ref);
            }
        }
        // and int matmul is exact (with wrapping)
        NDArray ai = randomInts(new int[] {m, k}, seed);
        NDArray bi = randomInts(new int[] {k, n}, seed + 1);
        int[] ci = ai.matmul(bi).toIntArray();
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                int ref = 0;
                for (int kk = 0; kk < k; kk++) {
                    ref += ai.intAt(i, kk) * bi.intAt(kk, j);
                }
                assertEquals(ref, ci[i * n + j]);
            }
        }
    }

    @Property(tries = 200, seed = "1002")
    void transposeThenInverseIsIdentity(@ForAll("shapes") int[] shape, @ForAll long seed) {
        NDArray x = randomInts(shape, seed);
        List<Integer> p = new ArrayList<>();
        for (int d = 0; d < shape.length; d++) {
            p.add(d);
        }
        Collections.shuffle(p, new Random(seed));
        int[] perm = p.stream().mapToInt(Integer::intValue).toArray();
        int[] inverse = new int[perm.length];
        for (int d = 0; d < perm.length; d++) {
            inverse[perm[d]] = d;
        }
        NDArray t = x.transpose(perm);
        for (int d = 0; d < perm.length; d++) {
            assertEquals(shape[perm[d]], t.shape(d));
        }
        // element check: t[idx] = x[idx permuted back]
        int[] ts = t.shape();
        for (int e = 0; e < t.size(); e++) {
            int[] ti = index(e, ts);
            int[] xi = new int[ti.length];
            for (int d = 0; d < ti.length; d++) {
                xi[perm[d]] = ti[d];
            }
            assertEquals(x.intAt(xi), t.intAt(ti));
        }
        assertEquals(x, t.transpose(inverse));
        assertEquals(x, x.transpose().transpose());
    }

    @Property(tries = 200, seed = "1003")
    void reshapeRoundTrips(@ForAll("shapes") int[] shape, @ForAll long seed) {
        NDArray x = randomFloats(shape, seed);
        NDArray flat = x.reshape(-1);
        assertArrayEquals(x.toFloatArray(), flat.toFloatArray());
        assertEquals(x, flat.reshape(shape));
        if (x.size() > 0 && shape.length > 0) {
            int[] inferred = shape.clone();
            inferred[0] = -1;
            assertEquals(x, flat.reshape(inferred));
        }
    }

    @Property(tries = 200, seed = "1004")
    void splitThenConcatIsIdentity(@ForAll("shapes") int[] shape, @ForAll @IntRange(min = 1, max = 4) int sections,
                                   @ForAll long seed) {
        if (shape.length == 0) {
            return;
        }
        int axis = Math.floorMod(seed, shape.length);
        int[] s = shape.clone();
        s[axis] = s[axis] * sections; // make the axis divisible
        NDArray x = randomFloats(s, seed);
        List<NDArray> parts = x.split(axis, sections);
        assertEquals(sections, parts.size());
        for (NDArray part : parts) {
            assertEquals(shape[axis], part.shape(axis));
        }
        assertEquals(x, NDArray.concat(axis, parts));
        assertEquals(x, NDArray.concat(axis - shape.length, parts.toArray(new NDArray[0])));
    }

    @Property(tries = 200, seed = "1005")
    void rollByAThenBIsRollByAPlusB(@ForAll("shapes") int[] shape, @ForAll @IntRange(min = -50, max = 50) int a,
                                    @ForAll @IntRange(min = -50, max = 50) int b, @ForAll long seed) {
        NDArray x = randomInts(shape, seed);
        assertEquals(x.roll(a + b), x.roll(a).roll(b));
        if (shape.length > 0) {
            int axis = Math.floorMod(seed, shape.length);
            NDArray r = x.roll(a, axis);
            assertEquals(x.roll(a + b, axis), r.roll(b, axis));
            // element check against the definition out[j] = in[(j - a) mod dim]
            for (int e = 0; e < x.size(); e++) {
                int[] idx = index(e, shape);
                int[] src = idx.clone();
                src[axis] = Math.floorMod(idx[axis] - a, shape[axis]);
                assertEquals(x.intAt(src), r.intAt(idx));
            }
        }
    }

    /** Two shapes that broadcast together: each dim of the second is the first's, 1, or missing. */
    @Provide
    Arbitrary<int[][]> broadcastPairs() {
        return Combinators.combine(shapes(), Arbitraries.longs()).as((s, seed) -> {
            Random r = new Random(seed);
            int drop = s.length == 0 ? 0 : r.nextInt(s.length + 1);
            int[] t = Arrays.copyOfRange(s, drop, s.length);
            int[] s2 = s.clone();
            for (int d = 0; d < t.length; d++) {
                if (r.nextInt(3) == 0) {
                    t[d] = 1;
                }
                if (r.nextInt(4) == 0) {
                    s2[d + drop] = 1; // the first operand broadcasts too
                }
            }
            return r.nextBoolean() ? new int[][] {s2, t} : new int[][] {t, s2};
        });
    }

    @Property(tries = 200, seed = "1006")
    void broadcastingEqualsExplicitBroadcastTo(@ForAll("broadcastPairs") int[][] pair, @ForAll long seed) {
        NDArray a = randomFloats(pair[0], seed);
        NDArray b = randomFloats(pair[1], seed + 7);
        int[] out = Shapes.broadcast(pair[0], pair[1]);
        NDArray ea = a.broadcastTo(out);
        NDArray eb = b.broadcastTo(out);
        assertEquals(ea.add(eb), a.add(b));
        assertEquals(ea.sub(eb), a.sub(b));
        assertEquals(ea.mul(eb), a.mul(b));
        assertEquals(ea.div(eb), a.div(b));
        assertEquals(ea.maximum(eb), a.maximum(b));
        assertEquals(ea.minimum(eb), a.minimum(b));
        assertEquals(ea.floorDiv(eb), a.floorDiv(b));
        NDArray ia = randomInts(pair[0], seed);
        NDArray ib = randomInts(pair[1], seed + 7).maximum(1);
        assertEquals(ia.broadcastTo(out).floorDiv(ib.broadcastTo(out)), ia.floorDiv(ib));
        assertEquals(ia.broadcastTo(out).mul(ib.broadcastTo(out)), ia.mul(ib));
        // broadcastTo itself reads element (i mod 1) along broadcast dims
        for (int e = 0; e < ea.size(); e++) {
            int[] idx = index(e, out);
            int lead = out.length - pair[0].length;
            int[] src = new int[pair[0].length];
            for (int d = 0; d < src.length; d++) {
                src[d] = pair[0][d] == 1 ? 0 : idx[d + lead];
            }
            assertEquals(a.floatAt(src), ea.floatAt(idx));
        }
    }

    @Property(tries = 200, seed = "1007")
    void elementwiseFloatOpsMatchScalarLoops(@ForAll("shapes") int[] shape, @ForAll long seed) {
        NDArray a = randomFloats(shape, seed);
        NDArray b = randomFloats(shape, seed + 1);
        float[] x = a.toFloatArray();
        float[] y = b.toFloatArray();
        float[] add = new float[x.length];
        float[] div = new float[x.length];
        float[] exp = new float[x.length];
        float[] floorDiv = new float[x.length];
        for (int k = 0; k < x.length; k++) {
            add[k] = x[k] + y[k];
            div[k] = x[k] / y[k];
            exp[k] = (float) StrictMath.exp(x[k]);
            floorDiv[k] = (float) Math.floor((double) x[k] / y[k]);
        }
        assertArrayEquals(add, a.add(b).toFloatArray());
        assertArrayEquals(div, a.div(b).toFloatArray());
        assertArrayEquals(exp, a.exp().toFloatArray());
        float[] fd = a.floorDiv(b).toFloatArray();
        for (int k = 0; k < x.length; k++) {
            // JAX's fmod-based floor division agrees with floor(x / y) up to the rounding of x / y
            assertTrue(Math.abs(fd[k] - floorDiv[k]) <= 1, x[k] + " // " + y[k] + " = " + fd[k]);
        }
    }

    /** Reductions against a reference loop over every element, grouping by the kept index. */
    @Property(tries = 200, seed = "1008")
    void reductionsMatchReferenceLoops(@ForAll("shapes") int[] shape, @ForAll long seed,
                                       @ForAll boolean keepdims) {
        NDArray x = randomFloats(shape, seed);
        NDArray xi = randomInts(shape, seed);
        Random r = new Random(seed);
        List<Integer> axesList = new ArrayList<>();
        for (int d = 0; d < shape.length; d++) {
            if (r.nextBoolean()) {
                axesList.add(r.nextBoolean() ? d : d - shape.length);
            }
        }
        int[] axes = axesList.stream().mapToInt(Integer::intValue).toArray();
        boolean[] reduced = new boolean[shape.length];
        for (int a : axes) {
            reduced[Math.floorMod(a, Math.max(1, shape.length))] = true;
        }
        if (axes.length == 0) {
            Arrays.fill(reduced, true);
        }
        int[] keptShape = new int[shape.length];
        for (int d = 0; d < shape.length; d++) {
            keptShape[d] = reduced[d] ? 1 : shape[d];
        }
        int outN = Shapes.size(keptShape);
        double[] sum = new double[outN];
        double[] abs = new double[outN];
        long[] isum = new long[outN];
        int[] count = new int[outN];
        float[] max = new float[outN];
        Arrays.fill(max, Float.NEGATIVE_INFINITY);
        float[] xs = x.toFloatArray();
        int[] ints = xi.toIntArray();
        for (int e = 0; e < xs.length; e++) {
            int[] idx = index(e, shape);
            for (int d = 0; d < shape.length; d++) {
                if (reduced[d]) {
                    idx[d] = 0;
                }
            }
            int o = flat(idx, keptShape);
            sum[o] += xs[e];
            abs[o] += Math.abs(xs[e]);
            isum[o] += ints[e];
            count[o]++;
            max[o] = Math.max(max[o], xs[e]);
        }
        NDArray s = x.sum(keepdims ? KeepDims.KEEP : KeepDims.DROP, axes);
        NDArray m = x.mean(keepdims ? KeepDims.KEEP : KeepDims.DROP, axes);
        NDArray si = xi.sum(keepdims ? KeepDims.KEEP : KeepDims.DROP, axes);
        NDArray mi = xi.mean(keepdims ? KeepDims.KEEP : KeepDims.DROP, axes);
        assertEquals(keepdims ? shape.length : shape.length - countTrue(reduced), s.rank());
        float[] sv = s.toFloatArray();
        float[] mv = m.toFloatArray();
        int[] siv = si.toIntArray();
        float[] miv = mi.toFloatArray();
        assertEquals(outN, sv.length);
        for (int o = 0; o < outN; o++) {
            double tol = 1e-6 * abs[o] + 1e-30;
            assertTrue(Math.abs(sv[o] - sum[o]) <= tol, sv[o] + " vs " + sum[o]);
            assertEquals((int) isum[o], siv[o]);
            assertEquals((float) ((double) isum[o] / count[o]), miv[o]);
            if (count[o] > 0) {
                assertTrue(Math.abs(mv[o] - sum[o] / count[o]) <= tol / count[o] + 1e-6 * Math.abs(mv[o]));
            }
        }
        if (Arrays.stream(count).allMatch(c -> c > 0)) {
            assertArrayEquals(max, x.max(keepdims ? KeepDims.KEEP : KeepDims.DROP, axes).toFloatArray());
            assertArrayEquals(x.neg().max(keepdims ? KeepDims.KEEP : KeepDims.DROP, axes).neg().toFloatArray(),
                    x.min(keepdims ? KeepDims.KEEP : KeepDims.DROP, axes).toFloatArray());
        }
    }

    private static int countTrue(boolean[] b) {
        int n = 0;
        for (boolean v : b) {
            n += v ? 1 : 0;
        }
        return n;
    }

    @Property(tries = 200, seed = "1009")
    void argmaxPointsAtTheFirstMaximum(@ForAll("shapes") int[] shape, @ForAll long seed) {
        if (shape.length == 0) {
            return;
        }
        int axis = Math.floorMod(seed, shape.length);
        if (shape[axis] == 0) {
            return;
        }
        NDArray x = randomInts(shape, seed).floorDiv(20); // small range: ties are common
        NDArray am = x.argmax(axis);
        NDArray mx = x.max(axis);
        for (int o = 0; o < am.size(); o++) {
            int[] oi = index(o, am.shape());
            int best = am.intAt(oi);
            int[] xi = new int[shape.length];
            for (int d = 0, j = 0; d < shape.length; d++) {
                xi[d] = d == axis ? 0 : oi[j++];
            }
            for (int t = 0; t < best; t++) {
                xi[axis] = t;
                assertTrue(x.intAt(xi) < mx.intAt(oi));
            }
            xi[axis] = best;
            assertEquals(mx.intAt(oi), x.intAt(xi));
        }
    }

    @Property(tries = 200, seed = "1010")
    void sliceTakeAndStackAgree(@ForAll("shapes") int[] shape, @ForAll long seed) {
        if (shape.length == 0 || Arrays.stream(shape).anyMatch(d -> d == 0)) {
            return;
        }
        int axis = Math.floorMod(seed, shape.length);
        NDArray x = randomFloats(shape, seed);
        List<NDArray> rows = new ArrayList<>();
        for (int k = 0; k < shape[axis]; k++) {
            rows.add(x.take(axis, k));
            assertEquals(x.slice(axis, k, k + 1).squeeze(axis), x.take(axis, k));
            assertEquals(x.dynamicSlice(axis, k, 1), x.slice(axis, k, k + 1));
        }
        assertEquals(x, NDArray.stack(axis, rows));
    }

    @Property(tries = 200, seed = "1011")
    void printedFloatsParseBackExactly(@ForAll float v) {
        String s = NDArray.scalar(v).toString();
        if (Float.isNaN(v)) {
            assertEquals("nan", s);
        } else if (Float.isInfinite(v)) {
            assertEquals(v > 0 ? "inf" : "-inf", s);
        } else {
            assertEquals(Float.floatToIntBits(v), Float.floatToIntBits(Float.parseFloat(s)), s);
        }
    }
}
