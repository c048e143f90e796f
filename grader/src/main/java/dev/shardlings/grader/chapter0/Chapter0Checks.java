package dev.shardlings.grader.chapter0;

import dev.shardlings.array.NDArray;
import dev.shardlings.grader.judge.CaseRun;
import dev.shardlings.grader.checks.Checks;
import dev.shardlings.grader.checks.Checks.Tolerance;
import dev.shardlings.events.Collective;
import dev.shardlings.grader.judge.CaseRun;
import dev.shardlings.grader.parts.Check;
import dev.shardlings.grader.checks.Checks.Tolerance;
import dev.shardlings.grader.checks.Checks;
import dev.shardlings.grader.checks.Generators;
import dev.shardlings.grader.judge.Guard;
import dev.shardlings.grader.checks.MeshSpec;
import dev.shardlings.grader.parts.Part;
import dev.shardlings.grader.judge.Reports;
import dev.shardlings.grader.parts.Check;
import dev.shardlings.grader.checks.TraceRules;
import dev.shardlings.grader.checks.TraceRules.Rule;
import dev.shardlings.grader.judge.Reports;
import dev.shardlings.grader.checks.TraceRules.Rule;
import dev.shardlings.grader.checks.TraceRules;
import dev.shardlings.random.PRNG;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.PartitionSpec;
import dev.shardlings.spmd.ShardedArray;

import java.util.List;
import java.util.Set;
import java.util.function.Function;

import static dev.shardlings.sharding.PartitionSpec.P;
import static dev.shardlings.sharding.PartitionSpec.tuple;

/**
 * The graded checks of Chapter 0. Each takes the implementation under test as a function (so the grader's own
 * wrong implementations can be fed to it), builds the case's whole arrays, lays them out as the part says, runs
 * the implementation under the {@link Guard}, compares with the whole-array oracle and applies the part's rule on
 * communication from the trace.
 */
public final class Chapter0Checks {

    private Chapter0Checks() {
    }

    /** A two-argument part: (a, b) → C. */
    @FunctionalInterface
    public interface Matmul {
        ShardedArray apply(ShardedArray a, ShardedArray b);
    }

    /** Part 0.8's signature. */
    @FunctionalInterface
    public interface RingShift {
        ShardedArray apply(ShardedArray x, int k);
    }

    /** Part 0.10's signature. */
    @FunctionalInterface
    public interface FoldKey {
        ShardedArray apply(NDArray key, Mesh mesh);
    }

    private static Tolerance tol(int contracted) {
        return Tolerance.float32(4.0 * Math.max(1, contracted));
    }

    private static String dims(String name, int... d) {
        return name + " f32" + java.util.Arrays.toString(d).replace(" ", "");
    }

    /** Runs a matmul part on A, B laid out by specA, specB and checks C against the oracle and its layout. */
    private static CaseRun<ShardedArray> runMatmul(Part part, Matmul impl, Chapter0Case c, int i, int j, int k,
                                                   PartitionSpec specA, PartitionSpec specB, PartitionSpec specC) {
        Mesh mesh = c.mesh().mesh();
        NDArray a = Generators.smallFloats(c.seed(), i, j);
        NDArray b = Generators.smallFloats(c.seed() + 1, j, k);
        ShardedArray as = ShardedArray.devicePut(a, mesh, specA);
        ShardedArray bs = ShardedArray.devicePut(b, mesh, specB);
        String text = c.describe(dims("A", i, j) + " laid out " + specA + ", " + dims("B", j, k) + " laid out "
                + specB + "; C laid out " + specC);
        CaseRun<ShardedArray> run = Guard.run(part, text, () -> impl.apply(as, bs));
        Checks.shardedResult(run, Reports.inputs("A", a, "B", b), Chapter0Oracles.matmul(a, b), specC, tol(j),
                "A:\n" + visual(as) + "B:\n" + visual(bs));
        return run;
    }

    private static String visual(ShardedArray x) {
        return x.rank() <= 2 ? Reports.picture(x) : "";
    }

    /** The rule every device of the run must keep; the reason is the score table's line. */
    private static void rule(CaseRun<?> run, String reason, String ruleText, Rule rule) {
        TraceRules.perDevice(run, reason, ruleText, rule);
    }

    private static Set<Collective> kind(Collective c) {
        return Set.of(c);
    }

