package dev.shardlings.grader.selftest;

import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.autodiff.Autodiff;
import dev.shardlings.autodiff.ValueAndGrad;
import dev.shardlings.grader.chapter7.MixedCase;
import dev.shardlings.grader.chapter7.MixedPrecisionChecks;
import dev.shardlings.grader.chapter7.MixedPrecisionChecks.Mixed;
import dev.shardlings.grader.judge.GradingFailure;
import dev.shardlings.grader.judge.GradingFailure.Kind;
import dev.shardlings.spmd.Collectives;
import dev.shardlings.spmd.ShardMap;
import dev.shardlings.spmd.Tiling;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.util.List;

import static dev.shardlings.sharding.PartitionSpec.P;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The grader's own tests for part 7.5: plausible wrong mixed-precision steps, each rejected by the check that names
 * its mistake, and a right one (written here, not the solution) accepted.
 */
class MixedPrecisionWrongImplementationsTest {

    private static final MixedCase CASE = new MixedCase(4, 2, 2, 1, 3, 7511);
    private static final DType BF = DType.BFLOAT16;
    private static final DType F32 = DType.FLOAT32;

    private static GradingFailure rejected(Kind kind, Executable check) {
        GradingFailure f = Pinned.record(assertThrows(GradingFailure.class, check));
        assertEquals(kind, f.kind(), () -> "rejected for another reason: " + f.reason() + "\n" + f.getMessage());
        return f;
    }

    /** Each mode one mistake. */
    private enum Mode {
        RIGHT, ALL_F32, CAST_AFTER_GATHER, BF16_REDUCTION, BF16_ACCUMULATION, HIDDEN_F32, OUTPUT_BF16, MASTERS_BF16,
        NUDGED
    }

    private static Mixed program(Mode mode) {
        return (w1, w2, x, t, lr) -> ShardMap.shardMap(b -> {
            NDArray tb = b.get(3);
            int batch = Collectives.axisSize("data") * tb.shape(0);
            DType low = mode == Mode.ALL_F32 ? F32 : BF;
            NDArray w1b;
            NDArray w2b;
            if (mode == Mode.CAST_AFTER_GATHER) {
                w1b = Collectives.allGather(b.get(0), "data", 0, Tiling.TILED).astype(BF);
                w2b = Collectives.allGather(b.get(1), "data", 0, Tiling.TILED).astype(BF);
            } else {
                w1b = Collectives.allGather(b.get(0).astype(low), "data", 0, Tiling.TILED);
                w2b = Collectives.allGather(b.get(1).astype(low), "data", 0, Tiling.TILED);
            }
            NDArray xb = b.get(2).astype(low);
            DType acc = mode == Mode.BF16_ACCUMULATION ? BF : F32;
            ValueAndGrad<NDArray> vg = Autodiff.<NDArray>valueAndGradList(p -> {
                NDArray z = xb.matmul(p.get(0), acc).relu();
                NDArray h = mode == Mode.HIDDEN_F32 ? z.astype(F32) : z.astype(low);
                NDArray y = h.matmul(p.get(1), F32);
                return y.astype(mode == Mode.OUTPUT_BF16 ? BF : F32).sub(tb).square().sum().mul(0.5f / batch);
            }, 0, 1).apply(List.of(w1b, w2b));
            DType wire = mode == Mode.BF16_REDUCTION ? BF : F32;
            NDArray g1 = Collectives.psumScatter(vg.grads().get(0).astype(wire), "data", 0, Tiling.TILED).astype(F32);
            NDArray g2 = Collectives.psumScatter(vg.grads().get(1).astype(wire), "data", 0, Tiling.TILED).astype(F32);
            NDArray w1n = b.get(0).sub(g1.mul(lr));
            NDArray w2n = b.get(1).sub(g2.mul(lr));
            if (mode == Mode.NUDGED) {
                // 2^-8 of each update: as far as gradients left unrounded (or rounded elsewhere) land
                w1n = w1n.sub(g1.mul(lr / 256));
            }
            if (mode == Mode.MASTERS_BF16) {
                w1n = w1n.astype(BF).astype(F32);
                w2n = w2n.astype(BF).astype(F32);
            }
            return List.of(Collectives.psum(vg.value(), "data"), w1n, w2n);
        }, w1.mesh(), List.of(P("data"), P("data"), P("data"), P("data")), List.of(P(), P("data"), P("data")))
                .call(w1, w2, x, t);
    }

