package dev.shardlings.grader.problem2;

import dev.shardlings.array.NDArray;
import dev.shardlings.events.Collective;
import dev.shardlings.events.DeviceTrace;
import dev.shardlings.events.TraceEvent.CollectiveEvent;
import dev.shardlings.events.TraceEvent;
import dev.shardlings.grader.checks.Checks.Tolerance;
import dev.shardlings.grader.checks.Checks;
import dev.shardlings.grader.checks.Generators;
import dev.shardlings.grader.checks.MeshSpec;
import dev.shardlings.grader.checks.TraceRules.Rule;
import dev.shardlings.grader.checks.TraceRules;
import dev.shardlings.grader.judge.CaseRun;
import dev.shardlings.grader.judge.GradingFailure;
import dev.shardlings.grader.judge.Guard;
import dev.shardlings.grader.judge.Reports;
import dev.shardlings.grader.parts.Check;
import dev.shardlings.grader.parts.CheckLog;
import dev.shardlings.grader.parts.CourseMethod;
import dev.shardlings.grader.parts.Part;
import dev.shardlings.sharding.AxisType;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.PartitionSpec;
import dev.shardlings.spmd.ShardedArray;

import java.util.List;

import static dev.shardlings.grader.parts.Part.example;
import static dev.shardlings.grader.parts.Part.property;
import static dev.shardlings.grader.problem2.MoeCase.Routing.ONE_EXPERT;
import static dev.shardlings.grader.problem2.MoeCase.Routing.REPEATED;
import static dev.shardlings.grader.problem2.MoeCase.Routing.SOME_EMPTY;
import static dev.shardlings.grader.problem2.MoeCase.Routing.UNIFORM;
import static dev.shardlings.sharding.PartitionSpec.P;

/**
 * Problem 2's parts (mixture of experts) and their checks: first the table, one row each, then the checks the rows
 * run. Values against {@link Problem2Oracles} on the whole arrays; the local parts by what they allocate; the
 * sharded parts by their communication, their matmul FLOPs (no compute on padding) and the largest array on any
 * device.
 */
public final class Problem2Checks {

    static final Part.Chapter CHAPTER = new Part.Chapter("problem 2", "mixture of experts", "Problem2");

    private static final String D = "docs/problem-2.md#";

    /** {@code Problem2.moeLocal}. */
    public static final CourseMethod<Local> MOE_LOCAL = CHAPTER.method("moeLocal", Local.class, NDArray.class, NDArray.class, NDArray.class, NDArray.class);
    /** {@code Problem2.moeJit}. */
    public static final CourseMethod<Sharded> MOE_JIT = CHAPTER.method("moeJit", Sharded.class, ShardedArray.class, ShardedArray.class, ShardedArray.class, ShardedArray.class);
    /** {@code Problem2.moeJitBytesReceived}. */
    public static final CourseMethod<BytesReport> MOE_JIT_BYTES_RECEIVED = CHAPTER.method("moeJitBytesReceived", BytesReport.class, int.class, ShardedArray.class, ShardedArray.class, ShardedArray.class);
    /** {@code Problem2.moeAllGather}. */
    public static final CourseMethod<Sharded> MOE_ALL_GATHER = CHAPTER.method("moeAllGather", Sharded.class, ShardedArray.class, ShardedArray.class, ShardedArray.class, ShardedArray.class);
    /** {@code Problem2.moeAllToAll}. */
    public static final CourseMethod<Ragged> MOE_ALL_TO_ALL = CHAPTER.method("moeAllToAll", Ragged.class, ShardedArray.class, ShardedArray.class, ShardedArray.class, ShardedArray.class, int.class);
    /** {@code Problem2.moeTopKLocal}. */
    public static final CourseMethod<Local> MOE_TOP_K_LOCAL = CHAPTER.method("moeTopKLocal", Local.class, NDArray.class, NDArray.class, NDArray.class, NDArray.class);
    /** {@code Problem2.moeTopKAllToAll}. */
    public static final CourseMethod<Ragged> MOE_TOP_K_ALL_TO_ALL = CHAPTER.method("moeTopKAllToAll", Ragged.class, ShardedArray.class, ShardedArray.class, ShardedArray.class, ShardedArray.class, int.class);

