package dev.shardlings.array;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * Vector-API kernels on dense float buffers, kept apart from the user-facing operations (EJML style) so they
 * can be tested against scalar loops on their own.
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
     * C[m,n] = A[m,k]·B[k,n] on row-major buffers, as an i-k-j loop: A[i,kk] is broadcast and FMA'd into row
     * i of C, so every C element accumulates its k products in order kk = 0..k-1, in float32, whatever the
     * vector length.
     */
    static float[] matmul(float[] a, float[] b, int m, int k, int n) {
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
}
