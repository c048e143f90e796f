package dev.shardlings.autodiff;

import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.events.DeviceTrace;
import dev.shardlings.events.TraceEvent;
import dev.shardlings.events.Tracing;
import dev.shardlings.sharding.AxisType;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.NamedSharding;
import dev.shardlings.sharding.PartitionSpec;
import dev.shardlings.spmd.Collectives;
import dev.shardlings.spmd.ShardMap;
import dev.shardlings.spmd.ShardedArray;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.UnaryOperator;

import static dev.shardlings.sharding.PartitionSpec.P;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link Checkpoint} ({@code jax.checkpoint}): the same values and gradients as the plain function (pinned against
 * JAX 0.10.2, {@code jax-checks/checkpoint.py}), one more forward of the block in the device's FLOPs, and only the
 * blocks' inputs and outputs held for the backward pass ({@link DeviceTrace#peakResidualBytes}); a block's captured
 * differentiated arrays are its inputs, as in JAX ({@code jax-checks/checkpoint_closure.py}).
 */
class CheckpointTest {

    /** Multiples of 1/16 in [-1/2, 1/2], the formula of checkpoint.py. */
    static NDArray values(int a, int b, int rows, int cols) {
        float[] v = new float[rows * cols];
        for (int i = 0; i < rows; i++) {
            for (int j = 0; j < cols; j++) {
                v[i * cols + j] = (float) ((Math.floorMod(a * i + b * j, 17) - 8) / 16.0);
            }
        }
        return NDArray.fromFloats(v, rows, cols);
    }

    static final Function<List<NDArray>, List<NDArray>> LAYER = a -> List.of(a.get(0).matmul(a.get(1)).relu());

    /** sum((relu(…relu(x·W1)…·WL) − t)²) for ws = [W1, …, WL, x, t], each layer through {@code layer}. */
    static NDArray loss(List<NDArray> ws, Function<List<NDArray>, List<NDArray>> layer) {
        int layers = ws.size() - 2;
        NDArray h = ws.get(layers);
        for (int l = 0; l < layers; l++) {
            h = layer.apply(List.of(h, ws.get(l))).get(0);
        }
        return h.sub(ws.get(layers + 1)).square().sum();
    }

    /** [loss, dW1, …, dWL] on one device. */
    static List<NDArray> step(List<NDArray> args, Function<List<NDArray>, List<NDArray>> layer) {
        int[] weights = new int[args.size() - 2];
        for (int l = 0; l < weights.length; l++) {
            weights[l] = l;
        }
        ValueAndGrad<NDArray> vg = Autodiff.<NDArray>valueAndGradList(xs -> loss(xs, layer), weights).apply(args);
        List<NDArray> out = new ArrayList<>();
        out.add(vg.value());
        out.addAll(vg.grads());
        return out;
    }

    static final Mesh DATA = Mesh.makeMesh(new int[]{4}, new String[]{"data"}, AxisType.AUTO);

    /** The step inside a shardMap over 'data' (rows of x and t split), with its trace. */
    static Tracing.Traced<List<ShardedArray>> sharded(Mesh mesh, List<NDArray> args,
                                                      Function<List<NDArray>, List<NDArray>> layer) {
        int layers = args.size() - 2;
        List<PartitionSpec> in = new ArrayList<>();
        List<PartitionSpec> out = new ArrayList<>();
        List<ShardedArray> xs = new ArrayList<>();
        for (int k = 0; k < args.size(); k++) {
            PartitionSpec s = k < layers ? P() : P("data");
            in.add(s);
            xs.add(ShardedArray.devicePut(args.get(k), new NamedSharding(mesh, s)));
        }
        for (int k = 0; k <= layers; k++) {
            out.add(P());
        }
        ShardMap sm = ShardMap.shardMap(blocks -> {
            List<NDArray> r = new ArrayList<>(step(blocks, layer));
            // the loss is psummed by hand; the weights' cotangents by the transpose of their implicit pvary
            r.set(0, Collectives.psum(r.get(0), "data"));
            return r;
        }, mesh, in, out);
        return Tracing.record(() -> sm.call(xs));
    }

    static List<NDArray> jaxArgs() {
        return List.of(values(3, 13, 3, 3), values(11, 5, 3, 3), values(7, 3, 8, 3), values(5, 11, 8, 3));
    }

