package dev.shardlings.grader.selftest;

import dev.shardlings.array.NDArray;
import dev.shardlings.autodiff.Autodiff;
import dev.shardlings.autodiff.VjpResult;
import dev.shardlings.grader.judge.GradingFailure;
import dev.shardlings.grader.judge.GradingFailure.Kind;
import dev.shardlings.grader.chapter6.Chapter6Case;
import dev.shardlings.grader.chapter6.Chapter6Checks;
import dev.shardlings.jit.Jit;
import dev.shardlings.jit.Jitted;
import dev.shardlings.nn.Mlp;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.PartitionSpec;
import dev.shardlings.spmd.Collectives;
import dev.shardlings.spmd.ShardMap;
import dev.shardlings.spmd.ShardedArray;
import dev.shardlings.spmd.Tiling;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import static dev.shardlings.sharding.PartitionSpec.P;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The grader's own tests for Chapter 6: plausible wrong training programs, each rejected by the check that names
 * its mistake.
 */
class TrainingWrongImplementationsTest {
    private static final Chapter6Case DP = new Chapter6Case(4, 0, List.of(4, 6, 6, 6, 3), 2, 2, 601);
    private static final Chapter6Case TP = new Chapter6Case(2, 2, List.of(4, 6, 6, 6, 3), 2, 2, 602);
    private static final Chapter6Case MANUAL = new Chapter6Case(4, 0, List.of(4, 6, 6, 6, 3), 2, 0, 603);
    private static final Chapter6Case FSDP = new Chapter6Case(4, 0, List.of(4, 8, 8, 4, 4), 2, 0, 604);
    private static final Chapter6Case MEGATRON = new Chapter6Case(0, 4, List.of(3, 5, 8), 1, 0, 605);

    private static GradingFailure rejected(Kind kind, Executable check) {
        GradingFailure f = Pinned.record(assertThrows(GradingFailure.class, check));
        assertEquals(kind, f.kind(), () -> "rejected for another reason: " + f.reason() + "\n" + f.getMessage());
        return f;
    }

    /** A jitted SGD step of the MLP, with the sign of the update given. */
    private static List<ShardedArray> train(List<ShardedArray> p, ShardedArray in, ShardedArray tg, int steps,
                                            float lr) {
        int n = p.size();
        Jitted step = Jit.jitList(a -> Mlp.sgd(a.subList(0, n), Autodiff.<ShardedArray>gradList(
                q -> Mlp.loss(q, a.get(n), a.get(n + 1))).apply(a.subList(0, n)), lr));
        List<ShardedArray> cur = p;
        for (int s = 0; s < steps; s++) {
            List<Object> args = new ArrayList<>(cur);
            args.add(in);
            args.add(tg);
            cur = step.call(args.toArray());
        }
        return cur;
    }

    private static List<ShardedArray> place(List<NDArray> xs, Mesh mesh, List<PartitionSpec> specs) {
        List<ShardedArray> out = new ArrayList<>();
        for (int k = 0; k < xs.size(); k++) {
            out.add(ShardedArray.devicePut(xs.get(k), mesh, specs.get(k)));
        }
        return out;
    }

    @Test
    void aReplicatedBatchComputesTheRightParametersWithoutDataParallelism() {
        GradingFailure f = rejected(Kind.STRUCTURE, () -> Chapter6Checks.trainDataParallel((ps, in, tg, mesh, steps,
                lr) -> train(place(ps, mesh, Collections.nCopies(ps.size(), P())), ShardedArray.devicePut(in, mesh, P()),
                ShardedArray.devicePut(tg, mesh, P()), steps, lr), DP));
        assertTrue(f.reason().startsWith("does not all-reduce exactly the gradients"), f.reason());
    }

    @Test
    void gradientAscentMovesTheParametersTheWrongWay() {
        GradingFailure f = rejected(Kind.WRONG_VALUES, () -> Chapter6Checks.trainDataParallel((ps, in, tg, mesh, steps,
                lr) -> train(place(ps, mesh, Collections.nCopies(ps.size(), P())),
                ShardedArray.devicePut(in, mesh, P("batch")), ShardedArray.devicePut(tg, mesh, P("batch")), steps, -lr),
                DP));
        assertTrue(f.getMessage().contains("Loss before:"), f.getMessage());
    }

