package dev.shardlings.array;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * Vector-API kernels on dense float buffers, and the matrix multiplications, kept apart from the user-facing
 * operations (EJML style) so they can be tested against scalar loops on their own. The other families' loops
 * live beside them: {@link ElementwiseKernels}, {@link ReduceKernels}, {@link DataKernels}.
 *
 * <p>Determinism: every kernel produces bit-identical results on every run and on every machine, whatever
 * {@link FloatVector#SPECIES_PREFERRED} is: elementwise ops are exactly rounded IEEE operations; matmul adds
 * the k products into each C element in the same order with a fused multiply-add (vector FMA in the body and
 * {@link Math#fma(float, float, float)} in the tail); the sum uses a fixed number of partial sums
 * ({@link #SUM_LANES}) independent of the hardware vector length.
 */
final class Kernels {
    /** The float species used by every kernel. */
    static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;

    /**
     * Number of double partial sums in {@link #sum}: element t of a range goes to partial sum t % SUM_LANES.
     * Fixed (not the vector length) so results do not depend on the machine.
     */
    static final int SUM_LANES = 16;

    private Kernels() {
    }

    /** out[i] = a[i] + b[i] for i in [0, a.length); all three have the same length. */
    static void add(float[] a, float[] b, float[] out) {
        int n = a.length;
        int bound = F.loopBound(n);
        int i = 0;
        for (; i < bound; i += F.length()) {
            FloatVector.fromArray(F, a, i).add(FloatVector.fromArray(F, b, i)).intoArray(out, i);
        }
        for (; i < n; i++) {
            out[i] = a[i] + b[i];
        }
    }

    /**
     * ((x0 + x1) + x2) + … elementwise, left to right — the bits of chained {@link #add} calls — in one pass: each
     * vector of the sum stays in a register while the operands stream by and is stored once, where the chained
     * adds wrote and re-read the accumulator once per operand (2.3× the memory traffic for 8 operands).
     */
    static float[] addN(float[][] xs, int n) {
        float[] acc = new float[n];
        int bound = F.loopBound(n);
        int i = 0;
        for (; i < bound; i += F.length()) {
            FloatVector v = FloatVector.fromArray(F, xs[0], i).add(FloatVector.fromArray(F, xs[1], i));
            for (int k = 2; k < xs.length; k++) {
                v = v.add(FloatVector.fromArray(F, xs[k], i));
            }
            v.intoArray(acc, i);
        }
        for (; i < n; i++) {
            float v = xs[0][i] + xs[1][i];
            for (int k = 2; k < xs.length; k++) {
                v += xs[k][i];
            }
            acc[i] = v;
        }
        return acc;
    }

    /** out[i] = a[i] - b[i]. */
    static void sub(float[] a, float[] b, float[] out) {
        int n = a.length;
        int bound = F.loopBound(n);
        int i = 0;
        for (; i < bound; i += F.length()) {
            FloatVector.fromArray(F, a, i).sub(FloatVector.fromArray(F, b, i)).intoArray(out, i);
        }
        for (; i < n; i++) {
            out[i] = a[i] - b[i];
        }
    }

    /** out[i] = a[i] * b[i]. */
    static void mul(float[] a, float[] b, float[] out) {
        int n = a.length;
        int bound = F.loopBound(n);
        int i = 0;
        for (; i < bound; i += F.length()) {
            FloatVector.fromArray(F, a, i).mul(FloatVector.fromArray(F, b, i)).intoArray(out, i);
        }
        for (; i < n; i++) {
            out[i] = a[i] * b[i];
        }
    }

    /** out[i] = a[i] / b[i] (IEEE: x/0 is ±inf, 0/0 is nan). */
    static void div(float[] a, float[] b, float[] out) {
        int n = a.length;
        int bound = F.loopBound(n);
        int i = 0;
        for (; i < bound; i += F.length()) {
            FloatVector.fromArray(F, a, i).div(FloatVector.fromArray(F, b, i)).intoArray(out, i);
        }
        for (; i < n; i++) {
            out[i] = a[i] / b[i];
        }
    }

    /**
     * The sum of {@code a[from..to)} accumulated in double (more accurate than float32 accumulation): element
     * {@code from + t} is added to partial sum {@code t % SUM_LANES}, then the partial sums are added in lane
     * order and the leftover tail (fewer than SUM_LANES elements) in index order. The vector path computes
     * exactly the same additions as {@link #sumScalar}; it is used when the float vector length divides
     * SUM_LANES.
     */
    static double sum(float[] a, int from, int to) {
        int fl = F.length();
        if (SUM_LANES % fl != 0 || fl < 2) {
            return sumScalar(a, from, to);
        }
        int dl = fl / 2; // F2D keeps the vector shape: each float vector converts to two double vectors
        int accCount = SUM_LANES / dl;
        VectorSpecies<Double> ds = VectorSpecies.of(double.class, F.vectorShape());
        DoubleVector[] acc = new DoubleVector[accCount];
        for (int j = 0; j < accCount; j++) {
            acc[j] = DoubleVector.zero(ds);
        }
        int n = to - from;
        int blocks = n / SUM_LANES;
        int i = from;
        for (int b = 0; b < blocks; b++) {
            int j = 0;
            for (int v = 0; v < SUM_LANES; v += fl) {
                FloatVector fv = FloatVector.fromArray(F, a, i + v);
                acc[j] = acc[j].add((DoubleVector) fv.convert(VectorOperators.F2D, 0));
                acc[j + 1] = acc[j + 1].add((DoubleVector) fv.convert(VectorOperators.F2D, 1));
                j += 2;
            }
            i += SUM_LANES;
        }
        double[] lanes = new double[SUM_LANES];
        for (int j = 0; j < accCount; j++) {
            acc[j].intoArray(lanes, j * dl);
        }
        return finishSum(lanes, a, i, to);
    }

    /** The scalar definition of {@link #sum}: same partial sums, same order, same result bit for bit. */
    static double sumScalar(float[] a, int from, int to) {
        double[] lanes = new double[SUM_LANES];
        int n = to - from;
        int end = from + n / SUM_LANES * SUM_LANES;
        int i = from;
        for (; i < end; i += SUM_LANES) {
            for (int l = 0; l < SUM_LANES; l++) {
                lanes[l] += a[i + l];
            }
        }
        return finishSum(lanes, a, i, to);
    }

    private static double finishSum(double[] lanes, float[] a, int tailFrom, int to) {
        double total = 0;
        for (double lane : lanes) {
            total += lane;
        }
        for (int i = tailFrom; i < to; i++) {
            total += a[i];
        }
        return total;
    }

    /**
     * Rows of C one micro-kernel call computes: 12 rows × 2 vectors = 24 accumulators with 512-bit vectors (32
     * registers), 6 × 2 = 12 with 256-bit or narrower ones (16 registers).
     */
    static final int MR = F.length() >= 16 ? 12 : 6;
    /** Depth of one packed block: a KC × NR micro-panel of B (16 KB for NR = 16) stays in L1. */
    static final int KC = 512;
    /** Rows of one packed block of A: MC × KC floats (120 KB) stay in L2 while B's micro-panels stream past. */
    static final int MC = 120;

    /**
     * C[m,n] = A[m,k]·B[k,n] on row-major buffers. Every C element accumulates its k products in order
     * kk = 0..k-1 with a fused multiply-add, in float32, starting from +0.0 — so the result is bit-identical to
     * {@link #matmulPlain}, whichever path runs and whatever the vector length.
     *
     * <p>Large products run the cache-blocked kernel ({@link #matmulBlocked}); small ones (where packing costs
     * more than it saves) run the plain loop.
     */
    static float[] matmul(float[] a, float[] b, int m, int k, int n) {
        return matmul(a, false, b, false, m, k, n);
    }

    /**
     * C[m,n] = A[m,k]·B[k,n] where A is given as its transpose (a buffer [k, m]) when {@code ta} and B as its
     * transpose ([n, k]) when {@code tb}: the blocked kernel reads them through its packing, which copies anyway,
     * so no transposed copy is made. The same bits as {@link #matmul(float[], float[], int, int, int)} on the
     * transposed buffers (same products, same order, same FMAs).
     */
    static float[] matmul(float[] a, boolean ta, float[] b, boolean tb, int m, int k, int n) {
        if (m >= MR && n >= 2 * F.length() && k >= 8 && (long) m * n * k >= 64L * 64 * 64) {
            return matmulBlocked(a, ta, b, tb, m, k, n);
        }
        return matmulPlain(ta ? transposed(a, k, m) : a, tb ? transposed(b, n, k) : b, m, k, n);
    }

    /** The [cols, rows] transpose of a row-major [rows, cols] buffer. */
    private static float[] transposed(float[] x, int rows, int cols) {
        float[] out = new float[x.length];
        for (int r = 0; r < rows; r++) {
            for (int c = 0; c < cols; c++) {
                out[c * rows + r] = x[r * cols + c];
            }
        }
        return out;
    }

    /** C[m,n] = A[m,k]·B[k,n] in int32 (wrapping), in the i-k-j order of {@link #matmulPlain}. */
    static int[] matmul(int[] a, int[] b, int m, int k, int n) {
        int[] c = new int[m * n];
        for (int r = 0; r < m; r++) {
            for (int kk = 0; kk < k; kk++) {
                int aik = a[r * k + kk];
                for (int col = 0; col < n; col++) {
                    c[r * n + col] += aik * b[kk * n + col];
                }
            }
        }
        return c;
    }

    /**
     * The plain kernel, an i-k-j loop: A[i,kk] is broadcast and FMA'd into row i of C, so every C element
     * accumulates its k products in order kk = 0..k-1. The definition the blocked kernel is tested against.
     */
    static float[] matmulPlain(float[] a, float[] b, int m, int k, int n) {
        float[] c = new float[m * n];
        int bound = F.loopBound(n);
        for (int i = 0; i < m; i++) {
            int rowC = i * n;
            for (int kk = 0; kk < k; kk++) {
                float aik = a[i * k + kk];
                int rowB = kk * n;
                FloatVector av = FloatVector.broadcast(F, aik);
                int j = 0;
                for (; j < bound; j += F.length()) {
                    FloatVector cv = FloatVector.fromArray(F, c, rowC + j);
                    av.fma(FloatVector.fromArray(F, b, rowB + j), cv).intoArray(c, rowC + j);
                }
                for (; j < n; j++) {
                    c[rowC + j] = Math.fma(aik, b[rowB + j], c[rowC + j]);
                }
            }
        }
        return c;
    }

    /**
     * The cache-blocked kernel (the GotoBLAS/BLIS loop nest): k is cut into blocks of {@link #KC}; for each, B's
     * rows are packed into micro-panels of NR = 2 vectors of columns (zero-padded on the right) and A into blocks
     * of {@link #MC} rows packed {@link #MR} rows at a time (zero-padded at the bottom); an MR × 2-vector
     * micro-kernel then keeps a tile of C in registers for a whole k block. Between k blocks the tile goes back
     * to C as float32 and is reloaded, which is exactly the float32 accumulator of the plain loop, so the order
     * and rounding of every element's FMAs are unchanged. Padded rows and columns are computed but never stored.
     */
    static float[] matmulBlocked(float[] a, float[] b, int m, int k, int n) {
        return matmulBlocked(a, false, b, false, m, k, n);
    }

    /**
     * Products of at least this many multiply-adds (m·k·n) are shared among the cores when no {@link OpObserver}
     * is installed on the calling thread: host code, not a simulated device (the devices already share the cores,
     * and their work is accounted per thread) nor a trace.
     */
    static final long PARALLEL_MIN_MACS = 128L * 128 * 128;

    /** {@link #matmulBlocked(float[], float[], int, int, int)} with A ([k, m]) and/or B ([n, k]) transposed. */
    static float[] matmulBlocked(float[] a, boolean ta, float[] b, boolean tb, int m, int k, int n) {
        int parts = (long) m * k * n >= PARALLEL_MIN_MACS && OpObservers.observer() == null
                ? Runtime.getRuntime().availableProcessors() : 1;
        return matmulBlocked(a, ta, b, tb, m, k, n, parts);
    }

    /**
     * The blocked kernel shared among {@code parts} tasks (the last on the calling thread, the others in the common
     * fork-join pool), as BLIS shares it: B is packed once, each task packing a range of its micro-panels for
     * every k block, and after a join each task computes a range of C's rows (whole {@link #MR}-row slivers, so no
     * task has a ragged edge of its own) against all of the packed B, packing only its own rows of A. Where C has
     * fewer slivers than parts, the tasks take ranges of C's column panels instead (each then packs all of A).
     * Every C element is computed by one task exactly as the serial kernel computes it (same k blocks, same
     * micro-kernel, same FMAs in the same order), so the result is bit-identical whatever {@code parts} is.
     *
     * <p>Why rows: split by columns, each core packs all of A; split by rows, half of A and half of B on two
     * cores. Measured against the column split (docs/performance.md, "The matmul kernel"): 1.5× faster at 128³,
     * 7 % at 256³, the same at 512³ and 1024³, where the packing is a small part of the work.
     */
    static float[] matmulBlocked(float[] a, boolean ta, float[] b, boolean tb, int m, int k, int n, int parts) {
        int nr = 2 * F.length();
        int panels = (n + nr - 1) / nr;
        int slivers = (m + MR - 1) / MR;
        float[] c = new float[m * n];
        int ways = Math.max(1, Math.min(parts, Math.max(slivers, panels)));
        if (ways == 1) {
            blockedRange(a, ta, b, tb, null, m, k, n, c, 0, m, 0, panels);
            return c;
        }
        float[] bp = new float[k * panels * nr];
        int packers = Math.min(ways, panels);
        forkJoin(packers, t -> packBWhole(b, tb, k, n, panels * t / packers, panels * (t + 1) / packers, panels,
                bp));
        if (slivers >= ways) {
            forkJoin(ways, t -> blockedRange(a, ta, b, tb, bp, m, k, n, c, Math.min(m, slivers * t / ways * MR),
                    Math.min(m, slivers * (t + 1) / ways * MR), 0, panels));
        } else {
            forkJoin(ways, t -> blockedRange(a, ta, b, tb, bp, m, k, n, c, 0, m, panels * t / ways,
                    panels * (t + 1) / ways));
        }
        return c;
    }

    /** Runs task(0 .. ways-1): the last on the calling thread, the others in the common pool; returns when all end. */
    private static void forkJoin(int ways, java.util.function.IntConsumer task) {
        java.util.concurrent.ForkJoinTask<?>[] tasks = new java.util.concurrent.ForkJoinTask<?>[ways - 1];
        for (int t = 0; t < ways - 1; t++) {
            int part = t;
            tasks[t] = java.util.concurrent.ForkJoinPool.commonPool().submit(() -> task.accept(part));
        }
        task.accept(ways - 1);
        for (java.util.concurrent.ForkJoinTask<?> f : tasks) {
            f.join();
        }
    }

    /**
     * Packs micro-panels [p0, p1) of B for every k block into {@code bp}, the layout {@link #blockedRange} reads
     * a whole packed B in: block pc (a multiple of {@link #KC}) starts at pc·panels·nr, and its panel p at
     * p·kc·nr after that.
     */
    private static void packBWhole(float[] b, boolean tb, int k, int n, int p0, int p1, int panels, float[] bp) {
        int nr = 2 * F.length();
        for (int pc = 0; pc < k; pc += KC) {
            int kc = Math.min(KC, k - pc);
            packBPanels(b, tb, n, k, p0 * nr, pc, kc, nr, p1 - p0, bp, wholeOffset(pc, kc, nr, panels, p0));
        }
    }

    /** Where panel p0 of k block pc (kc deep) starts in a B packed whole with {@code panels} panels. */
    private static int wholeOffset(int pc, int kc, int nr, int panels, int p0) {
        return pc * panels * nr + p0 * kc * nr;
    }

    /** {@link #packB} from B, or {@link #packBTransposed} from Bᵀ when {@code tb}. */
    private static void packBPanels(float[] b, boolean tb, int n, int k, int n0, int pc, int kc, int nr, int panels,
                                    float[] bp, int base) {
        if (tb) {
            packBTransposed(b, n, k, n0, pc, kc, nr, panels, bp, base);
        } else {
            packB(b, n, n0, pc, kc, nr, panels, bp, base);
        }
    }

    /**
     * The blocked kernel for C's rows [r0, r1) and column panels [p0, p1) (columns p0·nr .. min(p1·nr, n)). B comes
     * packed whole ({@code bpWhole}, laid out by {@link #packBWhole}) or, when that is null, is packed here one k
     * block at a time, for these panels only.
     */
    private static void blockedRange(float[] a, boolean ta, float[] b, boolean tb, float[] bpWhole, int m, int k,
                                     int n, float[] c, int r0, int r1, int p0, int p1) {
        int nr = 2 * F.length();
        int panels = p1 - p0;
        int allPanels = (n + nr - 1) / nr;
        int n0 = p0 * nr;
        float[] bp = bpWhole != null ? bpWhole : new float[Math.min(k, KC) * panels * nr];
        float[] ap = new float[Math.min(k, KC) * ((Math.min(r1 - r0, MC) + MR - 1) / MR * MR)];
        float[] tile = new float[MR * nr];
        for (int pc = 0; pc < k; pc += KC) {
            int kc = Math.min(KC, k - pc);
            int base;
            if (bpWhole != null) {
                base = wholeOffset(pc, kc, nr, allPanels, p0);
            } else {
                base = 0;
                packBPanels(b, tb, n, k, n0, pc, kc, nr, panels, bp, 0);
            }
            for (int ic = r0; ic < r1; ic += MC) {
                int mc = Math.min(MC, r1 - ic);
                if (ta) {
                    packATransposed(a, m, ic, mc, pc, kc, ap);
                } else {
                    packA(a, k, ic, mc, pc, kc, ap);
                }
                for (int jp = 0; jp < panels; jp++) {
                    int j0 = n0 + jp * nr;
                    int cols = Math.min(nr, n - j0);
                    int bOff = base + jp * kc * nr;
                    for (int ir = 0; ir < mc; ir += MR) {
                        int rows = Math.min(MR, mc - ir);
                        int aOff = ir * kc;
                        int cOff = (ic + ir) * n + j0;
                        if (rows == MR && cols == nr) {
                            micro(ap, aOff, bp, bOff, kc, c, cOff, n);
                        } else {
                            // An edge tile: run the same micro-kernel on a full-size copy, store the valid part.
                            java.util.Arrays.fill(tile, 0f);
                            for (int r = 0; r < rows; r++) {
                                System.arraycopy(c, cOff + r * n, tile, r * nr, cols);
                            }
                            micro(ap, aOff, bp, bOff, kc, tile, 0, nr);
                            for (int r = 0; r < rows; r++) {
                                System.arraycopy(tile, r * nr, c, cOff + r * n, cols);
                            }
                        }
                    }
                }
            }
        }
    }

    /**
     * Packs B[pc..pc+kc, n0..] as micro-panels from {@code bp[base]} on: panel p holds columns n0 + p·nr.. as kc
     * rows of nr floats.
     */
    private static void packB(float[] b, int n, int n0, int pc, int kc, int nr, int panels, float[] bp, int base) {
        for (int p = 0; p < panels; p++) {
            int j0 = n0 + p * nr;
            int cols = Math.min(nr, n - j0);
            int dst = base + p * kc * nr;
            for (int kk = 0; kk < kc; kk++) {
                int src = (pc + kk) * n + j0;
                System.arraycopy(b, src, bp, dst, cols);
                if (cols < nr) {
                    java.util.Arrays.fill(bp, dst + cols, dst + nr, 0f);
                }
                dst += nr;
            }
        }
    }

    /** {@link #packB} from Bᵀ (a row-major [n, k] buffer): the same panels. */
    private static void packBTransposed(float[] bt, int n, int k, int n0, int pc, int kc, int nr, int panels,
                                        float[] bp, int base) {
        for (int p = 0; p < panels; p++) {
            int j0 = n0 + p * nr;
            int cols = Math.min(nr, n - j0);
            int dst = base + p * kc * nr;
            for (int c = 0; c < nr; c++) {
                if (c < cols) {
                    int src = (j0 + c) * k + pc;
                    for (int kk = 0; kk < kc; kk++) {
                        bp[dst + kk * nr + c] = bt[src + kk];
                    }
                } else {
                    for (int kk = 0; kk < kc; kk++) {
                        bp[dst + kk * nr + c] = 0f;
                    }
                }
            }
        }
    }

    /** {@link #packA} from Aᵀ (a row-major [k, m] buffer): the same slivers. */
    private static void packATransposed(float[] at, int m, int ic, int mc, int pc, int kc, float[] ap) {
        for (int ir = 0; ir < mc; ir += MR) {
            int rows = Math.min(MR, mc - ir);
            int dst = ir * kc;
            for (int kk = 0; kk < kc; kk++) {
                int src = (pc + kk) * m + ic + ir;
                int at0 = dst + kk * MR;
                for (int r = 0; r < MR; r++) {
                    ap[at0 + r] = r < rows ? at[src + r] : 0f;
                }
            }
        }
    }

    /** Packs A[ic..ic+mc, pc..pc+kc] as slivers of MR rows, each stored column by column (kc × MR). */
    private static void packA(float[] a, int k, int ic, int mc, int pc, int kc, float[] ap) {
        for (int ir = 0; ir < mc; ir += MR) {
            int rows = Math.min(MR, mc - ir);
            int dst = ir * kc;
            for (int r = 0; r < MR; r++) {
                if (r < rows) {
                    int src = (ic + ir + r) * k + pc;
                    for (int kk = 0; kk < kc; kk++) {
                        ap[dst + kk * MR + r] = a[src + kk];
                    }
                } else {
                    for (int kk = 0; kk < kc; kk++) {
                        ap[dst + kk * MR + r] = 0f;
                    }
                }
            }
        }
    }

    /**
     * The micro-kernel for {@link #MR} rows. It always starts from the C tile in memory, even in the first k
     * block, where that tile is still the zeros of a new array (the same +0.0 a zero vector would give, so the
     * same bits): a branch on "first block or not" was never taken both ways by the small products a JVM sees
     * first, so C2 compiled one way only and threw the compiled kernel away at the first product with k above
     * {@link #KC}, running it on the Vector API's slow path while it compiled again (seconds, in a grade).
     */
    private static void micro(float[] ap, int aOff, float[] bp, int bOff, int kc, float[] c, int cOff, int ldc) {
        if (MR == 12) {
            microKernel12(ap, aOff, bp, bOff, kc, c, cOff, ldc);
        } else {
            microKernel(ap, aOff, bp, bOff, kc, c, cOff, ldc);
        }
    }

    /**
     * C tile (6 rows × 2 vectors, row stride ldc) += packed A sliver · packed B micro-panel over kc steps.
     * Twelve accumulators in registers; per step two B loads, six broadcasts, twelve FMAs. The tile is spelled out as twelve locals on purpose: C2 keeps locals in vector
     * registers, while an array of vectors would go through memory at every step.
     */
    private static void microKernel(float[] ap, int aOff, float[] bp, int bOff, int kc, float[] c, int cOff,
                                    int ldc) {
        int l = F.length();
        FloatVector c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51;
        c00 = FloatVector.fromArray(F, c, cOff);
        c01 = FloatVector.fromArray(F, c, cOff + l);
        c10 = FloatVector.fromArray(F, c, cOff + ldc);
        c11 = FloatVector.fromArray(F, c, cOff + ldc + l);
        c20 = FloatVector.fromArray(F, c, cOff + 2 * ldc);
        c21 = FloatVector.fromArray(F, c, cOff + 2 * ldc + l);
        c30 = FloatVector.fromArray(F, c, cOff + 3 * ldc);
        c31 = FloatVector.fromArray(F, c, cOff + 3 * ldc + l);
        c40 = FloatVector.fromArray(F, c, cOff + 4 * ldc);
        c41 = FloatVector.fromArray(F, c, cOff + 4 * ldc + l);
        c50 = FloatVector.fromArray(F, c, cOff + 5 * ldc);
        c51 = FloatVector.fromArray(F, c, cOff + 5 * ldc + l);
        int ai = aOff;
        int bi = bOff;
        for (int kk = 0; kk < kc; kk++) {
            FloatVector b0 = FloatVector.fromArray(F, bp, bi);
            FloatVector b1 = FloatVector.fromArray(F, bp, bi + l);
            FloatVector a0 = FloatVector.broadcast(F, ap[ai]);
            c00 = a0.fma(b0, c00);
            c01 = a0.fma(b1, c01);
            FloatVector a1 = FloatVector.broadcast(F, ap[ai + 1]);
            c10 = a1.fma(b0, c10);
            c11 = a1.fma(b1, c11);
            FloatVector a2 = FloatVector.broadcast(F, ap[ai + 2]);
            c20 = a2.fma(b0, c20);
            c21 = a2.fma(b1, c21);
            FloatVector a3 = FloatVector.broadcast(F, ap[ai + 3]);
            c30 = a3.fma(b0, c30);
            c31 = a3.fma(b1, c31);
            FloatVector a4 = FloatVector.broadcast(F, ap[ai + 4]);
            c40 = a4.fma(b0, c40);
            c41 = a4.fma(b1, c41);
            FloatVector a5 = FloatVector.broadcast(F, ap[ai + 5]);
            c50 = a5.fma(b0, c50);
            c51 = a5.fma(b1, c51);
            ai += 6;
            bi += 2 * l;
        }
        c00.intoArray(c, cOff);
        c01.intoArray(c, cOff + l);
        c10.intoArray(c, cOff + ldc);
        c11.intoArray(c, cOff + ldc + l);
        c20.intoArray(c, cOff + 2 * ldc);
        c21.intoArray(c, cOff + 2 * ldc + l);
        c30.intoArray(c, cOff + 3 * ldc);
        c31.intoArray(c, cOff + 3 * ldc + l);
        c40.intoArray(c, cOff + 4 * ldc);
        c41.intoArray(c, cOff + 4 * ldc + l);
        c50.intoArray(c, cOff + 5 * ldc);
        c51.intoArray(c, cOff + 5 * ldc + l);
    }

    /**
     * {@link #microKernel} for 12 rows: 24 accumulators, for 512-bit vectors, where 32 vector registers hold
     * them with the two B vectors and a broadcast (BLIS's Skylake-X sgemm tile is 12 × 32 too). Per step: two B
     * loads, twelve broadcasts, twenty-four FMAs; twice the work of the 6-row tile per B load. Each C element
     * still adds its products in order with one FMA each, so the bits are the same.
     */
    private static void microKernel12(float[] ap, int aOff, float[] bp, int bOff, int kc, float[] c, int cOff,
                                      int ldc) {
        int l = F.length();
        FloatVector c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51, c60, c61, c70, c71, c80, c81, c90, c91, c100, c101, c110, c111;
        c00 = FloatVector.fromArray(F, c, cOff + 0 * ldc);
        c01 = FloatVector.fromArray(F, c, cOff + 0 * ldc + l);
        c10 = FloatVector.fromArray(F, c, cOff + 1 * ldc);
        c11 = FloatVector.fromArray(F, c, cOff + 1 * ldc + l);
        c20 = FloatVector.fromArray(F, c, cOff + 2 * ldc);
        c21 = FloatVector.fromArray(F, c, cOff + 2 * ldc + l);
        c30 = FloatVector.fromArray(F, c, cOff + 3 * ldc);
        c31 = FloatVector.fromArray(F, c, cOff + 3 * ldc + l);
        c40 = FloatVector.fromArray(F, c, cOff + 4 * ldc);
        c41 = FloatVector.fromArray(F, c, cOff + 4 * ldc + l);
        c50 = FloatVector.fromArray(F, c, cOff + 5 * ldc);
        c51 = FloatVector.fromArray(F, c, cOff + 5 * ldc + l);
        c60 = FloatVector.fromArray(F, c, cOff + 6 * ldc);
        c61 = FloatVector.fromArray(F, c, cOff + 6 * ldc + l);
        c70 = FloatVector.fromArray(F, c, cOff + 7 * ldc);
        c71 = FloatVector.fromArray(F, c, cOff + 7 * ldc + l);
        c80 = FloatVector.fromArray(F, c, cOff + 8 * ldc);
        c81 = FloatVector.fromArray(F, c, cOff + 8 * ldc + l);
        c90 = FloatVector.fromArray(F, c, cOff + 9 * ldc);
        c91 = FloatVector.fromArray(F, c, cOff + 9 * ldc + l);
        c100 = FloatVector.fromArray(F, c, cOff + 10 * ldc);
        c101 = FloatVector.fromArray(F, c, cOff + 10 * ldc + l);
        c110 = FloatVector.fromArray(F, c, cOff + 11 * ldc);
        c111 = FloatVector.fromArray(F, c, cOff + 11 * ldc + l);
        int ai = aOff;
        int bi = bOff;
        for (int kk = 0; kk < kc; kk++) {
            FloatVector b0 = FloatVector.fromArray(F, bp, bi);
            FloatVector b1 = FloatVector.fromArray(F, bp, bi + l);
            FloatVector a0 = FloatVector.broadcast(F, ap[ai + 0]);
            c00 = a0.fma(b0, c00);
            c01 = a0.fma(b1, c01);
            FloatVector a1 = FloatVector.broadcast(F, ap[ai + 1]);
            c10 = a1.fma(b0, c10);
            c11 = a1.fma(b1, c11);
            FloatVector a2 = FloatVector.broadcast(F, ap[ai + 2]);
            c20 = a2.fma(b0, c20);
            c21 = a2.fma(b1, c21);
            FloatVector a3 = FloatVector.broadcast(F, ap[ai + 3]);
            c30 = a3.fma(b0, c30);
            c31 = a3.fma(b1, c31);
            FloatVector a4 = FloatVector.broadcast(F, ap[ai + 4]);
            c40 = a4.fma(b0, c40);
            c41 = a4.fma(b1, c41);
            FloatVector a5 = FloatVector.broadcast(F, ap[ai + 5]);
            c50 = a5.fma(b0, c50);
            c51 = a5.fma(b1, c51);
            FloatVector a6 = FloatVector.broadcast(F, ap[ai + 6]);
            c60 = a6.fma(b0, c60);
            c61 = a6.fma(b1, c61);
            FloatVector a7 = FloatVector.broadcast(F, ap[ai + 7]);
            c70 = a7.fma(b0, c70);
            c71 = a7.fma(b1, c71);
            FloatVector a8 = FloatVector.broadcast(F, ap[ai + 8]);
            c80 = a8.fma(b0, c80);
            c81 = a8.fma(b1, c81);
            FloatVector a9 = FloatVector.broadcast(F, ap[ai + 9]);
            c90 = a9.fma(b0, c90);
            c91 = a9.fma(b1, c91);
            FloatVector a10 = FloatVector.broadcast(F, ap[ai + 10]);
            c100 = a10.fma(b0, c100);
            c101 = a10.fma(b1, c101);
            FloatVector a11 = FloatVector.broadcast(F, ap[ai + 11]);
            c110 = a11.fma(b0, c110);
            c111 = a11.fma(b1, c111);
            ai += 12;
            bi += 2 * l;
        }
        c00.intoArray(c, cOff + 0 * ldc);
        c01.intoArray(c, cOff + 0 * ldc + l);
        c10.intoArray(c, cOff + 1 * ldc);
        c11.intoArray(c, cOff + 1 * ldc + l);
        c20.intoArray(c, cOff + 2 * ldc);
        c21.intoArray(c, cOff + 2 * ldc + l);
        c30.intoArray(c, cOff + 3 * ldc);
        c31.intoArray(c, cOff + 3 * ldc + l);
        c40.intoArray(c, cOff + 4 * ldc);
        c41.intoArray(c, cOff + 4 * ldc + l);
        c50.intoArray(c, cOff + 5 * ldc);
        c51.intoArray(c, cOff + 5 * ldc + l);
        c60.intoArray(c, cOff + 6 * ldc);
        c61.intoArray(c, cOff + 6 * ldc + l);
        c70.intoArray(c, cOff + 7 * ldc);
        c71.intoArray(c, cOff + 7 * ldc + l);
        c80.intoArray(c, cOff + 8 * ldc);
        c81.intoArray(c, cOff + 8 * ldc + l);
        c90.intoArray(c, cOff + 9 * ldc);
        c91.intoArray(c, cOff + 9 * ldc + l);
        c100.intoArray(c, cOff + 10 * ldc);
        c101.intoArray(c, cOff + 10 * ldc + l);
        c110.intoArray(c, cOff + 11 * ldc);
        c111.intoArray(c, cOff + 11 * ldc + l);
    }
}
