package dev.shardlings.spmd;

import dev.shardlings.TestArrays;
import dev.shardlings.array.NDArray;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.events.Collective;
import dev.shardlings.events.Trace;
import dev.shardlings.events.TraceEvent;
import dev.shardlings.events.Tracing;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.function.Supplier;

import static dev.shardlings.sharding.PartitionSpec.P;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What global-view operations communicate: the collectives each device ran (kinds and axes, from the trace), the
 * result's layout and its values against the same computation on whole arrays. Explicit rows follow
 * jax-auto.md §2; the Auto rows are the eager forms of §3's seed programs.
 */
class GlobalOpsCommunicationTest {

    private static final Mesh XY = Mesh.makeMesh(new int[] {4, 2}, "X", "Y");

    private static NDArray data(int... shape) {
        return TestArrays.cyclic(5, 13, shape);
    }

    private static ShardedArray put(Mesh mesh, NDArray x, Object... spec) {
        return TestArrays.put(mesh, x, spec);
    }

    private record Run(ShardedArray out, Trace trace) {
        /** One line per collective kind and axes, as device 0 ran them, in order. */
        List<String> collectives() {
            return trace.shardMaps().stream().flatMap(s -> s.devices().get(0).collectives().stream())
                    .map(c -> c.kind().jaxName() + c.axes()).toList();
        }
    }

    private static Run run(Supplier<ShardedArray> program) {
        Tracing.Traced<ShardedArray> t = Tracing.record(program);
        return new Run(t.value(), t.trace());
    }

    /**
     * The run's collectives after checking they are what a change of places needs: ppermutes only (at most one
     * per distance round the 8 devices), and no gather.
     */
    private static String[] permutes(Run r) {
        List<String> cs = r.collectives();
        assertTrue(!cs.isEmpty() && cs.size() <= 7 && cs.stream().allMatch(c -> c.startsWith("ppermute")), cs.toString());
        return cs.toArray(new String[0]);
    }

    private static void check(Run r, String type, NDArray expected, String... collectives) {
        assertEquals(type, r.out().type().toString());
        assertEquals(List.of(collectives), r.collectives());
        NDArray got = r.out().gather();
        assertTrue(got.allclose(expected, 1e-5, 1e-4), () -> "values differ: expected " + expected + " got " + got);
    }

    @Test
    void elementwiseAndFreeDimensionMatmulsMoveNothing() {
        NDArray a = data(8, 4);
        check(run(() -> put(XY, a, "X", "Y").sin()), "float32[8@X,4@Y]", a.sin());
        check(run(() -> put(XY, a, "X", "Y").add(put(XY, a, "X", null))), "float32[8@X,4@Y]", a.add(a));
        NDArray s = data(8, 8);
        check(run(() -> put(XY, s, "X", null).matmul(put(XY, s, null, "Y"))), "float32[8@X,8@Y]", s.matmul(s));
        check(run(() -> put(XY, a, "X", "Y").transpose()), "float32[4@Y,8@X]", a.transpose());
        check(run(() -> put(XY, a, "X", "Y").reshape(4, 2, 4)), "float32[4@X,2,4@Y]", a.reshape(4, 2, 4));
    }

    @Test
    void aContractedShardedDimensionIsSummedThenSlicedAsTheOutShardingSays() {
        NDArray s = data(8, 8);
        check(run(() -> put(XY, s, null, "X").matmul(put(XY, s, "X", null), P())), "float32[8,8]", s.matmul(s),
                "psum[X]");
        // XLA:CPU creates no reduce-scatter, and on 4 x 2 too few devices are idle for shares of the rows
        // (jit/XlaMatmulPlansTest); JAX 0.10.2, Explicit axes, jnp.matmul(a, b, out_sharding=P('x', None)):
        // %all-reduce = f32[8,8]{1,0} all-reduce(%ynn_fusion), replica_groups=mesh['axis_0'=4,'axis_1'=1,'axis_2'=2]
        //     {'axis_0'}, to_apply=%add.clone
        check(run(() -> put(XY, s, null, "X").matmul(put(XY, s, "X", null), P("X", null))), "float32[8@X,8]",
                s.matmul(s), "psum[X]");
    }

    @Test
    void aContractionSplitOnOneSideGathersAnOperandReplicatedOverAnotherAxis() {
        // XLA's rule (jax-checks/seed000_matmul_plans.py): the replicated operand is sliced and the result summed only
        // when the split operand fills its device group; split over X but replicated over Y, it is gathered whatever
        // the sizes. JAX 0.10.2 on this 4 x 2 mesh: f32[8,8] all-gather for 8x8 · 8x8, f32[2,64] all-gather for
        // 2x64 · 64x2.
        NDArray s = data(8, 8);
        check(run(() -> put(XY, s, null, "X").matmul(put(XY, s))), "float32[8,8]", s.matmul(s), "all_gather[X]");
        NDArray tall = data(2, 64);
        NDArray w = data(64, 2);
        check(run(() -> put(XY, tall, null, "X").matmul(put(XY, w))), "float32[2,2]", tall.matmul(w),
                "all_gather[X]");
    }

