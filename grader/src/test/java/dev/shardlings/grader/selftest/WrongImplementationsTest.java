package dev.shardlings.grader.selftest;

import dev.shardlings.array.KeepDims;
import dev.shardlings.ExerciseNotDone;
import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.grader.judge.GradingFailure;
import dev.shardlings.grader.judge.GradingFailure.Kind;
import dev.shardlings.grader.problem1.Problem1Case;
import dev.shardlings.grader.problem1.Problem1Checks;
import dev.shardlings.jit.Jit;
import dev.shardlings.spmd.ShardedArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import static dev.shardlings.sharding.PartitionSpec.P;
import static dev.shardlings.spmd.Collectives.axisIndex;
import static dev.shardlings.spmd.Collectives.ppermute;
import static dev.shardlings.spmd.ShardMap.shardMap;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The grader's own tests: deliberately wrong implementations of Problem 1 must each be rejected, for the right
 * reason, with a report that teaches.
 */
class WrongImplementationsTest {

    private static final Problem1Case TWO_BY_TWO = new Problem1Case(2, 2, 2, 2, 7, 1, DType.FLOAT32);

    private static GradingFailure rejected(Kind kind, Executable check) {
        GradingFailure f = Pinned.record(assertThrows(GradingFailure.class, check));
        assertEquals(kind, f.kind(), () -> "rejected for another reason: " + f.reason() + "\n" + f.getMessage());
        return f;
    }

    /**
     * Hostile fixture: each block's mean taken on the host (never the whole array, so no gather shows), put back as
     * device blocks, and a throwaway shardMap with no collective run for the trace.
     */
    private static ShardedArray blockMeansOnTheHost(ShardedArray a) {
        java.util.List<NDArray> means = a.blocks().stream().map(b -> b.mean(KeepDims.KEEP)).toList();
        int[] shape = {a.mesh().axisSize("X"), a.mesh().axisSize("Y")};
        ShardedArray out = ShardedArray.fromDeviceBlocks(dev.shardlings.sharding.NamedSharding.of(a.mesh(),
                P("X", "Y")), shape, means);
        return shardMap(b -> b, a.mesh(), P("X", "Y"), P("X", "Y")).apply(out);
    }

    @Test
    void blockMeansTakenOnTheHostAreNotShardMap() {
        GradingFailure f = rejected(Kind.STRUCTURE, () -> Problem1Checks.perShardMean(
                WrongImplementationsTest::blockMeansOnTheHost, TWO_BY_TWO));
        assertTrue(f.reason().startsWith("computes on the host:"), f.reason());
    }

    @Test
    void rollOfTheWholeArrayInJitMakesTheCompilerCommunicate() {
        Problem1Case c = new Problem1Case(2, 1, 3, 2, 5, 1, DType.FLOAT32);
        GradingFailure f = rejected(Kind.STRUCTURE, () -> Problem1Checks.rollWithinShardsGlobal(
                (a, shift) -> Jit.jit(v -> v.roll(shift, 0).sub(v)).outShardings(P("X", "Y")).call(a).get(0), c));
        assertTrue(f.getMessage().contains("the compiled program communicates"), f.getMessage());
        assertTrue(f.getMessage().contains("ppermute over ('X',)"), "the report lists what the compiler inserted: "
                + f.getMessage());
        assertTrue(f.getMessage().contains("Reshape A to [X, S/X, D]"), f.getMessage());
        assertTrue(f.getMessage().contains("shift = 1"), "the report names the case: " + f.getMessage());
    }