    @Test
    void tensorParallelLayoutsOnlyAtTheEndAreNotTensorParallelism() {
        // trains data parallel only, then lays the results out as asked: right values and layouts, wrong plan
        GradingFailure f = rejected(Kind.STRUCTURE, () -> Chapter6Checks.trainDataTensorParallel((ps, in, tg, mesh,
                steps, lr) -> {
            List<ShardedArray> trained = train(place(ps, mesh, Collections.nCopies(ps.size(), P())),
                    ShardedArray.devicePut(in, mesh, P("batch", null)), ShardedArray.devicePut(tg, mesh,
                            P("batch", null)), steps, lr);
            List<PartitionSpec> specs = List.of(P(), P(), P(null, "model"), P("model"), P("model", null), P(), P(), P());
            List<ShardedArray> out = new ArrayList<>();
            for (int k = 0; k < trained.size(); k++) {
                out.add(ShardedArray.devicePut(trained.get(k).gather(), mesh, specs.get(k)));
            }
            return out;
        }, TP));
        assertTrue(f.reason().startsWith("communicates other than the tensor-parallel plan")
                || f.reason().startsWith("stores whole weights"), f.reason());
    }

    @Test
    void aReplicatedW3MakesTheCompilerGatherTheHiddenLayer() {
        // W2's output columns stay split over 'model'; a replicated W3 cannot contract them in place, so the
        // compiler all-gathers them (and the update even leaves W3 split by rows, following its gradient)
        GradingFailure f = rejected(Kind.STRUCTURE, () -> Chapter6Checks.trainDataTensorParallel((ps, in, tg, mesh, steps, lr) ->
                train(place(ps, mesh, List.of(P(), P(), P(null, "model"), P("model"), P(), P(), P(), P())),
                        ShardedArray.devicePut(in, mesh, P("batch", null)), ShardedArray.devicePut(tg, mesh,
                                P("batch", null)), steps, lr), TP));
        assertTrue(f.getMessage().contains("all_gather"), f.getMessage());
    }

    /** 6.1's layouts: the parameters replicated, the batch's rows over 'batch'. */
    private static List<Object> dataParallel(List<NDArray> ps, NDArray in, NDArray tg, Mesh mesh) {
        List<Object> out = new ArrayList<>(place(ps, mesh, Collections.nCopies(ps.size(), P())));
        out.add(ShardedArray.devicePut(in, mesh, P("batch")));
        out.add(ShardedArray.devicePut(tg, mesh, P("batch")));
        return out;
    }

    private static List<ShardedArray> params(List<Object> placed) {
        List<ShardedArray> out = new ArrayList<>();
        for (Object o : placed.subList(0, placed.size() - 2)) {
            out.add((ShardedArray) o);
        }
        return out;
    }

    @Test
    void eagerGradThenEagerSgdIsNotOneJittedStep() {
        // Autodiff.gradList outside jit compiles its own "grad" program (all-reducing the gradients over 'batch'
        // as the part asks) and Mlp.sgd then runs sub and mul eagerly: right values, right collectives, but the
        // update is outside any jitted program
        GradingFailure f = rejected(Kind.STRUCTURE, () -> Chapter6Checks.trainDataParallel((ps, in, tg, mesh, steps,
                lr) -> {
            List<Object> a = dataParallel(ps, in, tg, mesh);
            List<ShardedArray> p = params(a);
            for (int s = 0; s < steps; s++) {
                List<ShardedArray> g = Autodiff.<ShardedArray>gradList(q -> Mlp.loss(q, (ShardedArray) a.get(a.size()
                        - 2), (ShardedArray) a.get(a.size() - 1))).apply(p);
                p = Mlp.sgd(p, g, lr);
            }
            return p;
        }, DP));
        assertEquals("the step is not one jitted program: eager operations ran beside it", f.reason());
        assertTrue(f.getMessage().contains("grad (compiled by jit) ×2"), f.getMessage());
        assertTrue(f.getMessage().contains("(eager operation)"), f.getMessage());
    }