    /** Part 2.1. */
    public static final Part P2_1 = CHAPTER.part("2.1", "mixture of experts, local", 3, "MoeLocal")
            .calls(MOE_LOCAL)
            .docs(D + "part-21-the-local-version")
            .hint("order = B.argsort() groups the tokens by expert; for each expert e multiply A.take(rows, 0) by"
                    + " W.take(0, e), then put the rows back with one take by the inverse positions.")
            .requires(MOE_LOCAL, "values (routings: uniform, all tokens to one expert, experts that get no token)", Check.VALUES)
            .requires(MOE_LOCAL, "no shardMap", Check.NO_SHARD_MAP)
            .requires(MOE_LOCAL, "no array of S·D·F elements or more is allocated", Check.HOST_MEMORY)
            .requires(MOE_LOCAL, "each expert's tokens in one matmul: exactly 2·S·D·F matmul FLOPs, at most one "
                    + "matmul per expert that has tokens", Check.FLOPS, Check.MATMULS)
            .graded(cases(false), examples(false), c -> moeLocal(MOE_LOCAL.proxy(), c));

    /** Part 2.2. */
    public static final Part P2_2 = CHAPTER.part("2.2", "mixture of experts, jit", 2, "MoeJit")
            .calls(MOE_JIT, MOE_JIT_BYTES_RECEIVED)
            .docs(D + "part-22-jit-the-local-version-and-read-what-the-compiler-did")
            .hint("which arrays of fixed shape ([S, E], [E, S, D], [E, S, F]) carry the routing without reading B's values"
                    + " (problem-2.md, part 2.2)? For the report: what does lowering the same Jitted on (a, w, b) give"
                    + " you, and which of its analyses counts received bytes?")
            .requires(MOE_JIT, "values and layout", Check.VALUES, Check.LAYOUT)
            .requires(MOE_JIT, "compiled by jit, with no hand-written shardMap", Check.USES_JIT)
            .requires(MOE_JIT_BYTES_RECEIVED, "equal to the most bytes any device received in the collectives "
                    + "of the program moeJit ran, read from the trace", Check.REPORTED_COMMUNICATION)
            .graded(cases(false), examples(false), c -> moeJit(MOE_JIT.proxy(), MOE_JIT_BYTES_RECEIVED.proxy(), c));

    /** Part 2.3a. */
    public static final Part P2_3A = CHAPTER.part("2.3a", "mixture of experts, all-gather", 2, "MoeAllGather")
            .calls(MOE_ALL_GATHER)
            .docs(D + "part-23a-gather-then-compute")
            .hint("device x owns experts [x·E/X, (x+1)·E/X): after gathering A and B, compute only the tokens routed"
                    + " there (zeros elsewhere) and psumScatter the [S, F/Y] partial result over X along rows.")
            .requires(MOE_ALL_GATHER, "values and layout", Check.VALUES, Check.LAYOUT)
            .requires(MOE_ALL_GATHER, "all-gathers over X carry the tokens (rows of A, entries of B) and no collective "
                    + "carries an expert block", Check.COLLECTIVES, Check.OPERANDS)
            .requires(MOE_ALL_GATHER, "each device's matmuls do exactly 2·n·D·(F/Y) FLOPs, n = the tokens routed to "
                    + "its experts", Check.FLOPS)
            .graded(cases(false), examples(false), c -> moeAllGather(MOE_ALL_GATHER.proxy(), c));

