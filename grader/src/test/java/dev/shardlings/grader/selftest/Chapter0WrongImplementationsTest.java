package dev.shardlings.grader.selftest;

import dev.shardlings.grader.chapter0.Chapter0Checks;
import dev.shardlings.array.KeepDims;
import dev.shardlings.array.NDArray;
import dev.shardlings.grader.judge.GradingFailure;
import dev.shardlings.grader.judge.GradingFailure.Kind;
import dev.shardlings.grader.checks.MeshSpec;
import dev.shardlings.grader.parts.Part;
import dev.shardlings.grader.chapter0.Chapter0Case;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import static dev.shardlings.spmd.Tiling.TILED;
import static dev.shardlings.sharding.PartitionSpec.P;
import static dev.shardlings.sharding.PartitionSpec.tuple;
import static dev.shardlings.spmd.Collectives.allGather;
import static dev.shardlings.spmd.Collectives.allGatherInvariant;
import static dev.shardlings.spmd.Collectives.axisSize;
import static dev.shardlings.spmd.Collectives.pmean;
import static dev.shardlings.spmd.Collectives.ppermute;
import static dev.shardlings.spmd.Collectives.psum;
import static dev.shardlings.spmd.ShardMap.shardMap;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Deliberately wrong Chapter 0 implementations, each rejected for the right reason. */
class Chapter0WrongImplementationsTest {

    private static final Chapter0Case X4 = new Chapter0Case(MeshSpec.of("X", 4), 2, 2, 3, 5, 0);

    private static GradingFailure rejected(Kind kind, Executable check) {
        GradingFailure f = Pinned.record(assertThrows(GradingFailure.class, check));
        assertEquals(kind, f.kind(), () -> "rejected for another reason: " + f.reason() + "\n" + f.getMessage());
        return f;
    }

    @Test
    void gatheringBothOperandsInsteadOfAPsumIsTheWrongCommunication() {
        GradingFailure f = rejected(Kind.STRUCTURE, () -> Chapter0Checks.psumMatmul((a, b) -> shardMap(
                (x, w) -> allGatherInvariant(x, "X", 1, TILED).matmul(allGatherInvariant(w, "X", 0, TILED)),
                a.mesh(), P(null, "X"), P("X", null), P()).apply(a, b), X4));
        assertTrue(f.getMessage().contains("exactly one psum over X"), f.getMessage());
        assertTrue(f.getMessage().contains("all_gather over ('X',)"), "shows what the device did: " + f.getMessage());
    }

    @Test
    void aPsumInsteadOfReduceScatterAndAllGatherIsRejected() {
        rejected(Kind.STRUCTURE, () -> Chapter0Checks.reduceScatterAllGather((a, b) -> shardMap(
                (x, w) -> psum(x.matmul(w), "X"), a.mesh(), P(null, "X"), P("X", null), P()).apply(a, b), X4));
    }

    @Test
    void forgettingThePsumGivesWrongValues() {
        rejected(Kind.WRONG_VALUES, () -> Chapter0Checks.psumMatmul((a, b) -> shardMap(
                (x, w) -> x.matmul(w), a.mesh(), P(null, "X"), P("X", null), P()).checkVma(false).apply(a, b), X4));
    }

    @Test
    void gatheringTheWrongOperandForCIxKIsRejected() {
        // Gathers A (rows) and keeps B's columns split: C[I, K_X], laid out P(None, 'X') instead of P('X', None).
        rejected(Kind.WRONG_SHARDING, () -> Chapter0Checks.sameAxis((a, b) -> shardMap(
                        (x, w) -> allGather(x, "X", 0, TILED).matmul(w), a.mesh(), P("X", null), P(null, "X"),
                        P(null, "X")).apply(a, b),
                (a, b) -> shardMap((x, w) -> allGather(x, "X", 0, TILED).matmul(w), a.mesh(), P("X", null),
                        P(null, "X"), P(null, "X")).apply(a, b), X4));
    }