    static final float JAX_LOSS = 2.2369492053985596f;
    static final float[] JAX_DW1 = {-0.0612030029296875f, -0.036647796630859375f, -0.06372451782226562f,
        0.04822540283203125f, 0.030725479125976562f, 0.051746368408203125f, 0.0417022705078125f,
        0.02507781982421875f, 0.16721725463867188f};
    static final float[] JAX_DW2 = {0.0f, 0.0f, 0.08254623413085938f, 0.3518028259277344f, -0.142913818359375f, 0.0f,
        0.0f, -0.119842529296875f, 0.221923828125f};

    static void assertJax(float loss, float[] dw1, float[] dw2) {
        assertEquals(JAX_LOSS, loss, 1e-6f);
        assertArrayEquals(JAX_DW1, dw1, 1e-6f);
        assertArrayEquals(JAX_DW2, dw2, 1e-6f);
    }

    @Test
    void checkpointedLayersGiveJaxsLossAndGradientsOnOneDevice() {
        List<NDArray> r = step(jaxArgs(), Checkpoint.checkpointList(LAYER));
        assertJax(r.get(0).item(), r.get(1).toFloatArray(), r.get(2).toFloatArray());
    }

    @Test
    void checkpointedLayersGiveJaxsLossAndGradientsInsideShardMap() {
        List<ShardedArray> r = sharded(DATA, jaxArgs(), Checkpoint.checkpointList(LAYER)).value();
        assertJax(r.get(0).gather().item(), r.get(1).gather().toFloatArray(), r.get(2).gather().toFloatArray());
    }

    /** Random L-layer MLPs on 1–8 devices: loss and gradients bit for bit those of the plain layers. */
    @Property(tries = 25, seed = "3131", edgeCases = EdgeCasesMode.NONE)
    void sameValuesAndGradientsAsThePlainFunction(@ForAll @IntRange(min = 1, max = 4) int layers,
                                                  @ForAll @IntRange(min = 0, max = 3) int log2Devices,
                                                  @ForAll @IntRange(min = 1, max = 3) int rowsPerDevice,
                                                  @ForAll @IntRange(min = 1, max = 5) int width,
                                                  @ForAll @IntRange(min = 0, max = 16) int salt) {
        int n = 1 << log2Devices;
        List<NDArray> args = mlp(layers, n * rowsPerDevice, width, salt);
        Mesh mesh = Mesh.makeMesh(new int[]{n}, new String[]{"data"}, AxisType.AUTO);
        List<ShardedArray> plain = sharded(mesh, args, LAYER).value();
        List<ShardedArray> remat = sharded(mesh, args, Checkpoint.checkpointList(LAYER)).value();
        for (int k = 0; k < plain.size(); k++) {
            assertArrayEquals(plain.get(k).gather().toFloatArray(), remat.get(k).gather().toFloatArray(),
                    "output " + k);
        }
    }

    static List<NDArray> mlp(int layers, int rows, int width, int salt) {
        List<NDArray> args = new ArrayList<>();
        for (int l = 0; l < layers; l++) {
            args.add(values(3 + 2 * l + salt, 13 + salt, width, width));
        }
        args.add(values(7 + salt, 3, rows, width));
        args.add(values(5, 11 + salt, rows, width));
        return args;
    }

    static DeviceTrace device0(Tracing.Traced<?> t) {
        return device0(t.trace());
    }

    static DeviceTrace device0(dev.shardlings.events.Trace t) {
        return t.shardMaps().get(0).devices().get(0);
    }

    static final int LAYERS = 4;
    static final int ROWS = 8; // per device
    static final int WIDTH = 5;

    static List<NDArray> fourLayers() {
        return mlp(LAYERS, 4 * ROWS, WIDTH, 1);
    }

    @Test
    void theBackwardPassRunsEachCheckpointedLayerForwardOnceMore() {
        long plain = device0(sharded(DATA, fourLayers(), LAYER)).flops();
        long remat = device0(sharded(DATA, fourLayers(), Checkpoint.checkpointList(LAYER))).flops();
        long oneForward = LAYERS * 2L * ROWS * WIDTH * WIDTH;
        assertEquals(plain + oneForward, remat);
    }