    /** Part 2.3b. */
    public static final Part P2_3B = CHAPTER.part("2.3b", "mixture of experts, ragged all-to-all", 4, "MoeAllToAll")
            .calls(MOE_ALL_TO_ALL)
            .docs(D + "part-23b-ragged-all-to-all")
            .hint("per round and destination x', send rows [round·C, (round+1)·C) of your tokens for x' (zero rows and"
                    + " expert id −1 where there are fewer); allToAll(buf, \"X\", 0, 0, Tiling.TILED) there and back"
                    + " keeps the slots in place, so slot j of the returned results belongs to the token you put in"
                    + " slot j.")
            .requires(MOE_ALL_TO_ALL, "values", Check.VALUES)
            .requires(MOE_ALL_TO_ALL, "at least one all-to-all over X (when X > 1)", Check.COLLECTIVES)
            .requires(MOE_ALL_TO_ALL, "no all-gather over X", Check.COLLECTIVES)
            .requires(MOE_ALL_TO_ALL, "each device's matmuls do exactly 2·n·D·(F/Y) FLOPs, n = the tokens routed to "
                    + "its experts (no padded compute)", Check.FLOPS)
            .requires(MOE_ALL_TO_ALL, "no single array on a device larger than the largest of (S/X + 1)·D, (X·capacity "
                    + "+ 1)·D, D·(F/Y), (X·capacity + 1)·(F/Y) and (S/X + 1)·(F/Y) elements (one "
                    + "device's tokens or one round's buffers, each with a zero row) — far below the "
                    + "(E/X)·S·D of a masked [E/X, S, D] buffer", Check.DEVICE_MEMORY)
            .graded(cases(false), examples(false), c -> moeAllToAll(MOE_ALL_TO_ALL.proxy(), c));

    /** Part 2.4. */
    public static final Part P2_4 = CHAPTER.part("2.4", "mixture of experts, top-k", 3, "MoeTopK")
            .calls(MOE_TOP_K_LOCAL, MOE_TOP_K_ALL_TO_ALL)
            .docs(D + "part-24-top-k-routing")
            .hint("build int32 indices [0, …, 0, 1, …, 1, …] (each token k times) with NDArray.fromInts; row i·k + j of"
                    + " A.take(indices, 0) is token i for its j-th expert: route those S·k rows as in 2.1 / 2.3b, then"
                    + " reshape the result to [S, k, F] and take the mean over axis 1.")
            .requires(MOE_TOP_K_LOCAL, "values", Check.VALUES)
            .requires(MOE_TOP_K_LOCAL, "no shardMap", Check.NO_SHARD_MAP)
            .requires(MOE_TOP_K_LOCAL, "no array of S·D·F elements or more", Check.HOST_MEMORY)
            .requires(MOE_TOP_K_LOCAL, "each expert's (token, expert) pairs in one matmul: exactly 2·S·k·D·F matmul "
                    + "FLOPs, at most one matmul per expert that has pairs", Check.FLOPS, Check.MATMULS)
            .requires(MOE_TOP_K_ALL_TO_ALL, "as 2.3b with the S·k (token, expert) pairs in place of the S tokens", Check.VALUES, Check.LAYOUT, Check.COLLECTIVES, Check.FLOPS, Check.DEVICE_MEMORY)
            .graded(cases(true), examples(true), c -> topK(MOE_TOP_K_LOCAL.proxy(), MOE_TOP_K_ALL_TO_ALL.proxy(), c));

    /** The parts of problem 2, in course order. */
    public static final List<Part> PARTS = List.of(P2_1, P2_2, P2_3A, P2_3B, P2_4);

    /**
     * The cases every Problem 2 part is graded on: a property over meshes (X and Y plus up to one replicated axis,
     * 1–16 devices), numbers of experts and tokens, sizes, routings and capacities ({@code topK}: k of 2–3).
     */
    private static Part.Property<MoeCase> cases(boolean topK) {
        return property("meshesSizesAndRoutings", 60, "1200", () -> MoeCase.cases(topK));
    }

    /**
     * Fixed examples: the book's 2 × 4 mesh, one device, all tokens to one expert, experts with no token, a capacity
     * of one token per round, and (top-k) repeated experts in one token's choices.
     */
    private static List<Part.Example<MoeCase>> examples(boolean topK) {
        int k = topK ? 2 : 1;
        return List.of(
                example("booksMesh", new MoeCase(MeshSpec.of("X", 2, "Y", 4), 2, 3, 1, 2, k, UNIFORM, 2, 40)),
                example("oneDevice", new MoeCase(MeshSpec.of("X", 1, "Y", 1), 3, 4, 2, 2, k, UNIFORM, 1, 41)),
                example("everyTokenToOneExpert", new MoeCase(MeshSpec.of("X", 4, "Y", 2), 1, 3, 1, 1, k, ONE_EXPERT, 2,
                        42)),
                example("expertsWithNoToken", new MoeCase(MeshSpec.of("X", 4, "Y", 1), 3, 2, 2, 1, k, SOME_EMPTY, 1,
                        43)),
                example("oneTokenPerRoundAndAReplicatedAxis", new MoeCase(MeshSpec.of("Z", 2, "X", 2, "Y", 2), 2, 4, 1,
                        1, k, UNIFORM, 1, 44)),
                example("repeatedExpertsInOneTokensChoices", new MoeCase(MeshSpec.of("X", 2, "Y", 2), 2, 3, 1, 2,
                        topK ? 3 : 1, REPEATED, 2, 45)));
    }