    @Test
    void reductionsOverShardedDimensionsReduceAcrossDevices() {
        NDArray a = data(8, 4);
        check(run(() -> put(XY, a, "X", "Y").sum(0)), "float32[4@Y]", a.sum(0), "psum[X]");
        check(run(() -> put(XY, a, "X", "Y").max(1)), "float32[8@X]", a.max(1), "pmax[Y]");
        // XLA's plan (issue 32): one all-reduce per split reduced dimension, the last first
        check(run(() -> put(XY, a, "X", "Y").mean()), "float32[]", a.mean(), "psum[Y]", "psum[X]");
    }

    @Test
    void reshardMovesWithAllToAllWhereAnAxisChangesDimensionAndGathersWhereItLeaves() {
        NDArray a = data(8, 8);
        check(run(() -> put(XY, a, "X", null).reshard(P(null, "X"))), "float32[8,8@X]", a, "all_to_all[X]");
        check(run(() -> put(XY, a, "X", "Y").reshard(P())), "float32[8,8]", a, "all_gather[Y]", "all_gather[X]");
        // a transposed layout only changes places: each device receives the pieces of its new block (XLA: an
        // all-to-all and a collective-permute)
        Run transposed = run(() -> put(XY, a, "X", "Y").reshard(P("Y", "X")));
        check(transposed, "float32[8@Y,8@X]", a, permutes(transposed));
        check(run(() -> put(XY, a, "X", null).reshard(P("X", "Y"))), "float32[8@X,8@Y]", a);
    }

    @Test
    void rollingByAShiftTheAxesDivideGathersTheSplitDimension() {
        NDArray a = data(8, 4);
        Run r = run(() -> put(XY, a, "X", "Y").roll(4, 0));
        // both slices and the concatenate gather the split dimension (XLA would use a collective-permute instead)
        check(r, "float32[8@X,4@Y]", a.roll(4, 0), "all_gather[X]", "all_gather[X]", "all_gather[X]",
                "all_gather[X]");
    }

    // ---------------------------------------------------------------------------- Auto axes (jax-auto.md §3)

    private static final Mesh AB = Mesh.ofDeviceIds(new int[] {0, 1, 2, 3, 4, 5, 6, 7}, new int[] {4, 2}, "a", "b");

    @Test
    void autoSeed001SinDotAndCopyKeepTheirLayoutsWithoutCommunication() {
        NDArray x = data(8, 8);
        Run sin = run(() -> put(AB, x, "a", "b").sin());
        check(sin, "float32[8,8]", x.sin());
        assertEquals(P("a", "b"), sin.out().spec());
        Run dot = run(() -> put(AB, x, "a", null).matmul(put(AB, x, null, "b")));
        check(dot, "float32[8,8]", x.matmul(x));
        assertEquals(P("a", "b"), dot.out().spec());
        Run copy = run(() -> put(AB, x, "a", "b").copy());
        check(copy, "float32[8,8]", x);
        assertEquals(P("a", "b"), copy.out().spec());
    }

    @Test
    void autoConstraintsReLayOutTheValue() {
        Mesh xy = Mesh.ofDeviceIds(new int[] {0, 1, 2, 3, 4, 5, 6, 7}, new int[] {4, 2}, "x", "y");
        NDArray x = data(64, 64);
        Run t = run(() -> put(xy, x, "x", "y").add(1.0).withShardingConstraint(P("y", "x")));
        check(t, "float32[64,64]", x.add(1f), permutes(t));
        assertEquals(P("y", "x"), t.out().spec());
        Run rep = run(() -> put(xy, x, "x", "y").add(1.0).withShardingConstraint(P()));
        check(rep, "float32[64,64]", x.add(1f), "all_gather[y]", "all_gather[x]");
        assertEquals(P(), rep.out().spec());
    }

    @Test
    void autoSeed002EinsumWithSquareSumsOverYAndKeepsRowsOnX() {
        Mesh m = Mesh.ofDeviceIds(new int[] {0, 1, 2, 3}, new int[] {2, 2}, "X", "Y");
        NDArray in = data(8, 32);
        NDArray w = data(32, 16);
        Run r = run(() -> put(m, in, "X", "Y").square().matmul(put(m, w, "Y", null)));
        check(r, "float32[8,16]", in.square().matmul(w), "psum[Y]");
        assertEquals(P("X"), r.out().spec()); // JAX prints P('X',) here too
        TraceEvent.CollectiveEvent psum = r.trace().shardMaps().get(1).devices().get(0).collectives().get(0);
        assertEquals(List.of(4, 16), psum.inputShape());
    }

    @Test
    void autoSeed000MatmulCases() {
        Mesh m = Mesh.ofDeviceIds(new int[] {0, 1, 2, 3}, new int[] {2, 2}, "x", "y");
        NDArray a = data(16, 16);
        Run c1 = run(() -> put(m, a, "x", null).matmul(put(m, a, null, "y")));
        check(c1, "float32[16,16]", a.matmul(a));
        assertEquals(P("x", "y"), c1.out().spec());
        Run c2 = run(() -> put(m, a, null, "x").matmul(put(m, a)));
        check(c2, "float32[16,16]", a.matmul(a), "all_gather[x]");
        assertEquals(P(), c2.out().spec());
        Run c3 = run(() -> put(m, a, null, "x").matmul(put(m, a, "x", null)));
        check(c3, "float32[16,16]", a.matmul(a), "psum[x]");
        assertEquals(P(), c3.out().spec());
    }
}
