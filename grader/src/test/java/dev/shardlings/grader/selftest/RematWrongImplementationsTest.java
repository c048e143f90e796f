package dev.shardlings.grader.selftest;

import dev.shardlings.array.NDArray;
import dev.shardlings.autodiff.Autodiff;
import dev.shardlings.autodiff.Checkpoint;
import dev.shardlings.grader.chapter7.RematCase;
import dev.shardlings.grader.chapter7.RematChecks;
import dev.shardlings.grader.chapter7.RematChecks.Remat;
import dev.shardlings.grader.judge.GradingFailure;
import dev.shardlings.grader.judge.GradingFailure.Kind;
import dev.shardlings.sharding.PartitionSpec;
import dev.shardlings.spmd.Collectives;
import dev.shardlings.spmd.ShardMap;
import dev.shardlings.spmd.ShardedArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Function;

import static dev.shardlings.sharding.PartitionSpec.P;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The grader's own tests for part 7.6: plausible wrong rematerialisation programs, each rejected by the check that
 * names its mistake, and a right one (written here, not the solution) accepted.
 */
class RematWrongImplementationsTest {

    private static final RematCase CASE = new RematCase(4, 4, 2, 3, 7611);

    private static GradingFailure rejected(Kind kind, Executable check) {
        GradingFailure f = Pinned.record(assertThrows(GradingFailure.class, check));
        assertEquals(kind, f.kind(), () -> "rejected for another reason: " + f.reason() + "\n" + f.getMessage());
        return f;
    }

    /** Each mode one mistake. */
    private enum Mode {
        RIGHT, NO_CHECKPOINT, CHECKPOINT_IN_CHECKPOINT, DETACHED_BY_HAND, NOT_SUMMED, AVERAGED_TWICE, HAND_BACKWARD,
        /** Right: blocks of two layers checkpointed (four layers: two block inputs kept, four recomputed). */
        TWO_LAYER_BLOCKS,
        /** The whole stack as one checkpoint: its recomputation holds every intermediate again. */
        ONE_BLOCK,
        /**
         * Reviewer's cheat 7.6-A: the forward pass by hand with every h_l kept in Java variables, Autodiff only for
         * the loss over h_L (so the tape holds a few bytes), the backward written out: 3L − 1 matmuls.
         */
        LOSS_TAPE_ONLY,
        /** 7.6-A padded with a right autodiff step whose results are dropped, so the tapes' counts are met. */
        LOSS_TAPE_PADDED,
        /** Right, as JAX users write it (reviewer's 7.6-C): checkpoint(a -> relu(a·W)) with W captured. */
        CLOSURE,
        /**
         * Second reviewer's F1: the forward and the backward by hand with every product written elementwise (a
         * broadcast [r, D, 1]·[1, D, n] summed over D: no matmul event), beside a right autodiff step whose results
         * are dropped, so that every matmul count (forward, vjp rules, recomputation, total) is met exactly.
         */
        ELEMENTWISE_PADDED
    }

    /** Layers per checkpointed block. */
    private static int block(Mode mode, int layers) {
        return mode == Mode.TWO_LAYER_BLOCKS ? 2 : mode == Mode.ONE_BLOCK ? layers : 1;
    }


    private static final Function<List<NDArray>, List<NDArray>> LAYER =
            a -> List.of(a.get(0).matmul(a.get(1)).relu());

    /** [h, W_a, W_a+1, …] → [h after those layers], the layers applied in order. */
    private static final Function<List<NDArray>, List<NDArray>> STACK = a -> {
        NDArray h = a.get(0);
        for (NDArray w : a.subList(1, a.size())) {
            h = LAYER.apply(List.of(h, w)).get(0);
        }
        return List.of(h);
    };

    private static Function<List<NDArray>, List<NDArray>> layer(Mode mode) {
        return switch (mode) {
            case NO_CHECKPOINT -> LAYER;
            case TWO_LAYER_BLOCKS, ONE_BLOCK -> Checkpoint.checkpointList(STACK);
            case CHECKPOINT_IN_CHECKPOINT -> Checkpoint.checkpointList(Checkpoint.checkpointList(LAYER));
            case CLOSURE -> a -> {
                NDArray w = a.get(1);
                return List.of(Checkpoint.<NDArray>checkpoint(h -> h.matmul(w).relu()).apply(a.get(0)));
            };
            // a "checkpoint" that copies the layer's output into a fresh array: no intermediates kept, and no
            // gradient reaches the layers below either
            case DETACHED_BY_HAND -> a -> {
                NDArray h = LAYER.apply(a).get(0);
                return List.of(NDArray.fromFloats(h.toFloatArray(), h.shape()).pvary("data"));
            };
            default -> Checkpoint.checkpointList(LAYER);
        };
    }

