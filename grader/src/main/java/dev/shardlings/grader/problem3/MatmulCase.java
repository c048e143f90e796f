package dev.shardlings.grader.problem3;

import dev.shardlings.grader.checks.MeshSpec;
import dev.shardlings.grader.checks.Generators;
import dev.shardlings.grader.checks.MeshSpec;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

/**
 * One case of Problems 3 and 4: a mesh with axes "X" and "Y" (and possibly an extra axis the arrays are replicated
 * over), three size multipliers, a value seed and a tile count. Each check derives its shapes from the multipliers
 * so that every dimension divides evenly: for example B = X·b, D = Y·d and F = Y·f in part 3.0.
 *
 * @param mesh  the mesh
 * @param b     multiplier of the batch dimension B
 * @param d     multiplier of the model dimension D
 * @param f     multiplier of the hidden dimension F
 * @param seed  seed of the array values
 * @param tiles number of output tiles of part 3.1 (≥ 2)
 */
public record MatmulCase(MeshSpec mesh, int b, int d, int f, long seed, int tiles) {

    /** Size of mesh axis X. */
    public int x() {
        return mesh.size("X");
    }

    /** Size of mesh axis Y: the length n of the ring. */
    public int y() {
        return mesh.size("Y");
    }

    /** B = X·b: the whole batch. */
    public int batch() {
        return x() * b;
    }

    /** D = Y·d: the whole model dimension (parts 3.0 – 3.3). */
    public int model() {
        return y() * d;
    }

    /** F = Y·f: the whole hidden dimension (parts 3.0, 3.2, 3.3). */
    public int hidden() {
        return y() * f;
    }

    /** The case in words, for reports. */
    public String describe(String shapes) {
        return "Case: mesh " + mesh + "; " + shapes + " (value seed " + seed + ")";
    }

    /**
     * Problems 3 and 4 cases: {@link Generators#ringMeshes()}; size multipliers 1–3 for B, D and F; any value seed; 2–4
     * tiles for part 3.1.
     */
    public static Arbitrary<MatmulCase> cases() {
        Arbitrary<Integer> mult = Arbitraries.integers().between(1, 3);
        return Combinators.combine(Generators.ringMeshes(), mult, mult, mult, Arbitraries.longs(),
                Arbitraries.integers().between(2, 4)).as(MatmulCase::new);
    }
}
