package dev.shardlings.cost;

import dev.shardlings.sharding.Mesh;
import dev.shardlings.trace.Collective;
import dev.shardlings.trace.DeviceTrace;
import dev.shardlings.trace.ShardMapTrace;
import dev.shardlings.trace.Trace;
import dev.shardlings.trace.TraceEvent;
import dev.shardlings.trace.TraceEvent.CollectiveEvent;
import dev.shardlings.trace.TraceEvent.LocalOpEvent;
import dev.shardlings.trace.TraceEvent.MatmulEvent;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Turns a {@link Trace} into a modelled {@link Timeline} on a {@link HardwareModel}: the answer to "how long would
 * this take on real accelerators?" without the hardware.
 *
 * <h2>The machine</h2>
 * Each device has one compute stream, which runs its local operations in program order, and links: on a torus two
 * per mesh axis ({@code "Y+"} towards higher indices, {@code "Y-"} towards lower ones), on a switch one port each
 * way. Collectives run on the links, asynchronously: a collective starts as soon as its operand is ready on every
 * device of its group and its links are free — not where it was called — so a ppermute overlaps the independent
 * matmul written next to it, as XLA's scheduler arranges on a TPU. An operation that reads a collective's result
 * waits for it.
 *
 * <h2>Costs</h2>
 * <ul>
 *   <li>Matmul: the roofline, max(FLOPs / matmul rate of the dtype, bytes / memory bandwidth).</li>
 *   <li>Other local operations: max(FLOPs / vector rate, bytes / memory bandwidth). XLA fuses cheap operations,
 *       and so does the model: slices, transposes, broadcasts, takes, rolls and constants cost nothing (they fuse
 *       into their consumer); an elementwise operation that reads the result of the matmul just before it on the
 *       compute stream fuses into that matmul (the accumulation {@code acc + a·w} adds no pass over memory).</li>
 *   <li>ppermute: each (source, destination) pair is a message along the axis: bytes / link bandwidth plus one
 *       hop latency per hop; it occupies the links it crosses. On a torus axis shorter than
 *       {@link HardwareModel#wraparoundMinAxisSize()} there is no wraparound link, so the pair (n − 1 → 0) of a
 *       ring shift travels n − 1 hops the other way.</li>
 *   <li>Other collectives, by the book's ring formulas over n devices with operand b bytes: all-gather
 *       (n − 1)·b / B, reduce-scatter (n − 1)/n·b / B, all-reduce twice a reduce-scatter, all-to-all about a quarter
 *       of an all-gather, where B is twice the link bandwidth on a ring (both neighbours send), the link bandwidth
 *       on a line (the ends have one neighbour) and on a switch; plus one hop latency per step (⌈(n − 1)/2⌉ steps
 *       on a ring, n − 1 on a line). Over several axes at once the bandwidth adds up over the axes.</li>
 * </ul>
 * Byte counts are scaled from the framework's 4-byte elements to the modelled dtype ({@link ModelDtype#scale()}).
 * Successive shardMap calls run one after the other. Host work outside shardMap is not modelled.
 *
 * <p>The model is deterministic: the same trace, model and dtype give the same timeline.
 */
public final class CostModel {

    /** Local operations that fuse into their consumer and cost nothing of their own. */
    private static final Set<String> FREE = Set.of("slice", "transpose", "broadcast", "take", "roll", "create");

    private CostModel() {
    }

    /**
     * Schedules every shardMap call of {@code trace}, one after the other.
     *
     * @throws NullPointerException     if an argument is null
     * @throws IllegalArgumentException if the model has no matmul rate for the dtype and the trace has a matmul,
     *                                  or the devices of a call made different numbers of collectives (such a
     *                                  call fails in the framework before it could be traced)
     */
    public static Timeline schedule(Trace trace, HardwareModel hw, ModelDtype dtype) {
        Objects.requireNonNull(trace, "trace");
        Objects.requireNonNull(hw, "hw");
        Objects.requireNonNull(dtype, "dtype");
        Run run = new Run(hw, dtype);
        double t = 0;
        for (ShardMapTrace sm : trace.shardMaps()) {
            t = new Program(sm, run, t).schedule();
        }
        return new Timeline(hw.name(), dtype.jaxName(), new ArrayList<>(run.devices.values()), run.spans, t,
                run.flops, Math.round(run.bytes));
    }

    /** What accumulates over the shardMap calls of one run. */
    private static final class Run {
        final HardwareModel hw;
        final ModelDtype dtype;
        final Map<Integer, Timeline.Device> devices = new LinkedHashMap<>();
        final List<Timeline.Span> spans = new ArrayList<>();
        long flops;
        double bytes;

        Run(HardwareModel hw, ModelDtype dtype) {
            this.hw = hw;
            this.dtype = dtype;
        }
    }

    /** A compute span that later elementwise operations may fuse into. */
    private static final class Group {
        int spanIndex;
        long lastId;
        double start;
        double end;
        double matmulFlops;
        double vectorFlops;
        double bytes;
        double lastOutBytes;
        String name;
        long flops;
    }

    /** One device of one shardMap call. */
    private static final class Dev {
        final DeviceTrace trace;
        final int index;
        final Set<Long> producedHere = new HashSet<>();
        final Map<Long, Double> ready = new HashMap<>();
        final List<CollectiveEvent> collectives = new ArrayList<>();
        final Map<String, Double> linkFree = new HashMap<>();
        double computeFree;
        int cursor;
        int issuedCollectives;
        double[] issue;
        Group group;

        Dev(DeviceTrace trace, int index, double t0) {
            this.trace = trace;
            this.index = index;
            this.computeFree = t0;
            for (TraceEvent e : trace.events()) {
                producedHere.add(e.id());
                if (e instanceof CollectiveEvent c) {
                    collectives.add(c);
                }
            }
        }

        double link(String key) {
            return linkFree.getOrDefault(key, 0.0);
        }
    }

    /** The scheduling of one shardMap call. */
    private static final class Program {
        final ShardMapTrace sm;
        final Run run;
        final HardwareModel hw;
        final double t0;
        final Dev[] devs;
        final Mesh mesh;

        Program(ShardMapTrace sm, Run run, double t0) {
            this.sm = sm;
            this.run = run;
            this.hw = run.hw;
            this.t0 = t0;
            this.mesh = sm.mesh();
            List<DeviceTrace> ds = sm.devices();
            devs = new Dev[ds.size()];
            for (int d = 0; d < devs.length; d++) {
                devs[d] = new Dev(ds.get(d), d, t0);
                DeviceTrace dt = ds.get(d);
                run.devices.putIfAbsent(dt.deviceId(), new Timeline.Device(dt.deviceId(), label(dt)));
            }
            int k = devs.length == 0 ? 0 : devs[0].collectives.size();
            for (Dev dev : devs) {
                if (dev.collectives.size() != k) {
                    throw new IllegalArgumentException("cannot model shardMap '" + sm.functionName() + "': device "
                            + dev.trace.deviceId() + " made " + dev.collectives.size() + " collectives and device "
                            + devs[0].trace.deviceId() + " made " + k + "; every device must make the same ones");
                }
                dev.issue = new double[k];
            }
        }

        private String label(DeviceTrace d) {
            StringBuilder sb = new StringBuilder("device ").append(d.deviceId()).append(" (");
            List<String> names = mesh.axisNames();
            for (int a = 0; a < names.size(); a++) {
                sb.append(a > 0 ? ", " : "").append(names.get(a)).append('=').append(d.coords().get(a));
            }
            return sb.append(')').toString();
        }

        double schedule() {
            int total = devs.length == 0 ? 0 : devs[0].collectives.size();
            int next = 0;
            while (true) {
                boolean progress = false;
                for (Dev d : devs) {
                    progress |= advance(d);
                }
                if (next < total && allIssued(next)) {
                    collective(next);
                    next++;
                    progress = true;
                }
                boolean done = next == total;
                for (Dev d : devs) {
                    done &= d.cursor == d.trace.events().size();
                }
                if (done) {
                    break;
                }
                if (!progress) {
                    throw new IllegalStateException("cost model: shardMap '" + sm.functionName() + "' cannot be"
                            + " scheduled: no device can go on (an operation reads a collective that is never"
                            + " reached)");
                }
            }
            double end = t0;
            for (Dev d : devs) {
                end = Math.max(end, d.computeFree);
                for (double v : d.ready.values()) {
                    end = Math.max(end, v);
                }
                for (double v : d.linkFree.values()) {
                    end = Math.max(end, v);
                }
            }
            return end;
        }

        private boolean allIssued(int k) {
            for (Dev d : devs) {
                if (d.issuedCollectives <= k) {
                    return false;
                }
            }
            return true;
        }

        /** Ready time of an array on a device; NaN while it is the result of a collective not yet scheduled. */
        private double readyOf(Dev d, long id) {
            Double r = d.ready.get(id);
            if (r != null) {
                return r;
            }
            return d.producedHere.contains(id) ? Double.NaN : t0;
        }

        private double readyOfAll(Dev d, List<Long> ids) {
            double t = t0;
            for (long id : ids) {
                double r = readyOf(d, id);
                if (Double.isNaN(r)) {
                    return Double.NaN;
                }
                t = Math.max(t, r);
            }
            return t;
        }

        /** Moves the device's cursor as far as the known ready times allow. True when it moved. */
        private boolean advance(Dev d) {
            List<TraceEvent> events = d.trace.events();
            boolean moved = false;
            while (d.cursor < events.size()) {
                TraceEvent e = events.get(d.cursor);
                double in = readyOfAll(d, e.inputs());
                if (Double.isNaN(in)) {
                    break;
                }
                if (e instanceof CollectiveEvent) {
                    d.issue[d.issuedCollectives++] = in;
                } else {
                    compute(d, e, in);
                }
                d.cursor++;
                moved = true;
            }
            return moved;
        }

        private void compute(Dev d, TraceEvent e, double inputsReady) {
            double scale = run.dtype.scale();
            if (e instanceof LocalOpEvent op && FREE.contains(op.name())) {
                d.ready.put(e.id(), inputsReady);
                return;
            }
            if (e instanceof LocalOpEvent op && fusesInto(d, op)) {
                Group g = d.group;
                g.vectorFlops += op.flops();
                g.bytes += op.bytes() * scale - 2 * g.lastOutBytes;
                g.lastOutBytes = elements(op.shape()) * 4 * scale;
                g.lastId = op.id();
                g.end = g.start + roofline(g.matmulFlops, g.vectorFlops, g.bytes);
                g.name = g.name + " + " + op.name();
                Timeline.Span old = run.spans.get(g.spanIndex);
                run.spans.set(g.spanIndex, new Timeline.Span(old.device(), old.track(), g.name, old.category(),
                        g.start, g.end, g.flops, Math.round(g.bytes)));
                d.computeFree = Math.max(d.computeFree, g.end);
                d.ready.put(op.id(), g.end);
                return;
            }
            double start = Math.max(d.computeFree, inputsReady);
            Group g = new Group();
            g.start = start;
            g.lastId = e.id();
            String category;
            if (e instanceof MatmulEvent m) {
                g.matmulFlops = m.flops();
                g.bytes = m.bytes() * scale;
                g.lastOutBytes = (double) m.m() * m.n() * 4 * scale;
                g.name = "dot [" + m.m() + ", " + m.k() + "]·[" + m.k() + ", " + m.n() + "]";
                g.flops = m.flops();
                run.flops += m.flops();
                category = "matmul";
            } else {
                LocalOpEvent op = (LocalOpEvent) e;
                g.vectorFlops = op.flops();
                g.bytes = op.bytes() * scale;
                g.lastOutBytes = elements(op.shape()) * 4 * scale;
                g.name = op.name() + " " + op.shape();
                category = "elementwise";
            }
            g.end = start + roofline(g.matmulFlops, g.vectorFlops, g.bytes);
            g.spanIndex = run.spans.size();
            run.spans.add(new Timeline.Span(d.trace.deviceId(), Timeline.COMPUTE, g.name, category, g.start, g.end,
                    g.flops, Math.round(g.bytes)));
            d.group = e instanceof MatmulEvent ? g : null;
            d.computeFree = g.end;
            d.ready.put(e.id(), g.end);
        }

        /** An elementwise op reading the result of the matmul group just before it, whose other inputs are ready. */
        private boolean fusesInto(Dev d, LocalOpEvent op) {
            Group g = d.group;
            if (g == null || op.flops() == 0 || op.name().startsWith("reduce") || !op.inputs().contains(g.lastId)) {
                return false;
            }
            for (long id : op.inputs()) {
                if (id != g.lastId && readyOf(d, id) > g.end) {
                    return false;
                }
            }
            return true;
        }

        private double roofline(double matmulFlops, double vectorFlops, double bytes) {
            double compute = (matmulFlops > 0 ? matmulFlops / hw.matmulRate(run.dtype) : 0)
                    + vectorFlops / hw.vectorFlopsPerSecond();
            return Math.max(compute, bytes / hw.memoryBytesPerSecond());
        }

        // ----------------------------------------------------------------------------------------- collectives

        private void collective(int k) {
            CollectiveEvent first = devs[0].collectives.get(k);
            List<String> axes = first.axes();
            Map<List<Integer>, Dev[]> groups = groups(axes);
            for (Dev[] g : groups.values()) {
                if (first.kind() == Collective.PPERMUTE) {
                    ppermute(g, k, axes);
                } else {
                    ringCollective(g, k, axes);
                }
            }
        }

        /** The groups of the collective: devices equal on every other axis, each in linear-index order. */
        private Map<List<Integer>, Dev[]> groups(List<String> axes) {
            List<String> names = mesh.axisNames();
            int n = 1;
            for (String a : axes) {
                n *= mesh.axisSize(a);
            }
            Map<List<Integer>, Dev[]> groups = new LinkedHashMap<>();
            for (Dev d : devs) {
                List<Integer> key = new ArrayList<>();
                for (int a = 0; a < names.size(); a++) {
                    if (!axes.contains(names.get(a))) {
                        key.add(d.trace.coords().get(a));
                    }
                }
                int lin = 0;
                for (String a : axes) {
                    lin = lin * mesh.axisSize(a) + d.trace.coords().get(names.indexOf(a));
                }
                int size = n;
                groups.computeIfAbsent(key, x -> new Dev[size])[lin] = d;
            }
            return groups;
        }

        private void ppermute(Dev[] g, int k, List<String> axes) {
            int n = g.length;
            String axis = String.join(",", axes);
            CollectiveEvent ev = g[0].collectives.get(k);
            double bytes = ev.operandBytes() * run.dtype.scale();
            boolean[] received = new boolean[n];
            for (List<Integer> p : ev.permutation()) {
                int s = p.get(0);
                int t = p.get(1);
                Dev src = g[s];
                Dev dst = g[t];
                received[t] = true;
                if (s == t) {
                    dst.ready.put(dst.collectives.get(k).id(), src.issue[k]);
                    continue;
                }
                List<Dev> hopsFrom = new ArrayList<>();
                List<String> keys = new ArrayList<>();
                route(g, s, t, axis, hopsFrom, keys);
                double start = src.issue[k];
                for (int h = 0; h < keys.size(); h++) {
                    start = Math.max(start, hopsFrom.get(h).link(keys.get(h)));
                }
                int hops = hw.switched() ? 1 : keys.size();
                double end = start + bytes / hw.linkBytesPerSecond() + hops * hw.hopLatencySeconds();
                for (int h = 0; h < keys.size(); h++) {
                    hopsFrom.get(h).linkFree.put(keys.get(h), end);
                }
                dst.ready.put(dst.collectives.get(k).id(), end);
                run.bytes += bytes;
                run.spans.add(new Timeline.Span(src.trace.deviceId(), keys.get(0), "ppermute → device "
                        + dst.trace.deviceId(), "collective", start, end, 0, Math.round(bytes)));
            }
            for (int i = 0; i < n; i++) {
                if (!received[i]) {
                    g[i].ready.put(g[i].collectives.get(k).id(), g[i].issue[k]); // zeros, made locally
                }
            }
        }

        /** The links a message from position s to t of the group crosses, with the device each one leaves from. */
        private void route(Dev[] g, int s, int t, String axis, List<Dev> from, List<String> keys) {
            int n = g.length;
            if (hw.switched()) {
                from.add(g[s]);
                keys.add("out");
                from.add(g[t]);
                keys.add("in");
                return;
            }
            int forward = Math.floorMod(t - s, n);
            int backward = Math.floorMod(s - t, n);
            int dir;
            int hops;
            if (hw.ring(n)) {
                dir = forward <= backward ? 1 : -1;
                hops = Math.min(forward, backward);
            } else {
                dir = t > s ? 1 : -1;
                hops = Math.abs(t - s);
            }
            for (int h = 0; h < hops; h++) {
                from.add(g[Math.floorMod(s + dir * h, n)]);
                keys.add(axis + (dir > 0 ? "+" : "-"));
            }
        }

        private void ringCollective(Dev[] g, int k, List<String> axes) {
            int n = g.length;
            CollectiveEvent ev = g[0].collectives.get(k);
            double b = ev.operandBytes() * run.dtype.scale();
            List<String> keys = new ArrayList<>();
            if (hw.switched()) {
                keys.add("out");
                keys.add("in");
            } else {
                for (String a : axes) {
                    if (mesh.axisSize(a) > 1) {
                        keys.add(a + "+");
                        keys.add(a + "-");
                    }
                }
            }
            double start = 0;
            for (Dev d : g) {
                start = Math.max(start, d.issue[k]);
                for (String key : keys) {
                    start = Math.max(start, d.link(key));
                }
            }
            double time = n == 1 ? 0 : seconds(ev.kind(), n, b, axes);
            double end = start + time;
            for (Dev d : g) {
                for (String key : keys) {
                    d.linkFree.put(key, end);
                    run.spans.add(new Timeline.Span(d.trace.deviceId(), key, ev.kind().jaxName() + " over "
                            + String.join(",", axes), "collective", start, end, 0,
                            Math.round(d.collectives.get(k).bytesSent() * run.dtype.scale())));
                }
                d.ready.put(d.collectives.get(k).id(), end);
                run.bytes += d.collectives.get(k).bytesSent() * run.dtype.scale();
            }
        }

        /** The book's ring formulas: time of one collective over n devices with an operand of b bytes. */
        private double seconds(Collective kind, int n, double b, List<String> axes) {
            int live = 0;
            boolean ring = true;
            for (String a : axes) {
                if (mesh.axisSize(a) > 1) {
                    live++;
                    ring &= hw.ring(mesh.axisSize(a));
                }
            }
            double w = hw.linkBytesPerSecond() * Math.max(1, live);
            double bandwidth = hw.switched() ? w : ring ? 2 * w : w;
            int steps = hw.switched() ? n - 1 : ring ? n / 2 : n - 1;
            double lat = steps * hw.hopLatencySeconds();
            double reduceScatter = (n - 1) * b / n / bandwidth + lat;
            switch (kind) {
                case ALL_GATHER:
                    return (n - 1) * b / bandwidth + lat;
                case PSUM_SCATTER:
                    return reduceScatter;
                case ALL_TO_ALL: {
                    double load = hw.switched() ? (n - 1) * b / n / w : ring ? n * b / (8 * w) : n * b / (4 * w);
                    return Math.max((n - 1) * b / n / bandwidth, load) + lat;
                }
                default: // psum, pmean, pmax, pmin: a reduce-scatter, then an all-gather of the reduced chunks
                    return 2 * reduceScatter;
            }
        }

        private static double elements(List<Integer> shape) {
            double n = 1;
            for (int s : shape) {
                n *= s;
            }
            return n;
        }
    }
}
