package dev.shardlings.jit;

import dev.shardlings.TestArrays;
import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.spmd.ShardedArray;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static dev.shardlings.sharding.PartitionSpec.P;
import static dev.shardlings.sharding.PartitionSpec.tuple;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * jit's compiled programs against XLA's: the collectives (kind, per-device operand and result shapes, device
 * groups) of the data-movement and reduction programs of issue 32's table — {@code mean()} and {@code concatenate}
 * of P('x', 'y') arrays, Problem 2.2's jitted MoE — and of every program of jax-auto.md §3.
 *
 * <p>Each expectation is the line {@code src/test/resources/jax-checks/xla_data_plans.py} prints from
 * {@code jax.jit(f).lower(...).compile().as_text()} on JAX 0.10.2 (CPU, 8 devices), quoted above it. XLA prints an
 * all-to-all's operand as its tuple of pieces ({@code 4xf32[4,1,1,2]}); here it is the block those pieces make up
 * (f32[4,8]), and its result the block after the exchange.
 */
class XlaDataPlansTest {

    private static final int[] IDS8 = {0, 1, 2, 3, 4, 5, 6, 7};
    private static final int[] IDS4 = {0, 1, 2, 3};
    private static final Mesh XY = Mesh.ofDeviceIds(IDS8, new int[] {4, 2}, "x", "y");

    private static NDArray data(int... shape) {
        return TestArrays.cyclic(3, 17, shape);
    }

    private static ShardedArray put(Mesh mesh, NDArray x, Object... spec) {
        return TestArrays.put(mesh, x, spec);
    }

    private static final Pattern LINE = Pattern.compile("^\\s*%(\\S+) = (\\S+) (\\S+?)\\((%[^),]+)[^\\n]*$",
            Pattern.MULTILINE);
    private static final Pattern TYPE = Pattern.compile("^\\s*%(\\S+) = (\\S+) ", Pattern.MULTILINE);
    private static final Pattern DIM = Pattern.compile("dimensions=\\{(\\d+)\\}");
    private static final Pattern GROUPS = Pattern.compile("replica_groups=(\\{[{}\\d,]*\\})");
    private static final List<String> KINDS = List.of("all-reduce", "all-gather", "all-to-all", "reduce-scatter",
            "collective-permute");

    /**
     * The program's collectives, one line each as xla_data_plans.py prints them:
     * {@code kind operand -> result [dim d ]groups}, groups as device ids ("all devices" where the text omits them).
     */
    static List<String> collectives(Compiled c) {
        String text = c.asText();
        Map<String, String> types = new HashMap<>();
        Matcher m = TYPE.matcher(text);
        while (m.find()) {
            types.put(m.group(1), m.group(2));
        }
        List<String> out = new ArrayList<>();
        m = LINE.matcher(text);
        while (m.find()) {
            if (!KINDS.contains(m.group(3))) {
                continue;
            }
            String line = m.group();
            Matcher dim = DIM.matcher(line);
            Matcher groups = GROUPS.matcher(line);
            boolean gathered = m.group(3).equals("all-gather") && dim.find();
            out.add(m.group(3) + " " + types.get(m.group(4).substring(1)) + " -> " + m.group(2) + " "
                    + (gathered ? "dim " + dim.group(1) + " " : "") + (groups.find() ? groups.group(1) : "all devices"));
        }
        return out;
    }

    private static void assertClose(NDArray expected, ShardedArray got) {
        NDArray g = got.gather();
        assertTrue(g.allclose(expected, 1e-5, 1e-3), () -> "expected " + expected + " got " + g);
    }

    // ---- mean() and other reductions: one all-reduce per split reduced dimension, the last dimension first ----

    @Test
    void meanOfAnXYArrayAllReducesOverYThenOverX() {
        // == mean P(x,y) f32[16,4] -> P()
        //    all-reduce f32[] -> f32[]  [[0, 1], [2, 3], [4, 5], [6, 7]]
        //    all-reduce f32[] -> f32[]  [[0, 2, 4, 6], [1, 3, 5, 7]]
        NDArray x = data(16, 4);
        ShardedArray xs = put(XY, x, "x", "y");
        Jitted mean = Jit.jit(a -> a.mean());
        assertEquals(List.of("all-reduce f32[] -> f32[] {{0,1},{2,3},{4,5},{6,7}}",
                "all-reduce f32[] -> f32[] {{0,2,4,6},{1,3,5,7}}"), collectives(mean.lower(xs)));
        assertClose(x.mean(), mean.call(xs).get(0));
        assertEquals(4 + 6, mean.lower(xs).costAnalysis().bytesReceivedPerDevice(),
                "an all-reduce receives 2(n - 1)/n of its operand: 4 B over y, 6 B over x");
    }