    @Test
    void rollingAndSubtractingInTheBlockViewThenReshapingBackIsAcceptedFor12b() {
        // a correct alternative to the solution (which reshapes back before subtracting): on mesh (X=1, Y=2) with
        // A f32[1, 2] it was once rejected with "the compiled program communicates", the partitioner all-gathering
        // f32[1,1,1] over Y at the reshape back; XLA has no collective there (framework SizeOneReshapeTest)
        Problem1Checks.RollWithinShardsGlobal alternative = (a, shift) -> {
            int x = a.mesh().axisSize("X");
            int s = a.shape()[0];
            int d = a.shape()[1];
            return Jit.jit(v -> {
                ShardedArray blocks = v.reshape(x, s / x, d);
                return blocks.roll(shift, 1).sub(blocks).reshape(s, d);
            }).outShardings(P("X", "Y")).call(a).get(0);
        };
        for (Problem1Case c : java.util.List.of(new Problem1Case(1, 2, 1, 1, 31, 1, DType.FLOAT32),
                new Problem1Case(1, 2, 1, 2, 32, 1, DType.FLOAT32), TWO_BY_TWO,
                new Problem1Case(4, 2, 3, 2, 33, -2, DType.FLOAT32), Problem1Case.arange(4, 2, 128, 4, 5))) {
            Problem1Checks.rollWithinShardsGlobal(alternative, c);
        }
    }

    @Test
    void eagerGlobalViewOperationsWithoutJitAreNotACompiledProgram() {
        GradingFailure f = rejected(Kind.STRUCTURE, () -> Problem1Checks.perShardMeanGlobal(a -> {
            int x = a.mesh().axisSize("X");
            int y = a.mesh().axisSize("Y");
            return a.reshape(x, a.shape()[0] / x, y, a.shape()[1] / y).mean(1, 3);
        }, TWO_BY_TWO));
        assertTrue(f.getMessage().contains("never calls a jitted function"), f.getMessage());
    }

    @Test
    void rollOfTheWholeArrayBeforeShardingIsWrongValuesNamingTheDevice() {
        Problem1Case c = new Problem1Case(2, 2, 3, 2, 5, 2, DType.FLOAT32);
        GradingFailure f = rejected(Kind.WRONG_VALUES, () -> Problem1Checks.rollWithinShards((a, shift) -> {
            NDArray whole = a.gather();
            NDArray wrong = whole.roll(shift, 0).sub(whole);
            return shardMap(b -> b, a.mesh(), P("X", "Y"), P("X", "Y")).apply(wrong);
        }, c));
        assertTrue(f.getMessage().contains("on device"), f.getMessage());
        assertTrue(f.getMessage().contains("Output sharding:"), f.getMessage());
    }

    @Test
    void meanOverTheWrongAxesAveragesAcrossDevicesAndSoCommunicates() {
        GradingFailure f = rejected(Kind.STRUCTURE, () -> Problem1Checks.perShardMeanGlobal(a -> {
            int x = a.mesh().axisSize("X");
            int y = a.mesh().axisSize("Y");
            return Jit.jit(v -> v.reshape(x, a.shape()[0] / x, y, a.shape()[1] / y).mean(0, 2))
                    .call(a).get(0);
        }, TWO_BY_TWO));
        assertTrue(f.getMessage().contains("psum"), f.getMessage());
    }

    @Test
    void averagingOnlyTheRowsIsTheWrongShape() {
        // rows of each shard averaged, columns kept: [X, D] instead of [X, Y], with no communication
        Problem1Case c = new Problem1Case(2, 1, 2, 4, 7, 1, DType.FLOAT32);
        rejected(Kind.WRONG_SHAPE, () -> Problem1Checks.perShardMeanGlobal(a -> {
            int x = a.mesh().axisSize("X");
            return Jit.jit(v -> v.reshape(x, a.shape()[0] / x, a.shape()[1]).mean(1)).outShardings(P("X", null))
                    .call(a).get(0);
        }, c));
    }

    @Test
    void meanWithoutKeepdimsIsTheWrongShape() {
        GradingFailure f = rejected(Kind.WRONG_SHAPE, () -> Problem1Checks.perShardMean(
                a -> shardMap(b -> b.mean().reshape(1), a.mesh(), P("X", "Y"), P("X")).checkVma(false).apply(a),
                TWO_BY_TWO));
        assertTrue(f.reason().contains("shape"), f.reason());
    }