    // ------------------------------------------------------------------------------------------ checks

    private static final PartitionSpec XY = P("X", "Y");
    private static final PartitionSpec EXPERTS = P("X", null, "Y");

    private Problem2Checks() {
    }

    /** The signature of the local parts: (A, W, B) → Out. */
    @FunctionalInterface
    public interface Local {
        NDArray apply(NDArray a, NDArray w, NDArray b);
    }

    /** The signature of part 2.3a: (A, W, B) → Out. */
    @FunctionalInterface
    public interface Sharded {
        ShardedArray apply(ShardedArray a, ShardedArray w, ShardedArray b);
    }

    /** The signature of the all-to-all parts: (A, W, B, capacity) → Out. */
    @FunctionalInterface
    public interface Ragged {
        ShardedArray apply(ShardedArray a, ShardedArray w, ShardedArray b, int capacity);
    }

    private static String dims(String name, String type, int... d) {
        return name + " " + type + java.util.Arrays.toString(d).replace(" ", "");
    }

    private static Tolerance tol(int d) {
        return Tolerance.float32(4.0 * d);
    }

    // ------------------------------------------------------------------------------------------------- local

    /**
     * Each (token, expert) pair is multiplied once, and each expert's tokens in one matmul: the host's matmuls do
     * exactly 2·P·D·F FLOPs for the P pairs (no dense compute of every token by every expert) in at most one
     * matmul per expert that has tokens (no matmul per token).
     */
    private static void oncePerExpert(CaseRun<NDArray> run, NDArray b, int d, int f) {
        CheckLog.ran(Check.FLOPS, Check.MATMULS);
        int[] routes = b.toIntArray();
        long pairs = routes.length;
        long experts = java.util.Arrays.stream(routes).distinct().count();
        List<TraceEvent.MatmulEvent> mms = run.trace().hostEvents().stream()
                .filter(TraceEvent.MatmulEvent.class::isInstance).map(TraceEvent.MatmulEvent.class::cast)
                .filter(m -> m.flops() > 0).toList();
        long flops = mms.stream().mapToLong(TraceEvent.MatmulEvent::flops).sum();
        long want = 2L * pairs * d * f;
        String why = null;
        if (flops != want) {
            why = "its matmuls do " + flops + " FLOPs; the " + pairs + " (token, expert) pairs need exactly 2·"
                    + pairs + "·D·F = " + want + (flops > want ? " — multiplying tokens by experts they are not"
                    + " routed to (a mask) costs E times as much" : "");
        } else if (mms.size() > experts) {
            why = "it does " + mms.size() + " matmuls for " + experts + " expert(s) that have tokens; multiply each"
                    + " expert's group of tokens in one matmul, not one token at a time";
        }
        if (why != null) {
            throw run.report("computes the right values, but not by one matmul per expert").paragraph(why + ".")
                    .failure(GradingFailure.Kind.STRUCTURE, "not one matmul per expert group");
        }
    }