    @Test
    void aReductionAllReducesItsDimensionsInReverseOfTheGivenOrder() {
        // == sum axes (1,0) P(x,y) f32[16,4] -> P()
        //    all-reduce f32[] -> f32[]  [[0, 2, 4, 6], [1, 3, 5, 7]]
        //    all-reduce f32[] -> f32[]  [[0, 1], [2, 3], [4, 5], [6, 7]]
        NDArray x = data(16, 4);
        ShardedArray xs = put(XY, x, "x", "y");
        Jitted sum = Jit.jit(a -> a.sum(1, 0));
        assertEquals(List.of("all-reduce f32[] -> f32[] {{0,2,4,6},{1,3,5,7}}",
                "all-reduce f32[] -> f32[] {{0,1},{2,3},{4,5},{6,7}}"), collectives(sum.lower(xs)));
        assertClose(x.sum(), sum.call(xs).get(0));
        // == max P(x,None,y) f32[8,4,2] -> P()
        //    all-reduce f32[] -> f32[]  [[0, 1], [2, 3], [4, 5], [6, 7]]
        //    all-reduce f32[] -> f32[]  [[0, 2, 4, 6], [1, 3, 5, 7]]
        NDArray y = data(8, 4, 2);
        ShardedArray ys = put(XY, y, "x", null, "y");
        Jitted max = Jit.jit(a -> a.max());
        assertEquals(List.of("all-reduce f32[] -> f32[] {{0,1},{2,3},{4,5},{6,7}}",
                "all-reduce f32[] -> f32[] {{0,2,4,6},{1,3,5,7}}"), collectives(max.lower(ys)));
        assertClose(y.max(), max.call(ys).get(0));
    }

    @Test
    void aDimensionSplitOverTwoAxesIsOneAllReduce() {
        // == sum P((x,y),None) f32[64,8] -> P()
        //    all-reduce f32[] -> f32[]  [[0, 1, 2, 3, 4, 5, 6, 7]]
        NDArray x = data(64, 8);
        ShardedArray xs = put(XY, x, tuple("x", "y"), null);
        Jitted sum = Jit.jit(a -> a.sum());
        assertEquals(List.of("all-reduce f32[] -> f32[] all devices"), collectives(sum.lower(xs)));
        assertClose(x.sum(), sum.call(xs).get(0));
    }

    // ---- concatenate along a split dimension: all-to-alls to another dimension and back ----

    @Test
    void concatenateAlongASplitDimensionIsThreeAllToAlls() {
        // == concatenate dim 0 P(x,y) f32[16,16] -> P('x', 'y')
        //    all-to-all 4xf32[4,1,1,2] -> 4xf32[4,1,1,2]  [[0, 2, 4, 6], [1, 3, 5, 7]]
        //    all-to-all 4xf32[4,1,1,2] -> 4xf32[4,1,1,2]  [[0, 2, 4, 6], [1, 3, 5, 7]]
        //    all-to-all 4xf32[1,8,1,2] -> 4xf32[1,8,1,2]  [[0, 2, 4, 6], [1, 3, 5, 7]]
        NDArray a = data(16, 16);
        NDArray b = a.add(NDArray.scalar(100f));
        ShardedArray as = put(XY, a, "x", "y");
        ShardedArray bs = put(XY, b, "x", "y");
        Jitted cat = Jit.jitList(xs -> List.of(ShardedArray.concatenate(0, xs.get(0), xs.get(1))));
        Compiled c = cat.lower(as, bs);
        assertEquals(List.of("all-to-all f32[4,8] -> f32[16,2] {{0,2,4,6},{1,3,5,7}}",
                "all-to-all f32[4,8] -> f32[16,2] {{0,2,4,6},{1,3,5,7}}",
                "all-to-all f32[32,2] -> f32[8,8] {{0,2,4,6},{1,3,5,7}}"), collectives(c), c.asText());
        assertEquals(384, c.costAnalysis().bytesReceivedPerDevice(), "3/4 of 128 B twice, then 3/4 of 256 B");
        assertEquals(NDArray.concat(0, a, b), cat.call(as, bs).get(0).gather());
        assertTrue(P("x", "y").isEquivalentTo(cat.call(as, bs).get(0).spec()));
    }

