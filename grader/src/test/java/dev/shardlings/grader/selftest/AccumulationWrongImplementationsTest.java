package dev.shardlings.grader.selftest;

import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.grader.chapter7.AccumulationCase;
import dev.shardlings.grader.chapter7.Chapter7Checks;
import dev.shardlings.grader.chapter7.ZeroChecks;
import dev.shardlings.grader.chapter7.ZeroChecks.Accumulate;
import dev.shardlings.grader.judge.GradingFailure;
import dev.shardlings.grader.judge.GradingFailure.Kind;
import dev.shardlings.spmd.Collectives;
import dev.shardlings.spmd.ShardMap;
import dev.shardlings.spmd.ShardedArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.util.List;

import static dev.shardlings.sharding.PartitionSpec.P;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The grader's own tests for part 7.4a: plausible wrong accumulation programs, each rejected by the check that
 * names its mistake, and a right one (written here, not the solution) accepted.
 */
class AccumulationWrongImplementationsTest {

    @Test
    void thePartIsInChapter7sTable() {
        assertTrue(Chapter7Checks.PARTS.containsAll(ZeroChecks.PARTS));
    }

    private static final AccumulationCase CASE = new AccumulationCase(4, 3, 2, 3, 2, 7401);

    private static GradingFailure rejected(Kind kind, Executable check) {
        GradingFailure f = Pinned.record(assertThrows(GradingFailure.class, check));
        assertEquals(kind, f.kind(), () -> "rejected for another reason: " + f.reason() + "\n" + f.getMessage());
        return f;
    }

    /** Where the wrong program reduces and scales: each mode one mistake. */
    private enum Mode { RIGHT, REDUCE_EACH, MEAN_TWICE, MEANS_SUMMED, WHOLE_ROWS }

    private static Accumulate program(Mode mode) {
        return (w, x, t, microbatches) -> ShardMap.shardMap(b -> {
            NDArray wb = b.get(0);
            NDArray xb = b.get(1);
            NDArray tb = b.get(2);
            int n = Collectives.axisSize("data");
            int steps = mode == Mode.WHOLE_ROWS ? 1 : microbatches;
            int r = xb.shape(0) / steps;
            NDArray g = NDArray.zeros(DType.FLOAT32, wb.shape(0), wb.shape(1));
            for (int m = 0; m < steps; m++) {
                NDArray xm = xb.slice(0, m * r, (m + 1) * r);
                NDArray y = xm.matmul(wb).relu();
                NDArray dz = NDArray.where(y.greater(0), y.sub(tb.slice(0, m * r, (m + 1) * r)), 0.0);
                NDArray gm = xm.matmul(true, dz, false);
                g = g.add(switch (mode) {
                    case REDUCE_EACH -> Collectives.psum(gm, "data").mul(1f / (n * xb.shape(0)));
                    case MEAN_TWICE -> gm.mul(1f / (n * xb.shape(0)));
                    case MEANS_SUMMED -> gm.mul(1f / (n * r));
                    default -> gm;
                });
            }
            NDArray out = switch (mode) {
                case REDUCE_EACH -> g;
                case MEAN_TWICE -> Collectives.psum(g, "data").mul(1f / microbatches);
                case MEANS_SUMMED -> Collectives.psum(g, "data");
                default -> Collectives.psum(g, "data").mul(1f / (n * xb.shape(0)));
            };
            return List.of(out);
        }, w.mesh(), List.of(P(), P("data"), P("data")), List.of(P())).call(w, x, t).get(0);
    }

    @Test
    void aRightAccumulationIsAcceptedOnEveryKindOfCase() {
        for (AccumulationCase c : List.of(CASE, new AccumulationCase(1, 3, 2, 2, 2, 7402),
                new AccumulationCase(8, 1, 1, 1, 4, 7403), new AccumulationCase(16, 4, 3, 6, 6, 7404))) {
            ZeroChecks.accumulatedGradient(program(Mode.RIGHT), c);
        }
    }

