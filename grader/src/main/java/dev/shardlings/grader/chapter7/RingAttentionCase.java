package dev.shardlings.grader.chapter7;

import dev.shardlings.array.NDArray;
import dev.shardlings.grader.checks.Generators;
import dev.shardlings.sharding.AxisType;
import dev.shardlings.sharding.Mesh;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;


/**
 * One case of part 7.3: Q, K, V f32[S, D] with S = devices · rows on a mesh ('seq': devices).
 *
 * @param devices devices along 'seq' (1–16)
 * @param rows    rows of the sequence each device holds, S/n
 * @param d       the head dimension D
 * @param causal  whether query i sees only keys j ≤ i
 * @param scale   Q's and K's values are multiples of 1/16 in [−1/2, 1/2] times this: 40 makes scores of a few
 *                hundred, which overflow float32's exp (above 88.7) unless the running max is subtracted
 * @param seed    the seed of the values
 */
public record RingAttentionCase(int devices, int rows, int d, boolean causal, float scale, long seed) {

    /** Scores this large overflow exp in float32: the cases that tell an online softmax without its max. */
    public static final float LARGE = 40f;

    /** The sequence length S. */
    public int length() {
        return devices * rows;
    }

    /** The mesh ('seq': devices), an Auto axis. */
    public Mesh mesh() {
        return Mesh.makeMesh(new int[]{devices}, new String[]{"seq"}, AxisType.AUTO);
    }

    /** Q f32[S, D]. */
    public NDArray q() {
        return Generators.sixteenths(seed, scale, length(), d);
    }

    /** K f32[S, D]. */
    public NDArray k() {
        return Generators.sixteenths(seed + 1, scale, length(), d);
    }

    /** V f32[S, D], never scaled: the output stays within [−1/2, 1/2]. */
    public NDArray v() {
        return Generators.sixteenths(seed + 2, 1f, length(), d);
    }

    /** The case in words, for reports. */
    public String describe() {
        return "Case: mesh ('seq': " + devices + "), Auto axes; Q, K, V f32[" + length() + ", " + d + "] P('seq'), "
                + rows + " row(s) per device; " + (causal ? "causal" : "no mask") + "; Q and K scaled by " + scale
                + " (value seed " + seed + ")";
    }

    /**
     * 'seq' of 1–16 devices, 1–3 rows each, D of 1–8, with and without the causal mask, Q and K at scale 1 or
     * {@link #LARGE}, any value seed.
     */
    public static Arbitrary<RingAttentionCase> cases() {
        return Combinators.combine(Arbitraries.integers().between(1, Generators.MAX_DEVICES),
                Arbitraries.integers().between(1, 3), Arbitraries.integers().between(1, 8), Arbitraries.of(false, true),
                Arbitraries.of(1f, LARGE), Arbitraries.longs()).as(RingAttentionCase::new);
    }
}