    /**
     * The trace says whose the matmuls are: the vjp rules' 2L − 1 (dW_l for every layer, dh_{l−1} for all but the
     * first, whose input is not differentiated) with or without checkpoints, and each checkpointed layer's forward
     * once more as recomputed; a backward pass written by hand has none of either.
     */
    @Test
    void theTraceCountsTheVjpRulesAndTheRecomputationApart() {
        long unit = 2L * ROWS * WIDTH * WIDTH;
        DeviceTrace plain = device0(sharded(DATA, fourLayers(), LAYER));
        DeviceTrace remat = device0(sharded(DATA, fourLayers(), Checkpoint.checkpointList(LAYER)));
        assertEquals((2L * LAYERS - 1) * unit, plain.pullbackFlops());
        assertEquals(0, plain.recomputedFlops());
        assertEquals((2L * LAYERS - 1) * unit, remat.pullbackFlops());
        assertEquals(LAYERS * unit, remat.recomputedFlops());
        assertEquals((4L * LAYERS - 1) * unit, remat.flops());
    }

    /**
     * Held for the backward pass, per device, in f32 activations [b, F] of 4·b·F bytes: plain, each layer's
     * product and its ReLU (2L) and the loss's difference and square (2), and the loss itself (4 bytes);
     * checkpointed, each layer's output only (L) and the same loss terms, plus while one layer is recomputed its
     * two intermediates.
     */
    @Test
    void checkpointingHoldsOnlyTheLayersInputsAndOneLayersIntermediates() {
        long activation = 4L * ROWS * WIDTH;
        long plain = device0(sharded(DATA, fourLayers(), LAYER)).peakResidualBytes();
        long remat = device0(sharded(DATA, fourLayers(), Checkpoint.checkpointList(LAYER))).peakResidualBytes();
        assertEquals((2 * LAYERS + 2) * activation + 4, plain);
        assertEquals((LAYERS + 2) * activation + 4 + 2 * activation, remat);
    }

    @Test
    void nestedCheckpointsRecomputeTheInnerBlocksOncePerLevel() {
        Function<List<NDArray>, List<NDArray>> inner = Checkpoint.checkpointList(LAYER);
        Function<List<NDArray>, List<NDArray>> twoLayers = Checkpoint.checkpointList(
                a -> inner.apply(List.of(inner.apply(List.of(a.get(0), a.get(1))).get(0), a.get(2))));
        List<NDArray> args = mlp(2, 4 * ROWS, WIDTH, 2);
        Function<List<NDArray>, NDArray> nested = xs -> twoLayers.apply(List.of(xs.get(2), xs.get(0), xs.get(1)))
                .get(0).sub(xs.get(3)).square().sum();
        List<NDArray> want = Autodiff.<NDArray>gradList(xs -> loss(xs, LAYER), 0, 1).apply(args);
        List<NDArray> got = Autodiff.gradList(nested, 0, 1).apply(args);
        for (int k = 0; k < 2; k++) {
            assertArrayEquals(want.get(k).toFloatArray(), got.get(k).toFloatArray(), "dW" + (k + 1));
        }
        long plain = hostFlops(Tracing.record(() -> Autodiff.<NDArray>gradList(xs -> loss(xs, LAYER), 0, 1)
                .apply(args)));
        long twice = hostFlops(Tracing.record(() -> Autodiff.gradList(nested, 0, 1).apply(args)));
        long oneForward = 2 * 2L * 4 * ROWS * WIDTH * WIDTH;
        assertEquals(plain + 2 * oneForward, twice);
    }

    static long hostFlops(Tracing.Traced<?> t) {
        return t.trace().hostEvents().stream().filter(TraceEvent.MatmulEvent.class::isInstance)
                .mapToLong(e -> ((TraceEvent.MatmulEvent) e).flops()).sum();
    }