    /** 0.1: C = A·B laid out P('X', 'Y'); no collectives; each device multiplies its own blocks once. */
    public static void noCommunication(Matmul impl, Chapter0Case c) {
        MeshSpec m = c.mesh();
        int i = m.size("X") * c.a();
        int j = c.b();
        int k = m.size("Y") * c.c();
        var r = runMatmul(Chapter0Parts.P0_1, impl, c, i, j, k, P("X", null), P(null, "Y"), P("X", "Y"));
        long flops = 2L * (i / m.size("X")) * j * (k / m.size("Y"));
        rule(r, "communicates or multiplies more than its own blocks", "no collectives; each device"
                        + " multiplies its A block [I/X, J] by its B block [J, K/Y] once: " + flops + " FLOPs",
                TraceRules.noCollectives("every device already holds all it needs")
                        .and(TraceRules.flops(flops, "2·(I/X)·J·(K/Y)")));
    }

    /** 0.2: C = A·B replicated; exactly one all-gather per device, over X, of A's block [I, J/X]. */
    public static void gatherA(Matmul impl, Chapter0Case c) {
        int x = c.mesh().size("X");
        int i = c.a();
        int j = x * c.b();
        int k = c.c();
        var r = runMatmul(Chapter0Parts.P0_2, impl, c, i, j, k, P(null, "X"), P(), P());
        rule(r, "wrong communication for 'all-gather A'", "exactly one all-gather over X, of A's block"
                        + " of shape " + Reports.tuple(i, j / x) + ", then one matmul of the whole A by B: "
                        + 2L * i * j * k + " FLOPs",
                TraceRules.collectives(Set.of("X"), List.of(kind(Collective.ALL_GATHER)), List.of(List.of(i, j / x)),
                        "one all-gather over X of A's block")
                        .and(TraceRules.flops(2L * i * j * k, "2·I·J·K")));
    }

    /** 0.3: C = A·B replicated; a local matmul of the blocks, then exactly one psum over X of C{U_X}. */
    public static void psumMatmul(Matmul impl, Chapter0Case c) {
        int x = c.mesh().size("X");
        int i = c.a();
        int j = x * c.b();
        int k = c.c();
        var r = runMatmul(Chapter0Parts.P0_3, impl, c, i, j, k, P(null, "X"), P("X", null), P());
        rule(r, "wrong communication for 'local matmul, then psum'", "a local matmul of the blocks ("
                        + 2L * i * (j / x) * k + " FLOPs), then exactly one psum over X, of the partial product of"
                        + " shape " + Reports.tuple(i, k),
                TraceRules.collectives(Set.of("X"), List.of(kind(Collective.PSUM)), List.of(List.of(i, k)),
                        "one psum over X of the partial product")
                        .and(TraceRules.flops(2L * i * (j / x) * k, "2·I·(J/X)·K")));
    }

    /** 0.4: as 0.3, from exactly one psumScatter then one allGather over X per device; no psum. */
    public static void reduceScatterAllGather(Matmul impl, Chapter0Case c) {
        int x = c.mesh().size("X");
        int i = x * c.a(); // I must divide by X for the reduce-scatter along I
        int j = x * c.b();
        int k = c.c();
        var r = runMatmul(Chapter0Parts.P0_4, impl, c, i, j, k, P(null, "X"), P("X", null), P());
        rule(r, "wrong communication for 'reduce-scatter, then all-gather'", "a local matmul ("
                        + 2L * i * (j / x) * k + " FLOPs), then one psumScatter over X of the partial product "
                        + Reports.tuple(i, k) + ", then one allGather over X of the summed rows "
                        + Reports.tuple(i / x, k) + ", and no psum",
                TraceRules.collectives(Set.of("X"), List.of(kind(Collective.PSUM_SCATTER), kind(Collective.ALL_GATHER)),
                        List.of(List.of(i, k), List.of(i / x, k)), "psumScatter of the partial product, then"
                                + " allGather of the summed rows")
                        .and(TraceRules.flops(2L * i * (j / x) * k, "2·I·(J/X)·K")));
    }