    @Test
    void theAxesMoveToTheFirstOtherDimensionTheyDivide() {
        // == concatenate dim 1 P(x,y) f32[8,4] -> P('x', 'y')
        //    all-to-all 2xf32[1,1,1,2] -> 2xf32[1,1,1,2]  [[0, 1], [2, 3], [4, 5], [6, 7]]   (twice)
        //    all-to-all 2xf32[1,1,1,4] -> 2xf32[1,1,1,4]  [[0, 1], [2, 3], [4, 5], [6, 7]]
        NDArray a = data(8, 4);
        ShardedArray as = put(XY, a, "x", "y");
        Jitted cat = Jit.jit(v -> ShardedArray.concatenate(1, v, v));
        assertEquals(List.of("all-to-all f32[2,2] -> f32[1,4] {{0,1},{2,3},{4,5},{6,7}}",
                "all-to-all f32[2,2] -> f32[1,4] {{0,1},{2,3},{4,5},{6,7}}",
                "all-to-all f32[1,8] -> f32[2,4] {{0,1},{2,3},{4,5},{6,7}}"), collectives(cat.lower(as)));
        assertEquals(NDArray.concat(1, a, a), cat.call(as).get(0).gather());
        // == concatenate dim 2 P(None,None,x) f32[8,2,8] -> P(None, None, 'x')   (dimension 1 is too small for x)
        //    all-to-all 4xf32[1,2,2,2] -> 4xf32[1,2,2,2]  [[0, 2, 4, 6], [1, 3, 5, 7]]   (twice)
        //    all-to-all 4xf32[2,2,1,4] -> 4xf32[2,2,1,4]  [[0, 2, 4, 6], [1, 3, 5, 7]]
        NDArray t = data(8, 2, 8);
        ShardedArray ts = put(XY, t, null, null, "x");
        Jitted cat2 = Jit.jit(v -> ShardedArray.concatenate(2, v, v));
        assertEquals(List.of("all-to-all f32[8,2,2] -> f32[2,2,8] {{0,2,4,6},{1,3,5,7}}",
                "all-to-all f32[8,2,2] -> f32[2,2,8] {{0,2,4,6},{1,3,5,7}}",
                "all-to-all f32[2,2,16] -> f32[8,2,4] {{0,2,4,6},{1,3,5,7}}"), collectives(cat2.lower(ts)));
        assertEquals(NDArray.concat(2, t, t), cat2.call(ts).get(0).gather());
    }

    @Test
    void whereNoOtherDimensionCanTakeTheAxesTheOperandsAreGathered() {
        // == concatenate dim 0 P(x,y) f32[8,4] -> P('x', 'y')   (dimension 1, 4 wide, cannot be split 2 × 4 ways)
        //    all-gather f32[2,2] -> f32[8,2] dim 0  [[0, 2, 4, 6], [1, 3, 5, 7]]
        //    all-gather f32[2,2] -> f32[8,2] dim 0  [[0, 2, 4, 6], [1, 3, 5, 7]]
        NDArray a = data(8, 4);
        ShardedArray as = put(XY, a, "x", "y");
        Jitted cat = Jit.jit(v -> ShardedArray.concatenate(0, v, v));
        assertEquals(List.of("all-gather f32[2,2] -> f32[8,2] dim 0 {{0,2,4,6},{1,3,5,7}}",
                "all-gather f32[2,2] -> f32[8,2] dim 0 {{0,2,4,6},{1,3,5,7}}"), collectives(cat.lower(as)));
        assertEquals(NDArray.concat(0, a, a), cat.call(as).get(0).gather());
    }

    // ---- re-layouts (with_sharding_constraint): axes that leave are gathered before any all-to-all ----

