package dev.shardlings.grader.selftest;

import dev.shardlings.grader.problem3.Problem3Checks;
import dev.shardlings.array.DType;
import dev.shardlings.grader.judge.GradingFailure;
import dev.shardlings.grader.judge.GradingFailure.Kind;
import dev.shardlings.grader.checks.MeshSpec;
import dev.shardlings.grader.parts.Part;
import dev.shardlings.grader.chapter0.Chapter0Case;
import dev.shardlings.grader.chapter0.Chapter0Checks;
import dev.shardlings.grader.problem1.Problem1Case;
import dev.shardlings.grader.problem1.Problem1Checks;
import dev.shardlings.grader.problem3.MatmulCase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import static dev.shardlings.sharding.PartitionSpec.P;
import static dev.shardlings.spmd.Collectives.allGather;
import static dev.shardlings.spmd.ShardMap.shardMap;
import static dev.shardlings.spmd.Tiling.TILED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Feedback per mistake (the ring shift's wrong direction is in Chapter0WrongImplementationsTest): a known wrong
 * answer is named with a hint about it, a broken trace rule ends with the
 * rule's hint rather than the part's, a global-view index shows the device whose block it is in, and a one-device
 * layout is one line rather than a box.
 */
class FeedbackTest {

    private static GradingFailure rejected(Kind kind, Executable check) {
        GradingFailure f = Pinned.record(assertThrows(GradingFailure.class, check));
        assertEquals(kind, f.kind(), () -> f.reason() + "\n" + f.getMessage());
        return f;
    }

    @Test
    void aRollTheWrongWayInGlobalViewIsNamedAndShowsTheOwningBlock() {
        Problem1Case c = new Problem1Case(2, 1, 3, 2, 5, 1, DType.FLOAT32);
        GradingFailure f = rejected(Kind.WRONG_VALUES, () -> Problem1Checks.rollWithinShardsGlobal((a, shift) -> {
            int x = a.mesh().axisSize("X");
            int s = a.shape()[0];
            int d = a.shape()[1];
            return dev.shardlings.jit.Jit.jit(v -> v.reshape(x, s / x, d).roll(-shift, 1).reshape(s, d).sub(v))
                    .outShardings(P("X", "Y")).call(a).get(0);
        }, c));
        assertTrue(f.getMessage().contains("Your output is exactly what rolling by −shift gives."), f.getMessage());
        assertTrue(f.getMessage().contains("moves row r to row r + shift"), f.getMessage());
        assertTrue(f.getMessage().contains(" on device "), "the block an index is in: " + f.getMessage());
    }

    @Test
    void wrongValuesFromANeedlessCollectiveNameTheCollectiveToo() {
        Problem1Case c = new Problem1Case(2, 1, 2, 2, 5, 1, DType.FLOAT32);
        // A psum over X of each block's mean: wrong values, and communication part 1.1a forbids.
        GradingFailure f = rejected(Kind.WRONG_VALUES, () -> Problem1Checks.perShardMean(a -> shardMap(
                block -> dev.shardlings.spmd.Collectives.psum(block.mean(dev.shardlings.array.KeepDims.KEEP), "X"),
                a.mesh(), P("X", "Y"), P("X", "Y")).apply(a), c));
        assertTrue(f.getMessage().contains("Also: this part needs no communication, but the trace shows psum"),
                f.getMessage());
    }

    @Test
    void wrongValuesWithoutCommunicationSayNothingAboutIt() {
        Problem1Case c = new Problem1Case(2, 1, 2, 2, 5, 1, DType.FLOAT32);
        GradingFailure f = rejected(Kind.WRONG_VALUES, () -> Problem1Checks.perShardMean(a -> shardMap(
                block -> block.sum(dev.shardlings.array.KeepDims.KEEP), a.mesh(), P("X", "Y"), P("X", "Y")).apply(a), c));
        assertFalse(f.getMessage().contains("needs no communication"), f.getMessage());
    }

    @Test
    void aBrokenTraceRuleEndsWithTheRulesHint() {
        MatmulCase c = new MatmulCase(MeshSpec.of("X", 1, "Y", 2), 1, 2, 2, 7, 2);
        // The collective version written as the baseline: an all-gather, then one matmul.
        GradingFailure f = rejected(Kind.STRUCTURE, () -> Problem3Checks.allGatherMatmul((a, w) -> shardMap(
                (x, y) -> allGather(x, "Y", 1, TILED).matmul(y), a.mesh(), P("X", "Y"), P(null, "Y"), P("X", "Y"))
                .apply(a, w), (a, w) -> a, c));
        assertTrue(f.getMessage().contains("Hint: this part builds its communication from ppermute steps alone"),
                f.getMessage());
        assertFalse(f.getMessage().contains(Problem3Checks.P3_0.hint()), f.getMessage());
    }

    @Test
    void aOneDeviceLayoutIsOneLine() {
        Chapter0Case c = new Chapter0Case(MeshSpec.of("i", 1), 1, 2, 1, 3, 1);
        GradingFailure f = rejected(Kind.WRONG_VALUES, () -> Chapter0Checks.ringShift((x, k) -> shardMap(b -> b.neg(),
                x.mesh(), P("i", null), P("i", null)).apply(x), c));
        assertTrue(f.getMessage().contains("one device, CPU 0, holds the whole array"), f.getMessage());
        assertFalse(f.getMessage().contains("┌"), "no box for one device: " + f.getMessage());
    }
}