    /** Right programs written other ways: pmean, 1/B before the psum, 1/B after the shardMap, a list summed last. */
    private static Accumulate alternative(int way) {
        return (w, x, t, microbatches) -> {
            ShardedArray out = ShardMap.shardMap(b -> {
                NDArray wb = b.get(0);
                NDArray xb = b.get(1);
                int n = Collectives.axisSize("data");
                int r = xb.shape(0) / microbatches;
                List<NDArray> parts = new java.util.ArrayList<>();
                for (int m = 0; m < microbatches; m++) {
                    NDArray xm = xb.slice(0, m * r, (m + 1) * r);
                    NDArray y = xm.matmul(wb).relu();
                    NDArray dz = NDArray.where(y.greater(0), y.sub(b.get(2).slice(0, m * r, (m + 1) * r)), 0.0);
                    parts.add(xm.matmul(true, dz, false));
                }
                NDArray g = parts.get(0);
                for (int m = 1; m < parts.size(); m++) {
                    g = g.add(parts.get(m));
                }
                return List.of(switch (way) {
                    case 0 -> Collectives.pmean(g.mul(1f / xb.shape(0)), "data");
                    case 1 -> Collectives.psum(g.mul(1f / (n * xb.shape(0))), "data");
                    default -> Collectives.psum(g, "data");
                });
            }, w.mesh(), List.of(P(), P("data"), P("data")), List.of(P())).call(w, x, t).get(0);
            return way == 2 ? out.mul(1.0 / x.shape()[0]) : out;
        };
    }

    @Test
    void pmeanAndScalingBeforeOrAfterTheReductionAreAccepted() {
        for (AccumulationCase c : List.of(CASE, new AccumulationCase(2, 1, 1, 6, 6, 7405),
                new AccumulationCase(16, 4, 3, 6, 6, 7404), new AccumulationCase(3, 2, 1, 1, 1, 7406))) {
            for (int way = 0; way < 3; way++) {
                ZeroChecks.accumulatedGradient(alternative(way), c);
            }
        }
    }

    /** Reviewer's cheat: the gradient computed on the host, a psum of it run only to show in the trace. */
    private static ShardedArray onTheHost(ShardedArray w, ShardedArray x, ShardedArray t, int microbatches) {
        NDArray wh = w.gather();
        NDArray xh = x.gather();
        NDArray th = t.gather();
        NDArray y = xh.matmul(wh).relu();
        NDArray g = xh.matmul(true, NDArray.where(y.greater(0), y.sub(th), 0.0), false).mul(1f / xh.shape(0));
        ShardedArray gs = ShardedArray.devicePut(g.mul(1f / w.mesh().size()), w.mesh(), P());
        return ShardMap.shardMap(b -> List.of(Collectives.psum(b.get(0), "data")), w.mesh(), List.of(P()),
                List.of(P())).call(gs).get(0);
    }

    @Test
    void aGradientComputedOnTheHostIsNotAccumulation() {
        GradingFailure f = rejected(Kind.STRUCTURE, () -> ZeroChecks.accumulatedGradient(
                AccumulationWrongImplementationsTest::onTheHost, CASE));
        assertEquals("gathers the whole array on the host", f.reason());
    }

    /**
     * Hostile fixture: each device's block read on the host (never the whole batch, so no gather shows), the
     * gradient summed there block by block, put back replicated, and a throwaway psum of zeros for the trace.
     */
    private static ShardedArray blockwiseOnTheHost(ShardedArray w, ShardedArray x, ShardedArray t, int microbatches) {
        NDArray wh = w.blocks().get(0);
        List<NDArray> xs = x.blocks();
        List<NDArray> ts = t.blocks();
        NDArray g = NDArray.zeros(DType.FLOAT32, wh.shape(0), wh.shape(1));
        for (int i = 0; i < xs.size(); i++) {
            NDArray y = xs.get(i).matmul(wh).relu();
            g = g.add(xs.get(i).matmul(true, NDArray.where(y.greater(0), y.sub(ts.get(i)), 0.0), false));
        }
        ShardedArray gs = ShardedArray.devicePut(g.mul(1f / x.shape()[0]), w.mesh(), P());
        ShardedArray zeros = ShardedArray.devicePut(NDArray.zeros(DType.FLOAT32, wh.shape(0), wh.shape(1)),
                w.mesh(), P());
        ShardedArray none = ShardMap.shardMap(b -> List.of(Collectives.psum(b.get(0), "data")), w.mesh(),
                List.of(P()), List.of(P())).call(zeros).get(0);
        return gs.add(none);
    }

    @Test
    void aGradientComputedOnTheHostBlockByBlockIsNotAccumulation() {
        GradingFailure f = rejected(Kind.STRUCTURE, () -> ZeroChecks.accumulatedGradient(
                AccumulationWrongImplementationsTest::blockwiseOnTheHost, CASE));
        assertTrue(f.reason().startsWith("computes on the host:"), f.reason());
    }