    @Test
    void aCollectiveThatChangesNothingIsStillRejected() {
        GradingFailure f = rejected(Kind.STRUCTURE, () -> Problem1Checks.perShardMean(a -> shardMap(b -> {
            int[][] identity = {{0, 0}, {1, 1}};
            return ppermute(b.mean(KeepDims.KEEP), "X", identity);
        }, a.mesh(), P("X", "Y"), P("X", "Y")).apply(a), TWO_BY_TWO));
        assertTrue(f.reason().contains("ppermute"), f.reason());
    }

    @Test
    void computingOnTheHostInsteadOfShardMapIsRejected() {
        GradingFailure f = rejected(Kind.STRUCTURE, () -> Problem1Checks.perShardMean(a -> {
            NDArray whole = a.gather();
            int x = a.mesh().axisSize("X");
            int y = a.mesh().axisSize("Y");
            NDArray means = whole.reshape(x, whole.shape(0) / x, y, whole.shape(1) / y).mean(1, 3);
            return ShardedArray.devicePut(means, a.mesh(), P("X", "Y"));
        }, TWO_BY_TWO));
        assertTrue(f.reason().contains("shardMap"), f.reason());
    }

    @Test
    void gatheringOnTheHostInsideAShardMapPartIsRejected() {
        GradingFailure f = rejected(Kind.STRUCTURE, () -> Problem1Checks.rollWithinShards((a, shift) -> {
            NDArray whole = a.gather(); // materialises the whole array, then throws it away
            return shardMap(b -> b.roll(shift, 0).sub(b), a.mesh(), P("X", "Y"), P("X", "Y"))
                    .apply(whole);
        }, TWO_BY_TWO));
        assertTrue(f.reason().contains("gathers"), f.reason());
    }

    @Test
    void shardMapInAGlobalViewPartIsRejected() {
        GradingFailure f = rejected(Kind.STRUCTURE, () -> Problem1Checks.rollWithinShardsGlobal((a, shift) ->
                shardMap(b -> b.roll(shift, 0).sub(b), a.mesh(), P("X", "Y"), P("X", "Y")).apply(a), TWO_BY_TWO));
        assertTrue(f.getMessage().contains("writes a shardMap"), f.getMessage());
    }

    @Test
    void aStubIsReportedAsNotDoneWithWhereToStart() {
        GradingFailure f = rejected(Kind.NOT_DONE, () -> Problem1Checks.perShardMean(a -> {
            throw new ExerciseNotDone("1.1a");
        }, TWO_BY_TWO));
        assertTrue(f.reason().startsWith("not implemented yet"), f.reason());
        assertTrue(f.getMessage().contains("Problem1.java"), f.getMessage());
        assertTrue(f.getMessage().contains("docs/problem-1.md"), f.getMessage());
    }

    @Test
    void anExceptionOnOneDeviceNamesTheDevice() {
        GradingFailure f = rejected(Kind.EXCEPTION, () -> Problem1Checks.rollWithinShards((a, shift) ->
                shardMap(b -> {
                    if (axisIndex("X").intAt() == 1 && axisIndex("Y").intAt() == 0) {
                        throw new IllegalStateException("boom");
                    }
                    return b;
                }, a.mesh(), P("X", "Y"), P("X", "Y")).apply(a), TWO_BY_TWO));
        assertTrue(f.getMessage().contains("device 2"), f.getMessage());
        assertTrue(f.getMessage().contains("(X=1, Y=0)"), f.getMessage());
        assertTrue(f.reason().contains("boom"), f.reason());
    }

    @Test
    void returningNullIsReported() {
        GradingFailure f = rejected(Kind.WRONG_SHAPE, () -> Problem1Checks.perShardMeanGlobal(a -> {
            Jit.jit(v -> v.sin()).call(a);
            return null;
        }, TWO_BY_TWO));
        assertTrue(f.reason().contains("null"), f.reason());
    }
}