    @Test
    void eagerGradThenEagerSgdIsNotOneJittedStepUnderTensorParallelismEither() {
        GradingFailure f = rejected(Kind.STRUCTURE, () -> Chapter6Checks.trainDataTensorParallel((ps, in, tg, mesh,
                steps, lr) -> {
            List<ShardedArray> p = place(ps, mesh, List.of(P(), P(), P(null, "model"), P("model"),
                    P("model", null), P(), P(), P()));
            ShardedArray x = ShardedArray.devicePut(in, mesh, P("batch", null));
            ShardedArray y = ShardedArray.devicePut(tg, mesh, P("batch", null));
            for (int s = 0; s < steps; s++) {
                p = Mlp.sgd(p, Autodiff.<ShardedArray>gradList(q -> Mlp.loss(q, x, y)).apply(p), lr);
            }
            return p;
        }, TP));
        assertEquals("the step is not one jitted program: eager operations ran beside it", f.reason());
    }

    @Test
    void eagerGradThenAnUpdateOnTheHostIsNotOneJittedStep() {
        // no eager ShardedArray operation and one (jitted) program per step: the gradients are read back, the
        // update is computed on the host and placed again; only where the parameters came from tells
        GradingFailure f = rejected(Kind.STRUCTURE, () -> Chapter6Checks.trainDataParallel((ps, in, tg, mesh, steps,
                lr) -> {
            List<Object> a = dataParallel(ps, in, tg, mesh);
            List<ShardedArray> p = params(a);
            for (int s = 0; s < steps; s++) {
                List<ShardedArray> g = Autodiff.<ShardedArray>gradList(q -> Mlp.loss(q, (ShardedArray) a.get(a.size()
                        - 2), (ShardedArray) a.get(a.size() - 1))).apply(p);
                List<ShardedArray> next = new ArrayList<>();
                for (int k = 0; k < p.size(); k++) {
                    next.add(ShardedArray.devicePut(p.get(k).gather().sub(g.get(k).gather().mul(lr)), mesh, P()));
                }
                p = next;
            }
            return p;
        }, DP));
        assertEquals("the step is not one jitted program: the update ran outside it", f.reason());
        assertTrue(f.getMessage().contains("parameter 0: made outside every program"), f.getMessage());
    }

    @Test
    void aJittedGradientThenAFloatLoopOnTheHostIsNotOneJittedStepUnderTensorParallelismEither() {
        // the student's own jit of the gradient alone, then the update as a plain Java loop: no operation at all
        GradingFailure f = rejected(Kind.STRUCTURE, () -> Chapter6Checks.trainDataTensorParallel((ps, in, tg, mesh,
                steps, lr) -> {
            List<PartitionSpec> specs = List.of(P(), P(), P(null, "model"), P("model"), P("model", null), P(), P(),
                    P());
            List<ShardedArray> p = place(ps, mesh, specs);
            ShardedArray x = ShardedArray.devicePut(in, mesh, P("batch", null));
            ShardedArray y = ShardedArray.devicePut(tg, mesh, P("batch", null));
            Jitted grad = Jit.jitList(q -> Autodiff.<ShardedArray>gradList(r -> Mlp.loss(r, x, y)).apply(q));
            for (int s = 0; s < steps; s++) {
                List<ShardedArray> g = grad.call(p.toArray());
                List<ShardedArray> next = new ArrayList<>();
                for (int k = 0; k < p.size(); k++) {
                    float[] w = p.get(k).gather().toFloatArray();
                    float[] d = g.get(k).gather().toFloatArray();
                    for (int i = 0; i < w.length; i++) {
                        w[i] -= lr * d[i];
                    }
                    next.add(ShardedArray.devicePut(NDArray.fromFloats(w, p.get(k).shape()), mesh, specs.get(k)));
                }
                p = next;
            }
            return p;
        }, TP));
        assertEquals("the step is not one jitted program: the update ran outside it", f.reason());
    }