    @Test
    void axesThatLeaveTheLayoutAreGatheredBeforeTheOthersMove() {
        Mesh m = Mesh.ofDeviceIds(IDS8, new int[] {4, 2}, "X", "Y");
        NDArray x = data(8, 64, 32);
        // == reshard (8, 64, 32) ('X', None, 'Y') -> (None, 'X', None) -> P(None, 'X')
        //    all-gather f32[2,64,16] -> f32[2,64,32] dim 2  [[0, 1], [2, 3], [4, 5], [6, 7]]
        //    all-to-all 4xf32[2,1,16,32] -> 4xf32[2,1,16,32]  [[0, 2, 4, 6], [1, 3, 5, 7]]
        ShardedArray a = put(m, x, "X", null, "Y");
        Jitted f = Jit.jit(v -> v.withShardingConstraint(P(null, "X", null)));
        assertEquals(List.of("all-gather f32[2,64,16] -> f32[2,64,32] dim 2 {{0,1},{2,3},{4,5},{6,7}}",
                "all-to-all f32[2,64,32] -> f32[8,16,32] {{0,2,4,6},{1,3,5,7}}"), collectives(f.lower(a)));
        assertEquals(x, f.call(a).get(0).gather());
        // == reshard (8, 64, 32) (None, 'X', 'Y') -> ('X', None, None) -> P('X',)
        //    all-gather f32[8,16,16] -> f32[8,16,32] dim 2  [[0, 1], [2, 3], [4, 5], [6, 7]]
        //    all-to-all 4xf32[1,2,16,32] -> 4xf32[1,2,16,32]  [[0, 2, 4, 6], [1, 3, 5, 7]]
        ShardedArray b = put(m, x, null, "X", "Y");
        Jitted g = Jit.jit(v -> v.withShardingConstraint(P("X", null, null)));
        assertEquals(List.of("all-gather f32[8,16,16] -> f32[8,16,32] dim 2 {{0,1},{2,3},{4,5},{6,7}}",
                "all-to-all f32[8,16,32] -> f32[2,64,32] {{0,2,4,6},{1,3,5,7}}"), collectives(g.lower(b)));
        assertEquals(x, g.call(b).get(0).gather());
        // == reshard (8, 64, 32) (None, 'X', 'Y') -> ('X', None, 'Y') -> P('X', None, 'Y')
        //    all-to-all 4xf32[1,2,16,16] -> 4xf32[1,2,16,16]  [[0, 2, 4, 6], [1, 3, 5, 7]]
        Jitted h = Jit.jit(v -> v.withShardingConstraint(P("X", null, "Y")));
        assertEquals(List.of("all-to-all f32[8,16,16] -> f32[2,64,16] {{0,2,4,6},{1,3,5,7}}"), collectives(h.lower(b)));
        // == reshard (64, 32) ('X', 'Y') -> (None, 'X') -> P(None, 'X')
        //    all-gather f32[16,16] -> f32[16,32] dim 1  [[0, 1], [2, 3], [4, 5], [6, 7]]
        //    all-to-all 4xf32[16,1,8] -> 4xf32[16,1,8]  [[0, 2, 4, 6], [1, 3, 5, 7]]
        NDArray y = data(64, 32);
        Jitted k = Jit.jit(v -> v.withShardingConstraint(P(null, "X")));
        assertEquals(List.of("all-gather f32[16,16] -> f32[16,32] dim 1 {{0,1},{2,3},{4,5},{6,7}}",
                "all-to-all f32[16,32] -> f32[64,8] {{0,2,4,6},{1,3,5,7}}"), collectives(k.lower(put(m, y, "X", "Y"))));
    }

    // ---- Problem 2.2: the dense MoE jitted on 4 × 2 ----

    private static Jitted moe() {
        return Jit.jitList(xs -> {
            ShardedArray onehot = xs.get(2).oneHot(8);
            ShardedArray buffer = ShardedArray.einsum("se,sd->esd", onehot, xs.get(0));
            return List.of(ShardedArray.einsum("se,esf->sf", onehot,
                    ShardedArray.einsum("esd,edf->esf", buffer, xs.get(1))));
        }).named("moe").outShardings(P("X", "Y"));
    }

