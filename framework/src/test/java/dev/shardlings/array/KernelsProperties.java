package dev.shardlings.array;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * The Vector API kernels against plain scalar loops, on lengths that are and are not multiples of the vector
 * length (so both the vector body and the scalar tail run).
 */
class KernelsProperties {
    /** Two float arrays of the same random length 0..70. */
    @Provide
    Arbitrary<float[][]> pairs() {
        Arbitrary<Float> values = Arbitraries.floats().between(-1e4f, 1e4f).withSpecialValue(0f)
                .withSpecialValue(Float.NaN).withSpecialValue(Float.POSITIVE_INFINITY).withSpecialValue(-0f);
        return Arbitraries.integers().between(0, 70).flatMap(n -> Combinators.combine(
                values.array(float[].class).ofSize(n), values.array(float[].class).ofSize(n))
                .as((a, b) -> new float[][] {a, b}));
    }

    @Property(tries = 200, seed = "20250101")
    void elementwiseKernelsMatchScalarLoops(@ForAll("pairs") float[][] ab) {
        float[] a = ab[0];
        float[] b = ab[1];
        int n = a.length;
        float[] out = new float[n];
        float[] ref = new float[n];
        Kernels.add(a, b, out);
        for (int k = 0; k < n; k++) {
            ref[k] = a[k] + b[k];
        }
        assertArrayEquals(ref, out, "add");
        Kernels.sub(a, b, out);
        for (int k = 0; k < n; k++) {
            ref[k] = a[k] - b[k];
        }
        assertArrayEquals(ref, out, "sub");
        Kernels.mul(a, b, out);
        for (int k = 0; k < n; k++) {
            ref[k] = a[k] * b[k];
        }
        assertArrayEquals(ref, out, "mul");
        Kernels.div(a, b, out);
        for (int k = 0; k < n; k++) {
            ref[k] = a[k] / b[k];
        }
        assertArrayEquals(ref, out, "div");
    }

    @Property(tries = 200, seed = "20250102")
    void vectorSumIsBitIdenticalToItsScalarDefinition(@ForAll("pairs") float[][] ab,
                                                      @ForAll @IntRange(min = 0, max = 70) int x,
                                                      @ForAll @IntRange(min = 0, max = 70) int y) {
        float[] a = ab[0];
        int lo = Math.min(x, y) % (a.length + 1);
        final int from = lo;
        final int to = Math.max(lo, Math.max(x, y) % (a.length + 1));
        double vector = Kernels.sum(a, from, to);
        double scalar = Kernels.sumScalar(a, from, to);
        assertEquals(Double.doubleToLongBits(scalar), Double.doubleToLongBits(vector),
                () -> "sum of [" + from + "," + to + "): " + vector + " vs " + scalar);
        // and the fixed partial-sum order is just a reordering of a plain double sum
        double sequential = 0;
        double absSum = 0;
        for (int k = from; k < to; k++) {
            sequential += a[k];
            absSum += Math.abs(a[k]);
        }
        final double plain = sequential;
        final double abs = absSum;
        if (Double.isFinite(plain)) {
            assertTrue(Math.abs(vector - plain) <= 1e-12 * abs, () -> vector + " vs plain " + plain);
        } else {
            assertEquals(Double.isNaN(plain), Double.isNaN(vector));
        }
    }

    @Example
    void sumUsesSixteenPartialSums() {
        // 1e16 and -1e16 both land in partial sum 0 and cancel there, so every 1 in the other partial sums
        // survives: 30. A plain left-to-right double sum would absorb the first 15 ones into 1e16 and give 15.
        float[] a = new float[33];
        Arrays.fill(a, 1f);
        a[0] = 1e16f;
        a[16] = -1e16f;
        a[32] = 0.5f; // the tail, added last
        assertEquals(30.5, Kernels.sum(a, 0, 33));
        assertEquals(30.5, Kernels.sumScalar(a, 0, 33));
        assertEquals(0.0, Kernels.sum(a, 3, 3));
        assertEquals(2.0, Kernels.sum(a, 1, 3));
    }

