package dev.shardlings.jit;

import dev.shardlings.TestArrays;
import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.primitive.ShardingTypeError;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.NamedSharding;
import dev.shardlings.spmd.ShardedArray;
import dev.shardlings.events.Trace;
import dev.shardlings.events.Tracing;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.shardlings.sharding.PartitionSpec.P;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code jit} against jax-auto.md: §3's seed programs on Auto axes (output sharding, values equal to the program on
 * whole arrays, no communication where JAX has none, the kind of collective where only one works), the seed 002
 * intro in Explicit mode, §4's incompatible-devices error, §5's compiled text, and the cache.
 */
class JitTest {

    private static final int[] IDS8 = {0, 1, 2, 3, 4, 5, 6, 7};
    private static final int[] IDS4 = {0, 1, 2, 3};

    private static NDArray data(int... shape) {
        return TestArrays.cyclic(3, 17, shape);
    }

    private static ShardedArray put(Mesh mesh, NDArray x, Object... spec) {
        return TestArrays.put(mesh, x, spec);
    }

    private static void assertClose(NDArray expected, ShardedArray got) {
        NDArray g = got.gather();
        assertTrue(g.allclose(expected, 1e-5, 1e-3), () -> "expected " + expected + " got " + g);
    }

    private static long collectiveCount(Trace t) {
        return t.collectives().size();
    }

    @Test
    void seed001SinDotAndCopyKeepLayoutsAndCommunicateNothing() {
        Mesh m = Mesh.ofDeviceIds(IDS8, new int[] {4, 2}, "a", "b");
        NDArray x = data(8, 8);
        Compiled sin = Jit.jit(a -> a.sin()).lower(put(m, x, "a", "b"));
        assertEquals(List.of(new NamedSharding(m, P("a", "b"))), sin.outputShardings());
        assertFalse(sin.asText().contains("all-"), sin.asText());
        Tracing.Traced<List<ShardedArray>> run = Tracing.record(() -> Jit.jit(a -> a.sin()).call(put(m, x, "a", "b")));
        assertEquals(0, collectiveCount(run.trace()));
        assertClose(x.sin(), run.value().get(0));

        Jitted dot = Jit.jit((a, b) -> a.matmul(b));
        Tracing.Traced<List<ShardedArray>> d = Tracing.record(() -> dot.call(put(m, x, "a", null), put(m, x, null, "b")));
        assertEquals(P("a", "b"), d.value().get(0).spec());
        assertEquals(0, collectiveCount(d.trace()));
        assertClose(x.matmul(x), d.value().get(0));

        ShardedArray c = Jit.jit(a -> a.copy()).call(put(m, x, "a", "b")).get(0);
        assertEquals(P("a", "b"), c.spec());
        assertClose(x, c);
    }

    @Test
    void seed001ConstraintsToATransposedLayoutAndToReplicated() {
        Mesh m = Mesh.ofDeviceIds(IDS8, new int[] {4, 2}, "x", "y");
        NDArray x = data(64, 64);
        Compiled t = Jit.jit(a -> a.add(1.0).withShardingConstraint(P("y", "x"))).lower(put(m, x, "x", "y"));
        assertEquals(P("y", "x"), t.outputShardings().get(0).spec());
        // only data movement (XLA: an all-to-all and a collective-permute; here collective-permutes of the pieces)
        assertFalse(t.asText().contains("all-reduce") || t.asText().contains("all-gather"), t.asText());
        assertTrue(t.asText().contains("collective-permute("), t.asText());
        assertClose(x.add(1f), t.call(List.of(put(m, x, "x", "y"))).get(0));

        Compiled r = Jit.jit(a -> a.add(1.0).withShardingConstraint(P())).lower(put(m, x, "x", "y"));
        assertEquals(P(), r.outputShardings().get(0).spec());
        String text = r.asText();
        // all-gather dim 1 (over y), then dim 0 (over x), as XLA does
        int g1 = text.indexOf("all-gather(");
        assertTrue(text.substring(g1).startsWith("all-gather(%") && text.contains("dimensions={1}"), text);
        assertTrue(text.indexOf("dimensions={1}") < text.indexOf("dimensions={0}"), text);
        assertClose(x.add(1f), r.call(List.of(put(m, x, "x", "y"))).get(0));
    }