    /** A, W and B of Problem 2.2 with E = 8, D = 32, F = 48 and S tokens on the 4 × 2 mesh. */
    private static Object[] moeArgs(int s) {
        Mesh m = Mesh.ofDeviceIds(IDS8, new int[] {4, 2}, "X", "Y");
        int[] routes = new int[s];
        for (int i = 0; i < routes.length; i++) {
            routes[i] = (i * 5) % 8;
        }
        return new Object[] {put(m, data(s, 32), "X", "Y"), put(m, data(8, 32, 48), "X", null, "Y"),
            put(m, NDArray.fromInts(routes, s), "X")};
    }

    private static NDArray moeExpected(Object[] args) {
        NDArray a = ((ShardedArray) args[0]).gather();
        NDArray w = ((ShardedArray) args[1]).gather();
        int[] b = ((ShardedArray) args[2]).gather().toIntArray();
        List<NDArray> rows = new ArrayList<>();
        for (int i = 0; i < b.length; i++) {
            rows.add(a.slice(0, i, i + 1).matmul(w.take(0, b[i])));
        }
        return NDArray.concat(0, rows);
    }

    @Test
    void problem22WithFewTokensKeepsTheExpertsInPlaceAsXlaDoes() {
        // == Problem 2.2 moe, S = 32 -> P('X', 'Y')
        //    all-gather f32[8,8,16] -> f32[8,8,32] dim 2  [[0, 1], [2, 3], [4, 5], [6, 7]]
        //    all-to-all 4xf32[1,2,8,32] -> 4xf32[1,2,8,32]  [[0, 2, 4, 6], [1, 3, 5, 7]]
        //    all-to-all 4xf32[2,1,8,24] -> 4xf32[2,1,8,24]  [[0, 2, 4, 6], [1, 3, 5, 7]]
        Object[] args = moeArgs(32);
        Compiled c = moe().lower(args);
        assertEquals(List.of("all-gather f32[8,8,16] -> f32[8,8,32] dim 2 {{0,1},{2,3},{4,5},{6,7}}",
                "all-to-all f32[8,8,32] -> f32[2,32,32] {{0,2,4,6},{1,3,5,7}}",
                "all-to-all f32[2,32,24] -> f32[8,8,24] {{0,2,4,6},{1,3,5,7}}"), collectives(c), c.asText());
        assertClose(moeExpected(args), moe().call(args).get(0));
    }

    /**
     * With S = 64 XLA keeps the result's and the buffer's token split and gathers the experts: 26,624 bytes per
     * device. Keeping the experts in place (as for S = 32) would move 29,696 bytes here, which is why XLA does not
     * take it; {@code DotGeneral} keeps the larger operand's free shardings first, as XLA's dot handler does, and so
     * gathers W. XLA schedules W's gather first; the order of two independent collectives is not compared.
     */
    @Test
    void problem22TheDenseMoeGathersTheExpertsAsXlaDoes() {
        // == Problem 2.2 moe -> P('X', 'Y')
        //    all-gather f32[2,32,24] -> f32[8,32,24] dim 0  [[0, 2, 4, 6], [1, 3, 5, 7]]
        //    all-gather f32[8,16,16] -> f32[8,16,32] dim 2  [[0, 1], [2, 3], [4, 5], [6, 7]]
        List<String> xla = List.of("all-gather f32[2,32,24] -> f32[8,32,24] dim 0 {{0,2,4,6},{1,3,5,7}}",
                "all-gather f32[8,16,16] -> f32[8,16,32] dim 2 {{0,1},{2,3},{4,5},{6,7}}");
        Object[] args = moeArgs(64);
        Compiled c = moe().lower(args);
        List<String> ours = collectives(c);
        assertEquals(xla.stream().sorted().toList(), ours.stream().sorted().toList(), c.asText());
        assertEquals(3 * (2 * 32 * 24 * 4) + (8 * 16 * 16 * 4), c.costAnalysis().bytesReceivedPerDevice(),
                c.asText());
        assertEquals(26_624, c.costAnalysis().bytesReceivedPerDevice());
        assertTrue(P("X", "Y").isEquivalentTo(c.outputShardings().get(0).spec()));
        assertClose(moeExpected(args), moe().call(args).get(0));
    }

