package dev.shardlings.grader.chapter5;

import dev.shardlings.array.NDArray;
import dev.shardlings.events.Collective;
import dev.shardlings.events.ShardMapTrace;
import dev.shardlings.grader.checks.Checks.Tolerance;
import dev.shardlings.grader.checks.Checks;
import dev.shardlings.grader.checks.TraceRules;
import dev.shardlings.grader.judge.CaseRun;
import dev.shardlings.grader.judge.GradingFailure;
import dev.shardlings.grader.judge.Guard;
import dev.shardlings.grader.judge.Reports;
import dev.shardlings.grader.parts.Check;
import dev.shardlings.grader.parts.CourseMethod;
import dev.shardlings.grader.parts.Part;
import dev.shardlings.sharding.AxisType;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.spmd.ShardedArray;

import java.util.List;
import java.util.Set;

import static dev.shardlings.grader.parts.Part.example;
import static dev.shardlings.grader.parts.Part.property;
import static dev.shardlings.sharding.PartitionSpec.P;

/**
 * Chapter 5's parts (automatic parallelism with jit) and their checks: first the table, one row each, then the
 * checks the rows run. Each check takes the implementation under test as a function, so the same check grades
 * exercises/, solutions/ and the grader's own deliberately wrong implementations. Values come from
 * {@link Chapter5Oracles}; what the compiler did comes from the trace of the program it built.
 */
public final class Chapter5Checks {

    static final Part.Chapter CHAPTER = new Part.Chapter("chapter 5", "automatic parallelism", "Chapter5");

    /**
     * The cases every Chapter 5 part is graded on: a property over meshes (1–16 devices, X = 1 and Y = 1 included),
     * shapes and values, and fixed examples (seed 002's 2 × 2 mesh, one device, 16 devices in a row or a column, a
     * 4 × 2 mesh).
     */
    private static final Part.Property<Chapter5Case> CASES = property("meshesShapesAndValues", 40, "5005",
            Chapter5Case::cases);
    private static final List<Part.Example<Chapter5Case>> EXAMPLES = List.of(
            example("twoByTwo", new Chapter5Case(2, 2, 2, 2, 3, 51)),
            example("oneDevice", new Chapter5Case(1, 1, 3, 2, 1, 52)),
            example("sixteenDevicesInOneRow", new Chapter5Case(16, 1, 1, 1, 2, 53)),
            example("sixteenDevicesInOneColumn", new Chapter5Case(1, 16, 2, 1, 1, 54)),
            example("fourByTwo", new Chapter5Case(4, 2, 1, 3, 2, 55)));

    private static final String D = "docs/chapter-5.md#";

    /** {@code Chapter5.matmulWithoutCommunication}. */
    public static final CourseMethod<MatmulWithoutCommunication> C5_MATMUL_WITHOUT_COMMUNICATION = CHAPTER.method("matmulWithoutCommunication", MatmulWithoutCommunication.class, ShardedArray.class, NDArray.class, NDArray.class, Mesh.class);
    /** {@code Chapter5.matmulReduceScatter}. */
    public static final CourseMethod<PlacedMatmul> C5_MATMUL_REDUCE_SCATTER = CHAPTER.method("matmulReduceScatter", PlacedMatmul.class, ShardedArray.class, ShardedArray.class, ShardedArray.class);
    /** {@code Chapter5.matmulSquare}. */
    public static final CourseMethod<PlacedMatmul> C5_MATMUL_SQUARE = CHAPTER.method("matmulSquare", PlacedMatmul.class, ShardedArray.class, ShardedArray.class, ShardedArray.class);
    /** {@code Chapter5.matmulSquareExplicit}. */
    public static final CourseMethod<PlacedMatmul> C5_MATMUL_SQUARE_EXPLICIT = CHAPTER.method("matmulSquareExplicit", PlacedMatmul.class, ShardedArray.class, ShardedArray.class, ShardedArray.class);

