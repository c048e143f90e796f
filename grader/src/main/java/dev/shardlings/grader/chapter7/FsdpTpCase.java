package dev.shardlings.grader.chapter7;

import dev.shardlings.array.NDArray;
import dev.shardlings.grader.checks.Generators;
import dev.shardlings.sharding.AxisType;
import dev.shardlings.sharding.Mesh;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

import java.util.Random;

/**
 * One case of part 7.1: X[B, D], T[B, D], W1[D, F], W2[F, D] on a mesh ('data', 'model') with B = data·rows,
 * D = data·dPer and F = model·fPer, so every split in X[B_data, D], W1[D_data, F_model], W2[F_model, D_data] is
 * even; rows is a multiple of model, so the sequence-parallel variant's reduce-scatter of Y's rows over 'model'
 * splits evenly too.
 *
 * @param data  devices along 'data'
 * @param model devices along 'model' (data·model at most 16)
 * @param rows  rows of the batch per 'data' index, B/data (a multiple of model in the generated cases)
 * @param dPer  D/data
 * @param fPer  F/model
 * @param seed  the seed of the values
 */
public record FsdpTpCase(int data, int model, int rows, int dPer, int fPer, long seed) {

    /** The learning rate of the step. */
    public static final float LR = 0.05f;

    /** The batch B. */
    public int b() {
        return data * rows;
    }

    /** The model width D. */
    public int d() {
        return data * dPer;
    }

    /** The hidden width F. */
    public int f() {
        return model * fPer;
    }

    /** The mesh ('data', 'model'), Auto axes. */
    public Mesh mesh() {
        return Mesh.makeMesh(new int[]{data, model}, new String[]{"data", "model"}, AxisType.AUTO, AxisType.AUTO);
    }

    /** X f32[B, D]. */
    public NDArray x() {
        return values(seed, 1f, b(), d());
    }

    /** T f32[B, D]. */
    public NDArray t() {
        return values(seed + 1, 1f, b(), d());
    }

    /**
     * W1 f32[D, F], scaled by the power of two nearest 1/√D so the hidden activations stay near 1. A power of two
     * keeps every value a short binary fraction: float32 sums X·W1 exactly, so a pre-activation that is exactly 0 in
     * double is exactly 0 in float too, and relu′ there agrees with the oracle.
     */
    public NDArray w1() {
        return values(seed + 2, powerOfTwoNear(1 / Math.sqrt(d())), d(), f());
    }

    /** W2 f32[F, D], scaled by the power of two nearest 1/√F. */
    public NDArray w2() {
        return values(seed + 3, powerOfTwoNear(1 / Math.sqrt(f())), f(), d());
    }

    private static float powerOfTwoNear(double v) {
        return Math.scalb(1f, (int) Math.round(Math.log(v) / Math.log(2)));
    }

    private static NDArray values(long s, float times, int r, int c) {
        Random random = new Random(s);
        float[] v = new float[r * c];
        for (int i = 0; i < v.length; i++) {
            v[i] = (random.nextInt(17) - 8) / 8f * times;
        }
        return NDArray.fromFloats(v, r, c);
    }

    /** The case in words, for reports. */
    public String describe() {
        return "Case: mesh ('data': " + data + ", 'model': " + model + "), Auto axes; X, T f32[" + b() + ", " + d()
                + "] P('data', None); W1 f32[" + d() + ", " + f() + "] P('data', 'model'); W2 f32[" + f() + ", " + d()
                + "] P('model', 'data'); learning rate " + LR + " (value seed " + seed + ")";
    }

    /**
     * 'data' × 'model' of 1–16 devices, 1–3 rows per device (model·1–3 per 'data' index), D/data and F/model of
     * 1–3, any value seed.
     */
    public static Arbitrary<FsdpTpCase> cases() {
        return Generators.meshXY().flatMap(m -> Combinators.combine(Arbitraries.integers().between(1, 3),
                Arbitraries.integers().between(1, 3), Arbitraries.integers().between(1, 3), Arbitraries.longs())
                .as((r, dp, fp, s) -> new FsdpTpCase(m[0], m[1], m[1] * r, dp, fp, s)));
    }
}