    private static Remat program(Mode mode) {
        return (weights, x, t) -> {
            int layers = weights.size();
            int[] argnums = new int[layers];
            for (int l = 0; l < layers; l++) {
                argnums[l] = l;
            }
            List<PartitionSpec> in = new ArrayList<>(Collections.nCopies(layers, P()));
            in.add(P("data"));
            in.add(P("data"));
            List<ShardedArray> args = new ArrayList<>(weights);
            args.add(x);
            args.add(t);
            Function<List<NDArray>, List<NDArray>> layer = layer(mode);
            boolean local = mode == Mode.NOT_SUMMED || mode == Mode.AVERAGED_TWICE;
            return ShardMap.shardMap(b -> {
                int batch = Collectives.axisSize("data") * b.get(layers).shape(0);
                List<NDArray> ws = new ArrayList<>(b);
                if (local) { // W made varying: its cotangent is this device's alone until reduced by hand
                    for (int l = 0; l < layers; l++) {
                        ws.set(l, b.get(l).pvary("data"));
                    }
                }
                List<NDArray> out = new ArrayList<>();
                if (mode == Mode.HAND_BACKWARD) {
                    out.addAll(byHand(ws, batch));
                } else if (mode == Mode.ELEMENTWISE_PADDED) {
                    List<NDArray> varying = new ArrayList<>(ws);
                    for (int l = 0; l < layers; l++) {
                        varying.set(l, ws.get(l).pvary("data"));
                    }
                    autodiffStep(layer, varying, batch);
                    out.addAll(elementwiseByHand(ws, batch));
                } else if (mode == Mode.LOSS_TAPE_ONLY || mode == Mode.LOSS_TAPE_PADDED) {
                    if (mode == Mode.LOSS_TAPE_PADDED) {
                        List<NDArray> varying = new ArrayList<>(ws); // no automatic psum: no extra collective
                        for (int l = 0; l < layers; l++) {
                            varying.set(l, ws.get(l).pvary("data"));
                        }
                        autodiffStep(layer, varying, batch);
                    }
                    out.addAll(lossTapeOnly(ws, batch));
                } else {
                    var step = Autodiff.<NDArray>valueAndGradList(xs -> {
                        NDArray h = xs.get(layers);
                        int k = block(mode, layers);
                        for (int l = 0; l < layers; l += k) {
                            List<NDArray> operands = new ArrayList<>(List.of(h));
                            operands.addAll(xs.subList(l, Math.min(l + k, layers)));
                            h = layer.apply(operands).get(0);
                        }
                        return h.sub(xs.get(layers + 1)).square().sum().mul(0.5f / batch);
                    }, argnums).apply(ws);
                    out.add(step.value());
                    for (NDArray g : step.grads()) {
                        out.add(mode == Mode.AVERAGED_TWICE ? Collectives.pmean(g, "data") : g);
                    }
                }
                out.set(0, Collectives.psum(out.get(0), "data"));
                return out;
            }, x.mesh(), in, Collections.nCopies(layers + 1, P())).checkVma(mode != Mode.NOT_SUMMED).call(args);
        };
    }

    /** [loss, dW_1, …] of Autodiff over the layers, each through {@code layer}. */
    private static List<NDArray> autodiffStep(Function<List<NDArray>, List<NDArray>> layer, List<NDArray> ws,
                                              int batch) {
        int layers = ws.size() - 2;
        int[] argnums = new int[layers];
        for (int l = 0; l < layers; l++) {
            argnums[l] = l;
        }
        var step = Autodiff.<NDArray>valueAndGradList(xs -> {
            NDArray h = xs.get(layers);
            for (int l = 0; l < layers; l++) {
                h = layer.apply(List.of(h, xs.get(l))).get(0);
            }
            return h.sub(xs.get(layers + 1)).square().sum().mul(0.5f / batch);
        }, argnums).apply(ws);
        List<NDArray> out = new ArrayList<>(List.of(step.value()));
        out.addAll(step.grads());
        return out;
    }