    @Test
    void withoutDifferentiationTheBlockRunsOnceAndGivesItsValue() {
        List<NDArray> args = List.of(values(7, 3, 8, 3), values(3, 13, 3, 3));
        var traced = Tracing.record(() -> Checkpoint.checkpointList(LAYER).apply(args).get(0));
        assertArrayEquals(LAYER.apply(args).get(0).toFloatArray(), traced.value().toFloatArray());
        assertEquals(2L * 8 * 3 * 3, hostFlops(traced));
        UnaryOperator<NDArray> relu = Checkpoint.checkpoint(NDArray::relu);
        assertArrayEquals(args.get(0).relu().toFloatArray(), relu.apply(args.get(0)).toFloatArray());
        assertArrayEquals(args.get(0).greater(0).astype(DType.FLOAT32).toFloatArray(),
                Autodiff.grad((NDArray x) -> relu.apply(x).sum()).apply(args.get(0)).toFloatArray());
    }

    @Test
    void misuseIsAClearError() {
        assertThrows(NullPointerException.class, () -> Checkpoint.<NDArray>checkpointList(null));
        assertThrows(NullPointerException.class, () -> Checkpoint.<NDArray>checkpoint(null));
        NDArray x = values(7, 3, 2, 2);
        UnaryOperator<NDArray> gradOfNull = Autodiff.grad(
                (NDArray v) -> Checkpoint.<NDArray>checkpointList(a -> null).apply(List.of(v)).get(0).sum());
        IllegalArgumentException none = assertThrows(IllegalArgumentException.class, () -> gradOfNull.apply(x));
        assertEquals("checkpoint: the checkpointed function returned null; return the arrays the rest of the"
                + " computation reads", none.getMessage());
        IllegalArgumentException empty = assertThrows(IllegalArgumentException.class,
                () -> Checkpoint.<NDArray>checkpointList(a -> List.of()).apply(List.of(x)));
        assertTrue(empty.getMessage().startsWith("checkpoint: the checkpointed function returned no outputs"),
                empty.getMessage());
        List<NDArray> withNull = new ArrayList<>();
        withNull.add(null);
        IllegalArgumentException nullOut = assertThrows(IllegalArgumentException.class,
                () -> Checkpoint.<NDArray>checkpointList(a -> withNull).apply(List.of(x)));
        assertEquals("checkpoint: the checkpointed function returned null as output 0", nullOut.getMessage());
        assertThrows(NullPointerException.class, () -> Checkpoint.checkpointList(LAYER).apply(withNull));
    }

    /** A layer as JAX users write it: {@code jax.checkpoint(lambda h: relu(h @ w))}, W captured, not passed. */
    static final Function<List<NDArray>, List<NDArray>> CLOSURE = a -> {
        NDArray w = a.get(1);
        return List.of(Checkpoint.<NDArray>checkpoint(h -> h.matmul(w).relu()).apply(a.get(0)));
    };

    /**
     * A captured differentiated array becomes an input of the block, as JAX's closure conversion makes it
     * ({@code jax-checks/checkpoint_closure.py} prints the same loss and gradients as checkpoint.py): JAX's values
     * on one device and inside shardMap, and the same rematerialisation as with W passed (also for the first
     * layer, whose argument X is not differentiated).
     */
    @Test
    void aBlockThatCapturesADifferentiatedArrayGetsItsGradientAsInJax() {
        List<NDArray> r = step(jaxArgs(), CLOSURE);
        assertJax(r.get(0).item(), r.get(1).toFloatArray(), r.get(2).toFloatArray());
        List<ShardedArray> s = sharded(DATA, jaxArgs(), CLOSURE).value();
        assertJax(s.get(0).gather().item(), s.get(1).gather().toFloatArray(), s.get(2).gather().toFloatArray());
        DeviceTrace passed = device0(sharded(DATA, fourLayers(), Checkpoint.checkpointList(LAYER)));
        DeviceTrace captured = device0(sharded(DATA, fourLayers(), CLOSURE));
        assertEquals(passed.flops(), captured.flops());
        assertEquals(passed.pullbackFlops(), captured.pullbackFlops());
        assertEquals(LAYERS * 2L * ROWS * WIDTH * WIDTH, captured.recomputedFlops());
        assertEquals(passed.peakResidualBytes(), captured.peakResidualBytes());
        // captured but not differentiated: a constant, as in JAX
        NDArray x = values(7, 3, 4, 3);
        NDArray w = values(3, 13, 3, 3);
        UnaryOperator<NDArray> layer = Checkpoint.checkpoint(h -> h.matmul(w).relu());
        assertArrayEquals(Autodiff.grad((NDArray h) -> h.matmul(w).relu().sum()).apply(x).toFloatArray(),
                Autodiff.grad((NDArray h) -> layer.apply(h).sum()).apply(x).toFloatArray());
    }