    @Test
    void aRightStepIsAcceptedOnEveryKindOfCase() {
        for (MixedCase c : List.of(CASE, new MixedCase(1, 2, 2, 2, 2, 7512), new MixedCase(8, 1, 1, 2, 1, 7513),
                new MixedCase(16, 2, 2, 2, 3, 7514), new MixedCase(8, 2, 1, 2, 3, 751),
                new MixedCase(16, 1, 2, 1, 2, 752))) {
            MixedPrecisionChecks.mixedPrecisionStep(program(Mode.RIGHT), c);
        }
    }

    @Test
    void anAllFloat32StepGathersTwiceTheBytes() {
        GradingFailure f = rejected(Kind.STRUCTURE, () -> MixedPrecisionChecks.mixedPrecisionStep(
                program(Mode.ALL_F32), CASE));
        assertTrue(f.reason().startsWith("gathers float32 weights: it gathers float32[2, 4], sending"), f.reason());
    }

    @Test
    void castingAfterTheGatherSendsFloat32() {
        GradingFailure f = rejected(Kind.STRUCTURE, () -> MixedPrecisionChecks.mixedPrecisionStep(
                program(Mode.CAST_AFTER_GATHER), CASE));
        assertTrue(f.reason().startsWith("gathers float32 weights"), f.reason());
    }

    @Test
    void aBFloat16ReductionIsRejected() {
        GradingFailure f = rejected(Kind.STRUCTURE, () -> MixedPrecisionChecks.mixedPrecisionStep(
                program(Mode.BF16_REDUCTION), CASE));
        assertTrue(f.reason().startsWith("reduces in bfloat16: it runs psum_scatter"), f.reason());
    }

    @Test
    void accumulatingInBFloat16IsRejected() {
        GradingFailure f = rejected(Kind.STRUCTURE, () -> MixedPrecisionChecks.mixedPrecisionStep(
                program(Mode.BF16_ACCUMULATION), CASE));
        assertTrue(f.reason().startsWith("multiplies other than bfloat16 accumulating in float32: it multiplies"
                + " [2, 8]·[8, 4] giving bfloat16"), f.reason());
    }

    @Test
    void hiddenActivationsLeftInFloat32MakeAFloat32GradientMatmul() {
        // the cast left out before the second layer: the forward's second matmul still reads the bfloat16 W2 (as
        // JAX's f32 × bf16 dot does), but W2's gradient, hᵀ·dy, multiplies two float32 values
        GradingFailure f = rejected(Kind.STRUCTURE, () -> MixedPrecisionChecks.mixedPrecisionStep(
                program(Mode.HIDDEN_F32), CASE));
        assertEquals("multiplies other than bfloat16 accumulating in float32: it multiplies [4, 2]·[2, 3] with no"
                + " bfloat16 operand: a float32 matmul", f.reason());
        assertTrue(f.getMessage().contains("matmul float32[2, 4] · [4, 3] of float32 × bfloat16 operands"),
                f.getMessage());
        // the listing tells the first layer's matmul, of bfloat16 operands, from the float32 one
        assertTrue(f.getMessage().contains("matmul float32[2, 8] · [8, 4] of bfloat16 operands (128 FLOPs)"),
                f.getMessage());
    }

    /**
     * The reviewer's cheat 7.5-B: bfloat16 all-gathers widened at once, X and the hidden activations through
     * bfloat16 and back, every matmul float32 on the widened copies, so no weight gradient is ever rounded to
     * bfloat16; it passed while the rule followed conversions from bfloat16.
     */
    private static Mixed widenedCopies() {
        return (w1, w2, x, t, lr) -> ShardMap.shardMap(b -> {
            NDArray tb = b.get(3);
            int batch = Collectives.axisSize("data") * tb.shape(0);
            NDArray w1f = Collectives.allGather(b.get(0).astype(BF), "data", 0, Tiling.TILED).astype(F32);
            NDArray w2f = Collectives.allGather(b.get(1).astype(BF), "data", 0, Tiling.TILED).astype(F32);
            NDArray xf = b.get(2).astype(BF).astype(F32);
            ValueAndGrad<NDArray> vg = Autodiff.<NDArray>valueAndGradList(p -> {
                NDArray h = xf.matmul(p.get(0)).relu().astype(BF).astype(F32);
                return h.matmul(p.get(1)).sub(tb).square().sum().mul(0.5f / batch);
            }, 0, 1).apply(List.of(w1f, w2f));
            NDArray g1 = Collectives.psumScatter(vg.grads().get(0), "data", 0, Tiling.TILED);
            NDArray g2 = Collectives.psumScatter(vg.grads().get(1), "data", 0, Tiling.TILED);
            return List.of(Collectives.psum(vg.value(), "data"), b.get(0).sub(g1.mul(lr)), b.get(1).sub(g2.mul(lr)));
        }, w1.mesh(), List.of(P("data"), P("data"), P("data"), P("data")), List.of(P(), P("data"), P("data")))
                .call(w1, w2, x, t);
    }

