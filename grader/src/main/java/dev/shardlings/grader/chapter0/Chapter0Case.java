package dev.shardlings.grader.chapter0;

import dev.shardlings.grader.checks.MeshSpec;
import dev.shardlings.grader.checks.Generators;
import dev.shardlings.grader.checks.MeshSpec;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

/**
 * One Chapter 0 test case: a mesh, three size multipliers (each part says what they multiply), a value seed and an
 * integer parameter (the shift of part 0.8). Shapes are derived so that every dimension divides evenly.
 */
public record Chapter0Case(MeshSpec mesh, int a, int b, int c, long seed, int param) {

    /** The case in words, for reports. */
    public String describe(String shapes) {
        return "Case: mesh " + mesh + "; " + shapes + " (value seed " + seed + ")";
    }

    /**
     * Chapter 0 cases on meshes with the given axes (plus extra replicated axes): size multipliers 1–3, any value
     * seed, a parameter in [−9, 9].
     */
    public static Arbitrary<Chapter0Case> cases(String... axes) {
        Arbitrary<Integer> mult = Arbitraries.integers().between(1, 3);
        return Combinators.combine(Generators.meshWith(axes), mult, mult, mult, Arbitraries.longs(),
                Arbitraries.integers().between(-9, 9)).as(Chapter0Case::new);
    }
}