    @Test
    void aJittedGradientAndASeparatelyJittedUpdateAreTwoProgramsPerStep() {
        GradingFailure f = rejected(Kind.STRUCTURE, () -> Chapter6Checks.trainDataParallel((ps, in, tg, mesh, steps,
                lr) -> {
            List<Object> a = dataParallel(ps, in, tg, mesh);
            int n = ps.size();
            Jitted grad = Jit.jitList(b -> Autodiff.<ShardedArray>gradList(q -> Mlp.loss(q, b.get(n), b.get(n + 1)))
                    .apply(b.subList(0, n))).named("grads");
            Jitted update = Jit.jitList(b -> Mlp.sgd(b.subList(0, n), b.subList(n, 2 * n), lr)).named("update");
            List<ShardedArray> p = params(a);
            for (int s = 0; s < steps; s++) {
                List<Object> args = new ArrayList<>(p);
                args.addAll(a.subList(n, n + 2));
                List<Object> both = new ArrayList<>(p);
                both.addAll(grad.call(args.toArray()));
                p = update.call(both.toArray());
            }
            return p;
        }, DP));
        assertEquals("the step is not one jitted program: 4 jitted programs for 2 step(s)", f.reason());
    }

    /** Correct alternatives: the grader asks for one jitted program per step, not for the reference's code. */
    @Test
    void valueAndGradWithTheUpdateWrittenOutIsAccepted() {
        Chapter6Checks.trainDataParallel((ps, in, tg, mesh, steps, lr) -> {
            List<Object> a = dataParallel(ps, in, tg, mesh);
            int n = ps.size();
            Jitted step = Jit.jitList(b -> {
                List<ShardedArray> g = Autodiff.<ShardedArray>valueAndGradList(q -> Mlp.loss(q, b.get(n),
                        b.get(n + 1))).apply(b.subList(0, n)).grads();
                List<ShardedArray> out = new ArrayList<>();
                for (int k = 0; k < n; k++) {
                    out.add(b.get(k).sub(g.get(k).mul(lr)));
                }
                return out;
            });
            List<ShardedArray> p = params(a);
            for (int s = 0; s < steps; s++) {
                List<Object> args = new ArrayList<>(p);
                args.addAll(a.subList(n, n + 2));
                p = step.call(args.toArray());
            }
            return p;
        }, DP);
    }

    @Test
    void theWholeLoopAsOneJittedProgramIsAccepted() {
        Chapter6Checks.trainDataTensorParallel((ps, in, tg, mesh, steps, lr) -> {
            int n = ps.size();
            List<Object> args = new ArrayList<>(place(ps, mesh, List.of(P(), P(), P(null, "model"), P("model"),
                    P("model", null), P(), P(), P())));
            args.add(ShardedArray.devicePut(in, mesh, P("batch", null)));
            args.add(ShardedArray.devicePut(tg, mesh, P("batch", null)));
            return Jit.jitList(b -> {
                List<ShardedArray> p = b.subList(0, n);
                for (int s = 0; s < steps; s++) {
                    p = Mlp.sgd(p, Autodiff.<ShardedArray>gradList(q -> Mlp.loss(q, b.get(n), b.get(n + 1)))
                            .apply(p), lr);
                }
                return p;
            }).named("train").call(args.toArray());
        }, TP);
    }

