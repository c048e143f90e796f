package dev.shardlings.grader.selftest;

import dev.shardlings.array.NDArray;
import dev.shardlings.grader.chapter7.ZeroCase;
import dev.shardlings.grader.chapter7.ZeroChecks;
import dev.shardlings.grader.chapter7.ZeroChecks.Zero;
import dev.shardlings.grader.judge.GradingFailure;
import dev.shardlings.grader.judge.GradingFailure.Kind;
import dev.shardlings.sharding.PartitionSpec;
import dev.shardlings.spmd.Collectives;
import dev.shardlings.spmd.ShardMap;
import dev.shardlings.spmd.ShardedArray;
import dev.shardlings.spmd.Tiling;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.util.List;

import static dev.shardlings.sharding.PartitionSpec.P;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The grader's own tests for part 7.4b: plausible wrong ZeRO-1 programs, each rejected by the check that names its
 * mistake, and a right one (written here, not the solution) accepted.
 */
class ZeroWrongImplementationsTest {

    private static final ZeroCase CASE = new ZeroCase(4, 2, 2, 3, 2, 7411);

    private static GradingFailure rejected(Kind kind, Executable check) {
        GradingFailure f = Pinned.record(assertThrows(GradingFailure.class, check));
        assertEquals(kind, f.kind(), () -> "rejected for another reason: " + f.reason() + "\n" + f.getMessage());
        return f;
    }

    /** Each mode one mistake. */
    private enum Mode { RIGHT, ALL_REDUCE, REPLICATED_STATE, NO_BIAS_CORRECTION, SUMMED_GRADIENT, NU_STALE }

    private static Zero program(Mode mode) {
        PartitionSpec state = mode == Mode.REPLICATED_STATE ? P() : P("data");
        return (w, mu, nu, x, t, step, lr) -> ShardMap.shardMap(b -> {
            NDArray wb = b.get(0);
            NDArray xb = b.get(3);
            NDArray y = xb.matmul(wb).relu();
            NDArray dz = NDArray.where(y.greater(0), y.sub(b.get(4)), 0.0);
            int n = Collectives.axisSize("data");
            int me = Collectives.axisIndex("data").intAt();
            int rows = wb.shape(0) / n;
            NDArray local = xb.matmul(true, dz, false);
            NDArray g = (mode == Mode.ALL_REDUCE ? Collectives.psum(local, "data").slice(0, me * rows,
                    (me + 1) * rows) : Collectives.psumScatter(local, "data", 0, Tiling.TILED))
                    .mul(mode == Mode.SUMMED_GRADIENT ? 1f : 1f / (n * xb.shape(0)));
            NDArray m0 = mode == Mode.REPLICATED_STATE ? b.get(1).slice(0, me * rows, (me + 1) * rows) : b.get(1);
            NDArray v0 = mode == Mode.REPLICATED_STATE ? b.get(2).slice(0, me * rows, (me + 1) * rows) : b.get(2);
            NDArray m = m0.mul(0.9f).add(g.mul(0.1f));
            NDArray v = v0.mul(0.999f).add(g.mul(g).mul((float) (1 - 0.999)));
            boolean correct = mode != Mode.NO_BIAS_CORRECTION;
            NDArray mHat = correct ? m.div((float) (1 - Math.pow(0.9, step))) : m;
            NDArray vHat = correct ? v.div((float) (1 - Math.pow(0.999, step))) : v;
            NDArray updated = wb.slice(0, me * rows, (me + 1) * rows).sub(mHat.div(vHat.sqrt().add(1e-8f)).mul(lr));
            return List.of(Collectives.allGatherInvariant(updated, List.of("data"), 0, Tiling.TILED), m,
                    mode == Mode.NU_STALE ? v0.mul(0.999f) : v);
        }, w.mesh(), List.of(P(), state, state, P("data"), P("data")), List.of(P(), P("data"), P("data")))
                .call(w, mu, nu, x, t);
    }

    @Test
    void aRightZeroStepIsAcceptedOnEveryKindOfCase() {
        for (ZeroCase c : List.of(CASE, new ZeroCase(1, 2, 2, 2, 1, 7412), new ZeroCase(8, 1, 1, 4, 1, 7413),
                new ZeroCase(16, 3, 2, 2, 3, 7414))) {
            ZeroChecks.zeroAdamStep(program(Mode.RIGHT), c);
        }
    }