    // ---- jax-auto.md §3: what the compiler chose on Auto axes ----

    @Test
    void elementwiseDotAndCopyOnTheirOperandsLayoutsMoveNothing() {
        // == sin P(a,b) f32[8,8] -> P('a', 'b')                    (no collective)
        // == dot P(a,None) . P(None,b) f32[8,8] -> P('a', 'b')     (no collective)
        // == copy P(a,b) -> P('a', 'b')                            (no collective)
        Mesh ab = Mesh.ofDeviceIds(IDS8, new int[] {4, 2}, "a", "b");
        NDArray x = data(8, 8);
        ShardedArray xs = put(ab, x, "a", "b");
        for (Jitted f : List.of(Jit.jit(ShardedArray::sin), Jit.jit(ShardedArray::copy))) {
            Compiled c = f.lower(xs);
            assertEquals(List.of(), collectives(c), c.asText());
            assertTrue(P("a", "b").isEquivalentTo(c.outputShardings().get(0).spec()));
        }
        Jitted dot = Jit.jitList(v -> List.of(v.get(0).matmul(v.get(1))));
        Compiled c = dot.lower(put(ab, x, "a", null), put(ab, x, null, "b"));
        assertEquals(List.of(), collectives(c), c.asText());
        assertTrue(P("a", "b").isEquivalentTo(c.outputShardings().get(0).spec()));
    }

    @Test
    void aConstraintToTheTransposedLayoutIsOneRelayoutAndToReplicatedTwoGathers() {
        NDArray x = data(64, 64);
        ShardedArray xs = put(XY, x, "x", "y");
        // == x + 1 constrained to P(y,x) f32[64,64] -> P('y', 'x')
        //    all-to-all 2xf32[16,1,16] -> 2xf32[16,1,16]  [[0, 2], [1, 3], [4, 6], [5, 7]]
        //    collective-permute f32[32,16] -> f32[32,16]  pairs {0,0},{2,2},{1,4},{3,6},{4,1},{6,3},{5,5},{7,7}
        // XLA's all-to-all + collective-permute pair is one relayout step here (the issue allows it): each device
        // receives the pieces of its new block by collective-permutes
        Compiled t = Jit.jit(a -> a.add(1.0).withShardingConstraint(P("y", "x"))).lower(xs);
        assertEquals(List.of("collective-permute f32[16,32] -> f32[32,16] all devices"), collectives(t), t.asText());
        assertTrue(t.asText().contains("layout P('x', 'y') -> P('y', 'x')"), t.asText());
        // == x + 1 constrained to P() f32[64,64] -> P()
        //    all-gather f32[16,32] -> f32[16,64] dim 1  [[0, 1], [2, 3], [4, 5], [6, 7]]
        //    all-gather f32[16,64] -> f32[64,64] dim 0  [[0, 2, 4, 6], [1, 3, 5, 7]]
        Compiled r = Jit.jit(a -> a.add(1.0).withShardingConstraint(P())).lower(xs);
        assertEquals(List.of("all-gather f32[16,32] -> f32[16,64] dim 1 {{0,1},{2,3},{4,5},{6,7}}",
                "all-gather f32[16,64] -> f32[64,64] dim 0 {{0,2,4,6},{1,3,5,7}}"), collectives(r), r.asText());
    }

    @Test
    void seed002sEinsumAllReducesOverYWithOrWithoutOutShardings() {
        // == einsum bd,df->bf out P(X,None) 2x2 -> P('X', None)
        //    all-reduce f32[4,512] -> f32[4,512]  [[0, 1], [2, 3]]
        // == einsum bd,df->bf no out 2x2 -> P('X',)
        //    all-reduce f32[4,512] -> f32[4,512]  [[0, 1], [2, 3]]
        Mesh m = Mesh.ofDeviceIds(IDS4, new int[] {2, 2}, "X", "Y");
        ShardedArray in = put(m, data(8, 256), "X", "Y");
        ShardedArray w = put(m, data(256, 512), "Y", null);
        Jitted given = Jit.jitList(v -> List.of(ShardedArray.einsum("bd,df->bf", v.get(0).square(), v.get(1))))
                .outShardings(P("X", null));
        Jitted chosen = Jit.jitList(v -> List.of(ShardedArray.einsum("bd,df->bf", v.get(0).square(), v.get(1))));
        for (Jitted f : List.of(given, chosen)) {
            Compiled c = f.lower(in, w);
            assertEquals(List.of("all-reduce f32[4,512] -> f32[4,512] {{0,1},{2,3}}"), collectives(c), c.asText());
            assertTrue(P("X", null).isEquivalentTo(c.outputShardings().get(0).spec()));
        }
    }