    /** Cheat 7.6-A as the reviewer wrote it: Autodiff for the loss alone, the rest by hand, gradients psummed. */
    private static List<NDArray> lossTapeOnly(List<NDArray> b, int batch) {
        int layers = b.size() - 2;
        NDArray[] h = new NDArray[layers + 1];
        h[0] = b.get(layers);
        for (int l = 0; l < layers; l++) {
            h[l + 1] = h[l].matmul(b.get(l)).relu();
        }
        var vg = Autodiff.<NDArray>valueAndGradList(xs -> xs.get(0).sub(xs.get(1)).square().sum()
                .mul(0.5f / batch), 0).apply(List.of(h[layers], b.get(layers + 1)));
        NDArray dh = vg.grads().get(0);
        List<NDArray> out = new ArrayList<>(Collections.nCopies(layers + 1, (NDArray) null));
        out.set(0, vg.value());
        for (int l = layers - 1; l >= 0; l--) {
            NDArray dz = NDArray.where(h[l + 1].greater(0), dh, 0);
            out.set(l + 1, Collectives.psum(h[l].matmul(true, dz, false), "data"));
            if (l > 0) {
                dh = dz.matmul(false, b.get(l), true);
            }
        }
        return out;
    }

    /** a[m, k]·b[k, n] without a matmul: the products broadcast to [m, k, n], then summed over k. */
    private static NDArray elementwiseProduct(NDArray a, NDArray b) {
        return a.reshape(a.shape(0), a.shape(1), 1).mul(b.reshape(1, b.shape(0), b.shape(1))).sum(1);
    }

    /** {@link #byHand} with every product elementwise. */
    private static List<NDArray> elementwiseByHand(List<NDArray> b, int batch) {
        int layers = b.size() - 2;
        List<NDArray> hs = new ArrayList<>(List.of(b.get(layers)));
        for (int l = 0; l < layers; l++) {
            hs.add(elementwiseProduct(hs.get(l), b.get(l)).relu());
        }
        NDArray e = hs.get(layers).sub(b.get(layers + 1));
        List<NDArray> out = new ArrayList<>(Collections.nCopies(layers + 1, (NDArray) null));
        out.set(0, e.square().sum().mul(0.5f / batch));
        NDArray dh = e.mul(1f / batch);
        for (int l = layers; l >= 1; l--) {
            NDArray dz = NDArray.where(hs.get(l).greater(0), dh, 0.0);
            out.set(l, Collectives.psum(elementwiseProduct(hs.get(l - 1).transpose(), dz), "data"));
            dh = elementwiseProduct(dz, b.get(l - 1).transpose());
        }
        return out;
    }

    /** The backward pass written out, every activation kept in a list: no tape, so nothing modelled. */
    private static List<NDArray> byHand(List<NDArray> b, int batch) {
        int layers = b.size() - 2;
        List<NDArray> hs = new ArrayList<>(List.of(b.get(layers)));
        for (int l = 0; l < layers; l++) {
            hs.add(hs.get(l).matmul(b.get(l)).relu());
        }
        NDArray e = hs.get(layers).sub(b.get(layers + 1));
        List<NDArray> out = new ArrayList<>(Collections.nCopies(layers + 1, (NDArray) null));
        out.set(0, e.square().sum().mul(0.5f / batch));
        NDArray dh = e.mul(1f / batch);
        for (int l = layers; l >= 1; l--) {
            NDArray dz = NDArray.where(hs.get(l).greater(0), dh, 0.0);
            out.set(l, Collectives.psum(hs.get(l - 1).matmul(true, dz, false), "data"));
            dh = dz.matmul(false, b.get(l - 1), true);
        }
        return out;
    }

    @Test
    void aRightRematerialisedStepIsAcceptedOnEveryKindOfCase() {
        for (RematCase c : List.of(CASE, new RematCase(1, 4, 2, 2, 7612), new RematCase(8, 6, 3, 4, 7613),
                new RematCase(16, 5, 2, 2, 7614))) {
            RematChecks.rematerialisedStep(program(Mode.RIGHT), c);
        }
    }

    @Test
    void aLayerThatCapturesItsWeightIsAccepted() {
        for (RematCase c : List.of(CASE, new RematCase(1, 4, 2, 2, 7612), new RematCase(8, 6, 3, 4, 7613))) {
            RematChecks.rematerialisedStep(program(Mode.CLOSURE), c);
        }
    }

    @Test
    void blocksOfTwoLayersAreAccepted() {
        for (RematCase c : List.of(CASE, new RematCase(2, 6, 3, 4, 7615))) {
            RematChecks.rematerialisedStep(program(Mode.TWO_LAYER_BLOCKS), c);
        }
    }

    @Test
    void theWholeStackAsOneCheckpointHoldsEveryIntermediateWhileRecomputed() {
        GradingFailure f = rejected(Kind.STRUCTURE, () -> RematChecks.rematerialisedStep(program(Mode.ONE_BLOCK),
                CASE));
        assertTrue(f.reason().startsWith("holds more activations than rematerialisation allows: its tapes held"),
                f.reason());
    }

