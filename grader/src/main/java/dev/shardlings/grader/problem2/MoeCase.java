package dev.shardlings.grader.problem2;

import dev.shardlings.array.NDArray;
import dev.shardlings.grader.checks.MeshSpec;
import dev.shardlings.grader.checks.Generators;
import dev.shardlings.grader.checks.MeshSpec;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * One case of Problem 2: a mesh with axes "X" and "Y" (the experts and the tokens split over X, D and F over Y),
 * size multipliers, the number k of experts per token, how tokens are routed, the capacity of one all-to-all round
 * and a value seed. Sharded sizes are E = X·experts, S = X·tokens, D = Y·d, F = Y·f; the local parts use their own
 * sizes ({@link #localSizes()}) so that no legitimate buffer reaches S·D·F elements.
 *
 * @param mesh     the mesh
 * @param experts  experts per device along X
 * @param tokens   tokens per device along X
 * @param d        multiplier of D
 * @param f        multiplier of F
 * @param k        experts per token (1 for parts 2.1 and 2.3)
 * @param routing  how B is drawn
 * @param capacity tokens per (source, destination) pair in one all-to-all round (part 2.3b, 2.4)
 * @param seed     seed of the values and the routing
 */
public record MoeCase(MeshSpec mesh, int experts, int tokens, int d, int f, int k, Routing routing, int capacity,
                      long seed) {

    /** How tokens choose their experts. */
    public enum Routing {
        /** Every choice uniform over all experts. */
        UNIFORM,
        /** Every token to the same expert (the most unbalanced load). */
        ONE_EXPERT,
        /** Only a random half of the experts get tokens; the others get none. */
        SOME_EMPTY,
        /** A token's k choices are all the same expert (top-k with repeats). */
        REPEATED
    }

    /** Sizes [E, S, D, F] of the sharded parts. */
    public int[] shardedSizes() {
        return new int[]{mesh.size("X") * experts, mesh.size("X") * tokens, mesh.size("Y") * d, mesh.size("Y") * f};
    }

    /**
     * Sizes [E, S, D, F] of the local parts: S ≥ 2 and D, F > max(E, k), so that the book's masked buffers
     * ([E, S, D], and its product [E, S, F]) and the top-k pairs ([S·k, D], [S·k, F]) all stay below S·D·F
     * elements; only a per-token copy of the experts, [S, D, F], reaches it.
     */
    public int[] localSizes() {
        int e = experts + 1;
        return new int[]{e, tokens + 1, e + k + d - 1, e + k + f - 1};
    }

    /**
     * The routing int32[S] (k = 1) or int32[S, k]: values in [0, E), drawn from the seed as {@link #routing}
     * says.
     */
    public NDArray route(int s, int e) {
        Random r = new Random(seed ^ 0x9E3779B97F4A7C15L);
        List<Integer> all = new ArrayList<>();
        for (int x = 0; x < e; x++) {
            all.add(x);
        }
        Collections.shuffle(all, r);
        List<Integer> allowed = routing == Routing.SOME_EMPTY ? all.subList(0, Math.max(1, e / 2)) : all;
        int one = all.get(0);
        int[] b = new int[s * k];
        for (int i = 0; i < s; i++) {
            for (int j = 0; j < k; j++) {
                int v;
                switch (routing) {
                    case ONE_EXPERT: v = one; break;
                    case REPEATED: v = j == 0 ? allowed.get(r.nextInt(allowed.size())) : b[i * k]; break;
                    default: v = allowed.get(r.nextInt(allowed.size()));
                }
                b[i * k + j] = v;
            }
        }
        return k == 1 ? NDArray.fromInts(b, s) : NDArray.fromInts(b, s, k);
    }

    /** The case in words, for reports of the sharded parts. */
    public String describe(String shapes) {
        return "Case: mesh " + mesh + "; " + shapes + "; routing " + routing + (k > 1 ? ", k = " + k : "")
                + " (value seed " + seed + ")";
    }

    /** The case in words, for reports of the local parts (no mesh). */
    public String describeLocal(String shapes) {
        return "Case: " + shapes + " on one device; routing " + routing + (k > 1 ? ", k = " + k : "")
                + " (value seed " + seed + ")";
    }

    /**
     * Problem 2 cases: meshes with axes X and Y plus up to one replicated axis (1–16 devices); 1–3 experts and 1–4
     * tokens per device along X; D and F multipliers 1–2; every routing; capacity 1–3; k = 1, or 2–3 for top-k.
     */
    public static Arbitrary<MoeCase> cases(boolean topK) {
        Arbitrary<Integer> ks = topK ? Arbitraries.integers().between(2, 3) : Arbitraries.just(1);
        Arbitrary<Routing> routing = topK ? Arbitraries.of(Routing.class)
                : Arbitraries.of(Routing.UNIFORM, Routing.ONE_EXPERT, Routing.SOME_EMPTY);
        return Combinators.combine(Generators.meshWith("X", "Y"), Arbitraries.integers().between(1, 3),
                Arbitraries.integers().between(1, 4), Arbitraries.integers().between(1, 2),
                Arbitraries.integers().between(1, 2), ks, routing, Arbitraries.integers().between(1, 3))
                .flatAs((m, e, s, d, f, k, r, cap) -> Arbitraries.longs().map(seed -> new MoeCase(m, e, s, d, f, k, r,
                        cap, seed)));
    }
}
