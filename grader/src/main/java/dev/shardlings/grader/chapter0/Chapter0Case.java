package dev.shardlings.grader.chapter0;

import dev.shardlings.grader.checks.MeshSpec;

/**
 * One Chapter 0 test case: a mesh, three size multipliers (each part says what they multiply), a value seed and an
 * integer parameter (the shift of part 0.8). Shapes are derived so that every dimension divides evenly.
 */
public record Chapter0Case(MeshSpec mesh, int a, int b, int c, long seed, int param) {

    /** The case in words, for reports. */
    public String describe(String shapes) {
        return "Case: mesh " + mesh + "; " + shapes + " (value seed " + seed + ")";
    }
}
