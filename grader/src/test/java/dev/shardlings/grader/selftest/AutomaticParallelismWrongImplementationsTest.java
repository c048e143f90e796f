package dev.shardlings.grader.selftest;

import dev.shardlings.grader.judge.GradingFailure;
import dev.shardlings.grader.judge.GradingFailure.Kind;
import dev.shardlings.grader.chapter5.Chapter5Case;
import dev.shardlings.grader.chapter5.Chapter5Checks;
import dev.shardlings.jit.Jit;
import dev.shardlings.spmd.ShardedArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.util.List;

import static dev.shardlings.sharding.PartitionSpec.P;
import static dev.shardlings.spmd.ShardMap.shardMap;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The grader's own tests for Chapter 5: plausible wrong programs, each rejected by the check that names its
 * mistake, with a report that says what the compiler did.
 */
class AutomaticParallelismWrongImplementationsTest {

    /** Seed 002's 2 × 2 mesh: I = 4, J = 8, K = 6. */
    private static final Chapter5Case TWO_BY_TWO = new Chapter5Case(2, 2, 2, 2, 3, 77);
    /** A 4 × 2 mesh (too few idle devices for shares of the rows): I = 4, J = 8, K = 4. */
    private static final Chapter5Case FOUR_BY_TWO = new Chapter5Case(4, 2, 1, 1, 2, 78);

    private static GradingFailure rejected(Kind kind, Executable check) {
        GradingFailure f = Pinned.record(assertThrows(GradingFailure.class, check));
        assertEquals(kind, f.kind(), () -> "rejected for another reason: " + f.reason() + "\n" + f.getMessage());
        return f;
    }

    private static ShardedArray jitMatmul(ShardedArray a, ShardedArray b) {
        return Jit.jit((ShardedArray x, ShardedArray y) -> x.matmul(y)).call(a, b).get(0);
    }

    @Test
    void replicatingBothInputsNeedsNoCommunicationButEveryDeviceStoresThemWhole() {
        GradingFailure f = rejected(Kind.STRUCTURE, () -> Chapter5Checks.matmulWithoutCommunication((a, b, mesh) ->
                Jit.jit((ShardedArray x, ShardedArray y) -> x.matmul(y)).outShardings(P("X", "Y"))
                        .call(ShardedArray.devicePut(a, mesh, P()), ShardedArray.devicePut(b, mesh, P())).get(0),
                TWO_BY_TWO));
        // the compiler slices replicated inputs locally (as XLA does), so no collective and exact FLOPs: the
        // inputs' memory is what gives it away
        assertTrue(f.getMessage().contains("its inputs take " + (4 * 8 + 8 * 6) * 4 + " bytes"), f.getMessage());
        assertTrue(f.reason().startsWith("keeps whole inputs on every device"), f.reason());
    }

    @Test
    void splittingTheContractedDimensionMakesTheCompilerCommunicate() {
        GradingFailure f = rejected(Kind.STRUCTURE, () -> Chapter5Checks.matmulWithoutCommunication((a, b, mesh) ->
                Jit.jit((ShardedArray x, ShardedArray y) -> x.matmul(y)).outShardings(P("X", "Y"))
                        .call(ShardedArray.devicePut(a, mesh, P("X", "Y")), ShardedArray.devicePut(b, mesh, P("Y", null)))
                        .get(0), TWO_BY_TWO));
        assertTrue(f.getMessage().contains("the compiled program communicates"), f.getMessage());
        assertTrue(f.getMessage().contains("compiled by jit"), "the report lists the compiler's collectives: "
                + f.getMessage());
    }

    @Test
    void multiplyingOnTheHostAndPlacingTheResultIsNotACompiledProgram() {
        GradingFailure f = rejected(Kind.STRUCTURE, () -> Chapter5Checks.matmulWithoutCommunication((a, b, mesh) ->
                ShardedArray.devicePut(a.matmul(b), mesh, P("X", "Y")), TWO_BY_TWO));
        assertTrue(f.getMessage().contains("never calls a jitted function"), f.getMessage());
    }

    @Test
    void layoutsWhoseProductComesOutTransposedAreTheWrongLayout() {
        // A's rows over Y and B's columns over X: no communication, but C comes out P('Y', 'X')
        GradingFailure f = rejected(Kind.WRONG_SHARDING, () -> Chapter5Checks.matmulWithoutCommunication((a, b, mesh) ->
                jitMatmul(ShardedArray.devicePut(a, mesh, P("Y", null)), ShardedArray.devicePut(b, mesh, P(null, "X"))),
                TWO_BY_TWO));
        assertTrue(f.getMessage().contains("P('X', 'Y')"), f.getMessage());
    }

    @Test
    void aReshardAfterTheJittedMatmulLaysTheResultOutInAnotherProgram() {
        // it receives as many bytes as XLA's plan for the layout (on 2 x 2 the shares' all-reduce and permute, on
        // 4 x 2 the whole all-reduce), so the structure tells it apart: the layout came from a program after the
        // matmul
        for (Chapter5Case c : List.of(TWO_BY_TWO, FOUR_BY_TWO)) {
            GradingFailure f = rejected(Kind.STRUCTURE, () -> Chapter5Checks.matmulReduceScatter((a, b) ->
                    Jit.jit((ShardedArray x, ShardedArray y) -> x.matmul(y)).call(a, b).get(0).reshard(P("X", null)),
                    c));
            assertTrue(f.reason().startsWith("the result's layout is not the compiled matmul's"), f.reason());
            assertTrue(f.getMessage().contains("reshard") && f.getMessage().contains("made the result"),
                    "the report lists the programs and which made the result: " + f.getMessage());
        }
    }