    /** Part 5.1. */
    public static final Part P5_1 = CHAPTER.part("5.1", "jit, layouts with no communication", 2, "MatmulWithoutCommunication")
            .calls(C5_MATMUL_WITHOUT_COMMUNICATION)
            .docs(D + "part-51-layouts-that-need-no-communication")
            .hint("split A's rows over X and B's columns over Y (P(\"X\", null) and P(null, \"Y\")): the contracted J is then"
                    + " whole on every device, and C[I_X, K_Y] is every device's own product.")
            .requires(C5_MATMUL_WITHOUT_COMMUNICATION, "values (float tolerance) and layout", Check.VALUES, Check.LAYOUT)
            .requires(C5_MATMUL_WITHOUT_COMMUNICATION, "compiled by jit, with no hand-written shardMap", Check.USES_JIT)
            .requires(C5_MATMUL_WITHOUT_COMMUNICATION, "the compiled program has no collective", Check.NO_COLLECTIVES)
            .requires(C5_MATMUL_WITHOUT_COMMUNICATION, "every device holds only its blocks of A and B,"
                    + " (I·J/X + J·K/Y)·4 bytes of inputs", Check.DEVICE_MEMORY)
            .requires(C5_MATMUL_WITHOUT_COMMUNICATION, "every device does exactly 2·I·J·K/(X·Y) matmul FLOPs", Check.FLOPS)
            .graded(CASES, EXAMPLES, c -> matmulWithoutCommunication(C5_MATMUL_WITHOUT_COMMUNICATION.proxy(), c));

    /** Part 5.2. */
    public static final Part P5_2 = CHAPTER.part("5.2", "jit, the out sharding chooses the collective", 2, "MatmulReduceScatter")
            .calls(C5_MATMUL_REDUCE_SCATTER)
            .docs(D + "part-52-the-out-sharding-chooses-the-collective")
            .hint("where does your code say that C must come out split over X: inside the compiled program, or after it? The"
                    + " compiler can only plan the matmul for that layout if it knows the layout while it partitions"
                    + " the matmul (automatic-parallelism.md: two ways to give jit a layout).")
            .requires(C5_MATMUL_REDUCE_SCATTER, "values (float tolerance) and layout", Check.VALUES, Check.LAYOUT)
            .requires(C5_MATMUL_REDUCE_SCATTER, "compiled by jit, with no hand-written shardMap", Check.USES_JIT)
            .requires(C5_MATMUL_REDUCE_SCATTER, "one jitted program makes the result, already laid out P('X', None):"
                    + " no reshard or other program runs before or after it", Check.USES_JIT)
            .requires(C5_MATMUL_REDUCE_SCATTER, "per device, XLA's collectives for that layout: where Y is a multiple"
                    + " of X an all-reduce over X of f32[I/X, K] (the Y devices each computed a share of the rows)"
                    + " then a collective-permute of it, else an all-reduce over X of f32[I, K] (none when X = 1)",
                    Check.COLLECTIVES, Check.OPERANDS)
            .graded(CASES, EXAMPLES, c -> matmulReduceScatter(C5_MATMUL_REDUCE_SCATTER.proxy(), c));

    /** Part 5.3. */
    public static final Part P5_3 = CHAPTER.part("5.3", "jit, matmul_square on Auto axes", 2, "MatmulSquare")
            .calls(C5_MATMUL_SQUARE)
            .docs(D + "part-53-matmul_square-on-auto-axes")
            .hint("which layout does squaring leave In in, and which dimension of the einsum does Y split on both operands?"
                    + " A sum over a split dimension costs one all-reduce; what must the program know about the"
                    + " result's layout so that nothing more moves?")
            .requires(C5_MATMUL_SQUARE, "values (float tolerance) and layout", Check.VALUES, Check.LAYOUT)
            .requires(C5_MATMUL_SQUARE, "compiled by jit, with no hand-written shardMap", Check.USES_JIT)
            .requires(C5_MATMUL_SQUARE, "exactly one collective per device, an all-reduce over Y of "
                    + "f32[B/X, F] (none when Y = 1)", Check.COLLECTIVES, Check.OPERANDS)
            .graded(CASES, EXAMPLES, c -> matmulSquare(C5_MATMUL_SQUARE.proxy(), c));