    /** 2.1 and 2.4 (local): values; no shardMap; no array of S·D·F elements or more. */
    private static void local(Part part, Local impl, MoeCase c) {
        int[] sz = c.localSizes();
        int e = sz[0];
        int s = sz[1];
        int d = sz[2];
        int f = sz[3];
        NDArray a = Generators.smallFloats(c.seed(), s, d);
        NDArray w = Generators.smallFloats(c.seed() + 1, e, d, f);
        NDArray b = c.route(s, e);
        String text = c.describeLocal(dims("A", "f32", s, d) + ", " + dims("W", "f32", e, d, f) + ", "
                + dims("B", "int32", b.shape()));
        CaseRun<NDArray> run = Guard.run(part, text, () -> impl.apply(a, w, b));
        Checks.wholeResult(run, Reports.inputs("A", a, "W", w, "B", b), Problem2Oracles.moe(a, w, b), tol(d));
        Checks.noShardMap(run);
        long limit = 4L * s * d * f;
        long largest = run.trace().hostLargestAllocation();
        CheckLog.ran(Check.HOST_MEMORY);
        if (largest >= limit) {
            throw run.report("computes the right values, but materialises an array as large as [S, D, F]")
                    .paragraph("The largest array the code allocated has " + largest / 4 + " elements; S·D·F = "
                            + s + "·" + d + "·" + f + " = " + limit / 4 + ". That is every token holding its own copy"
                            + " of its expert's matrix (W.take(B, 0) does this). Group the tokens by expert instead"
                            + " and multiply each group once.")
                    .failure(GradingFailure.Kind.STRUCTURE, "allocates " + largest / 4 + " elements at once, as many"
                            + " as S·D·F = " + limit / 4);
        }
        oncePerExpert(run, b, d, f);
    }

    /** 2.1: the local version, k = 1. */
    public static void moeLocal(Local impl, MoeCase c) {
        local(P2_1, impl, c);
    }

    // ------------------------------------------------------------------------------------------------ sharded

    /** A case laid out on its mesh, ready to run. */
    private record Laid(String text, String inputs, NDArray expected, ShardedArray a, ShardedArray w,
                        ShardedArray b, String pictures, int[] sizes) {
    }

    private static Laid lay(MoeCase c, boolean ragged) {
        return lay(c, ragged, c.mesh().mesh());
    }

    private static Laid lay(MoeCase c, boolean ragged, Mesh mesh) {
        int[] sz = c.shardedSizes();
        int e = sz[0];
        int s = sz[1];
        int d = sz[2];
        int f = sz[3];
        NDArray a = Generators.smallFloats(c.seed(), s, d);
        NDArray w = Generators.smallFloats(c.seed() + 1, e, d, f);
        NDArray b = c.route(s, e);
        ShardedArray as = ShardedArray.devicePut(a, mesh, XY);
        ShardedArray ws = ShardedArray.devicePut(w, mesh, EXPERTS);
        ShardedArray bs = ShardedArray.devicePut(b, mesh, c.k() == 1 ? P("X") : P("X", null));
        String text = c.describe(dims("A", "f32", s, d) + " laid out P('X', 'Y'), " + dims("W", "f32", e, d, f)
                + " laid out P('X', None, 'Y'), " + dims("B", "int32", b.shape()) + " laid out "
                + bs.spec() + "; Out " + dims("", "f32", s, f).strip() + " laid out P('X', 'Y')"
                + (ragged ? "; capacity " + c.capacity() : ""));
        return new Laid(text, Reports.inputs("A", a, "B", b), Problem2Oracles.moe(a, w, b), as, ws, bs,
                "A:\n" + Reports.picture(as), sz);
    }

    /** Part 2.2's report: (A, W, B) → bytes one device receives in the compiled program. */
    @FunctionalInterface
    public interface BytesReport {
        int apply(ShardedArray a, ShardedArray w, ShardedArray b);
    }