    @Test
    void seed002MatmulSquareWithOutShardingsIsOneAllReduceOverY() {
        Mesh m = Mesh.ofDeviceIds(IDS4, new int[] {2, 2}, "X", "Y");
        NDArray in = data(8, 256);
        NDArray w = data(256, 512);
        Jitted f = Jit.jit((a, b) -> a.square().matmul(b)).named("matmul_square").outShardings(P("X", null));
        Compiled c = f.lower(put(m, in, "X", "Y"), put(m, w, "Y", null));
        assertEquals(P("X", null), c.outputShardings().get(0).spec());
        String text = c.asText();
        assertEquals(1, text.split("all-reduce\\(", -1).length - 1, text);
        assertTrue(text.contains("f32[4,512] all-reduce("), text);
        assertTrue(text.contains("replica_groups={{0,1},{2,3}}"), text);
        assertFalse(text.contains("all-gather") || text.contains("all-to-all"), text);
        assertTrue(text.startsWith("HloModule jit_matmul_square, num_partitions=4"), text);
        assertClose(in.square().matmul(w), f.call(put(m, in, "X", "Y"), put(m, w, "Y", null)).get(0));
        // the same without out_shardings: the same all-reduce, and the chosen layout P('X',)
        Compiled bare = Jit.jit((a, b) -> a.square().matmul(b)).lower(put(m, in, "X", "Y"), put(m, w, "Y", null));
        assertEquals(P("X"), bare.outputShardings().get(0).spec());
        assertEquals(2 * 4 * 128 * 512, bare.costAnalysis().flops() - 4 * 128, "local matmul + square FLOPs");
    }

    @Test
    void seed002IntroInExplicitModeNeedsAnOutSharding() {
        Mesh m = Mesh.makeMesh(new int[] {2, 2}, "X", "Y");
        NDArray in = data(8, 256);
        NDArray w = data(256, 512);
        ShardingTypeError e = assertThrows(ShardingTypeError.class, () -> Jit.jit((a, b) -> a.square().matmul(b))
                .call(put(m, in, "X", "Y"), put(m, w, "Y", null)));
        assertTrue(e.getMessage().startsWith("Contracting dimensions are sharded and it is ambiguous"), e.getMessage());
        Compiled fixed = Jit.jit((a, b) -> a.square().matmul(b, P("X", null))).lower(put(m, in, "X", "Y"),
                put(m, w, "Y", null));
        String text = fixed.asText();
        assertEquals(1, text.split("all-reduce\\(", -1).length - 1, text);
        assertTrue(text.contains("f32[4,512] all-reduce(") && text.contains("replica_groups={{0,1},{2,3}}"), text);
        assertEquals("float32[8@X,512]", fixed.jaxpr().outputs().get(0).type().toString());
    }

    @Test
    void seed000MatmulCasesUnderJit() {
        Mesh m = Mesh.ofDeviceIds(IDS4, new int[] {2, 2}, "x", "y");
        NDArray a = data(16, 16);
        Jitted mm = Jit.jit((p, q) -> p.matmul(q));
        Compiled c1 = mm.lower(put(m, a, "x", null), put(m, a, null, "y"));
        assertEquals(P("x", "y"), c1.outputShardings().get(0).spec());
        assertFalse(c1.asText().contains("all-"), c1.asText());
        Compiled c2 = mm.lower(put(m, a, null, "x"), put(m, a));
        assertEquals(P(), c2.outputShardings().get(0).spec());
        assertTrue(c2.asText().contains("all-gather(") && !c2.asText().contains("all-reduce"), c2.asText());
        Compiled c3 = mm.lower(put(m, a, null, "x"), put(m, a, "x", null));
        assertEquals(P(), c3.outputShardings().get(0).spec());
        assertTrue(c3.asText().contains("all-reduce(") && !c3.asText().contains("all-gather"), c3.asText());
        assertEquals(3, mm.traceCount());
        assertClose(a.matmul(a), mm.call(put(m, a, null, "x"), put(m, a, "x", null)).get(0));
    }