    /** Part 5.4. */
    public static final Part P5_4 = CHAPTER.part("5.4", "matmul_square on Explicit axes", 2, "MatmulSquareExplicit")
            .calls(C5_MATMUL_SQUARE_EXPLICIT)
            .docs(D + "part-54-matmul_square-on-explicit-axes")
            .hint("read the ShardingTypeError the typing rule raises: which layout of the result is it unable to choose,"
                    + " and which argument of the contraction lets you choose it (chapter-5.md, Explicit axes)?")
            .requires(C5_MATMUL_SQUARE_EXPLICIT, "values (float tolerance) and layout", Check.VALUES, Check.LAYOUT)
            .requires(C5_MATMUL_SQUARE_EXPLICIT, "no hand-written shardMap (jit or eager global-view "
                    + "operations)", Check.NO_SHARD_MAP)
            .requires(C5_MATMUL_SQUARE_EXPLICIT, "exactly one collective per device, an all-reduce over Y "
                    + "of f32[B/X, F] (none when Y = 1)", Check.COLLECTIVES, Check.OPERANDS)
            .graded(CASES, EXAMPLES, c -> matmulSquareExplicit(C5_MATMUL_SQUARE_EXPLICIT.proxy(), c));

    /** The parts of chapter 5, in course order. */
    public static final List<Part> PARTS = List.of(P5_1, P5_2, P5_3, P5_4);

    // ------------------------------------------------------------------------------------------ checks

    private Chapter5Checks() {
    }

    /** Part 5.1's signature. */
    @FunctionalInterface
    public interface MatmulWithoutCommunication {
        ShardedArray apply(NDArray a, NDArray b, Mesh mesh);
    }

    /** The signature of parts 5.2, 5.3 and 5.4: two placed arrays in, one out. */
    @FunctionalInterface
    public interface PlacedMatmul {
        ShardedArray apply(ShardedArray a, ShardedArray b);
    }

    /** Float tolerance for a sum of {@code terms} products of values in [−1, 1) (squared ones in 5.3/5.4). */
    private static Tolerance tolerance(int terms) {
        return Tolerance.float32(terms);
    }

    /**
     * 5.1: compiled by jit with no shardMap of its own; values and layout P('X', 'Y'); no collective; every device
     * holds only its blocks of A and B, (I·J/X + J·K/Y)·4 bytes (replicating A and B needs no communication either:
     * the compiler slices them locally, as XLA does, but every device then stores them whole); and every device
     * does exactly 2·I·J·K/(X·Y) matmul FLOPs.
     */
    public static void matmulWithoutCommunication(MatmulWithoutCommunication impl, Chapter5Case c) {
        Mesh mesh = c.mesh(AxisType.AUTO);
        NDArray a = c.a();
        NDArray b = c.b();
        String text = c.describe("A", " on the host", "B", " on the host", "Auto");
        CaseRun<ShardedArray> run = Guard.run(P5_1, text, () -> impl.apply(a, b, mesh));
        Checks.compiledByJit(run);
        Checks.shardedResult(run, Reports.inputs("Input A", a, "Input B", b), Chapter5Oracles.matmul(a, b),
                P("X", "Y"), tolerance(c.j()), "A and B are whole arrays on the host: you choose their layouts");
        Checks.compiledWithoutCommunication(run, "The compiler moves data when the layouts you chose split the"
                + " contracted dimension J, or do not give each device the rows and columns of its block of C."
                + " Split A's rows over X and B's columns over Y: every device then holds all of J for its block.");
        long inputs = 4L * c.i() * c.j() / c.x() + 4L * c.j() * c.k() / c.y();
        TraceRules.perDevice(run, "keeps whole inputs on every device", "every device holds only its block of A and"
                + " of B, (I·J/X + J·K/Y)·4 = " + inputs + " bytes", TraceRules.argumentBytesAtMost(inputs,
                "replicated inputs need no communication either (the compiler slices them locally), but then every"
                + " device stores all of A or B"));
        long flops = 2L * c.i() * c.j() * c.k() / mesh.size();
        TraceRules.perDevice(run, "does not share the matmul out", "every device computes its own block of C",
                TraceRules.flops(flops, "2·I·J·K/(X·Y) = 2·" + c.i() + "·" + c.j() + "·" + c.k() + "/" + mesh.size()));
    }

