package dev.shardlings.grader.chapter7;

import dev.shardlings.array.NDArray;
import dev.shardlings.grader.checks.Generators;
import dev.shardlings.sharding.Mesh;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;


/**
 * One case of part 7.4a: W f32[D, F] P(), X f32[B_data, D] and T f32[B_data, F] with B = devices · M · r on a mesh
 * ('data': devices).
 *
 * @param devices      devices along 'data' (1–16)
 * @param microbatches microbatches M each device splits its rows into
 * @param rows         rows r of one microbatch, B/(data·M)
 * @param d            the input width D
 * @param f            the output width F
 * @param seed         the seed of the values
 */
public record AccumulationCase(int devices, int microbatches, int rows, int d, int f, long seed) {

    /** The batch B. */
    public int batch() {
        return devices * microbatches * rows;
    }

    /** The mesh ('data': devices), an Auto axis. */
    public Mesh mesh() {
        return Generators.oneAxisMesh("data", devices);
    }

    /** W f32[D, F]. */
    public NDArray w() {
        return Generators.sixteenths(seed, 1f, d, f);
    }

    /** X f32[B, D]. */
    public NDArray x() {
        return Generators.sixteenths(seed + 1, 1f, batch(), d);
    }

    /** T f32[B, F]. */
    public NDArray t() {
        return Generators.sixteenths(seed + 2, 1f, batch(), f);
    }

    /** The case in words, for reports. */
    public String describe() {
        return "Case: mesh ('data': " + devices + "), Auto axes; W f32[" + d + ", " + f + "] P(), X f32[" + batch()
                + ", " + d + "] and T f32[" + batch() + ", " + f + "] P('data'); M = " + microbatches
                + " microbatches of " + rows + " row(s) per device (value seed " + seed + ")";
    }

    /** 'data' of 1–16 devices, 1–4 microbatches of 1–3 rows, D and F of 1–6, any value seed. */
    public static Arbitrary<AccumulationCase> cases() {
        return Combinators.combine(Arbitraries.integers().between(1, Generators.MAX_DEVICES),
                Arbitraries.integers().between(1, 4), Arbitraries.integers().between(1, 3),
                Arbitraries.integers().between(1, 6), Arbitraries.integers().between(1, 6), Arbitraries.longs())
                .as(AccumulationCase::new);
    }
}