    @Test
    void anOutShardingThatSplitsAContractionsResultComputesItsRowsInSharesOnTheIdleDevices() {
        // seed 000's case 3 with C[I_x, K] asked for: the out sharding reaches the dot (one step of backward
        // propagation), whose partitioning then does what XLA:CPU does (XlaMatmulPlansTest pins JAX 0.10.2's text):
        // the idle y devices each compute half the rows, the all-reduce over x carries f32[4,6], and a
        // collective-permute moves each block onto x. No reduce-scatter: XLA:CPU creates none.
        Mesh m = Mesh.ofDeviceIds(IDS4, new int[] {2, 2}, "x", "y");
        NDArray a = data(8, 16);
        NDArray b = data(16, 6);
        Jitted mm = Jit.jit((p, q) -> p.matmul(q)).outShardings(P("x", null));
        Compiled c = mm.lower(put(m, a, null, "x"), put(m, b, "x", null));
        String text = c.asText();
        assertTrue(text.contains("f32[4,6] all-reduce(") && text.contains("replica_groups={{0,2},{1,3}}")
                && text.contains("f32[4,6] collective-permute("), text);
        assertFalse(text.contains("reduce-scatter") || text.contains("all-gather"), text);
        assertEquals(2L * 4 * 8 * 6, c.costAnalysis().flops(), "half the rows of A's block, [4, 8] · [8, 6]");
        assertClose(a.matmul(b), mm.call(put(m, a, null, "x"), put(m, b, "x", null)).get(0));
        // the same through a constraint inside the program
        Compiled viaConstraint = Jit.jit((p, q) -> p.matmul(q).withShardingConstraint(P("x", null)))
                .lower(put(m, a, null, "x"), put(m, b, "x", null));
        assertTrue(viaConstraint.asText().contains("f32[4,6] all-reduce(")
                && viaConstraint.asText().contains("collective-permute("), viaConstraint.asText());
        // returned twice (once replicated, once split), the sum is needed whole: one all-reduce, then a slice
        Compiled twice = Jit.jitList(xs -> {
            ShardedArray prod = xs.get(0).matmul(xs.get(1));
            return List.of(prod, prod);
        }).outShardings(P(), P("x", null)).lower(put(m, a, null, "x"), put(m, b, "x", null));
        assertTrue(twice.asText().contains("all-reduce(") && !twice.asText().contains("reduce-scatter"),
                twice.asText());
        List<ShardedArray> both = Jit.jitList(xs -> {
            ShardedArray prod = xs.get(0).matmul(xs.get(1));
            return List.of(prod, prod);
        }).outShardings(P(), P("x", null)).call(put(m, a, null, "x"), put(m, b, "x", null));
        assertClose(a.matmul(b), both.get(0));
        assertClose(a.matmul(b), both.get(1));
    }

    @Test
    void anOutShardingReachesAContractionThroughElementwiseOpsAndTransposes() {
        // Checked in JAX 0.10.2 on a 2x4 mesh: for sin(a @ b), exp(sin(a @ b)), (a @ b) * 2 asked for as P('x', None),
        // and (a @ b).T asked for as P('x', None), XLA splits the product's free dimension over x before it completes
        // the sum over y: one all-reduce of f32[8,24] (f32[16,12] for the transpose) and nothing else.
        Mesh m = Mesh.ofDeviceIds(IDS8, new int[] {2, 4}, "x", "y");
        NDArray a = data(16, 32);
        NDArray b = data(32, 24);
        ShardedArray as = put(m, a, null, "y");
        ShardedArray bs = put(m, b, "y", null);
        record Case(String name, java.util.function.BinaryOperator<ShardedArray> f,
                    java.util.function.BinaryOperator<NDArray> whole, String allReduce) {
        }
        List<Case> cases = List.of(
                new Case("sin", (p, q) -> p.matmul(q).sin(), (p, q) -> p.matmul(q).sin(), "f32[8,24] all-reduce("),
                new Case("exp(sin)", (p, q) -> p.matmul(q).sin().exp(), (p, q) -> p.matmul(q).sin().exp(),
                        "f32[8,24] all-reduce("),
                new Case("times 2", (p, q) -> p.matmul(q).mul(2.0), (p, q) -> p.matmul(q).mul(2f),
                        "f32[8,24] all-reduce("),
                new Case("transpose", (p, q) -> p.matmul(q).transpose(1, 0), (p, q) -> p.matmul(q).transpose(1, 0),
                        "f32[16,12] all-reduce("),
                new Case("step by where", (p, q) -> ShardedArray.where(p.matmul(q).greater(0.0), 1.0, 0.0),
                        (p, q) -> NDArray.where(p.matmul(q).greater(0.0), 1.0, 0.0),
                        "f32[8,24] all-reduce("));
        for (Case c : cases) {
            Jitted f = Jit.jit(c.f()).outShardings(P("x", null));
            Compiled compiled = f.lower(as, bs);
            String text = compiled.asText();
            assertTrue(text.contains(c.allReduce()), c.name() + "\n" + text);
            assertEquals(1, text.split("all-reduce\\(|all-gather\\(|all-to-all\\(|collective-permute\\(|"
                    + "reduce-scatter\\(", -1).length - 1, c.name() + "\n" + text);
            ShardedArray got = f.call(as, bs).get(0);
            assertEquals(P("x", null), got.spec(), c.name());
            assertClose(c.whole().apply(a, b), got);
        }
        // a layout forward propagation chose is kept: the product is split over y by its rows (a is P('y', None)),
        // so sin computes there and the result is re-laid out once, at the end
        Jitted rowsY = Jit.jit((p, q) -> p.matmul(q).sin()).outShardings(P("x", null));
        ShardedArray ay = put(m, a, "y", null);
        ShardedArray bRep = put(m, b, null, null);
        Compiled kept = rowsY.lower(ay, bRep);
        assertFalse(kept.asText().contains("all-reduce"), kept.asText());
        assertClose(a.matmul(b).sin(), rowsY.call(ay, bRep).get(0));
    }