    @Test
    void seed000sMatmulCasesOneToThree() {
        Mesh m = Mesh.ofDeviceIds(IDS4, new int[] {2, 2}, "x", "y");
        NDArray a = data(4, 4);
        Jitted matmul = Jit.jitList(v -> List.of(v.get(0).matmul(v.get(1))));
        // == matmul case 1 2x2 -> P('x', 'y')   (no collective)
        Compiled c1 = matmul.lower(put(m, a, "x", null), put(m, a, null, "y"));
        assertEquals(List.of(), collectives(c1), c1.asText());
        assertTrue(P("x", "y").isEquivalentTo(c1.outputShardings().get(0).spec()));
        // == matmul case 2 2x2 -> P()
        //    all-gather f32[4,2] -> f32[4,4] dim 1  [[0, 2], [1, 3]]
        Compiled c2 = matmul.lower(put(m, a, null, "x"), put(m, a));
        assertEquals(List.of("all-gather f32[4,2] -> f32[4,4] dim 1 {{0,2},{1,3}}"), collectives(c2), c2.asText());
        assertTrue(P().isEquivalentTo(c2.outputShardings().get(0).spec()));
        // == matmul case 3 2x2 -> P()
        //    all-reduce f32[4,4] -> f32[4,4]  [[0, 2], [1, 3]]
        Compiled c3 = matmul.lower(put(m, a, null, "x"), put(m, a, "x", null));
        assertEquals(List.of("all-reduce f32[4,4] -> f32[4,4] {{0,2},{1,3}}"), collectives(c3), c3.asText());
        assertTrue(P().isEquivalentTo(c3.outputShardings().get(0).spec()));
    }

    @Test
    void problem1sJitProgramsMoveNothingAndAPlainRollSendsTheWrappedRows() {
        Mesh m = Mesh.ofDeviceIds(IDS8, new int[] {4, 2}, "X", "Y");
        NDArray x = NDArray.arange(512 * 8, DType.INT32).reshape(512, 8);
        ShardedArray xs = put(m, x, "X", "Y");
        // == Problem 1 average -> P('X', 'Y')      (no collective)
        Compiled average = Jit.jit(v -> v.reshape(4, 128, 2, 4).mean(1, 3)).outShardings(P("X", "Y")).lower(xs);
        assertEquals(List.of(), collectives(average), average.asText());
        // == Problem 1 shift_jit -> P('X', 'Y')    (no collective)
        Compiled shift = Jit.jit(v -> v.reshape(4, 128, 8).roll(5, 1).reshape(512, 8).sub(v))
                .outShardings(P("X", "Y")).lower(xs);
        assertEquals(List.of(), collectives(shift), shift.asText());
        // == roll 5 axis 0 -> P('X', 'Y')
        //    collective-permute s32[5,4] -> s32[5,4]  pairs {0,2},{1,3},{2,4},{3,5},{4,6},{5,7},{6,0},{7,1}
        // one collective-permute over X of the 5 rows that wrap past each block (s32[5,4], 80 bytes; the text here
        // shows the block it completes)
        Compiled roll = Jit.jit(v -> v.roll(5, 0)).lower(xs);
        List<String> steps = collectives(roll);
        assertEquals(1, steps.size(), roll.asText());
        assertTrue(steps.get(0).startsWith("collective-permute i32[128,4] -> i32[128,4]"), steps.get(0));
        assertTrue(roll.asText().contains("dimension=0, shift=5, over axes [X]"), roll.asText());
        assertEquals(5 * 4 * 4, roll.costAnalysis().bytesReceivedPerDevice());
        assertTrue(P("X", "Y").isEquivalentTo(roll.outputShardings().get(0).spec()));
    }
}