    /**
     * 2.2: moeJit compiled by jit with no shardMap of its own, values and layout P('X', 'Y') on a mesh of Auto axes;
     * the report equals the most bytes a device received in the collectives of the program moeJit ran.
     */
    public static void moeJit(Sharded impl, BytesReport report, MoeCase c) {
        Mesh mesh = c.mesh().mesh();
        Mesh auto = mesh.withAxisTypes(java.util.Collections.nCopies(mesh.rank(), AxisType.AUTO)
                .toArray(AxisType[]::new));
        Laid l = lay(c, false, auto);
        CaseRun<ShardedArray> run = Guard.run(P2_2, l.text(), () -> impl.apply(l.a(), l.w(), l.b()));
        Checks.compiledByJit(run);
        Checks.shardedResult(run, l.inputs(), l.expected(), XY, tol(l.sizes()[2]), l.pictures());
        CaseRun<Integer> reported = Guard.run(P2_2, l.text(), () -> report.apply(l.a(), l.w(), l.b()));
        CheckLog.ran(Check.REPORTED_COMMUNICATION);
        java.util.Set<Long> received = new java.util.TreeSet<>();
        StringBuilder program = new StringBuilder();
        for (dev.shardlings.events.ShardMapTrace m : run.trace().shardMaps()) {
            for (DeviceTrace d : m.devices()) {
                received.add(d.collectives().stream().mapToLong(CollectiveEvent::bytesReceived).sum());
            }
            if (!m.devices().isEmpty()) {
                program.append("  ").append(m.functionName()).append(", device ").append(m.devices().get(0).deviceId())
                        .append(":\n");
                for (CollectiveEvent ev : m.devices().get(0).collectives()) {
                    program.append("    ").append(ev.describe()).append(" — receives ").append(ev.bytesReceived())
                            .append(" bytes\n");
                }
            }
        }
        // a collective-permute with devices that keep their block (XLA's regrouping) receives on some devices only:
        // the bytes per device are then the most any device receives, as costAnalysis() counts them
        long expected = received.isEmpty() ? 0 : ((java.util.TreeSet<Long>) received).last();
        if (reported.value() == null || reported.value() != expected) {
            throw reported.report("reports " + reported.value() + " bytes received per device; the compiled program"
                            + (received.size() > 1 ? " receives " + received + " bytes on different devices, at"
                            + " most " + expected : " receives " + expected))
                    .paragraph("What the program moeJit compiled did, in order:")
                    .lines(program.length() == 0 ? "  (no collective)\n" : program.toString())
                    .paragraph("Report the bytes one device receives in all of these together. They are in the"
                            + " compiled program: Jit.jit(…).lower(a, w, b).costAnalysis().bytesReceivedPerDevice(), or"
                            + " its asText() read collective by collective.")
                    .noHint()
                    .failure(GradingFailure.Kind.WRONG_VALUES, "reported " + reported.value() + " bytes received per"
                            + " device, the compiled program receives " + expected);
        }
    }

    /** 2.3a: values; an all-gather of A over X. */
    public static void moeAllGather(Sharded impl, MoeCase c) {
        Part part = P2_3A;
        Laid l = lay(c, false);
        CaseRun<ShardedArray> run = Guard.run(part, l.text(), () -> impl.apply(l.a(), l.w(), l.b()));
        Checks.shardedResult(run, l.inputs(), l.expected(), XY, tol(l.sizes()[2]), l.pictures());
        int x = c.mesh().size("X");
        int y = c.mesh().size("Y");
        int e = l.sizes()[0];
        int sx = l.sizes()[1] / x;
        int d = l.sizes()[2];
        int fy = l.sizes()[3] / y;
        int[] routed = routedPerX(l.b().gather(), e, x);
        int xAxis = c.mesh().names().indexOf("X");
        Rule tokensGathered = new Rule(java.util.Set.of(Check.COLLECTIVES, Check.OPERANDS), dev -> {
            for (CollectiveEvent ev : dev.collectives()) {
                if (ev.inputShape().size() > 2) {
                    return "it calls " + ev.describe() + "; that operand has the shape of an expert block"
                            + " [E/X, D, F/Y]: this part moves the tokens to the experts, never the experts";
                }
                if (ev.kind() == Collective.ALL_GATHER && ev.axes().contains("X")
                        && (ev.inputShape().isEmpty() || ev.inputShape().get(0) != sx)) {
                    return "it calls " + ev.describe() + "; an all-gather over X here collects the S/X = " + sx
                            + " tokens (rows of A, entries of B) of every device";
                }
            }
            boolean gathers = dev.collectives().stream().anyMatch(ev -> ev.kind() == Collective.ALL_GATHER
                    && ev.axes().contains("X"));
            return x == 1 || gathers ? null : "it never gathers over X; in this part every device collects all the"
                    + " tokens first";
        });
        Rule ownExperts = Rule.of(Check.FLOPS, dev -> {
            long want = 2L * routed[dev.coords().get(xAxis)] * d * fy;
            return dev.flops() == want ? null : "its matmuls do " + dev.flops() + " FLOPs; the "
                    + routed[dev.coords().get(xAxis)] + " tokens routed to its experts need exactly 2·n·D·(F/Y) = "
                    + want + " (multiply only the tokens routed to this device's experts, each once)";
        });
        TraceRules.perDevice(run, "does not gather the tokens, or computes more than its experts' tokens",
                "all-gathers over X carry tokens ([S/X, …] rows of A and B), never an"
                        + " expert block; each device's matmuls do exactly 2·n·D·(F/Y) FLOPs for the n tokens"
                        + " routed to its experts", tokensGathered.and(ownExperts));
    }