    @Test
    void float32MatmulsOfWidenedBFloat16CopiesAreRejected() {
        GradingFailure f = rejected(Kind.STRUCTURE, () -> MixedPrecisionChecks.mixedPrecisionStep(widenedCopies(),
                CASE));
        assertEquals("multiplies other than bfloat16 accumulating in float32: it multiplies [2, 8]·[8, 4] in"
                + " float32 from float32 operands (bfloat16 values widened or promoted first): a float32 matmul, not"
                + " one of bfloat16 operands", f.reason());
    }

    /**
     * A right step without Autodiff (reviewer's F4): the backward written by hand as JAX transposes the two bfloat16
     * dots, a float32 cotangent times a bfloat16 operand with preferred float32 ({@code h.T.matmul(dy, FLOAT32)}),
     * each gradient of a bfloat16 value rounded to bfloat16. Those matmuls read one bfloat16 operand, as the Graded
     * text asks; the rule once took them for float32 matmuls.
     */
    private static Mixed handWrittenBackward() {
        return (w1, w2, x, t, lr) -> ShardMap.shardMap(b -> {
            NDArray tb = b.get(3);
            int batch = Collectives.axisSize("data") * tb.shape(0);
            NDArray w1b = Collectives.allGather(b.get(0).astype(BF), "data", 0, Tiling.TILED);
            NDArray w2b = Collectives.allGather(b.get(1).astype(BF), "data", 0, Tiling.TILED);
            NDArray xb = b.get(2).astype(BF);
            NDArray z = xb.matmul(w1b, F32);
            NDArray h = z.relu().astype(BF);
            NDArray r = h.matmul(w2b, F32).sub(tb);
            NDArray loss = r.square().sum().mul(0.5f / batch);
            NDArray dy = r.mul(2f).mul(0.5f / batch);
            NDArray dw2 = h.transpose().matmul(dy, F32).astype(BF);
            NDArray dh = dy.matmul(w2b.transpose(), F32).astype(BF).astype(F32);
            NDArray dz = NDArray.where(z.greater(0), dh, 0);
            NDArray dw1 = xb.transpose().matmul(dz, F32).astype(BF);
            NDArray g1 = Collectives.psumScatter(dw1.astype(F32), "data", 0, Tiling.TILED);
            NDArray g2 = Collectives.psumScatter(dw2.astype(F32), "data", 0, Tiling.TILED);
            return List.of(Collectives.psum(loss, "data"), b.get(0).sub(g1.mul(lr)), b.get(1).sub(g2.mul(lr)));
        }, w1.mesh(), List.of(P("data"), P("data"), P("data"), P("data")), List.of(P(), P("data"), P("data")))
                .call(w1, w2, x, t);
    }

    @Test
    void aHandWrittenBackwardOfFloat32CotangentsTimesBFloat16OperandsIsAccepted() {
        for (MixedCase c : List.of(CASE, new MixedCase(1, 2, 2, 2, 2, 7512), new MixedCase(16, 2, 2, 2, 3, 7514))) {
            MixedPrecisionChecks.mixedPrecisionStep(handWrittenBackward(), c);
        }
    }

    @Test
    void theOutputCastToBFloat16GivesAnotherLoss() {
        // a cast in the wrong place that every trace rule lets through: the loss rounds the outputs, as JAX would
        // not, and the oracle's float32 loss tells it apart
        GradingFailure f = rejected(Kind.WRONG_VALUES, () -> MixedPrecisionChecks.mixedPrecisionStep(
                program(Mode.OUTPUT_BF16), CASE));
        assertTrue(f.getMessage().contains("(result L)"), f.getMessage());
    }

    @Test
    void weightsOffByLessThanABFloat16StepOfTheGradientAreRejected() {
        // within lr·(largest share)/64, the whole-array tolerance; the element comparison allows float32 ulps only
        GradingFailure f = rejected(Kind.WRONG_VALUES, () -> MixedPrecisionChecks.mixedPrecisionStep(
                program(Mode.NUDGED), CASE));
        assertTrue(f.reason().startsWith("element ["), f.reason());
        assertTrue(f.getMessage().contains("does not round the weight gradients to bfloat16 where JAX does"),
                f.getMessage());
    }

    @Test
    void masterWeightsKeptInBFloat16AreNamed() {
        GradingFailure f = rejected(Kind.WRONG_VALUES, () -> MixedPrecisionChecks.mixedPrecisionStep(
                program(Mode.MASTERS_BF16), CASE));
        assertTrue(f.getMessage().contains("exactly what keeping the master weights in bfloat16"), f.getMessage());
    }
}