    @Test
    void backwardPropagationNeverAddsCommunication() {
        // found in review: a hint must not reach a reshape, which could only take it by moving data
        Mesh m = Mesh.ofDeviceIds(IDS8, new int[] {2, 4}, "x", "y");
        ShardedArray a = put(m, NDArray.arange(128).reshape(8, 16).astype(DType.FLOAT32), null, "x");
        Compiled reshapes = Jit.jit(x -> x.reshape(2, 4, 16).reshape(8, 16).sin()).outShardings(P("y", "x")).lower(a);
        assertEquals(0, reshapes.costAnalysis().bytesReceivedPerDevice(), reshapes.asText());
        // and dot_general chooses between psum and gather on the operands' own layouts, as before the split it
        // takes for the result: A[16, 32_(y,x)] · B[32_y, 24] asked for as P(None, 'x') all-reduces f32[16,24]
        // (2688 bytes) and multiplies 3072 FLOPs per device; gathering both operands would cost 4096 and 12288
        ShardedArray p = put(m, data(16, 32), null, dev.shardlings.sharding.PartitionSpec.tuple("y", "x"));
        ShardedArray q = put(m, data(32, 24), "y", null);
        Compiled mm = Jit.jit((u, v) -> u.matmul(v)).outShardings(P(null, "x")).lower(p, q);
        assertTrue(mm.costAnalysis().bytesReceivedPerDevice() <= 2688, mm.asText());
        assertEquals(3072, mm.costAnalysis().flops(), mm.asText());
        assertClose(data(16, 32).matmul(data(32, 24)), Jit.jit((u, v) -> u.matmul(v)).outShardings(P(null, "x"))
                .call(p, q).get(0));
    }

    @Test
    void problem1JitFormsCompileToNoCollective() {
        Mesh m = Mesh.ofDeviceIds(IDS8, new int[] {4, 2}, "X", "Y");
        int[] iv = new int[512 * 8];
        for (int i = 0; i < iv.length; i++) {
            iv[i] = i;
        }
        NDArray x = NDArray.fromInts(iv, 512, 8);
        ShardedArray xs = put(m, x, "X", "Y");
        Jitted average = Jit.jit(a -> a.reshape(4, 128, 2, 4).mean(1, 3)).named("average").outShardings(P("X", "Y"));
        Tracing.Traced<List<ShardedArray>> avg = Tracing.record(() -> average.call(xs));
        assertEquals(0, collectiveCount(avg.trace()), average.lower(xs).asText());
        assertClose(x.astype(DType.FLOAT32).reshape(4, 128, 2, 4).mean(1, 3), avg.value().get(0));

        Jitted shift = Jit.jit(a -> a.reshape(4, 128, 8).roll(5, 1).reshape(512, 8)).named("shift_jit")
                .outShardings(P("X", "Y"));
        Tracing.Traced<List<ShardedArray>> sh = Tracing.record(() -> shift.call(xs));
        assertEquals(0, collectiveCount(sh.trace()), shift.lower(xs).asText());
        assertEquals(P("X", "Y"), sh.value().get(0).spec());
        NDArray expected = x.reshape(4, 128, 8).roll(5, 1).reshape(512, 8);
        assertEquals(expected, sh.value().get(0).gather());

        // the plain roll of the whole array moves rows between devices: the 5 wrapped rows, by collective-permute
        Jitted naive = Jit.jit(a -> a.roll(5, 0)).outShardings(P("X", "Y"));
        Tracing.Traced<List<ShardedArray>> nv = Tracing.record(() -> naive.call(xs));
        assertTrue(nv.trace().collectives().stream().allMatch(c -> c.kind() == dev.shardlings.events.Collective.PPERMUTE
                && c.axes().equals(List.of("X"))), nv.trace().collectives().toString());
        assertEquals(1, nv.trace().shardMaps().get(0).devices().get(0).collectives().size(), "one collective-permute");
        assertTrue(naive.lower(xs).asText().contains("collective-permute(%0), dimension=0, shift=5"),
                naive.lower(xs).asText());
        assertEquals(5L * 4 * 4, naive.lower(xs).costAnalysis().bytesReceivedPerDevice(), "5 rows of 4 int32 per device");
        assertEquals(x.roll(5, 0), nv.value().get(0).gather());
    }