    /** Random matmul problems with m, k, n in 0..19 and values in [-1, 1]. */
    @Provide
    Arbitrary<float[][]> matmuls() {
        Arbitrary<Integer> dim = Arbitraries.integers().between(0, 19);
        return Combinators.combine(dim, dim, dim).flatAs((m, k, n) -> {
            Arbitrary<float[]> av = Arbitraries.floats().between(-1f, 1f).array(float[].class).ofSize(m * k);
            Arbitrary<float[]> bv = Arbitraries.floats().between(-1f, 1f).array(float[].class).ofSize(k * n);
            return Combinators.combine(av, bv).as((a, b) -> new float[][] {{m, k, n}, a, b});
        });
    }

    @Property(tries = 200, seed = "20250103")
    void matmulKernelIsBitIdenticalToAnOrderedFmaLoop(@ForAll("matmuls") float[][] p) {
        int m = (int) p[0][0];
        int k = (int) p[0][1];
        int n = (int) p[0][2];
        float[] a = p[1];
        float[] b = p[2];
        assertArrayEquals(orderedFma(a, b, m, k, n), Kernels.matmul(a, b, m, k, n));
    }

    /**
     * The cache-blocked kernel against the ordered FMA definition, on shapes that cross its block edges: m past
     * one MR sliver and one MC block, k past one KC block (512), n not a multiple of its 2-vector panel. Values
     * include ±0, ±inf and NaN, so the bit-for-bit comparison also covers signed zeros and NaN propagation.
     */
    @Property(tries = 60, seed = "20261123")
    void blockedMatmulIsBitIdenticalToTheOrderedFmaLoop(
            @ForAll @IntRange(min = 1, max = 130) int m,
            @ForAll @IntRange(min = 1, max = 700) int k,
            @ForAll @IntRange(min = 1, max = 70) int n,
            @ForAll @IntRange(min = 0, max = 3) int specials,
            @ForAll long seed) {
        java.util.Random rnd = new java.util.Random(seed);
        float[] pool = {0f, -0f, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.NaN, 1e30f, -1e-30f};
        float[] a = new float[m * k];
        float[] b = new float[k * n];
        for (float[] x : new float[][] {a, b}) {
            for (int t = 0; t < x.length; t++) {
                x[t] = rnd.nextInt(100) < specials ? pool[rnd.nextInt(pool.length)] : rnd.nextFloat() * 2 - 1;
            }
        }
        float[] ref = orderedFma(a, b, m, k, n);
        float[] blocked = Kernels.matmulBlocked(a, b, m, k, n);
        for (int t = 0; t < ref.length; t++) {
            final int at = t;
            assertTrue(Float.floatToIntBits(ref[t]) == Float.floatToIntBits(blocked[t]),
                    () -> "C[" + at / n + "," + at % n + "] of " + m + "x" + k + "x" + n + ": blocked " + blocked[at]
                            + " vs ordered FMA " + ref[at]);
        }
        assertArrayEquals(Kernels.matmulPlain(a, b, m, k, n), blocked);
        assertArrayEquals(ref, Kernels.matmul(a, b, m, k, n));
    }

    /**
     * A transposed operand read through the packing (BLAS's transA / transB) gives the same bits as the kernel on
     * the transposed copy, on both paths (blocked and plain) and across the block edges.
     */
    @Property(tries = 60, seed = "20261125")
    void transposedOperandsAreBitIdenticalToTransposingFirst(
            @ForAll @IntRange(min = 1, max = 130) int m,
            @ForAll @IntRange(min = 1, max = 300) int k,
            @ForAll @IntRange(min = 1, max = 70) int n,
            @ForAll boolean ta,
            @ForAll boolean tb,
            @ForAll long seed) {
        java.util.Random rnd = new java.util.Random(seed);
        float[] a = new float[m * k];
        float[] b = new float[k * n];
        for (float[] x : new float[][] {a, b}) {
            for (int t = 0; t < x.length; t++) {
                x[t] = rnd.nextInt(100) < 2 ? (rnd.nextBoolean() ? -0f : Float.NaN) : rnd.nextFloat() * 2 - 1;
            }
        }
        float[] ref = orderedFma(a, b, m, k, n);
        float[] at = ta ? transpose(a, m, k) : a;
        float[] bt = tb ? transpose(b, k, n) : b;
        assertArrayEquals(ref, Kernels.matmul(at, ta, bt, tb, m, k, n));
        assertArrayEquals(ref, Kernels.matmulBlocked(at, ta, bt, tb, m, k, n));
    }

