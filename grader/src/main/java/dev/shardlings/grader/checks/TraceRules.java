package dev.shardlings.grader.checks;

import dev.shardlings.events.Collective;
import dev.shardlings.events.DeviceTrace;
import dev.shardlings.events.ShardMapTrace;
import dev.shardlings.events.Trace;
import dev.shardlings.events.TraceEvent;
import dev.shardlings.events.TraceEvent.CollectiveEvent;
import dev.shardlings.events.TraceEvent.MatmulEvent;
import dev.shardlings.grader.parts.Check;
import dev.shardlings.grader.parts.CheckLog;
import dev.shardlings.grader.judge.CaseRun;
import dev.shardlings.grader.judge.GradingFailure;
import dev.shardlings.grader.judge.Guard;
import dev.shardlings.grader.judge.Report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Set;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Structural rules read from the trace, device by device: which collectives, one step round a ring in which
 * direction, how many bytes each way, which matmuls. A {@link Rule} maps one device's record to {@code null} (kept)
 * or one sentence saying how it was broken; {@link #perDevice} applies it to every device and reports the first
 * device that broke it, with everything that device did.
 *
 * <p>A device's record is taken over the whole graded call: when the code makes several shardMap calls on the
 * same mesh, each device's events are joined in call order, so splitting a program into several shardMaps neither
 * hides nor adds communication.
 */
public final class TraceRules {

    private TraceRules() {
    }

    /**
     * A rule on one device's record, and the kinds of check it makes. Rules chain with {@link #and}: the first
     * broken one is reported.
     *
     * @param checks    what the rule checks (recorded in {@link CheckLog} when it is applied)
     * @param violation {@code null} when the device kept the rule, else what it did wrong, as one sentence without
     *                  a period
     */
    public record Rule(Set<Check> checks, Function<DeviceTrace, String> violation,
                       Function<DeviceTrace, String> hintFor) {
        public Rule {
            checks = Set.copyOf(checks);
        }

        /** A rule with no hint of its own: a report of its violation ends with the part's hint. */
        public Rule(Set<Check> checks, Function<DeviceTrace, String> violation) {
            this(checks, violation, d -> null);
        }

        /** A rule of one kind. */
        public static Rule of(Check check, Function<DeviceTrace, String> violation) {
            return new Rule(Set.of(check), violation);
        }

        /** {@code null} when the device kept the rule, else what it did wrong. */
        public String violation(DeviceTrace device) {
            return violation.apply(device);
        }

        /** The hint for this rule's violation on {@code device}, or {@code null} for the part's own hint. */
        public String hint(DeviceTrace device) {
            return hintFor.apply(device);
        }

        /** This rule with a hint about its mistake, shown instead of the part's general hint when it is broken. */
        public Rule withHint(String hint) {
            return new Rule(checks, violation, d -> hint);
        }

        /** This rule, then {@code next} when this one is kept; the hint is the broken rule's. */
        public Rule and(Rule next) {
            Set<Check> both = new java.util.HashSet<>(checks);
            both.addAll(next.checks);
            return new Rule(both, d -> {
                String v = violation(d);
                return v != null ? v : next.violation(d);
            }, d -> violation(d) != null ? hint(d) : next.hint(d));
        }
    }

    /** Which ppermute of the device {@code c} is, counting from 1: the ring step a report names. */
    private static int step(DeviceTrace d, CollectiveEvent c) {
        int n = 0;
        for (CollectiveEvent e : d.collectives()) {
            if (e.kind() == Collective.PPERMUTE) {
                n++;
            }
            if (e == c) {
                return n;
            }
        }
        return n;
    }

    /** {@code rule} with its factory's hint (kept beside the check it is about). */
    private static Rule hinted(String hint, Rule rule) {
        return rule.withHint(hint);
    }

    /** Direction of a one-step ring shift: towards higher indices (s → s + 1 mod n) or lower. */
    public enum Direction {
        /** s → s + 1 mod n. */
        UP("up"),
        /** s → s − 1 mod n. */
        DOWN("down");

        private final String word;

        Direction(String word) {
            this.word = word;
        }

        /** "up" or "down". */
        public String word() {
            return word;
        }
    }

    /**
     * Each device's events over every shardMap call of the trace, joined in call order, one record per device id
     * in the order of the first call's mesh. Allocation figures are the largest (resp. the sum) over the calls; argument
     * bytes the largest any one call handed the device; peak residual bytes the most any one call's tapes held; the
     * autodiff's pullback and recomputed FLOPs the sums (like the events' FLOPs).
     */
    public static List<DeviceTrace> devices(Trace trace) {
        Map<Integer, DeviceTrace> byId = new LinkedHashMap<>();
        for (ShardMapTrace sm : trace.shardMaps()) {
            for (DeviceTrace d : sm.devices()) {
                byId.merge(d.deviceId(), d, (a, b) -> {
                    List<TraceEvent> events = new ArrayList<>(a.events());
                    events.addAll(b.events());
                    return new DeviceTrace(a.deviceId(), a.coords(), events,
                            Math.max(a.largestAllocation(), b.largestAllocation()),
                            Math.addExact(a.allocatedBytes(), b.allocatedBytes()), // a forged sum fails, never wraps
                            Math.max(a.argumentBytes(), b.argumentBytes()),
                            Math.max(a.peakResidualBytes(), b.peakResidualBytes()),
                            Math.addExact(a.pullbackFlops(), b.pullbackFlops()),
                            Math.addExact(a.recomputedFlops(), b.recomputedFlops()),
                            Math.addExact(a.capturedArrays(), b.capturedArrays()));
                });
            }
        }
        return List.copyOf(byId.values());
    }

    /**
     * Applies {@code rule} to every device of the graded call.
     *
     * @param reason   the one-line reason for the score table, e.g. "communication: n − 1 ppermutes of A blocks";
     *                 the device's violation is appended to it
     * @param ruleText the rule in words, shown in the report
     * @throws GradingFailure of kind {@link GradingFailure.Kind#STRUCTURE} for the first device that broke the
     *                        rule, or when the code made no shardMap call at all
     */
    public static void perDevice(CaseRun<?> run, String reason, String ruleText, Rule rule) {
        Checks.usesShardMap(run);
        // Every part's rules read the devices' own work: data that reached a device outside its arguments and
        // collectives would make them vacuous (a ring kept as a decoy beside reads of other devices' blocks).
        // Not logged as a check of the part: like the sandbox's barriers it guards every part's evidence, and no
        // part's Graded line lists it (docs/grading-integrity.md does).
        apply(run, "reads data no argument or collective brought it", OWN_DATA_TEXT, OWN_DATA);
        CheckLog.ran(rule.checks().toArray(Check[]::new));
        apply(run, reason, ruleText, rule);
    }

    /** What {@link #OWN_DATA} asks, as the report states it. */
    static final String OWN_DATA_TEXT = "each device reads only the blocks shardMap handed it, the arrays it made and"
            + " those its collectives brought it";

    /**
     * No device reads an array captured from outside the shardMap function ({@link DeviceTrace#capturedArrays}):
     * a host view of some device's block ({@code blocks()}, {@code gather()}, {@code addressableShards()} taken
     * before the call) or an array made on the host from them.
     */
    static final Rule OWN_DATA = hinted("pass every array the devices need to shardMap as an argument, with an in"
            + " spec, and move blocks between devices with collectives; an array captured from outside the function"
            + " (a host view such as blocks() or gather(), or an array made on the host) reaches a device with no"
            + " argument or collective accounting for it", Rule.of(Check.DEVICE_MEMORY, d -> d.capturedArrays() == 0
            ? null : "it read " + d.capturedArrays() + " array(s) it was neither handed, nor made, nor received by a"
            + " collective: captured from outside the shardMap function"));

    private static void apply(CaseRun<?> run, String reason, String ruleText, Rule rule) {
        Trace trace = run.trace();
        List<String> axes = trace.shardMaps().get(0).mesh().axisNames();
        for (DeviceTrace d : devices(trace)) {
            String v = rule.violation(d);
            if (v != null) {
                // The table's line says what was wrong, not the rule's name: the device's first violation, cut short.
                Report report = run.report("computes the right values, but breaks a rule read from the trace");
                String hint = rule.hint(d);
                if (hint != null) {
                    report.hint(hint);
                }
                throw report.paragraph("Rule: " + ruleText + ".")
                        .lines("Device " + d.deviceId() + " " + coords(axes, d) + ": " + v + ".")
                        .paragraph("What device " + d.deviceId() + " did, in order:")
                        .lines(describe(d, trace))
                        .failure(GradingFailure.Kind.STRUCTURE, reason + ": " + Guard.clip(v, 200));
            }
        }
    }

    private static String coords(List<String> axes, DeviceTrace d) {
        StringBuilder c = new StringBuilder("(");
        for (int a = 0; a < axes.size() && a < d.coords().size(); a++) {
            c.append(a > 0 ? ", " : "").append(axes.get(a)).append('=').append(d.coords().get(a));
        }
        return c.append(')').toString();
    }

    /**
     * One numbered line per collective and matmul (other local operations are left out: they are many and rarely
     * the point); ppermutes say which way they go round the ring.
     */
    static String describe(DeviceTrace d, Trace trace) {
        List<TraceEvent> shown = d.events().stream().filter(e -> !(e instanceof TraceEvent.LocalOpEvent)).toList();
        if (shown.isEmpty()) {
            return "  (no collectives and no matmuls)\n";
        }
        StringBuilder sb = new StringBuilder();
        int i = 0;
        for (TraceEvent e : shown) {
            sb.append(String.format(java.util.Locale.ROOT, "  %2d. ", ++i));
            if (e instanceof CollectiveEvent c) {
                sb.append(c.describe()).append(" — sends ").append(c.bytesSent()).append(" bytes");
                if (c.kind() == Collective.PPERMUTE) {
                    Direction dir = direction(c);
                    sb.append(dir == null ? ", not a one-step ring shift" : ", one step " + dir.word());
                }
            } else if (e instanceof MatmulEvent m) {
                sb.append("matmul ").append(m.dtype().jaxName()).append('[').append(m.m()).append(", ").append(m.k())
                        .append("] · [").append(m.k()).append(", ").append(m.n()).append(']');
                if (m.operandDtype() != m.rhsOperandDtype()) {
                    // a bfloat16 × float32 dot: name each operand's dtype
                    sb.append(" of ").append(m.operandDtype().jaxName()).append(" × ")
                            .append(m.rhsOperandDtype().jaxName()).append(" operands");
                } else if (m.operandDtype() != m.dtype()) {
                    // a float32-accumulating matmul of bfloat16 operands: the listing must not read as a float32 one
                    sb.append(" of ").append(m.operandDtype().jaxName()).append(" operands");
                }
                sb.append(" (").append(m.flops()).append(" FLOPs)");
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    /**
     * The ring direction of a ppermute over an axis of {@code groupSize} devices: {@link Direction#UP} when every
     * pair that moves data sends s → s + 1 mod n, {@link Direction#DOWN} for s → s − 1 mod n, and {@code null}
     * when a pair moves by more than one step, the pairs go both ways, or no pair moves data (n = 1, self pairs,
     * an empty perm). On a ring of 2, one step up and one step down are the same: such a shift counts as UP.
     */
    public static Direction direction(CollectiveEvent c) {
        int n = c.groupSize();
        Direction dir = null;
        for (List<Integer> p : c.permutation()) {
            int s = p.get(0);
            int t = p.get(1);
            if (s == t) {
                continue;
            }
            Direction here;
            if (t == (s + 1) % n) {
                here = Direction.UP;
            } else if (t == Math.floorMod(s - 1, n)) {
                here = Direction.DOWN;
            } else {
                return null;
            }
            if (dir != null && dir != here) {
                return null;
            }
            dir = here;
        }
        return dir;
    }

    /** True when the ppermute moves no data between devices (every pair a self pair, or no pair). */
    static boolean movesNothing(CollectiveEvent c) {
        return c.permutation().stream().allMatch(p -> p.get(0).equals(p.get(1)));
    }

    /** Bytes the device sent by ppermute one step up ({@code [0]}) and one step down ({@code [1]}). */
    public static long[] bytesByDirection(DeviceTrace d) {
        long[] b = new long[2];
        for (CollectiveEvent c : d.collectives()) {
            if (c.kind() == Collective.PPERMUTE) {
                Direction dir = direction(c);
                if (dir != null) {
                    b[dir.ordinal()] += c.bytesSent();
                }
            }
        }
        return b;
    }

    // ------------------------------------------------------------------------------------------ common rules

    /** Every collective is a ppermute over exactly {@code axis}. */
    public static Rule onlyPpermutesOver(String axis) {
        return hinted("this part builds its communication from ppermute steps alone: replace the all-gather, psum"
                + " or psum_scatter with n − 1 one-step shifts round the ring, multiplying (or adding) as each"
                + " block arrives",
                Rule.of(Check.COLLECTIVES, d -> {
            for (CollectiveEvent c : d.collectives()) {
                if (c.kind() != Collective.PPERMUTE || !c.axes().equals(List.of(axis))) {
                    return "it calls " + c.describe() + "; this part allows only ppermute over " + axis;
                }
            }
            return null;
        }));
    }

    /** Exactly {@code count} ppermutes. */
    public static Rule ppermuteCount(int count, String why) {
        return hinted("one shift per block that has to travel: n − 1 in all round a ring of n (the device's own"
                + " block needs none), and no extra shift after the last one is used",
                Rule.of(Check.COLLECTIVES, d -> {
            long got = d.collectives().stream().filter(c -> c.kind() == Collective.PPERMUTE).count();
            return got == count ? null : "it calls ppermute " + got + " time(s), expected exactly " + count + " ("
                    + why + ")";
        }));
    }

    /** Every ppermute that moves data is a one-step shift round the ring, up or down. */
    public static Rule oneStepShifts() {
        return hinted("pass data only to a neighbour: perm pairs (j, (j + 1) % n) for one direction or (j, (j − 1"
                + " + n) % n) for the other; a jump of several positions costs several link hops",
                Rule.of(Check.RING_STEPS, d -> {
            for (CollectiveEvent c : d.collectives()) {
                if (c.kind() == Collective.PPERMUTE && !movesNothing(c) && direction(c) == null) {
                    return "its ring step " + step(d, c) + " (ppermute with " + c.params().text() + ") is not a shift by"
                            + " one step round the ring;"
                            + " on a ring a longer shift costs one link hop per step, so pass data to the"
                            + " neighbour each time";
                }
            }
            return null;
        }));
    }

    /** Every ppermute's operand has exactly this shape. */
    public static Rule ppermuteShape(List<Integer> shape, String what) {
        return hinted("send one block per step (the shape in the rule), not the whole array and not a slice of it",
                Rule.of(Check.OPERANDS, d -> {
            for (CollectiveEvent c : d.collectives()) {
                if (c.kind() == Collective.PPERMUTE && !c.inputShape().equals(shape)) {
                    return "at ring step " + step(d, c) + " it passes a " + c.dtype().jaxName() + c.inputShape()
                            + " with ppermute, expected " + what
                            + " of shape " + shape;
                }
            }
            return null;
        }));
    }

    /** Every ppermute's operand has at most {@code elements} elements. */
    public static Rule ppermuteAtMost(long elements, String what) {
        return hinted("send at most the piece the rule names per step; split a block into its halves rather than"
                + " sending it twice",
                Rule.of(Check.OPERANDS, d -> {
            for (CollectiveEvent c : d.collectives()) {
                long size = c.inputShape().stream().mapToLong(Integer::longValue).reduce(1, (a, b) -> a * b);
                if (c.kind() == Collective.PPERMUTE && size > elements) {
                    return "at ring step " + step(d, c) + " it passes a " + c.dtype().jaxName() + c.inputShape() + " (" + size
                            + " elements) with ppermute;"
                            + " pass at most " + what + " (" + elements + " elements) at a time";
                }
            }
            return null;
        }));
    }

    /** On a ring of at least 3 devices, some ppermute goes up and some goes down. */
    public static Rule bothDirections(int ringSize) {
        return hinted("use both links of every device: send half of each block up the ring and the other half"
                + " down, or alternate directions so that each link carries half the bytes",
                Rule.of(Check.RING_STEPS, d -> {
            if (ringSize < 3) {
                return null; // up and down are the same shift on a ring of 2
            }
            long[] b = bytesByDirection(d);
            if (b[0] == 0 || b[1] == 0) {
                return "it sends " + b[0] + " bytes up the ring and " + b[1] + " bytes down; a bidirectional"
                        + " version sends in both directions";
            }
            return null;
        }));
    }

    /** Neither direction carries more than {@code bytes}. */
    public static Rule bytesPerDirectionAtMost(long bytes, String why) {
        return hinted("use both links of every device: send half of each block up the ring and the other half"
                + " down, or alternate directions so that each link carries half the bytes",
                Rule.of(Check.BYTES, d -> {
            long[] b = bytesByDirection(d);
            if (Math.max(b[0], b[1]) > bytes) {
                return "it sends " + b[0] + " bytes up the ring and " + b[1] + " bytes down; each direction may"
                        + " carry at most " + bytes + " bytes (" + why + ")";
            }
            return null;
        }));
    }

    /** The device's matmul FLOPs are exactly {@code flops}. */
    public static Rule flops(long flops, String formula) {
        return hinted("multiply each pair of blocks exactly once, on the device that holds them: no product of a"
                + " whole gathered array, of zero-padded rows, or of the same block twice",
                Rule.of(Check.FLOPS, d -> d.flops() == flops ? null : "its matmuls do " + d.flops() + " FLOPs,"
                + " expected exactly " + flops + " = " + formula + " (no product computed twice, none left out)"));
    }

    /**
     * The device's matmul FLOPs are at least {@code flops}: a performance part's measured run must do its share of
     * the work on the device (as {@code MeasuredRun}'s floor for 3.0p–4.2p), or work done where the model cannot see
     * it (plain loops on the host over views of the blocks, beside a shardMap that only communicates) is timed free.
     */
    public static Rule flopsAtLeast(long flops, String formula) {
        return hinted("do the part's matmuls inside shardMap, each device on its own blocks",
                Rule.of(Check.FLOPS, d -> d.flops() >= flops ? null : "its matmuls do " + d.flops() + " FLOPs,"
                + " fewer than its share of the work, " + flops + " = " + formula));
    }

    /** Every matmul satisfies {@code ok}. */
    public static Rule everyMatmul(Predicate<MatmulEvent> ok, String what) {
        return hinted("split the matmul by chunk and multiply each chunk as soon as it is there, instead of one"
                + " large matmul at the end",
                Rule.of(Check.MATMULS, d -> {
            for (MatmulEvent m : d.matmuls()) {
                if (!ok.test(m)) {
                    return "it multiplies [" + m.m() + ", " + m.k() + "] · [" + m.k() + ", " + m.n() + "]; " + what;
                }
            }
            return null;
        }));
    }

    /** Exactly these collectives, in this order, each over exactly {@code axis} with the given operand shape. */
    public static Rule exactly(String axis, List<Collective> kinds, List<List<Integer>> shapes, String what) {
        return hinted("use exactly the collectives the rule lists, over the named axis, on operands of the shapes"
                + " it gives; look for an extra or a missing one",
                new Rule(Set.of(Check.COLLECTIVES, Check.OPERANDS), d -> {
            List<CollectiveEvent> cs = d.collectives();
            boolean ok = cs.size() == kinds.size();
            for (int i = 0; ok && i < cs.size(); i++) {
                ok = cs.get(i).kind() == kinds.get(i) && cs.get(i).axes().equals(List.of(axis))
                        && cs.get(i).inputShape().equals(shapes.get(i));
            }
            return ok ? null : "its collectives are not " + what;
        }));
    }

    /** The device receives at most {@code bytes} bytes in all its collectives together. */
    public static Rule bytesReceivedAtMost(long bytes, String why) {
        return hinted("make the layout the result must have part of the compiled program (out shardings or a"
                + " sharding constraint inside jit), so the compiler can choose the cheapest way to produce it",
                Rule.of(Check.BYTES, d -> {
                    long got = d.collectives().stream().mapToLong(CollectiveEvent::bytesReceived).sum();
                    return got <= bytes ? null : "it receives " + got + " bytes in " + d.collectives().size()
                            + " collective(s), more than " + bytes + " (" + why + ")";
                }));
    }

    /** No collective at all. */
    public static Rule noCollectives(String why) {
        return hinted("every device already holds what it needs: compute on the block shardMap hands it, with no"
                + " collective at all",
                Rule.of(Check.NO_COLLECTIVES, d -> d.collectives().isEmpty() ? null : "it calls "
                + d.collectives().get(0).describe() + (d.collectives().size() > 1 ? " and " + (d.collectives().size()
                - 1) + " more collective(s)" : "") + "; " + why));
    }

    /**
     * The collectives are exactly {@code kinds}, in order, each over exactly the axes {@code axes} (as a set) with
     * the operand shape given ({@code null}: any shape). Kinds in a slot may be alternatives (e.g. pmean or psum).
     */
    public static Rule collectives(Set<String> axes, List<Set<Collective>> kinds, List<List<Integer>> shapes,
                                   String what) {
        return hinted("use exactly the collectives the rule lists, over the named axes, on operands of the shapes"
                + " it gives; look for an extra or a missing one",
                new Rule(Set.of(Check.COLLECTIVES, Check.OPERANDS), d -> {
            List<CollectiveEvent> cs = d.collectives();
            if (cs.size() != kinds.size()) {
                return "it calls " + cs.size() + " collective(s); expected " + what;
            }
            for (int i = 0; i < cs.size(); i++) {
                CollectiveEvent c = cs.get(i);
                if (!kinds.get(i).contains(c.kind()) || !Set.copyOf(c.axes()).equals(axes)) {
                    return "its collective #" + (i + 1) + " is " + c.describe() + "; expected " + what;
                }
                if (shapes.get(i) != null && !c.inputShape().equals(shapes.get(i))) {
                    return "its collective #" + (i + 1) + " carries a " + c.dtype().jaxName() + c.inputShape()
                            + "; expected an operand of shape " + shapes.get(i) + " (" + what + ")";
                }
            }
            return null;
        }));
    }

    /** No single array on the device of {@code bytes} or more. */
    public static Rule largestArrayBelow(long bytes, String what) {
        return hinted("work on the blocks shardMap hands each device; never assemble the whole array on one"
                + " device",
                Rule.of(Check.DEVICE_MEMORY, d -> d.largestAllocation() < bytes ? null : "it allocates an array of "
                + d.largestAllocation() + " bytes; " + what));
    }

    /**
     * No program hands the device more than {@code bytes} of arguments: the blocks its inputs occupy in its memory
     * (a replicated input counts whole on every device).
     */
    public static Rule argumentBytesAtMost(long bytes, String what) {
        return hinted("lay the inputs out so that each device holds only its own block of each",
                Rule.of(Check.DEVICE_MEMORY, d -> d.argumentBytes() <= bytes ? null : "its inputs take "
                + d.argumentBytes() + " bytes of its memory, more than " + bytes + "; " + what));
    }

    /**
     * Every collective of {@code kind} is computed from matmuls of its own: the sets of matmuls each one's operand
     * depends on (through the dataflow of the device) are non-empty and pairwise disjoint. A program that computes
     * every product first and reduces slices of their concatenation makes every reduction wait for every matmul,
     * so none can overlap the next matmul.
     */
    public static Rule eachFromItsOwnMatmuls(Collective kind, String what) {
        return hinted("reduce each tile right after its own matmul and before computing the next, so that the"
                + " reduction overlaps the next tile's compute",
                Rule.of(Check.OVERLAP, d -> {
            Map<Long, TraceEvent> byId = new java.util.HashMap<>();
            for (TraceEvent e : d.events()) {
                byId.put(e.id(), e);
            }
            Map<Long, Set<Long>> memo = new java.util.HashMap<>();
            Set<Long> seen = new java.util.HashSet<>();
            int i = 0;
            for (CollectiveEvent c : d.collectives()) {
                if (c.kind() != kind) {
                    continue;
                }
                i++;
                Set<Long> mms = matmulsBehind(c.input(), byId, memo);
                if (mms.isEmpty()) {
                    return "its " + kind.jaxName() + " #" + i + " reduces a value no matmul produced";
                }
                for (Long m : mms) {
                    if (!seen.add(m)) {
                        return "its " + kind.jaxName() + " #" + i + " reduces a value computed from a product an"
                                + " earlier " + kind.jaxName() + " already depended on (" + mms.size() + " matmuls"
                                + " behind it), so it cannot start before all of them are done; " + what;
                    }
                }
            }
            return null;
        }));
    }

    /** The ids of the matmuls the array {@code id} was computed from, on this device. */
    private static Set<Long> matmulsBehind(long id, Map<Long, TraceEvent> byId, Map<Long, Set<Long>> memo) {
        Set<Long> known = memo.get(id);
        if (known != null) {
            return known;
        }
        Set<Long> out = new java.util.HashSet<>();
        java.util.ArrayDeque<Long> todo = new java.util.ArrayDeque<>(List.of(id));
        Set<Long> visited = new java.util.HashSet<>();
        while (!todo.isEmpty()) {
            long next = todo.pop();
            TraceEvent e = byId.get(next);
            if (e == null || !visited.add(next)) {
                continue;
            }
            if (e instanceof MatmulEvent) {
                out.add(next);
            }
            todo.addAll(e.inputs());
        }
        memo.put(id, out);
        return out;
    }
}