    /** Reviewer's cheat: the whole local batch at once, by broadcasting instead of a matmul, then one psum. */
    private static ShardedArray broadcast(ShardedArray w, ShardedArray x, ShardedArray t, int microbatches) {
        return ShardMap.shardMap(b -> {
            NDArray wb = b.get(0);
            NDArray xb = b.get(1);
            int bl = xb.shape(0);
            int d = wb.shape(0);
            int f = wb.shape(1);
            NDArray y = xb.reshape(bl, d, 1).mul(wb.reshape(1, d, f)).sum(1).relu();
            NDArray dz = NDArray.where(y.greater(0), y.sub(b.get(2)), 0.0);
            NDArray g = xb.reshape(bl, d, 1).mul(dz.reshape(bl, 1, f)).sum(0);
            return List.of(Collectives.psum(g, "data").mul(1f / (Collectives.axisSize("data") * bl)));
        }, w.mesh(), List.of(P(), P("data"), P("data")), List.of(P())).call(w, x, t).get(0);
    }

    @Test
    void theWholeBatchByBroadcastingHoldsMoreThanAMicrobatch() {
        for (AccumulationCase c : List.of(CASE, new AccumulationCase(8, 4, 2, 3, 2, 741),
                new AccumulationCase(1, 3, 2, 2, 2, 743))) {
            GradingFailure f = rejected(Kind.STRUCTURE, () -> ZeroChecks.accumulatedGradient(
                    AccumulationWrongImplementationsTest::broadcast, c));
            assertTrue(f.reason().startsWith("holds more than a microbatch's activations: it allocates an array of"),
                    f.reason());
        }
    }

    @Test
    void anAllReducePerMicrobatchMovesTheGradientMTimes() {
        GradingFailure f = rejected(Kind.STRUCTURE, () -> ZeroChecks.accumulatedGradient(
                program(Mode.REDUCE_EACH), CASE));
        assertTrue(f.reason().startsWith("reduces the gradient other than once per step: it calls 3 collective(s)"),
                f.reason());
    }

    @Test
    void averagingTwiceIsNamed() {
        GradingFailure f = rejected(Kind.WRONG_VALUES, () -> ZeroChecks.accumulatedGradient(
                program(Mode.MEAN_TWICE), CASE));
        assertTrue(f.getMessage().contains("exactly what averaging twice"), f.getMessage());
    }

    @Test
    void summingMicrobatchMeansIsNamed() {
        GradingFailure f = rejected(Kind.WRONG_VALUES, () -> ZeroChecks.accumulatedGradient(
                program(Mode.MEANS_SUMMED), CASE));
        assertTrue(f.getMessage().contains("exactly what summing the microbatch means without dividing by M"),
                f.getMessage());
    }

    @Test
    void theWholeRowsAtOnceAreNotMicrobatches() {
        GradingFailure f = rejected(Kind.STRUCTURE, () -> ZeroChecks.accumulatedGradient(
                program(Mode.WHOLE_ROWS), CASE));
        assertTrue(f.reason().startsWith("multiplies more than a microbatch at a time"), f.reason());
    }

    @Test
    void aReplicatedBatchNeverReduces() {
        // every device runs the whole batch in microbatches: the right values, no psum, matmuls data times too large
        Accumulate replicated = (w, x, t, microbatches) -> ShardMap.shardMap(b -> {
            NDArray xb = b.get(1);
            int r = xb.shape(0) / microbatches;
            NDArray g = NDArray.zeros(DType.FLOAT32, b.get(0).shape(0), b.get(0).shape(1));
            for (int m = 0; m < microbatches; m++) {
                NDArray xm = xb.slice(0, m * r, (m + 1) * r);
                NDArray y = xm.matmul(b.get(0)).relu();
                NDArray dz = NDArray.where(y.greater(0), y.sub(b.get(2).slice(0, m * r, (m + 1) * r)), 0.0);
                g = g.add(xm.matmul(true, dz, false));
            }
            return List.of(g.mul(1f / xb.shape(0)));
        }, w.mesh(), List.of(P(), P(), P()), List.of(P())).call(w, x, t).get(0);
        GradingFailure f = rejected(Kind.STRUCTURE, () -> ZeroChecks.accumulatedGradient(replicated, CASE));
        assertTrue(f.reason().startsWith("reduces the gradient other than once per step: it calls 0 collective(s)"),
                f.reason());
    }
}