    /** A captured array read by a checkpoint inside a checkpoint reaches its gradient through both levels. */
    @Test
    void aCapturedArrayInANestedBlockGetsItsGradient() {
        List<NDArray> args = mlp(2, 4 * ROWS, WIDTH, 2);
        Function<List<NDArray>, NDArray> nested = xs -> Checkpoint.<NDArray>checkpoint(
                h -> CLOSURE.apply(List.of(CLOSURE.apply(List.of(h, xs.get(0))).get(0), xs.get(1))).get(0))
                .apply(xs.get(2)).sub(xs.get(3)).square().sum();
        List<NDArray> want = Autodiff.<NDArray>gradList(xs -> loss(xs, LAYER), 0, 1).apply(args);
        List<NDArray> got = Autodiff.gradList(nested, 0, 1).apply(args);
        for (int k = 0; k < 2; k++) {
            assertArrayEquals(want.get(k).toFloatArray(), got.get(k).toFloatArray(), "dW" + (k + 1));
        }
    }

    /** sum((relu(…relu(x·W1)…·WL) − t)²) on global arrays, ws = [W1, …, WL, x, t]. */
    static ShardedArray globalLoss(List<ShardedArray> ws,
                                   Function<List<ShardedArray>, List<ShardedArray>> layer) {
        int layers = ws.size() - 2;
        ShardedArray h = ws.get(layers);
        for (int l = 0; l < layers; l++) {
            h = layer.apply(List.of(h, ws.get(l))).get(0);
        }
        return h.sub(ws.get(layers + 1)).square().sum();
    }

    static final Function<List<ShardedArray>, List<ShardedArray>> GLOBAL_LAYER =
            a -> List.of(a.get(0).matmul(a.get(1)).maximum(0.0));

    /**
     * Inside jit the checkpointed layers are bound twice: the same gradients, one forward more in every device's
     * FLOPs, and a lower modelled peak (each layer's product dies after its ReLU instead of at its backward).
     */
    @Test
    void insideJitTheBlockIsBoundAgainInTheBackwardPass() {
        List<NDArray> host = fourLayers();
        List<Object> args = new ArrayList<>();
        for (int k = 0; k < host.size(); k++) {
            args.add(ShardedArray.devicePut(host.get(k), new NamedSharding(DATA, k < LAYERS ? P() : P("data"))));
        }
        int[] weights = {0, 1, 2, 3};
        var plain = dev.shardlings.jit.Jit.jitList(xs -> Autodiff.gradList(
                (List<ShardedArray> ws) -> globalLoss(ws, GLOBAL_LAYER), weights).apply(xs));
        var remat = dev.shardlings.jit.Jit.jitList(xs -> Autodiff.gradList(
                (List<ShardedArray> ws) -> globalLoss(ws, Checkpoint.checkpointList(GLOBAL_LAYER)), weights).apply(xs));
        List<ShardedArray> want = plain.call(args.toArray());
        List<ShardedArray> got = remat.call(args.toArray());
        for (int k = 0; k < LAYERS; k++) {
            assertArrayEquals(want.get(k).gather().toFloatArray(), got.get(k).gather().toFloatArray(), "dW" + k);
        }
        var plainProgram = plain.lower(args.toArray());
        var rematProgram = remat.lower(args.toArray());
        long oneForward = LAYERS * 2L * ROWS * WIDTH * WIDTH;
        assertEquals(device0(dev.shardlings.jit.ProgramTrace.of(plainProgram)).flops() + oneForward,
                device0(dev.shardlings.jit.ProgramTrace.of(rematProgram)).flops());
        long plainPeak = dev.shardlings.jit.ProgramTrace.peakBytes(plainProgram);
        long rematPeak = dev.shardlings.jit.ProgramTrace.peakBytes(rematProgram);
        assertTrue(rematPeak < plainPeak, rematPeak + " bytes at the peak with checkpoints, " + plainPeak + " without");
    }
}