    /** How many routing entries of {@code routing} go to the experts of each index along X. */
    private static int[] routedPerX(NDArray routing, int experts, int x) {
        int[] routed = new int[x];
        for (int v : routing.toIntArray()) {
            routed[v / (experts / x)]++;
        }
        return routed;
    }

    /** 2.3b: values; all-to-all over X, no all-gather over X, no padded compute, per-device memory budget. */
    public static void moeAllToAll(Ragged impl, MoeCase c) {
        ragged(P2_3B, impl, c);
    }

    private static void ragged(Part part, Ragged impl, MoeCase c) {
        Laid l = lay(c, true);
        CaseRun<ShardedArray> run = Guard.run(part, l.text(), () -> impl.apply(l.a(), l.w(), l.b(), c.capacity()));
        Checks.shardedResult(run, l.inputs(), l.expected(), XY, tol(l.sizes()[2]), l.pictures());
        int x = c.mesh().size("X");
        int y = c.mesh().size("Y");
        int e = l.sizes()[0];
        int d = l.sizes()[2];
        int fy = l.sizes()[3] / y;
        long rows = (long) (l.sizes()[1] / x) * c.k();  // (token, expert) pairs per device
        long slots = (long) x * c.capacity() + 1;
        long budget = Math.max(Math.max((rows + 1) * d, slots * d), Math.max((long) d * fy,
                Math.max(slots * fy, (rows + 1) * fy)));
        int[] routed = routedPerX(l.b().gather(), e, x);   // pairs routed to the experts of each X index
        List<String> names = c.mesh().names();
        int xAxis = names.indexOf("X");
        Rule comms = new Rule(java.util.Set.of(Check.COLLECTIVES, Check.OPERANDS), dev -> {
            for (CollectiveEvent ev : dev.collectives()) {
                if (ev.kind() == Collective.ALL_GATHER && ev.axes().contains("X") && x > 1) {
                    return "it calls " + ev.describe() + "; this part moves each token only to its expert's device,"
                            + " never gathers tokens over X";
                }
            }
            boolean a2a = dev.collectives().stream().anyMatch(ev -> ev.kind() == Collective.ALL_TO_ALL
                    && ev.axes().contains("X"));
            return x == 1 || a2a ? null : "it never calls all_to_all over X, which carries the tokens to their experts";
        });
        Rule flops = Rule.of(Check.FLOPS, dev -> {
            long want = 2L * routed[dev.coords().get(xAxis)] * d * fy;
            return dev.flops() == want ? null : "its matmuls do " + dev.flops() + " FLOPs; the " + routed[
                    dev.coords().get(xAxis)] + " (token, expert) pairs routed to its experts need exactly 2·n·D·(F/Y) = "
                    + want + " (padding rows must not be multiplied)";
        });
        Rule memory = Rule.of(Check.DEVICE_MEMORY, (DeviceTrace dev) -> dev.largestAllocation() <= 4 * budget ? null
                : "its largest array has "
                + dev.largestAllocation() / 4 + " elements; the budget is " + budget + " (the largest of (S/X + 1)·D,"
                + " (X·capacity + 1)·D, D·(F/Y), (X·capacity + 1)·(F/Y) and (S/X + 1)·(F/Y)), far below the "
                + (long) e / x * l.sizes()[1] * d + " of a masked [E/X, S, D] buffer");
        TraceRules.perDevice(run, "ragged all-to-all: no gather over X, no padded compute, bounded memory",
                "tokens travel with all_to_all over X (no all_gather over X); each device's"
                        + " matmuls do exactly 2·n·D·(F/Y) FLOPs for the n (token, expert) pairs routed to its"
                        + " experts; no array larger than " + budget + " elements on a device",
                comms.and(flops).and(memory));
    }

    /** 2.4: top-k, local and sharded (as 2.3b with the S·k pairs). */
    public static void topK(Local local, Ragged sharded, MoeCase c) {
        local(P2_4, local, c);
        ragged(P2_4, sharded, c);
    }
}