    @Test
    void aRollAlongASplitDimensionIsAHaloExchangeForEveryShift() {
        Mesh m = Mesh.ofDeviceIds(IDS8, new int[] {4, 2}, "X", "Y");
        NDArray x = data(24, 6);
        for (Object[] spec : new Object[][] {{"X", "Y"}, {dev.shardlings.sharding.PartitionSpec.tuple("X", "Y"), null},
                {"Y", null}, {null, "Y"}}) {
            ShardedArray xs = put(m, x, spec);
            for (int axis = 0; axis < 2; axis++) {
                for (int shift : new int[] {0, 1, -1, 2, 3, 5, 6, -7, 12, 23, 24, 25, 100}) {
                    final int ax = axis;
                    final int sh = shift;
                    Jitted f = Jit.jit(a -> a.roll(sh, ax));
                    Tracing.Traced<List<ShardedArray>> t = Tracing.record(() -> f.call(xs));
                    assertEquals(x.roll(shift, axis), t.value().get(0).gather(), () -> java.util.Arrays.toString(spec)
                            + " roll " + sh + " along " + ax);
                    assertTrue(xs.spec().isEquivalentTo(t.value().get(0).spec()), "a roll keeps the layout");
                    assertTrue(t.trace().collectives().stream().allMatch(c -> c.kind()
                            == dev.shardlings.events.Collective.PPERMUTE), () -> t.trace().collectives().toString());
                    long bound = x.nbytes() / xs.mesh().axisSize(xs.sharding().spec().padTo(2).axesAt(ax));
                    assertTrue(f.lower(xs).costAnalysis().bytesReceivedPerDevice() <= bound, "never more than a block");
                }
            }
        }
    }

    @Test
    void problem22TheDenseMoeGathersWAndTheBufferAsXlaDoes() {
        // docs/problem-2.md, part 2.2: E = 8, S = 64, D = 32, F = 48 on 4 × 2. As JAX 0.10.2's XLA does, the
        // buffer is gathered over Y (its D) and W over X (its E): 26,624 bytes per device, no all-to-all.
        Mesh m = Mesh.ofDeviceIds(IDS8, new int[] {4, 2}, "X", "Y");
        int[] routes = new int[64];
        for (int i = 0; i < routes.length; i++) {
            routes[i] = (i * 5) % 8;
        }
        NDArray w = data(8, 32, 48);
        NDArray a = data(64, 32);
        NDArray b = NDArray.fromInts(routes, 64);
        Jitted moe = Jit.jitList(xs -> {
            ShardedArray onehot = xs.get(2).oneHot(8);
            ShardedArray buffer = ShardedArray.einsum("se,sd->esd", onehot, xs.get(0));
            return List.of(ShardedArray.einsum("se,esf->sf", onehot,
                    ShardedArray.einsum("esd,edf->esf", buffer, xs.get(1))));
        }).named("moe").outShardings(P("X", "Y"));
        Object[] args = {put(m, a, "X", "Y"), put(m, w, "X", null, "Y"), put(m, b, "X")};
        Compiled c = moe.lower(args);
        String text = c.asText();
        assertEquals(0, text.split("all-to-all\\(", -1).length - 1, text);
        assertTrue(text.contains("f32[8,16,32] all-gather(") && text.contains("f32[8,32,24] all-gather("), text);
        assertEquals(2, text.split("all-gather\\(", -1).length - 1, text);
        assertEquals(26_624, c.costAnalysis().bytesReceivedPerDevice(), text);
        List<NDArray> rows = new java.util.ArrayList<>();
        for (int i = 0; i < 64; i++) {
            rows.add(a.slice(0, i, i + 1).matmul(w.take(0, routes[i])));
        }
        assertClose(NDArray.concat(0, rows), moe.call(args).get(0));
    }