    /** 6.3 with or without pvary of the parameters before differentiating. */
    private static List<ShardedArray> manualStep(List<ShardedArray> params, ShardedArray in, ShardedArray tg, float lr,
                                                 boolean pvary) {
        int n = params.size();
        List<PartitionSpec> specs = new ArrayList<>(Collections.nCopies(n, P()));
        specs.add(P("batch"));
        specs.add(P("batch"));
        List<ShardedArray> args = new ArrayList<>(params);
        args.add(in);
        args.add(tg);
        return ShardMap.shardMap(b -> {
            List<NDArray> ps = new ArrayList<>();
            for (int k = 0; k < n; k++) {
                ps.add(pvary ? b.get(k).pvary("batch") : b.get(k));
            }
            List<NDArray> g = Autodiff.<NDArray>gradList(q -> Mlp.lossLocal(q, b.get(n), b.get(n + 1))).apply(ps);
            List<NDArray> out = new ArrayList<>();
            for (int k = 0; k < n; k++) {
                out.add(b.get(k).sub(Collectives.pmean(g.get(k), "batch").mul(lr)));
            }
            return out;
        }, params.get(0).mesh(), specs, Collections.nCopies(n, P())).call(args);
    }

    @Test
    void pmeanOfTheGradientsOfInvariantParametersIsTheirSum() {
        // without pvary, the gradients of the replicated parameters come back psummed (JAX's vma rule): the pmean
        // of that sum is the sum, N times the mean
        GradingFailure f = rejected(Kind.WRONG_VALUES, () -> Chapter6Checks.dataParallelStep((ps, in, tg, lr) ->
                manualStep(ps, in, tg, lr, false), MANUAL));
        assertTrue(f.getMessage().contains("expected"), f.getMessage());
    }

    @Test
    void gatheringTheBatchComputesTheWholeGradientEverywhere() {
        GradingFailure f = rejected(Kind.STRUCTURE, () -> Chapter6Checks.dataParallelStep((ps, in, tg, lr) -> {
            int n = ps.size();
            List<PartitionSpec> specs = new ArrayList<>(Collections.nCopies(n, P()));
            specs.add(P("batch"));
            specs.add(P("batch"));
            List<ShardedArray> args = new ArrayList<>(ps);
            args.add(in);
            args.add(tg);
            return ShardMap.shardMap(b -> {
                NDArray x = Collectives.allGatherInvariant(b.get(n), "batch", 0, Tiling.TILED);
                NDArray y = Collectives.allGatherInvariant(b.get(n + 1), "batch", 0, Tiling.TILED);
                List<NDArray> g = Autodiff.<NDArray>gradList(q -> Mlp.lossLocal(q, x, y)).apply(b.subList(0, n));
                List<NDArray> out = new ArrayList<>();
                for (int k = 0; k < n; k++) {
                    out.add(b.get(k).sub(g.get(k).mul(lr)));
                }
                return out;
            }, ps.get(0).mesh(), specs, Collections.nCopies(n, P())).call(args);
        }, MANUAL));
        assertTrue(f.getMessage().contains("all_gather"), f.getMessage());
    }

    /** 6.4 by gathering the parameters, then psum of the local gradients and a slice: an all-reduce. */
    @Test
    void fsdpWithAnAllReduceInsteadOfAReduceScatter() {
        GradingFailure f = rejected(Kind.STRUCTURE, () -> Chapter6Checks.fsdpStep((ps, in, tg, lr) -> {
            int n = ps.size();
            List<ShardedArray> args = new ArrayList<>(ps);
            args.add(in);
            args.add(tg);
            return ShardMap.shardMap(b -> {
                int devices = Collectives.axisSize("batch");
                int me = Collectives.axisIndex("batch").toIntArray()[0];
                List<NDArray> whole = new ArrayList<>();
                for (int k = 0; k < n; k++) {
                    whole.add(Collectives.allGather(b.get(k), "batch", 0, Tiling.TILED));
                }
                List<NDArray> g = Autodiff.<NDArray>gradList(q -> Mlp.lossLocal(q, b.get(n), b.get(n + 1))).apply(whole);
                List<NDArray> out = new ArrayList<>();
                for (int k = 0; k < n; k++) {
                    NDArray mean = Collectives.pmean(g.get(k), "batch");
                    int rows = b.get(k).shape(0);
                    out.add(b.get(k).sub(mean.slice(0, me * rows, (me + 1) * rows).pvary("batch").mul(lr)));
                }
                return out;
            }, ps.get(0).mesh(), Collections.nCopies(n + 2, P("batch")), Collections.nCopies(n, P("batch")))
                    .call(args);
        }, FSDP));
        assertTrue(f.getMessage().contains("pmean") || f.getMessage().contains("psum"), f.getMessage());
    }