    @Test
    void keepingEveryIntermediateBreaksTheMemoryBound() {
        for (RematCase c : List.of(CASE, new RematCase(1, 4, 2, 2, 7612), new RematCase(8, 6, 3, 4, 7613))) {
            GradingFailure f = rejected(Kind.STRUCTURE, () -> RematChecks.rematerialisedStep(
                    program(Mode.NO_CHECKPOINT), c));
            assertTrue(f.reason().startsWith("holds more activations than rematerialisation allows: its tapes held"),
                    f.reason());
        }
    }

    @Test
    void aCheckpointInsideACheckpointRecomputesTwice() {
        GradingFailure f = rejected(Kind.STRUCTURE, () -> RematChecks.rematerialisedStep(
                program(Mode.CHECKPOINT_IN_CHECKPOINT), CASE));
        assertTrue(f.reason().startsWith("recomputes more than one forward: its matmuls do"), f.reason());
    }

    @Test
    void aCheckpointByHandThatDetachesTheGraphGivesWrongGradients() {
        GradingFailure f = rejected(Kind.WRONG_VALUES, () -> RematChecks.rematerialisedStep(
                program(Mode.DETACHED_BY_HAND), CASE));
        assertTrue(f.getMessage().contains("dW_1"), f.getMessage());
    }

    @Test
    void gradientsNotSummedOverDataAreNamed() {
        GradingFailure f = rejected(Kind.WRONG_VALUES, () -> RematChecks.rematerialisedStep(
                program(Mode.NOT_SUMMED), CASE));
        assertTrue(f.getMessage().contains("exactly what device 0's gradient alone, not summed over 'data'"),
                f.getMessage());
    }

    @Test
    void averagingTwiceIsNamed() {
        GradingFailure f = rejected(Kind.WRONG_VALUES, () -> RematChecks.rematerialisedStep(
                program(Mode.AVERAGED_TWICE), CASE));
        assertTrue(f.getMessage().contains("exactly what averaging twice"), f.getMessage());
    }

    @Test
    void aBackwardPassByHandWithATapeForTheLossAloneIsNotAutodiffs() {
        for (RematCase c : List.of(CASE, new RematCase(1, 4, 2, 2, 7612), new RematCase(8, 6, 3, 4, 7613))) {
            GradingFailure f = rejected(Kind.STRUCTURE, () -> RematChecks.rematerialisedStep(
                    program(Mode.LOSS_TAPE_ONLY), c));
            assertTrue(f.reason().startsWith("its backward pass is not Autodiff's: Autodiff's vjp rules ran 0"
                    + " matmul FLOPs"), f.reason());
        }
    }

    @Test
    void aBackwardPassByHandPaddedWithAnAutodiffStepBreaksTheFlopsCap() {
        GradingFailure f = rejected(Kind.STRUCTURE, () -> RematChecks.rematerialisedStep(
                program(Mode.LOSS_TAPE_PADDED), CASE));
        assertTrue(f.reason().startsWith("recomputes more than one forward: its matmuls do"), f.reason());
    }

    @Test
    void productsWrittenElementwiseBesideAPaddingAutodiffStepAreNamed() {
        // The matmul counts are met exactly, so only the elementwise work can tell; at the property cases' widths
        // (5 – 8) it is several times the bound.
        for (RematCase c : List.of(new RematCase(4, 4, 2, 5, 7614), new RematCase(2, 6, 3, 8, 7615))) {
            GradingFailure f = rejected(Kind.STRUCTURE, () -> RematChecks.rematerialisedStep(
                    program(Mode.ELEMENTWISE_PADDED), c));
            assertTrue(f.reason().startsWith("multiplies matrices outside matmul: its elementwise operations and"
                    + " reductions do"), f.reason());
        }
    }

    // A written-out backward handed to the tape as a custom node's pullback needs GradRecorders.current(), which
    // course code can no longer call in the sandbox (reviewer F2): EvidenceAttacks.TAPE_TURNED_OFF shows it refused.

    @Test
    void aBackwardPassByHandHasNoTapeToModel() {
        GradingFailure f = rejected(Kind.STRUCTURE, () -> RematChecks.rematerialisedStep(
                program(Mode.HAND_BACKWARD), CASE));
        assertTrue(f.reason().startsWith("holds more activations than rematerialisation allows: its"
                + " differentiation tapes held nothing"), f.reason());
    }
}