    /**
     * 5.2: compiled by jit with no shardMap of its own; values and layout P('X', None); the one program that ran is
     * the jitted one and made the result (so the compiler planned the matmul for the layout); and its collectives
     * are XLA:CPU's plan for that layout (JAX 0.10.2, {@code jit/XlaMatmulPlansTest}): where Y is a multiple of X
     * the Y devices, idle in the contraction, each compute I/X of the rows, so the all-reduce over X carries
     * f32[I/X, K] and a collective-permute moves each block onto X; otherwise the whole f32[I, K] is all-reduced
     * and sliced. A matmul followed by {@code reshard} receives as many bytes as that plan on every mesh, so the
     * structure, not a byte bound, tells them apart.
     */
    public static void matmulReduceScatter(PlacedMatmul impl, Chapter5Case c) {
        Mesh mesh = c.mesh(AxisType.AUTO);
        NDArray a = c.a();
        NDArray b = c.b();
        ShardedArray as = ShardedArray.devicePut(a, mesh, P(null, "X"));
        ShardedArray bs = ShardedArray.devicePut(b, mesh, P("X", null));
        String text = c.describe("A", " laid out P(None, 'X')", "B", " laid out P('X', None)", "Auto");
        CaseRun<ShardedArray> run = Guard.run(P5_2, text, () -> impl.apply(as, bs));
        Checks.compiledByJit(run);
        Checks.shardedResult(run, Reports.inputs("Input A", a, "Input B", b), Chapter5Oracles.matmul(a, b),
                P("X", null), tolerance(c.j()), Reports.picture(as) + Reports.picture(bs));
        resultFromOneJittedProgram(run);
        boolean shares = c.x() > 1 && c.y() % c.x() == 0;
        List<Integer> share = List.of(c.i() / c.x(), c.k());
        List<Integer> whole = List.of(c.i(), c.k());
        String what = c.x() == 1 ? "no collective (X = 1: J is whole on every device)" : shares
                ? "one all-reduce (psum) over X of f32" + share + ", the share of the rows this device computed,"
                + " then one collective-permute (ppermute) of it onto the devices that keep those rows"
                : "one all-reduce (psum) over X of f32" + whole + " (Y = " + c.y() + " is not a multiple of X = " + c.x()
                + ": too few idle devices for shares of the rows), then a local slice";
        List<Collective> kinds = c.x() == 1 ? List.of() : shares ? List.of(Collective.PSUM, Collective.PPERMUTE)
                : List.of(Collective.PSUM);
        List<List<Integer>> shapes = shares ? List.of(share, share) : List.of(whole);
        TraceRules.perDevice(run, "does not run the compiler's plan for the layout", "every device runs " + what,
                new TraceRules.Rule(Set.of(Check.COLLECTIVES, Check.OPERANDS), d -> {
                    List<dev.shardlings.events.TraceEvent.CollectiveEvent> cs = d.collectives();
                    boolean ok = cs.size() == kinds.size();
                    for (int i = 0; ok && i < cs.size(); i++) {
                        ok = cs.get(i).kind() == kinds.get(i) && cs.get(i).inputShape().equals(shapes.get(i))
                                && (kinds.get(i) != Collective.PSUM || cs.get(i).axes().equals(List.of("X")));
                    }
                    return ok ? null : "its collectives are " + (cs.isEmpty() ? "none" : String.join(", ",
                            cs.stream().map(dev.shardlings.events.TraceEvent.CollectiveEvent::describe).toList()))
                            + "; expected " + what;
                }, d -> "give the compiler A and B as they are placed and the result's layout in the same program:"
                        + " then the plan is its own"));
    }