    /** 0.5: both halves; each exactly one all-gather over X, of B's block (→ C[I_X, K]) or A's (→ C[I, K_X]). */
    public static void sameAxis(Matmul gatherB, Matmul gatherA, Chapter0Case c) {
        int x = c.mesh().size("X");
        int i = x * c.a();
        int j = c.b();
        int k = x * c.c();
        var rb = runMatmul(Chapter0Parts.P0_5, gatherB, c, i, j, k, P("X", null), P(null, "X"), P("X", null));
        rule(rb, "wrong communication for C[I_X, K]", "for C[I_X, K]: exactly one all-gather over X, of"
                        + " B's block of shape " + Reports.tuple(j, k / x) + ", then A's block times the whole B: "
                        + 2L * (i / x) * j * k + " FLOPs",
                TraceRules.collectives(Set.of("X"), List.of(kind(Collective.ALL_GATHER)), List.of(List.of(j, k / x)),
                        "one all-gather over X of B's block")
                        .and(TraceRules.flops(2L * (i / x) * j * k, "2·(I/X)·J·K")));
        var ra = runMatmul(Chapter0Parts.P0_5, gatherA, c, i, j, k, P("X", null), P(null, "X"), P(null, "X"));
        rule(ra, "wrong communication for C[I, K_X]", "for C[I, K_X]: exactly one all-gather over X, of"
                        + " A's block of shape " + Reports.tuple(i / x, j) + ", then the whole A times B's block: "
                        + 2L * i * j * (k / x) + " FLOPs",
                TraceRules.collectives(Set.of("X"), List.of(kind(Collective.ALL_GATHER)), List.of(List.of(i / x, j)),
                        "one all-gather over X of A's block")
                        .and(TraceRules.flops(2L * i * j * (k / x), "2·I·J·(K/X)")));
    }

    /** 0.6: rows normalised over all D features; only pmean/psum over j of per-row statistics, at least one. */
    public static void normalize(Function<ShardedArray, ShardedArray> impl, Chapter0Case c) {
        MeshSpec m = c.mesh();
        int rows = m.size("i") * c.a();
        int feats = m.size("j") * c.b();
        Mesh mesh = m.mesh();
        NDArray x = Generators.smallFloats(c.seed(), rows, feats);
        ShardedArray xs = ShardedArray.devicePut(x, mesh, P("i", "j"));
        String text = c.describe(dims("x", rows, feats) + " laid out P('i', 'j')");
        CaseRun<ShardedArray> run = Guard.run(Chapter0Parts.P0_6, text, () -> impl.apply(xs));
        Checks.shardedResult(run, Reports.inputs("x", x), Chapter0Oracles.normalizeRows(x, 1e-5),
                P("i", "j"), new Tolerance(1e-4, 1e-4), visual(xs));
        int local = c.a();
        rule(run, "wrong communication for the parallel normalisation",
                "only pmean or psum over j (at least one), each of per-row statistics (at most " + local
                        + " elements: one per row of the block), no all-gather",
                new Rule(Set.of(Check.COLLECTIVES, Check.OPERANDS), d -> {
                    if (d.collectives().isEmpty()) {
                        return "it calls no collective; a row's statistics need the blocks of every device along j";
                    }
                    for (var e : d.collectives()) {
                        if ((e.kind() != Collective.PMEAN && e.kind() != Collective.PSUM)
                                || !e.axes().equals(List.of("j"))) {
                            return "it calls " + e.describe() + "; only pmean or psum over j are needed";
                        }
                        long size = e.inputShape().stream().mapToLong(Integer::longValue).reduce(1, (p, q) -> p * q);
                        if (size > local) {
                            return "it reduces a " + e.dtype().jaxName() + e.inputShape() + " (" + size + " elements); reduce"
                                    + " the per-row statistics (" + local + " values), not the block";
                        }
                    }
                    return null;
                }));
    }

    /** 0.7: y = x·w laid out P('i', None); exactly one all-gather of w's block over i. */
    public static void gatheredWeight(Matmul impl, Chapter0Case c) {
        MeshSpec m = c.mesh();
        int n = m.size("i");
        int rows = n * c.a();
        int d = n * c.b();
        int f = c.c();
        Mesh mesh = m.mesh();
        NDArray x = Generators.smallFloats(c.seed(), rows, d);
        NDArray w = Generators.smallFloats(c.seed() + 1, d, f);
        ShardedArray xs = ShardedArray.devicePut(x, mesh, P("i", null));
        ShardedArray ws = ShardedArray.devicePut(w, mesh, P("i", null));
        String text = c.describe(dims("x", rows, d) + " and " + dims("w", d, f) + " both laid out P('i', None)");
        CaseRun<ShardedArray> run = Guard.run(Chapter0Parts.P0_7, text, () -> impl.apply(xs, ws));
        Checks.shardedResult(run, Reports.inputs("x", x, "w", w), Chapter0Oracles.matmul(x, w),
                P("i", null), tol(d), "x:\n" + visual(xs) + "w:\n" + visual(ws));
        long flops = 2L * (rows / n) * d * f;
        rule(run, "wrong communication for the gathered weight",
                "exactly one all-gather over i, of w's block of shape " + Reports.tuple(d / n, f) + ", then the x"
                        + " block times the whole w: " + flops + " FLOPs",
                TraceRules.collectives(Set.of("i"), List.of(kind(Collective.ALL_GATHER)), List.of(List.of(d / n, f)),
                        "one all-gather over i of w's block")
                        .and(TraceRules.flops(flops, "2·(rows/i)·D·F")));
    }

