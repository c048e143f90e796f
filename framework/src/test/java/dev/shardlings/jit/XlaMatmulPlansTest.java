package dev.shardlings.jit;

import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.NamedSharding;
import dev.shardlings.sharding.PartitionSpec;
import dev.shardlings.spmd.ShardedArray;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static dev.shardlings.sharding.PartitionSpec.P;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * jit's matmul programs pinned against XLA's: for seed 000's four sharded-matmul cases, issue 32's table rows, and
 * the contractions behind chapter 5's rule table, the compiled program has XLA's collectives in XLA's order — the
 * same kinds, per-device shapes and device groups (replica groups, or a collective-permute's source-target pairs)
 * — the same output sharding, and the values of the product on whole arrays.
 *
 * Also seed 001's jitted gradient step and seed 002's jitted programs; where this partitioner still differs from
 * XLA, the test says how and pins this partitioner's plan.
 *
 * <p>Sources of the expectations, in {@code src/test/resources/jax-checks/}: {@code seed000_matmul_plans.py},
 * {@code seed001_network_plans.py}, {@code seed002_programs.py} (JAX 0.10.2 on CPU, Auto axes; how to run each is in
 * its first lines). XLA's lines are quoted above each case; XLA writes groups over a
 * mesh axis as {@code mesh['axis_0'=1,'axis_1'=2,'axis_2'=2] {'axis_1'}}, which is x on the 2×2 mesh: groups
 * {{0,2},{1,3}} (and y: {{0,1},{2,3}}).
 */
class XlaMatmulPlansTest {

    private static final int[] IDS4 = {0, 1, 2, 3};
    private static final Mesh M22 = Mesh.ofDeviceIds(IDS4, new int[] {2, 2}, "x", "y");
    private static final Mesh M4 = Mesh.ofDeviceIds(IDS4, new int[] {4}, "x");
    private static final Pattern STEP = Pattern.compile(
            "= (\\w+\\[[\\d,]*\\]) (all-reduce|all-gather|collective-permute|all-to-all|reduce-scatter)\\(%[\\w.]+\\)"
                    + "(?:, dimensions=(\\{[\\d,]*\\}))?(?:.*replica_groups=(\\{[{}\\d,]*\\}))?"
                    + "(?:.*source_target_pairs=(\\{[{}\\d,]*\\}))?");

    /** The program's collectives, one line each: per-device shape, kind, dimensions, device groups. */
    static List<String> collectives(Compiled c, Mesh mesh) {
        List<String> out = new ArrayList<>();
        for (String line : c.asText().split("\n")) {
            Matcher m = STEP.matcher(line);
            if (!m.find()) {
                continue;
            }
            String groups = m.group(5) != null ? sortedPairs(m.group(5))
                    : m.group(4) != null ? m.group(4) : allDevices(mesh);
            out.add(m.group(1) + " " + m.group(2) + (m.group(3) != null ? " dimensions=" + m.group(3) : "") + " "
                    + groups);
        }
        return out;
    }

    private static String allDevices(Mesh mesh) {
        StringBuilder s = new StringBuilder("{{");
        for (int i = 0; i < mesh.size(); i++) {
            s.append(i == 0 ? "" : ",").append(mesh.devices().get(i).id());
        }
        return s.append("}}").toString();
    }

    /** Source-target pairs in source order (XLA prints them in either order). */
    private static String sortedPairs(String pairs) {
        String[] p = pairs.substring(2, pairs.length() - 2).split("\\},\\{");
        Arrays.sort(p);
        return "{{" + String.join("},{", p) + "}}";
    }

    private static NDArray data(int rows, int cols) {
        return NDArray.arange(rows * cols).reshape(rows, cols).astype(DType.FLOAT32);
    }

    private static ShardedArray put(Mesh mesh, NDArray x, PartitionSpec spec) {
        return ShardedArray.devicePut(x, new NamedSharding(mesh, spec));
    }

    /** Compiles a @ b, checks XLA's collectives, output sharding and the values; returns the compiled program. */
    private static Compiled check(Mesh mesh, int[] aShape, PartitionSpec sa, int[] bShape, PartitionSpec sb,
                                  PartitionSpec out, PartitionSpec expectedOut, String... xla) {
        NDArray a = data(aShape[0], aShape[1]);
        NDArray b = data(bShape[0], bShape[1]);
        Jitted f = Jit.jit((p, q) -> p.matmul(q));
        if (out != null) {
            f = f.outShardings(out);
        }
        Compiled c = f.lower(put(mesh, a, sa), put(mesh, b, sb));
        assertEquals(List.of(xla), collectives(c, mesh), c.asText());
        ShardedArray got = f.call(put(mesh, a, sa), put(mesh, b, sb)).get(0);
        assertEquals(new NamedSharding(mesh, expectedOut).spec(), Tracer.trimmed(got.spec()), c.asText());
        NDArray whole = got.gather();
        // a sum over devices adds in another order than one matmul: equal up to rounding
        assertTrue(whole.allclose(a.matmul(b), 1e-6, 0), () -> "expected " + a.matmul(b) + " got " + whole);
        return c;
    }

    @Test
    void case1NoShardedContractingDimensionCommunicatesNothing() {
        // XLA: no collective; out P('x', 'y')
        check(M22, new int[] {4, 4}, P("x", null), new int[] {4, 4}, P(null, "y"), null, P("x", "y"));
    }

    @Test
    void case2OneOperandSplitOnJIsGathered() {
        // %all-gather = f32[4,4]{0,1} all-gather(%wrapped_copy), channel_id=1,
        //     replica_groups=mesh['axis_0'=1,'axis_1'=2,'axis_2'=2] {'axis_1'}, dimensions={1}
        check(M22, new int[] {4, 4}, P(null, "x"), new int[] {4, 4}, P(), null, P(),
                "f32[4,4] all-gather dimensions={1} {{0,2},{1,3}}");
    }

    @Test
    void case3BothSplitAlikeIsOneAllReduce() {
        // ROOT %all-reduce = f32[4,4]{1,0} all-reduce(%dot), channel_id=1,
        //     replica_groups=mesh['axis_0'=1,'axis_1'=2,'axis_2'=2] {'axis_1'}, to_apply=%add.clone
        check(M22, new int[] {4, 4}, P(null, "x"), new int[] {4, 4}, P("x", null), null, P(),
                "f32[4,4] all-reduce {{0,2},{1,3}}");
    }

    /** A mesh of devices 0 … n−1 in order. */
    private static Mesh mesh(int[] sizes, String... names) {
        int n = 1;
        for (int s : sizes) {
            n *= s;
        }
        int[] ids = new int[n];
        for (int i = 0; i < n; i++) {
            ids[i] = i;
        }
        return Mesh.ofDeviceIds(ids, sizes, names);
    }

    @Test
    void case3WithRowsOverXComputesSharesOfTheRowsOnTheIdleDevicesThenPermutes() {
        // Issue 32's table row 1 (Problem 5.2's setting). XLA:CPU creates no reduce-scatter: the idle y devices each
        // take the major part of their index's share of the rows (A sliced before the dot, so the FLOPs halve), the
        // all-reduce over x carries f32[I/2, K], and a collective-permute moves every block onto x.
        // %all-reduce = f32[2,4]{1,0} all-reduce(%dot), channel_id=1,
        //     replica_groups=mesh['axis_0'=1,'axis_1'=2,'axis_2'=2] {'axis_1'}, to_apply=%add.clone
        // ROOT %collective-permute = f32[2,4]{1,0} collective-permute(%all-reduce), channel_id=2,
        //     source_target_pairs={{0,0},{2,1},{1,2},{3,3}}
        check(M22, new int[] {4, 4}, P(null, "x"), new int[] {4, 4}, P("x", null), P("x", null), P("x"),
                "f32[2,4] all-reduce {{0,2},{1,3}}", "f32[2,4] collective-permute {{0,0},{1,2},{2,1},{3,3}}");
        // 2 × 4: the major half of y's index picks the rows
        // %all-reduce = f32[2,8]{1,0} all-reduce(%ynn_fusion), replica_groups=mesh['axis_0'=1,'axis_1'=2,'axis_2'=4]
        //     {'axis_1'} (x: {{0,4},{1,5},{2,6},{3,7}})
        // ROOT %collective-permute = f32[2,8]{1,0} collective-permute(%all-reduce),
        //     source_target_pairs={{0,0},{1,1},{4,2},{5,3},{2,4},{3,5},{6,6},{7,7}}
        check(mesh(new int[] {2, 4}, "x", "y"), new int[] {4, 8}, P(null, "x"), new int[] {8, 8}, P("x", null),
                P("x", null), P("x"), "f32[2,8] all-reduce {{0,4},{1,5},{2,6},{3,7}}",
                "f32[2,8] collective-permute {{0,0},{1,1},{2,4},{3,5},{4,2},{5,3},{6,6},{7,7}}");
        // 2 × 6: y's index split 2 (major) × 3
        // %all-reduce = f32[2,6]{1,0} all-reduce(%dot), replica_groups=mesh['axis_0'=1,'axis_1'=2,'axis_2'=6] {'axis_1'}
        // ROOT %collective-permute = f32[2,6]{1,0} collective-permute(%all-reduce), source_target_pairs={{0,0},{1,1},
        //     {2,2},{6,3},{7,4},{8,5},{3,6},{4,7},{5,8},{9,9},{10,10},{11,11}}
        check(mesh(new int[] {2, 6}, "x", "y"), new int[] {4, 12}, P(null, "x"), new int[] {12, 6}, P("x", null),
                P("x", null), P("x"), "f32[2,6] all-reduce {{0,6},{1,7},{2,8},{3,9},{4,10},{5,11}}",
                "f32[2,6] collective-permute {{0,0},{1,1},{10,10},{11,11},{2,2},{3,6},{4,7},{5,8},{6,3},{7,4},{8,5},"
                        + "{9,9}}");
        // 4 × 2 and 4 × 1: too few idle devices for four shares; the whole product is all-reduced, then sliced
        // %all-reduce = f32[8,4]{1,0} all-reduce(%ynn_fusion), replica_groups=mesh['axis_0'=4,'axis_1'=1,'axis_2'=2]
        //     {'axis_0'} (x: {{0,2,4,6},{1,3,5,7}})
        check(mesh(new int[] {4, 2}, "x", "y"), new int[] {8, 8}, P(null, "x"), new int[] {8, 4}, P("x", null),
                P("x", null), P("x"), "f32[8,4] all-reduce {{0,2,4,6},{1,3,5,7}}");
        // %all-reduce = f32[8,2]{1,0} all-reduce(%broadcast_multiply_fusion), replica_groups=mesh['axis_0'=4,
        //     'axis_1'=1] {'axis_0'}
        check(mesh(new int[] {4, 1}, "x", "y"), new int[] {8, 4}, P(null, "x"), new int[] {4, 2}, P("x", null),
                P("x", null), P("x"), "f32[8,2] all-reduce {{0,1,2,3}}");
    }

    @Test
    void case3SharesFollowTheSplitDimensionAndTheIdleAxes() {
        // columns asked for over x: the same plan on the columns
        // %all-reduce = f32[4,2]{1,0} all-reduce(%dot), {'axis_1'} (x)
        // ROOT %collective-permute = f32[4,2]{1,0} collective-permute(%all-reduce), source_target_pairs={{0,0},{2,1},
        //     {1,2},{3,3}}
        check(M22, new int[] {4, 4}, P(null, "x"), new int[] {4, 4}, P("x", null), P(null, "x"), P(null, "x"),
                "f32[4,2] all-reduce {{0,2},{1,3}}", "f32[4,2] collective-permute {{0,0},{1,2},{2,1},{3,3}}");
        // P('x', 'y'): y splits the columns, no device is idle: all-reduce, then slice
        // %all-reduce = f32[4,2]{1,0} all-reduce(%dot), replica_groups=mesh['axis_0'=2,'axis_1'=2] {'axis_0'}
        check(M22, new int[] {4, 4}, P(null, "x"), new int[] {4, 4}, P("x", null), P("x", "y"), P("x", "y"),
                "f32[4,2] all-reduce {{0,2},{1,3}}");
        // 2 × 2 × 2, J over z: the idle (x, y) devices take shares by x, the major part of their index
        // %all-reduce = f32[4,8]{1,0} all-reduce(%ynn_fusion), replica_groups=mesh['axis_0'=1,'axis_1'=2,'axis_2'=4],
        //     device_ids=([4,2]T(1,0)) {'axis_1'} (z: {{0,1},{2,3},{4,5},{6,7}})
        // ROOT %collective-permute = f32[4,8]{1,0} collective-permute(%all-reduce),
        //     source_target_pairs={{0,0},{1,2},{2,4},{3,6},{4,1},{5,3},{6,5},{7,7}}
        check(mesh(new int[] {2, 2, 2}, "x", "y", "z"), new int[] {8, 8}, P(null, "z"), new int[] {8, 8},
                P("z", null), P("z", null), P("z"), "f32[4,8] all-reduce {{0,1},{2,3},{4,5},{6,7}}",
                "f32[4,8] collective-permute {{0,0},{1,2},{2,4},{3,6},{4,1},{5,3},{6,5},{7,7}}");
    }

    @Test
    void case4BothFreeDimensionsOverXRegroupsTheOtherOperandThenGathers() {
        // %collective-permute = f32[4,2]{0,1} collective-permute(%wrapped_copy), channel_id=1,
        //     source_target_pairs={{0,0},{1,2},{2,1},{3,3}}
        // %all-gather = f32[4,4]{0,1} all-gather(%collective-permute), channel_id=2, replica_groups={{0,1},{2,3}},
        //     dimensions={1}
        check(M22, new int[] {4, 4}, P("x", null), new int[] {4, 4}, P(null, "x"), null, P("x"),
                "f32[4,2] collective-permute {{0,0},{1,2},{2,1},{3,3}}",
                "f32[4,4] all-gather dimensions={1} {{0,1},{2,3}}");
        // the larger operand keeps its axis: here B, so A is regrouped and gathered
        // %collective-permute = f32[4,4]{1,0} collective-permute(%param), source_target_pairs={{0,0},{1,2},{2,1},{3,3}}
        // %all-gather = f32[8,4]{1,0} all-gather(%collective-permute), replica_groups={{0,1},{2,3}}, dimensions={0}
        check(M22, new int[] {8, 4}, P("x", null), new int[] {4, 16}, P(null, "x"), null, P(null, "x"),
                "f32[4,4] collective-permute {{0,0},{1,2},{2,1},{3,3}}",
                "f32[8,4] all-gather dimensions={0} {{0,1},{2,3}}");
    }

    @Test
    void tableRow2AContractingAxisTheResultKeepsIsRegroupedOntoY() {
        // A[I, J_x] · B[J, K_x]:
        // %collective-permute = f32[4,2]{1,0} collective-permute(%param), source_target_pairs={{0,0},{1,2},{2,1},{3,3}}
        // ROOT %all-reduce = f32[4,2]{1,0} all-reduce(%dot), replica_groups={{0,1},{2,3}}, to_apply=%add.clone
        check(M22, new int[] {4, 4}, P(null, "x"), new int[] {4, 4}, P(null, "x"), null, P(null, "x"),
                "f32[4,2] collective-permute {{0,0},{1,2},{2,1},{3,3}}", "f32[4,2] all-reduce {{0,1},{2,3}}");
        // A[I_x, J] · B[J_x, K]:
        // %collective-permute = f32[2,4]{1,0} collective-permute(%param.1), source_target_pairs={{0,0},{1,2},{2,1},{3,3}}
        // ROOT %all-reduce = f32[2,4]{1,0} all-reduce(%dot), replica_groups={{0,1},{2,3}}, to_apply=%add.clone
        check(M22, new int[] {4, 4}, P("x", null), new int[] {4, 4}, P("x", null), null, P("x"),
                "f32[2,4] collective-permute {{0,0},{1,2},{2,1},{3,3}}", "f32[2,4] all-reduce {{0,1},{2,3}}");
    }

    @Test
    void jSplitOverDifferentAxesOfEqualSizeMovesTheSmallerOperandAndTheLhsOnATie() {
        // JAX 0.10.2 on 2 × 2 (jax-checks/tie_plans.py):
        // f32[4,8] P(None,'x') · f32[8,4] P('y',None) (equal sizes, the lhs moves onto y):
        // %collective-permute = f32[4,4]{1,0} collective-permute(%param), source_target_pairs={{0,0},{1,2},{2,1},{3,3}}
        // ROOT %all-reduce = f32[4,4]{1,0} all-reduce(%dot), replica_groups=[2,2]<=[2,2]T(1,0) {'axis_1'} (= {{0,1},{2,3}})
        check(M22, new int[] {4, 8}, P(null, "x"), new int[] {8, 4}, P("y", null), null, P(),
                "f32[4,4] collective-permute {{0,0},{1,2},{2,1},{3,3}}", "f32[4,4] all-reduce {{0,1},{2,3}}");
        // f32[16,8] P(None,'x') · f32[8,4] P('y',None) (the lhs is larger: the rhs moves onto x):
        // %collective-permute = f32[4,4]{1,0} collective-permute(%param.1), source_target_pairs={{0,0},{2,1},{1,2},{3,3}}
        // ROOT %all-reduce = f32[16,4]{1,0} all-reduce(%ynn_fusion), {'axis_1'} (= {{0,2},{1,3}})
        check(M22, new int[] {16, 8}, P(null, "x"), new int[] {8, 4}, P("y", null), null, P(),
                "f32[4,4] collective-permute {{0,0},{1,2},{2,1},{3,3}}", "f32[16,4] all-reduce {{0,2},{1,3}}");
    }

    @Test
    void jSplitOnOneOperandOnlyGathersOrSumsByElements() {
        // XLA slices the replicated operand and all-reduces when the split operand has more elements than the result
        // (dot_handler.cc, should_partition_contracting_dim); otherwise it gathers. (4,64,64):
        // %all-gather = f32[4,64]{0,1} all-gather(%wrapped_copy), replica_groups=mesh['axis_0'=1,'axis_1'=4]
        //     {'axis_1'}, dimensions={1}
        check(M4, new int[] {4, 64}, P(null, "x"), new int[] {64, 64}, P(), null, P(),
                "f32[4,64] all-gather dimensions={1} {{0,1,2,3}}");
        // (64,64,4): ROOT %all-reduce = f32[64,4]{1,0} all-reduce(%ynn_fusion),
        //     replica_groups=mesh['axis_0'=1,'axis_1'=4] {'axis_1'}, to_apply=%add.clone
        check(M4, new int[] {64, 64}, P(null, "x"), new int[] {64, 4}, P(), null, P(),
                "f32[64,4] all-reduce {{0,1,2,3}}");
        // (8,80,64): 640 elements against 512 — an all-reduce, though gathering would receive fewer bytes:
        // ROOT %all-reduce = f32[8,64]{1,0} all-reduce(%ynn_fusion), replica_groups=mesh['axis_0'=1,'axis_1'=4]
        //     {'axis_1'}, to_apply=%add.clone
        check(M4, new int[] {8, 80}, P(null, "x"), new int[] {80, 64}, P(), null, P(),
                "f32[8,64] all-reduce {{0,1,2,3}}");
        // an operand split over x but replicated over y is gathered whatever the sizes:
        // %all-gather = f32[4,8]{0,1} all-gather(%wrapped_copy),
        //     replica_groups=mesh['axis_0'=1,'axis_1'=2,'axis_2'=2] {'axis_1'}, dimensions={1}
        check(M22, new int[] {4, 8}, P(null, "x"), new int[] {8, 2}, P(), null, P(),
                "f32[4,8] all-gather dimensions={1} {{0,2},{1,3}}");
    }

    @Test
    void jSplitOnBothOperandsOverOtherAxesMovesTheSmallerOne() {
        // A f32[4,8] is smaller: it moves from x to y, the sum is over y
        // %collective-permute = f32[4,4]{1,0} collective-permute(%param), source_target_pairs={{0,0},{1,2},{2,1},{3,3}}
        // ROOT %all-reduce = f32[4,16]{1,0} all-reduce(%ynn_fusion), replica_groups=mesh['axis_0'=1,'axis_1'=2,
        //     'axis_2'=2], device_ids=([2,2]T(1,0)) {'axis_1'} (that is y: {{0,1},{2,3}})
        check(M22, new int[] {4, 8}, P(null, "x"), new int[] {8, 16}, P("y", null), null, P(),
                "f32[4,4] collective-permute {{0,0},{1,2},{2,1},{3,3}}", "f32[4,16] all-reduce {{0,1},{2,3}}");
        // B f32[8,4] is smaller: it moves from y to x, the sum is over x
        // %collective-permute = f32[4,4]{1,0} collective-permute(%param.1), source_target_pairs={{0,0},{2,1},{1,2},{3,3}}
        // ROOT %all-reduce = f32[16,4]{1,0} all-reduce(%ynn_fusion), replica_groups=mesh['axis_0'=1,'axis_1'=2,
        //     'axis_2'=2] {'axis_1'}
        check(M22, new int[] {16, 8}, P(null, "x"), new int[] {8, 4}, P("y", null), null, P(),
                "f32[4,4] collective-permute {{0,0},{1,2},{2,1},{3,3}}", "f32[16,4] all-reduce {{0,2},{1,3}}");
    }

    /** The seed 001 network's loss, as Seed001MlpTest writes it. */
    private static ShardedArray loss(List<ShardedArray> params, ShardedArray inputs, ShardedArray targets) {
        ShardedArray x = inputs;
        ShardedArray outputs = null;
        for (int l = 0; l < params.size(); l += 2) {
            outputs = x.matmul(params.get(l)).add(params.get(l + 1));
            x = outputs.maximum(0);
        }
        return outputs.sub(targets).square().sum(-1).mean();
    }

    /** gradfun = jit(grad(loss)) at layer sizes [64, 128, 128, 128, 10], batch 128: its collectives. */
    private static List<String> gradfunCollectives(Mesh mesh, PartitionSpec[] paramSpecs, PartitionSpec batchSpec) {
        int[] sizes = {64, 128, 128, 128, 10};
        List<Object> args = new ArrayList<>();
        for (int l = 0; l < 4; l++) {
            args.add(put(mesh, NDArray.ones(DType.FLOAT32, sizes[l], sizes[l + 1]), paramSpecs[2 * l]));
            args.add(ShardedArray.devicePut(NDArray.ones(DType.FLOAT32, sizes[l + 1]),
                    new NamedSharding(mesh, paramSpecs[2 * l + 1])));
        }
        args.add(put(mesh, NDArray.ones(DType.FLOAT32, 128, 64), batchSpec));
        args.add(put(mesh, NDArray.ones(DType.FLOAT32, 128, 10), batchSpec));
        int[] wrt = {0, 1, 2, 3, 4, 5, 6, 7};
        Jitted gradfun = Jit.jitList(a -> dev.shardlings.autodiff.Autodiff.<ShardedArray>gradList(
                ps -> loss(ps, a.get(8), a.get(9)), wrt).apply(a.subList(0, 8)));
        return collectives(gradfun.lower(args.toArray()), mesh);
    }

    /** A collective's line with a 2-D shape's dimensions in ascending order (XLA's layout pass may transpose). */
    private static String upToTranspose(String line) {
        Matcher m = Pattern.compile("f32\\[(\\d+),(\\d+)\\]").matcher(line);
        if (!m.find()) {
            return line;
        }
        int a = Integer.parseInt(m.group(1));
        int b = Integer.parseInt(m.group(2));
        return m.replaceFirst("f32[" + Math.min(a, b) + "," + Math.max(a, b) + "]");
    }

    private static List<String> sortedUpToTranspose(List<String> lines) {
        return lines.stream().map(XlaMatmulPlansTest::upToTranspose).sorted().toList();
    }

    @Test
    void seed001GradientStepDataParallelAllReducesEveryGradientOverTheBatch() {
        // jax-checks/seed001_network_plans.py, "DP 8": one all-reduce, over all 8 devices, of the 8 gradients
        // %all-reduce.8 = (f32[128,64]{1,0}, f32[128]{0}, f32[128,128]{1,0}, f32[128]{0}, f32[128,128]{1,0},
        //     f32[128]{0}, f32[10,128]{1,0}, f32[10]{0}) all-reduce(%dot.7, %wrapped_reduce, %dot.8, ...),
        //     replica_groups=mesh['axis_0'=8,'axis_1'=1] {'axis_0'}, to_apply=%add.clone
        // Stated difference: XLA's all-reduce combiner merges the 8 into one tuple all-reduce, and its layout pass
        // reports each weight's gradient transposed (f32[128,64] for W1's [64,128]); here each gradient has its own
        // all-reduce of the same operand, in the weight's own shape.
        Mesh m8 = Mesh.ofDeviceIds(new int[] {0, 1, 2, 3, 4, 5, 6, 7}, new int[] {8}, "batch");
        PartitionSpec[] replicated = new PartitionSpec[8];
        Arrays.fill(replicated, P());
        List<String> xlaOperands = List.of("f32[128,64]", "f32[128]", "f32[128,128]", "f32[128]", "f32[128,128]",
                "f32[128]", "f32[10,128]", "f32[10]");
        List<String> xla = xlaOperands.stream().map(s -> s + " all-reduce {{0,1,2,3,4,5,6,7}}").toList();
        assertEquals(sortedUpToTranspose(xla), sortedUpToTranspose(gradfunCollectives(m8, replicated, P("batch"))));
    }

    @Test
    void seed001GradientStepDataAndTensorParallelSumsH3OverModelTwiceAndTheGradientsOverTheBatch() {
        // jax-checks/seed001_network_plans.py, "DP x TP 4 x 2" (W2 P(None, 'model'), b2 P('model'),
        // W3 P('model', None), batch P('batch', None)):
        // %all-reduce = f32[32,128]{1,0} all-reduce(%ynn_fusion.6), replica_groups={{0,1},{2,3},{4,5},{6,7}}
        // %all-reduce.1 = f32[32,128]{1,0} all-reduce(%ynn_fusion.2), replica_groups={{0,1},{2,3},{4,5},{6,7}}
        // %all-reduce.10 = (f32[128,64]{1,0}, f32[128]{0}, f32[64,128]{1,0}, f32[64]{0}, f32[128,64]{1,0},
        //     f32[128]{0}, f32[10,128]{1,0}, f32[10]{0}) all-reduce(...),
        //     replica_groups=mesh['axis_0'=4,'axis_1'=1,'axis_2'=2] {'axis_0'} (batch: {{0,2,4,6},{1,3,5,7}})
        // Stated difference, as for data parallelism: XLA combines the 8 gradients' all-reduces into one and
        // reports the weights' gradients transposed.
        Mesh m42 = Mesh.ofDeviceIds(new int[] {0, 1, 2, 3, 4, 5, 6, 7}, new int[] {4, 2}, "batch", "model");
        PartitionSpec[] specs = {P(), P(), P(null, "model"), P("model"), P("model", null), P(), P(), P()};
        List<String> xla = new ArrayList<>(List.of("f32[32,128] all-reduce {{0,1},{2,3},{4,5},{6,7}}",
                "f32[32,128] all-reduce {{0,1},{2,3},{4,5},{6,7}}"));
        for (String operand : List.of("f32[128,64]", "f32[128]", "f32[64,128]", "f32[64]", "f32[128,64]", "f32[128]",
                "f32[10,128]", "f32[10]")) {
            xla.add(operand + " all-reduce {{0,2,4,6},{1,3,5,7}}");
        }
        assertEquals(sortedUpToTranspose(xla), sortedUpToTranspose(gradfunCollectives(m42, specs, P("batch", null))));
    }

    @Test
    void seed002IntroMatmulSquareIsOneAllReduceOverY() {
        // jax-checks/seed002_programs.py, "intro matmul_square" (In f32[8, 2048] P('X', 'Y'), W f32[2048, 8192]
        // P('Y', None), out P('X', None), 2×2):
        // ROOT %all-reduce = f32[4,8192]{1,0} all-reduce(%ynn_fusion), replica_groups={{0,1},{2,3}}
        Mesh m = Mesh.ofDeviceIds(IDS4, new int[] {2, 2}, "X", "Y");
        ShardedArray in = put(m, data(8, 2048), P("X", "Y"));
        ShardedArray w = put(m, data(2048, 8192), P("Y", null));
        Compiled c = Jit.jit((a, b) -> ShardedArray.einsum("bd,df->bf", a.square(), b)).outShardings(P("X", null))
                .lower(in, w);
        assertEquals(List.of("f32[4,8192] all-reduce {{0,1},{2,3}}"), collectives(c, m), c.asText());
    }

    @Test
    void seed002CollectiveMatmulBaselineGathersAOverY() {
        // jax-checks/seed002_programs.py, "collective matmul baseline" (A f32[1024, 2048] P('X', 'Y'),
        // W f32[2048, 8192] P(None, 'Y'), out P('X', 'Y'), 2×4):
        // %all-gather = f32[512,2048]{0,1} all-gather(%wrapped_copy), replica_groups=mesh['axis_0'=2,'axis_1'=4]
        //     {'axis_1'}, dimensions={1} (Y: {{0,1,2,3},{4,5,6,7}})
        Mesh m = Mesh.ofDeviceIds(new int[] {0, 1, 2, 3, 4, 5, 6, 7}, new int[] {2, 4}, "X", "Y");
        Compiled c = Jit.jit((a, b) -> a.matmul(b)).outShardings(P("X", "Y"))
                .lower(put(m, data(1024, 2048), P("X", "Y")), put(m, data(2048, 8192), P(null, "Y")));
        assertEquals(List.of("f32[512,2048] all-gather dimensions={1} {{0,1,2,3},{4,5,6,7}}"), collectives(c, m),
                c.asText());
    }

    @Test
    void seed002Problem1ProgramsCommunicateNothing() {
        // jax-checks/seed002_programs.py, "problem 1 average_jit" and "problem 1 shift_jit" (x i32[512, 8]
        // P('X', 'Y'), out P('X', 'Y'), 4×2): no collective in either
        Mesh m = Mesh.ofDeviceIds(new int[] {0, 1, 2, 3, 4, 5, 6, 7}, new int[] {4, 2}, "X", "Y");
        ShardedArray x = put(m, NDArray.arange(8 * 64 * 8).reshape(8 * 64, 8), P("X", "Y"));
        Compiled average = Jit.jit(v -> v.reshape(4, 128, 2, 4).mean(1, 3)).outShardings(P("X", "Y")).lower(x);
        assertEquals(List.of(), collectives(average, m), average.asText());
        Compiled shift = Jit.jit(v -> v.reshape(4, 128, 8).roll(5, 1).reshape(512, 8)).outShardings(P("X", "Y"))
                .lower(x);
        assertEquals(List.of(), collectives(shift, m), shift.asText());
    }
}