    /**
     * The blocked kernel shared among tasks gives the same bits as on one thread, with transposed operands and
     * across the block edges (k past one KC block, so the whole packed B holds two), however many parts: C's rows
     * split in slivers when it has enough of them, its column panels when it has fewer slivers than parts.
     */
    @Property(tries = 40, seed = "20261126")
    void theBlockedKernelSplitAmongTasksIsBitIdentical(
            @ForAll @IntRange(min = 6, max = 300) int m,
            @ForAll @IntRange(min = 8, max = 700) int k,
            @ForAll @IntRange(min = 32, max = 300) int n,
            @ForAll @IntRange(min = 2, max = 5) int parts,
            @ForAll boolean ta,
            @ForAll boolean tb,
            @ForAll long seed) {
        java.util.Random rnd = new java.util.Random(seed);
        float[] a = new float[m * k];
        float[] b = new float[k * n];
        for (float[] x : new float[][] {a, b}) {
            for (int t = 0; t < x.length; t++) {
                x[t] = rnd.nextInt(100) < 2 ? (rnd.nextBoolean() ? -0f : Float.NaN) : rnd.nextFloat() * 2 - 1;
            }
        }
        float[] at = ta ? transpose(a, m, k) : a;
        float[] bt = tb ? transpose(b, k, n) : b;
        assertArrayEquals(orderedFma(a, b, m, k, n), Kernels.matmulBlocked(at, ta, bt, tb, m, k, n, parts));
        assertArrayEquals(Kernels.matmulBlocked(at, ta, bt, tb, m, k, n, 1),
                Kernels.matmulBlocked(at, ta, bt, tb, m, k, n, parts));
    }

    /** addN's one pass gives the bits of the chained adds, left to right, with -0, inf and NaN among the values. */
    @Property(tries = 100, seed = "20261125")
    void addNIsTheChainedAdds(@ForAll @IntRange(min = 2, max = 9) int count,
                              @ForAll @IntRange(min = 0, max = 100) int n, @ForAll long seed) {
        java.util.Random rnd = new java.util.Random(seed);
        float[] pool = {-0f, 0f, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.NaN, 1e30f, 3e38f};
        float[][] xs = new float[count][n];
        for (float[] x : xs) {
            for (int t = 0; t < n; t++) {
                x[t] = rnd.nextInt(10) == 0 ? pool[rnd.nextInt(pool.length)] : (rnd.nextFloat() * 2 - 1) * 1e6f;
            }
        }
        float[] chained = new float[n];
        Kernels.add(xs[0], xs[1], chained);
        for (int k = 2; k < count; k++) {
            Kernels.add(chained, xs[k], chained);
        }
        assertArrayEquals(chained, Kernels.addN(xs, n));
    }