    @Test
    void aTransposedLayoutMovesOnlyThePiecesOfEachNewBlock() {
        // seed 001: x + 1 constrained from P('x','y') to P('y','x'); XLA moves it with an all-to-all and a
        // collective-permute, here with collective-permutes of the pieces each device's new block needs
        Mesh m = Mesh.ofDeviceIds(IDS8, new int[] {4, 2}, "x", "y");
        NDArray x = data(16, 8, 8);
        Object[][][] cases = {
            {{"x", "y", null}, {"y", "x", null}},
            {{"x", "y", null}, {null, "y", "x"}},
            {{dev.shardlings.sharding.PartitionSpec.tuple("x", "y"), null, null},
                {null, dev.shardlings.sharding.PartitionSpec.tuple("y", "x"), null}},
            {{"y", null, "x"}, {"x", "y", null}},
        };
        for (Object[][] c : cases) {
            ShardedArray xs = put(m, x, c[0]);
            Jitted f = Jit.jit(a -> a.add(1.0).withShardingConstraint(P(c[1])));
            Tracing.Traced<List<ShardedArray>> t = Tracing.record(() -> f.call(xs));
            assertClose(x.add(NDArray.scalar(1f)), t.value().get(0));
            assertTrue(t.value().get(0).spec().isEquivalentTo(P(c[1])), t.value().get(0).spec().toString());
            // data only changes places: no gather; permutes (or one all-to-all where an axis just changes dimension)
            assertTrue(t.trace().collectives().stream().noneMatch(e -> e.kind() == dev.shardlings.events.Collective
                    .ALL_GATHER), () -> java.util.Arrays.deepToString(c) + ": " + t.trace().collectives());
            long block = x.nbytes() / 8;
            boolean permutesOnly = t.trace().collectives().stream().allMatch(e -> e.kind()
                    == dev.shardlings.events.Collective.PPERMUTE);
            assertTrue(!permutesOnly || f.lower(xs).costAnalysis().bytesReceivedPerDevice() <= block,
                    "permutes receive at most the new block: " + f.lower(xs).asText());
        }
    }

    @Test
    void aMergeReshapeKeepsTheMajorDimensionsAxesAsXlaDoes() {
        // JAX 0.10.2, Auto axes: f32[8@X, 4@Y] -> f32[32] comes out P('X') after one all-gather over Y (dimension 1);
        // f32[8@Y, 8@X] -> f32[64] comes out P('Y'); f32[8, 4@Y] -> f32[32] comes out P()
        Mesh m = Mesh.ofDeviceIds(IDS8, new int[] {4, 2}, "X", "Y");
        NDArray x = data(8, 4);
        Jitted f = Jit.jit(a -> a.reshape(32));
        Compiled c = f.lower(put(m, x, "X", "Y"));
        String text = c.asText();
        assertTrue(text.contains("all-gather(%0), dimensions={1}, replica_groups={{0,1},{2,3},{4,5},{6,7}}"), text);
        assertEquals(1, text.split("all-", -1).length - 1, text);
        assertEquals(P("X"), c.outputShardings().get(0).spec());
        assertEquals(x.reshape(32), f.call(put(m, x, "X", "Y")).get(0).gather());
        NDArray y = data(8, 8);
        assertEquals(P("Y"), Jit.jit(a -> a.reshape(64)).lower(put(m, y, "Y", "X")).outputShardings().get(0).spec());
        assertEquals(P(), f.lower(put(m, x, null, "Y")).outputShardings().get(0).spec());
        // a merge asked for whole by an out sharding moves Y into dimension 0 with one all-to-all, then reshapes
        Compiled merged = Jit.jit(a -> a.reshape(32)).outShardings(P(dev.shardlings.sharding.PartitionSpec.tuple("X",
                "Y"))).lower(put(m, x, "X", "Y"));
        assertTrue(merged.asText().contains("all-to-all(") && !merged.asText().contains("all-gather"),
                merged.asText());
        // a dimension of size 1 is not the major one of a merge: [1, 1, 2@Y] -> [1, 2] keeps Y (Problem 1.2b, X = 1)
        Mesh row = Mesh.makeMesh(new int[] {1, 2}, new String[] {"X", "Y"}, dev.shardlings.sharding.AxisType.AUTO,
                dev.shardlings.sharding.AxisType.AUTO);
        Compiled trivial = Jit.jit(a -> a.reshape(1, 1, 2).reshape(1, 2)).lower(put(row, data(1, 2), "X", "Y"));
        assertFalse(trivial.asText().contains("all-"), trivial.asText());
        assertEquals(List.of("Y"), trivial.outputShardings().get(0).spec().axesAt(1), "Y stays on the merged dimension");
        // and a split of 32@(X,Y) into [8, 4] is local
        Jitted back = Jit.jit(a -> a.reshape(8, 4));
        ShardedArray flat = put(m, x.reshape(32), dev.shardlings.sharding.PartitionSpec.tuple("X", "Y"));
        assertFalse(back.lower(flat).asText().contains("all-"), back.lower(flat).asText());
        assertEquals(x, back.call(flat).get(0).gather());
    }