    /** 0.8: blocks rolled by k along i; at most one ppermute over i, of the block, and nothing else. */
    public static void ringShift(RingShift impl, Chapter0Case c) {
        MeshSpec m = c.mesh();
        int n = m.size("i");
        int rows = n * c.a();
        int cols = c.b();
        Mesh mesh = m.mesh();
        NDArray x = Generators.smallFloats(c.seed(), rows, cols);
        ShardedArray xs = ShardedArray.devicePut(x, mesh, P("i", null));
        int k = c.param();
        String text = c.describe(dims("x", rows, cols) + " laid out P('i', None); k = " + k);
        CaseRun<ShardedArray> run = Guard.run(Chapter0Parts.P0_8, text, () -> impl.apply(xs, k));
        Checks.shardedResult(run, Reports.inputs("x", x), Chapter0Oracles.rollBlocks(x, n, k),
                P("i", null), Tolerance.EXACT, visual(xs), List.of(new Checks.Mistake("shifting by −k",
                        Chapter0Oracles.rollBlocks(x, n, -k), "device j's block goes to device (j + k) mod n: perm"
                        + " pairs (j, (j + k) % n), sources first; you sent blocks the other way round the ring")));
        Rule one = TraceRules.collectives(Set.of("i"), List.of(kind(Collective.PPERMUTE)),
                java.util.Collections.singletonList(List.of(c.a(), cols)), "at most one ppermute over i, of the"
                        + " device's block");
        rule(run, "wrong communication for the ring shift", "at most one"
                        + " ppermute over i, of the block " + Reports.tuple(c.a(), cols) + ", and no other collective",
                new Rule(one.checks(), d -> d.collectives().isEmpty() ? null : one.violation(d)));
    }

    /** 0.9: f32[4], the mean of every block's first 4 elements; one pmean/psum over {x, y} of 4 elements. */
    public static void sliceAndAverage(Function<ShardedArray, ShardedArray> impl, Chapter0Case c) {
        MeshSpec m = c.mesh();
        int n = m.size("x") * m.size("y");
        int per = 4 + c.a() - 1;
        Mesh mesh = m.mesh();
        NDArray x = Generators.smallFloats(c.seed(), n * per);
        ShardedArray xs = ShardedArray.devicePut(x, mesh, P(tuple("x", "y")));
        String text = c.describe(dims("x", n * per) + " laid out P(('x', 'y'),), " + per + " elements per device");
        CaseRun<ShardedArray> run = Guard.run(Chapter0Parts.P0_9, text, () -> impl.apply(xs));
        Checks.shardedResult(run, Reports.inputs("x", x), Chapter0Oracles.sliceAndAverage(x, n),
                P(), new Tolerance(1e-6, 1e-6), visual(xs));
        rule(run, "wrong communication for slice-and-average", "exactly one"
                        + " pmean (or psum) over both x and y, of the 4 sliced elements",
                TraceRules.collectives(Set.of("x", "y"), List.of(Set.of(Collective.PMEAN, Collective.PSUM)),
                        List.of(List.of(4)), "one pmean over x and y of the 4 sliced elements"));
    }

    /** 0.10: row r = foldIn(key, r) for r in [0, I), laid out P('i', None); a shardMap; no collectives. */
    public static void foldKey(FoldKey impl, Chapter0Case c) {
        MeshSpec m = c.mesh();
        Mesh mesh = m.mesh();
        NDArray key = PRNG.key((int) c.seed()).toArray();
        String text = c.describe("key " + PRNG.Key.of(key) + " (int32 bit patterns " + key + ")");
        CaseRun<ShardedArray> run = Guard.run(Chapter0Parts.P0_10, text, () -> impl.apply(key, mesh));
        int n = m.size("i");
        NDArray[] rows = new NDArray[n];
        for (int r = 0; r < n; r++) {
            rows[r] = PRNG.foldIn(PRNG.Key.of(key), r).toArray();
        }
        Checks.shardedResult(run, Reports.inputs("key", key), NDArray.stack(0, rows),
                P("i", null), Tolerance.EXACT, null);
        rule(run, "communicates, or computes the keys outside shardMap",
                "a shardMap in which every device folds its own index into the key; no collectives",
                TraceRules.noCollectives("every device knows its own index (axisIndex)"));
    }
}