    /** The sum over a leading axis, read in place, gives the bits of reduce on the transposed buffer. */
    @Property(tries = 150, seed = "20261125")
    void sumOverLeadingAxisIsReduceOfTheTranspose(@ForAll @IntRange(min = 0, max = 70) int count,
                                                   @ForAll @IntRange(min = 1, max = 600) int outN,
                                                   @ForAll boolean mean, @ForAll long seed) {
        java.util.Random rnd = new java.util.Random(seed);
        float[] pool = {-0f, 0f, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.NaN, 3e38f, 1e-40f};
        float[] a = new float[count * outN];
        for (int t = 0; t < a.length; t++) {
            a[t] = rnd.nextInt(20) == 0 ? pool[rnd.nextInt(pool.length)] : (rnd.nextFloat() * 2 - 1) * 1e3f;
        }
        float[] transposed = transpose(a, count, outN);
        assertArrayEquals(ReduceKernels.reduce(mean ? ReduceOp.MEAN : ReduceOp.SUM, transposed, outN, count),
                ReduceKernels.sumLeading(a, count, outN, mean));
    }

    /** The row-major [cols, rows] transpose of a [rows, cols] buffer. */
    private static float[] transpose(float[] x, int rows, int cols) {
        float[] out = new float[x.length];
        for (int r = 0; r < rows; r++) {
            for (int c = 0; c < cols; c++) {
                out[c * rows + r] = x[r * cols + c];
            }
        }
        return out;
    }

    /**
     * The strided walk (transposes and broadcasts without an offsets table) reads the same elements as the
     * offsets table did, for every permutation of up to 4 axes and every broadcast of a shape with 1s in it.
     */
    @Property(tries = 300, seed = "20261125")
    void stridedWalkMatchesTheOffsetsTable(@ForAll @IntRange(min = 0, max = 4) int rank, @ForAll long seed) {
        java.util.Random rnd = new java.util.Random(seed);
        int[] shape = new int[rank];
        for (int d = 0; d < rank; d++) {
            shape[d] = 1 + rnd.nextInt(rnd.nextBoolean() ? 3 : 40);
        }
        int size = Shapes.size(shape);
        float[] f = new float[size];
        int[] ints = new int[size];
        for (int t = 0; t < size; t++) {
            f[t] = t + 0.5f;
            ints[t] = -t;
        }
        // a random permutation
        java.util.List<Integer> perm = new java.util.ArrayList<>();
        for (int d = 0; d < rank; d++) {
            perm.add(d);
        }
        java.util.Collections.shuffle(perm, rnd);
        int[] strides = Shapes.strides(shape);
        int[] dims = new int[rank];
        int[] st = new int[rank];
        for (int d = 0; d < rank; d++) {
            dims[d] = shape[perm.get(d)];
            st[d] = strides[perm.get(d)];
        }
        int[] offsets = Shapes.offsets(dims, st);
        assertArrayEquals((float[]) DataKernels.gather(f, offsets), (float[]) DataKernels.strided(f, dims, st));
        assertArrayEquals((int[]) DataKernels.gather(ints, offsets), (int[]) DataKernels.strided(ints, dims, st));
        // a broadcast of the shape with some axes set to 1, to the shape itself (with a leading axis or not)
        int[] small = shape.clone();
        for (int d = 0; d < rank; d++) {
            if (rnd.nextBoolean()) {
                small[d] = 1;
            }
        }
        int[] target = rnd.nextBoolean() ? shape : prepend(3, shape);
        float[] g = java.util.Arrays.copyOf(f, Shapes.size(small));
        int[] bs = Shapes.broadcastStrides(small, target);
        assertArrayEquals((float[]) DataKernels.gather(g, Shapes.offsets(target, bs)),
                (float[]) DataKernels.strided(g, target, bs));
    }

    private static int[] prepend(int first, int[] shape) {
        int[] out = new int[shape.length + 1];
        out[0] = first;
        System.arraycopy(shape, 0, out, 1, shape.length);
        return out;
    }

    /** The definition both kernels must match: C[i,j] = fma chain over kk = 0..k-1 from +0.0, in float32. */
    private static float[] orderedFma(float[] a, float[] b, int m, int k, int n) {
        float[] ref = new float[m * n];
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                float c = 0;
                for (int kk = 0; kk < k; kk++) {
                    c = Math.fma(a[i * k + kk], b[kk * n + j], c);
                }
                ref[i * n + j] = c;
            }
        }
        return ref;
    }
}