    @Test
    void incompatibleDevicesAreJaxsError() {
        Mesh a = Mesh.ofDeviceIds(IDS8, new int[] {8}, "i");
        Mesh b = Mesh.ofDeviceIds(new int[] {0, 1, 2, 3, 6, 7, 4, 5}, new int[] {8}, "i");
        int[] v = new int[24];
        NDArray x = NDArray.fromInts(v, 24);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Jit.jit((p, q) -> p.add(q))
                .named("add").call(put(a, x, "i"), put(b, x, "i")));
        assertEquals("Received incompatible devices for jitted computation. Got argument args[0] of add with shape"
                + " int32[24] and with device ids [0, 1, 2, 3, 4, 5, 6, 7] on platform CPU and argument args[1] of add"
                + " with shape int32[24] and with device ids [0, 1, 2, 3, 6, 7, 4, 5] on platform CPU", e.getMessage());
    }

    @Test
    void meshesOnDisjointDeviceSubsetsAreIncompatibleAndEachRunsOnItsOwn() {
        // jax-auto.md §4: jax.devices()[:4] and jax.devices()[4:] as two meshes
        Mesh low = Mesh.ofDeviceIds(IDS4, new int[] {4}, "i");
        Mesh high = Mesh.ofDeviceIds(new int[] {4, 5, 6, 7}, new int[] {4}, "i");
        NDArray x = NDArray.fromInts(new int[24], 24);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Jit.jit((p, q) -> p.add(q))
                .named("add").call(put(low, x, "i"), put(high, x, "i")));
        assertEquals("Received incompatible devices for jitted computation. Got argument args[0] of add with shape"
                + " int32[24] and with device ids [0, 1, 2, 3] on platform CPU and argument args[1] of add"
                + " with shape int32[24] and with device ids [4, 5, 6, 7] on platform CPU", e.getMessage());
        // on its own, the upper half is an ordinary mesh: placement, jit, gather
        NDArray y = data(8, 4);
        ShardedArray placed = put(high, y, "i");
        assertEquals(List.of(4, 5, 6, 7), placed.addressableShards().stream().map(s -> s.device().id()).toList());
        ShardedArray out = Jit.jit(p -> p.sin().sum(0)).call(placed).get(0);
        assertClose(y.sin().sum(0), out);
        assertEquals(List.of(4, 5, 6, 7), out.addressableShards().stream().map(s -> s.device().id()).toList());
        IllegalArgumentException repeated = assertThrows(IllegalArgumentException.class,
                () -> Mesh.ofDeviceIds(new int[] {4, 5, 5, 7}, new int[] {4}, "i"));
        assertTrue(repeated.getMessage().contains("device ids must be distinct"), repeated.getMessage());
    }

    @Test
    void integerTrueDivisionIsFloat32EagerAndJitted() {
        Mesh m = Mesh.ofDeviceIds(IDS4, new int[] {4}, "i");
        NDArray a = NDArray.fromInts(new int[] {1, 2, 3, 4, 5, 6, 7, 8}, 8);
        NDArray b = NDArray.fromInts(new int[] {2, 2, 2, 2, 4, 4, 4, 4}, 8);
        NDArray expected = a.div(b);
        assertEquals(DType.FLOAT32, expected.dtype());
        ShardedArray eager = put(m, a, "i").div(put(m, b, "i"));
        assertEquals(DType.FLOAT32, eager.dtype());
        assertEquals(expected, eager.gather());
        ShardedArray jitted = Jit.jit((p, q) -> p.div(q)).call(put(m, a, "i"), put(m, b, "i")).get(0);
        assertEquals(DType.FLOAT32, jitted.dtype());
        assertEquals(expected, jitted.gather());
    }

    @Test
    void whereOnAutoAxesStagesGtAndSelectNAndCommunicatesNothing() {
        // JAX 0.10.2, Auto 4x2 mesh: jit(lambda a, b: jnp.where(a > 3., a, b)) with a P('X','Y'), b P('X', None)
        // comes out P('X', 'Y') with no collective
        Mesh m = Mesh.ofDeviceIds(IDS8, new int[] {4, 2}, "X", "Y");
        NDArray a = data(8, 4);
        NDArray b = data(8, 4).mul(3f);
        Jitted f = Jit.jit((p, q) -> ShardedArray.where(p.greater(3.0), p, q));
        Compiled c = f.lower(put(m, a, "X", "Y"), put(m, b, "X", null));
        String jaxpr = c.jaxpr().toString();
        assertTrue(jaxpr.contains("bool[8,4] = gt") && jaxpr.contains("= select_n"), jaxpr);
        assertEquals(P("X", "Y"), c.outputShardings().get(0).spec());
        assertFalse(c.asText().contains("all-") || c.asText().contains("collective"), c.asText());
        ShardedArray out = f.call(put(m, a, "X", "Y"), put(m, b, "X", null)).get(0);
        assertEquals(NDArray.where(a.greater(3.0), a, b), out.gather());
        // eager, with a scalar case and an int32 condition converted to bool
        ShardedArray relu = ShardedArray.where(put(m, a, "X", "Y").greater(0.0), put(m, a, "X", "Y"), 0.0);
        assertEquals(NDArray.where(a.greater(0.0), a, 0.0), relu.gather());
        NDArray ints = NDArray.arange(32).reshape(8, 4);
        ShardedArray picked = ShardedArray.where(put(m, ints.sub(16), "X", null), 1.0, put(m, ints, "X", "Y"));
        assertEquals(DType.INT32, picked.dtype());
        assertEquals(NDArray.where(ints.sub(16), 1.0, ints), picked.gather());
    }

    @Test
    void anUncommittedArgumentFollowsTheCommittedOne() {
        Mesh m = Mesh.ofDeviceIds(IDS8, new int[] {8}, "x");
        NDArray y = data(24);
        ShardedArray out = Jit.jit((p, q) -> p.add(q)).call(put(m, y, "x"), NDArray.ones(DType.FLOAT32, 24)).get(0);
        assertEquals(P("x"), out.spec());
        assertClose(y.add(1f), out);
    }

    @Test
    void aNewSignatureRetracesAndASeenOneDoesNot() {
        Mesh m = Mesh.ofDeviceIds(IDS8, new int[] {4, 2}, "x", "y");
        Jitted f = Jit.jit(a -> a.sin());
        f.call(put(m, data(8, 8), "x", "y"));
        f.call(put(m, data(8, 8), "x", "y"));
        assertEquals(1, f.traceCount());
        f.call(put(m, data(8, 8), "x", null));
        f.call(put(m, data(16, 8), "x", "y"));
        assertEquals(3, f.traceCount());
    }

    @Test
    void readingATracedValueIsAClearError() {
        Mesh m = Mesh.makeMesh(new int[] {4, 2}, "X", "Y");
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> Jit.jit(a -> ShardedArray.devicePut(a.gather(), a.sharding())).call(put(m, data(8, 4), "X", "Y")));
        assertTrue(e.getMessage().startsWith("ShardedArray.gather() was called on a traced value inside jit:"
                + " float32[8@X,4@Y] has a type"), e.getMessage());
    }

    @Test
    void jaxprShowsTheTypedEquations() {
        Mesh m = Mesh.makeMesh(new int[] {4, 2}, "X", "Y");
        Compiled c = Jit.jit(a -> a.sin().sum(0)).lower(put(m, data(8, 4), "X", "Y"));
        assertEquals("{ lambda ; a:f32[8@X,4@Y]. let\n    b:f32[8@X,4@Y] = sin a\n    c:f32[4@Y] = reduce_sum b\n"
                + "  in (c) }", c.jaxpr().toString());
    }

    @Test
    void capturedArraysAreConstantsOfTheProgram() {
        Mesh m = Mesh.ofDeviceIds(IDS8, new int[] {4, 2}, "x", "y");
        ShardedArray w = put(m, data(8, 8), null, "y");
        NDArray bias = data(8);
        ShardedArray out = Jit.jit(a -> a.matmul(w).add(bias)).call(put(m, data(8, 8), "x", null)).get(0);
        assertClose(data(8, 8).matmul(data(8, 8)).add(bias), out);
    }
}