    @Test
    void fsdpWithoutDividingTheLossSumsTheDevicesGradients() {
        rejected(Kind.WRONG_VALUES, () -> Chapter6Checks.fsdpStep((ps, in, tg, lr) -> {
            int n = ps.size();
            List<ShardedArray> args = new ArrayList<>(ps);
            args.add(in);
            args.add(tg);
            return ShardMap.shardMap(b -> {
                List<NDArray> g = Autodiff.<NDArray>gradList(q -> {
                    List<NDArray> whole = new ArrayList<>();
                    for (NDArray s : q) {
                        whole.add(Collectives.allGather(s, "batch", 0, Tiling.TILED));
                    }
                    return Mlp.lossLocal(whole, b.get(n), b.get(n + 1));
                }).apply(b.subList(0, n));
                List<NDArray> out = new ArrayList<>();
                for (int k = 0; k < n; k++) {
                    out.add(b.get(k).sub(g.get(k).mul(lr)));
                }
                return out;
            }, ps.get(0).mesh(), Collections.nCopies(n + 2, P("batch")), Collections.nCopies(n, P("batch")))
                    .call(args);
        }, FSDP));
    }

    @Test
    void megatronWithGatheredWeightsMultipliesEverythingEverywhere() {
        GradingFailure f = rejected(Kind.STRUCTURE, () -> Chapter6Checks.megatronMlp((x, w1, w2, dy) ->
                ShardMap.shardMap(b -> {
                    NDArray a = Collectives.allGatherInvariant(b.get(1), "model", 1, Tiling.TILED);
                    NDArray c = Collectives.allGatherInvariant(b.get(2), "model", 0, Tiling.TILED);
                    VjpResult<NDArray> r = Autodiff.vjp(v -> List.of(v.get(0).matmul(v.get(1)).relu().matmul(v.get(2))),
                            List.of(b.get(0), a, c));
                    List<NDArray> cts = r.pullback().apply(List.of(b.get(3)));
                    int me = Collectives.axisIndex("model").toIntArray()[0];
                    int cols = b.get(1).shape(1);
                    return List.of(r.outputs().get(0), cts.get(0),
                            cts.get(1).slice(1, me * cols, (me + 1) * cols).pvary("model"),
                            cts.get(2).slice(0, me * cols, (me + 1) * cols).pvary("model"));
                }, x.mesh(), List.of(P(), P(null, "model"), P("model", null), P()),
                        List.of(P(), P(), P(null, "model"), P("model", null))).call(List.of(x, w1, w2, dy)), MEGATRON));
        assertTrue(f.getMessage().contains("all_gather"), f.getMessage());
    }

    @Test
    void aListWithTooFewArraysIsTheWrongShape() {
        GradingFailure f = rejected(Kind.WRONG_SHAPE, () -> Chapter6Checks.dataParallelStep((ps, in, tg, lr) -> {
            List<ShardedArray> all = manualStep(ps, in, tg, lr, true);
            return all.subList(0, all.size() - 1);
        }, MANUAL));
        assertTrue(f.reason().contains("7 arrays returned, expected 8"), f.reason());
    }

    @Test
    void aListWithANullEntryIsRejectedNotACrash() {
        GradingFailure f = rejected(Kind.WRONG_SHAPE, () -> Chapter6Checks.megatronMlp((x, w1, w2, dy) -> {
            ShardedArray y = ShardMap.shardMap(b -> List.of(Collectives.psum(b.get(0).matmul(b.get(1)).relu()
                    .matmul(b.get(2)), "model")), x.mesh(), List.of(P(), P(null, "model"), P("model", null)),
                    List.of(P())).call(List.of(x, w1, w2)).get(0);
            return java.util.Arrays.asList(y, null, w1, w2);
        }, MEGATRON));
        assertTrue(f.reason().contains("dX is not a ShardedArray"), f.reason());
    }
}