    /**
     * The run's programs are one, compiled by jit, and it made the returned array: the layout P('X', None) came out
     * of the program that partitioned the matmul, not a reshard or a second program after it.
     */
    private static void resultFromOneJittedProgram(CaseRun<ShardedArray> run) {
        dev.shardlings.grader.parts.CheckLog.ran(Check.USES_JIT);
        List<ShardMapTrace> programs = run.trace().shardMaps();
        List<Integer> made = run.trace().resultPrograms();
        boolean ok = programs.size() == 1 && made.size() == 1 && made.get(0) == 0
                && programs.get(0).origin().compiledByJit();
        if (ok) {
            return;
        }
        StringBuilder list = new StringBuilder();
        for (int k = 0; k < programs.size(); k++) {
            ShardMapTrace m = programs.get(k);
            list.append("  ").append(k + 1).append(". ").append(m.functionName())
                    .append(m.origin().compiledByJit() ? " (compiled by jit)" : " (" + m.origin().name().toLowerCase(
                            java.util.Locale.ROOT).replace('_', ' ') + ")")
                    .append(made.contains(k) ? ", made the result" : "").append('\n');
        }
        throw run.report("lays the result out after the compiled matmul")
                .paragraph("The programs your code ran, in order:")
                .lines(list.toString())
                .paragraph("The part asks for one jitted program that returns C already laid out P('X', None). When"
                        + " the layout is applied by a program after the matmul, the compiler partitioned the"
                        + " matmul without knowing it: it completed the whole product and the layout was cut out"
                        + " afterwards. Where can the compiled program itself be told the layout of its result?")
                .noHint()
                .failure(GradingFailure.Kind.STRUCTURE, "the result's layout is not the compiled matmul's: "
                        + programs.size() + " program(s) ran");
    }

    /**
     * 5.3: compiled by jit with no shardMap of its own; values and layout P('X', None); exactly one all-reduce over
     * Y of f32[B/X, F] per device (none on a mesh with Y = 1).
     */
    public static void matmulSquare(PlacedMatmul impl, Chapter5Case c) {
        CaseRun<ShardedArray> run = runMatmulSquare(P5_3, impl, c, AxisType.AUTO);
        Checks.compiledByJit(run);
        matmulSquareResult(run, c, AxisType.AUTO);
    }

    /**
     * 5.4: no shardMap of its own (jit or eager operations on Explicit axes); values and layout P('X', None);
     * exactly one all-reduce over Y of f32[B/X, F] per device (none on a mesh with Y = 1).
     */
    public static void matmulSquareExplicit(PlacedMatmul impl, Chapter5Case c) {
        CaseRun<ShardedArray> run = runMatmulSquare(P5_4, impl, c, AxisType.EXPLICIT);
        Checks.noHandWrittenShardMap(run);
        matmulSquareResult(run, c, AxisType.EXPLICIT);
    }

    private static CaseRun<ShardedArray> runMatmulSquare(Part part, PlacedMatmul impl, Chapter5Case c, AxisType type) {
        Mesh mesh = c.mesh(type);
        ShardedArray in = ShardedArray.devicePut(c.a(), mesh, P("X", "Y"));
        ShardedArray w = ShardedArray.devicePut(c.b(), mesh, P("Y", null));
        String text = c.describe("In", " laid out P('X', 'Y')", "W", " laid out P('Y', None)",
                type == AxisType.AUTO ? "Auto" : "Explicit");
        return Guard.run(part, text, () -> impl.apply(in, w));
    }

    private static void matmulSquareResult(CaseRun<ShardedArray> run, Chapter5Case c, AxisType type) {
        NDArray in = c.a();
        NDArray w = c.b();
        Mesh mesh = c.mesh(type);
        Checks.shardedResult(run, Reports.inputs("Input In", in, "Input W", w), Chapter5Oracles.matmulSquare(in, w),
                P("X", null), tolerance(c.j()), Reports.picture(ShardedArray.devicePut(in, mesh, P("X", "Y")))
                        + Reports.picture(ShardedArray.devicePut(w, mesh, P("Y", null))));
        boolean reduce = c.y() > 1;
        List<Integer> shape = List.of(c.i() / c.x(), c.k());
        String what = reduce ? "one all-reduce (psum) over Y of f32" + shape + ", the partial sums of the rows this"
                + " device keeps" : "no collective (Y = 1: the contraction is whole on every device)";
        TraceRules.perDevice(run, "communicates more than the contraction needs", "every device runs " + what,
                reduce ? TraceRules.collectives(Set.of("Y"), List.of(Set.of(Collective.PSUM)), List.of(shape), what)
                        : TraceRules.noCollectives("with Y = 1 nothing needs to move"));
    }
}