    @Test
    void aSecondJittedProgramThatConstrainsTheLayoutIsNotTheMatmulsPlan() {
        GradingFailure f = rejected(Kind.STRUCTURE, () -> Chapter5Checks.matmulReduceScatter((a, b) -> {
            ShardedArray c = jitMatmul(a, b);
            return Jit.jit((ShardedArray x) -> x.withShardingConstraint(P("X", null))).call(c).get(0);
        }, TWO_BY_TWO));
        assertTrue(f.reason().startsWith("the result's layout is not the compiled matmul's: 2 program(s)"),
                f.reason());
    }

    @Test
    void gatheringAInsideTheProgramIsNotTheCompilersPlanForTheLayout() {
        // one program, the right layout, but A's J gathered first: an all-gather before the shares' all-reduce
        GradingFailure f = rejected(Kind.STRUCTURE, () -> Chapter5Checks.matmulReduceScatter((a, b) ->
                Jit.jit((ShardedArray x, ShardedArray y) -> x.withShardingConstraint(P()).matmul(y))
                        .outShardings(P("X", null)).call(a, b).get(0), TWO_BY_TWO));
        assertTrue(f.reason().startsWith("does not run the compiler's plan for the layout"), f.reason());
        assertTrue(f.getMessage().contains("all_gather"), f.getMessage());
    }

    @Test
    void withoutTheOutShardingTheResultIsReplicated() {
        GradingFailure f = rejected(Kind.WRONG_SHARDING, () -> Chapter5Checks.matmulReduceScatter(
                AutomaticParallelismWrongImplementationsTest::jitMatmul, TWO_BY_TWO));
        assertTrue(f.getMessage().contains("P('X', None)") || f.getMessage().contains("P('X',)"), f.getMessage());
    }

    @Test
    void gatheringWBeforeTheContractionMovesTheWrongArray() {
        // W's rows gathered over Y: no partial sums, but In must then be gathered too — not one all-reduce
        GradingFailure f = rejected(Kind.STRUCTURE, () -> Chapter5Checks.matmulSquare((in, w) ->
                Jit.jit((ShardedArray x, ShardedArray y) -> ShardedArray.einsum("bd,df->bf",
                        x.square().withShardingConstraint(P("X", null)), y.withShardingConstraint(P())))
                        .outShardings(P("X", null)).call(in, w).get(0), TWO_BY_TWO));
        assertTrue(f.getMessage().contains("all_gather"), f.getMessage());
        assertTrue(f.getMessage().contains("one all-reduce (psum) over Y of f32[2, 6]"), f.getMessage());
    }

    @Test
    void aHandWrittenShardMapIsNotTheCompilersProgram() {
        GradingFailure f = rejected(Kind.STRUCTURE, () -> Chapter5Checks.matmulSquare((in, w) ->
                shardMap((x, y) -> dev.shardlings.spmd.Collectives.psum(x.square().matmul(y), "Y"), in.mesh(),
                        P("X", "Y"), P("Y", null), P("X", null)).apply(in, w), TWO_BY_TWO));
        assertTrue(f.reason().contains("uses shardMap"), f.reason());
    }

    @Test
    void aShardMapHiddenInsideJitIsStillHandWritten() {
        // the compiled program runs the hand-written region: right values, right collective, but not the compiler's
        GradingFailure f = rejected(Kind.STRUCTURE, () -> Chapter5Checks.matmulSquare((in, w) ->
                Jit.jit((ShardedArray x, ShardedArray y) -> shardMap((p, q) -> dev.shardlings.spmd.Collectives.psum(
                        p.square().matmul(q), "Y"), in.mesh(), P("X", "Y"), P("Y", null), P("X", null)).apply(x, y))
                        .call(in, w).get(0), TWO_BY_TWO));
        assertTrue(f.reason().contains("uses shardMap"), f.reason());
    }

    @Test
    void onExplicitAxesTheAmbiguousEinsumIsJaxsTypeError() {
        GradingFailure f = rejected(Kind.EXCEPTION, () -> Chapter5Checks.matmulSquareExplicit((in, w) ->
                ShardedArray.einsum("bd,df->bf", in.square(), w), TWO_BY_TWO));
        assertTrue(f.getMessage().contains("Contracting dimensions are sharded and it is ambiguous"), f.getMessage());
    }

    @Test
    void onExplicitAxesAReplicatedResultIsTheWrongLayout() {
        GradingFailure f = rejected(Kind.WRONG_SHARDING, () -> Chapter5Checks.matmulSquareExplicit((in, w) ->
                ShardedArray.einsum("bd,df->bf", in.square(), w, P()), TWO_BY_TWO));
        assertTrue(f.getMessage().contains("P('X', None)") || f.getMessage().contains("P('X',)"), f.getMessage());
    }
}