    @Test
    void normalisingOverTheBlockOnlyIsWrongValues() {
        Chapter0Case c = new Chapter0Case(MeshSpec.of("i", 2, "j", 2), 2, 3, 1, 9, 0);
        rejected(Kind.WRONG_VALUES, () -> Chapter0Checks.normalize(x -> shardMap(b -> {
            NDArray mean = b.mean(KeepDims.KEEP, 1);
            NDArray var = b.sub(mean).square().mean(KeepDims.KEEP, 1);
            return b.sub(mean).div(var.add(1e-5f).sqrt());
        }, x.mesh(), P("i", "j"), P("i", "j")).apply(x), c));
    }

    @Test
    void gatheringTheRowToNormaliseIsRejected() {
        Chapter0Case c = new Chapter0Case(MeshSpec.of("i", 2, "j", 2), 2, 3, 1, 9, 0);
        GradingFailure f = rejected(Kind.STRUCTURE, () -> Chapter0Checks.normalize(x -> shardMap(b -> {
            NDArray row = allGather(b, "j", 1, TILED);
            NDArray mean = pmean(row.mean(KeepDims.KEEP, 1), "j");
            NDArray var = pmean(row.sub(mean).square().mean(KeepDims.KEEP, 1), "j");
            return b.sub(mean).div(var.add(1e-5f).sqrt());
        }, x.mesh(), P("i", "j"), P("i", "j")).apply(x), c));
        assertTrue(f.reason().contains("pmean or psum over j"), f.reason());
    }

    @Test
    void shiftingOneStepAtATimeIsRejected() {
        Chapter0Case c = new Chapter0Case(MeshSpec.of("i", 4), 1, 2, 1, 3, 2);
        rejected(Kind.STRUCTURE, () -> Chapter0Checks.ringShift((x, k) -> shardMap(b -> {
            int n = axisSize("i");
            int[][] one = new int[n][];
            for (int s = 0; s < n; s++) {
                one[s] = new int[]{s, (s + 1) % n};
            }
            NDArray out = b;
            for (int step = 0; step < Math.floorMod(k, n); step++) {
                out = ppermute(out, "i", one);
            }
            return out;
        }, x.mesh(), P("i", null), P("i", null)).apply(x), c));
    }

    @Test
    void shiftingTheWrongWayIsWrongValuesNamedWithAHintAboutDirection() {
        Chapter0Case c = new Chapter0Case(MeshSpec.of("i", 4), 1, 2, 1, 3, 1);
        GradingFailure f = rejected(Kind.WRONG_VALUES, () -> Chapter0Checks.ringShift((x, k) -> shardMap(b -> {
            int n = axisSize("i");
            int[][] perm = new int[n][];
            for (int s = 0; s < n; s++) {
                perm[s] = new int[]{s, Math.floorMod(s - k, n)};
            }
            return ppermute(b, "i", perm);
        }, x.mesh(), P("i", null), P("i", null)).apply(x), c));
        // Feedback per mistake: the report names the mistake, and its hint replaces the part's general one.
        assertTrue(f.getMessage().contains("Your output is exactly what shifting by −k gives."), f.getMessage());
        assertTrue(f.getMessage().contains("Hint: device j's block goes to device (j + k) mod n"), f.getMessage());
        assertFalse(f.getMessage().contains(Chapter0Checks.P0_8.hint()), f.getMessage());
    }

    @Test
    void averagingBeforeSlicingSendsTooMuch() {
        Chapter0Case c = new Chapter0Case(MeshSpec.of("x", 2, "y", 2), 3, 1, 1, 4, 0);
        GradingFailure f = rejected(Kind.STRUCTURE, () -> Chapter0Checks.sliceAndAverage(x -> shardMap(
                b -> pmean(b, "x", "y").slice(0, 0, 4), x.mesh(), P(tuple("x", "y")), P()).apply(x), c));
        assertTrue(f.reason().contains("4 sliced elements"), f.reason());
    }

    @Test
    void foldingOverTheWrongAxisIsWrongValues() {
        Chapter0Case c = new Chapter0Case(MeshSpec.of("i", 4, "j", 2), 1, 1, 1, 0, 0);
        rejected(Kind.WRONG_VALUES, () -> Chapter0Checks.foldKey((key, mesh) -> shardMap(k -> dev.shardlings.random.PRNG
                .foldIn(dev.shardlings.random.PRNG.Key.of(k), dev.shardlings.spmd.Collectives.axisIndex("j").intAt())
                .toArray().reshape(1, 2), mesh, P(), P("i", null)).apply(key), c));
    }
}