    @Test
    void anAllReduceInsteadOfAReduceScatterIsNotZero() {
        GradingFailure f = rejected(Kind.STRUCTURE, () -> ZeroChecks.zeroAdamStep(program(Mode.ALL_REDUCE), CASE));
        assertTrue(f.reason().startsWith("communicates other than reduce-scatter then all-gather: its collective #1"
                + " is"), f.reason());
    }

    @Test
    void replicatedAdamStateHandsEveryDeviceAllOfIt() {
        GradingFailure f = rejected(Kind.STRUCTURE, () -> ZeroChecks.zeroAdamStep(program(Mode.REPLICATED_STATE),
                CASE));
        assertTrue(f.reason().startsWith("is handed more than its share of the optimizer state"), f.reason());
    }

    @Test
    void adamWithoutBiasCorrectionIsNamed() {
        GradingFailure f = rejected(Kind.WRONG_VALUES, () -> ZeroChecks.zeroAdamStep(
                program(Mode.NO_BIAS_CORRECTION), CASE));
        assertTrue(f.getMessage().contains("exactly what Adam without bias correction"), f.getMessage());
    }

    @Test
    void theSummedGradientInsteadOfTheMeanMovesALaterStepElsewhere() {
        // from zero state m̂/√n̂ is nearly ±1 whatever the scale; with step 2's history the scale shows
        rejected(Kind.WRONG_VALUES, () -> ZeroChecks.zeroAdamStep(program(Mode.SUMMED_GRADIENT), CASE));
    }

    @Test
    void nuWithoutItsGradientTermIsNamedOnEveryExample() {
        // (1 − b2)·g² is 1e-8 … 1e-3: below an absolute 1e-5, so nu' is compared relative to its size (the
        // example oneDevice is left out: relu is dead on its every row, g = 0 and nu' = b2·nu is right there)
        for (ZeroCase c : List.of(CASE, new ZeroCase(8, 2, 1, 3, 1, 744), new ZeroCase(4, 3, 2, 2, 3, 745))) {
            GradingFailure f = rejected(Kind.WRONG_VALUES, () -> ZeroChecks.zeroAdamStep(program(Mode.NU_STALE), c));
            assertTrue(f.getMessage().contains("exactly what nu' without its gradient term"), f.getMessage());
        }
    }

    /** Reviewer's cheat: Adam on the host with the whole state, and a throwaway shardMap with the collectives. */
    private static List<ShardedArray> onTheHost(ShardedArray w, ShardedArray mu, ShardedArray nu, ShardedArray x,
                                                ShardedArray t, int step, float lr) {
        NDArray wh = w.gather();
        NDArray xh = x.gather();
        NDArray y = xh.matmul(wh).relu();
        NDArray g = xh.matmul(true, NDArray.where(y.greater(0), y.sub(t.gather()), 0.0), false)
                .mul(1f / xh.shape(0));
        NDArray m = mu.gather().mul(0.9f).add(g.mul(0.1f));
        NDArray v = nu.gather().mul(0.999f).add(g.mul(g).mul((float) (1 - 0.999)));
        NDArray mHat = m.div((float) (1 - Math.pow(0.9, step)));
        NDArray vHat = v.div((float) (1 - Math.pow(0.999, step)));
        NDArray w2 = wh.sub(mHat.div(vHat.sqrt().add(1e-8f)).mul(lr));
        ShardMap.shardMap(b -> {
            NDArray s = Collectives.psumScatter(b.get(0).mul(0f), "data", 0, Tiling.TILED);
            return List.of(Collectives.allGatherInvariant(s, List.of("data"), 0, Tiling.TILED));
        }, w.mesh(), List.of(P()), List.of(P())).call(w);
        return List.of(ShardedArray.devicePut(w2, w.mesh(), P()), ShardedArray.devicePut(m, w.mesh(), P("data")),
                ShardedArray.devicePut(v, w.mesh(), P("data")));
    }

    @Test
    void adamOnTheHostIsNotZero() {
        for (ZeroCase c : List.of(CASE, new ZeroCase(8, 2, 1, 3, 1, 744), new ZeroCase(4, 3, 2, 2, 3, 745))) {
            GradingFailure f = rejected(Kind.STRUCTURE, () -> ZeroChecks.zeroAdamStep(
                    ZeroWrongImplementationsTest::onTheHost, c));
            assertEquals("gathers the whole array on the host", f.reason());
        }
    }
}
