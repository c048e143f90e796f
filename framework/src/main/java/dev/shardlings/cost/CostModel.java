package dev.shardlings.cost;

import dev.shardlings.array.DType;
import dev.shardlings.array.ReduceOp;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.events.Collective;
import dev.shardlings.events.DeviceTrace;
import dev.shardlings.events.ShardMapTrace;
import dev.shardlings.events.Trace;
import dev.shardlings.events.TraceEvent;
import dev.shardlings.events.TraceEvent.CollectiveEvent;
import dev.shardlings.events.TraceEvent.LocalOpEvent;
import dev.shardlings.events.TraceEvent.MatmulEvent;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

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
 *   <li>Each group of fused operations is one kernel, costed by the model's {@link KernelModel}: a fixed cost,
 *       then compute (a matmul's whole tiles in whole waves at the achieved rate of the dtype, elementwise FLOPs
 *       at the vector rate) against bytes at the achieved memory bandwidth. Without a kernel model that is the
 *       roofline, max(FLOPs / peak rate, bytes / peak bandwidth).</li>
 *   <li>Fusion, as XLA does it: slices, transposes, broadcasts, takes, rolls and constants cost nothing (they
 *       fuse into their consumer); an elementwise operation that reads the result of the kernel just before it on
 *       the compute stream fuses into that kernel — a chain of them, and a reduction ending it, is one kernel
 *       (loop fusion); into a matmul any elementwise work fuses on a TPU (the accumulation {@code acc + a·w}
 *       adds no pass over memory), on a GPU only a scale, one accumulation and an activation, in that order
 *       ({@link KernelModel.Epilogue}).</li>
 *   <li>ppermute: each (source, destination) pair is a message along the axis: bytes / link bandwidth plus one
 *       hop latency per hop; it occupies every link it crosses while its bytes stream through (the latency
 *       delays its arrival, not the next message). On a torus axis shorter than
 *       {@link HardwareModel#wraparoundMinAxisSize()} there is no wraparound link, so the pair (n − 1 → 0) of a
 *       ring shift travels n − 1 hops the other way.</li>
 *   <li>Other collectives, by the book's ring formulas over n devices with operand b bytes: the bytes a device
 *       moves ({@link Collective#bytesPerDevice}: all-gather (n − 1)·b, reduce-scatter and all-to-all
 *       (n − 1)/n·b, all-reduce twice that) / B, where B is twice the link bandwidth on a ring (both neighbours
 *       send), the link bandwidth on a line (the ends have one neighbour) and on a switch; an all-to-all takes its
 *       links' load instead where that is longer; plus one hop latency per step (⌈(n − 1)/2⌉ steps on a ring,
 *       n − 1 on a line), twice for an all-reduce (a reduce-scatter, then an all-gather). Over several axes at
 *       once the bandwidth adds up over the axes.</li>
 * </ul>
 * Byte counts are scaled from the framework's 4-byte elements to the modelled dtype ({@link ModelDtype#scale()});
 * bfloat16 arrays count their own 2 bytes an element whatever the modelled dtype.
 * Successive shardMap calls run one after the other. Host work outside shardMap is not modelled.
 *
 * <p>The model is deterministic: the same trace, model and dtype give the same timeline.
 */
public final class CostModel {

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
                run.flops, Math.round(run.bytesSent));
    }

    /** What accumulates over the shardMap calls of one run. */
    private static final class Run {
        final HardwareModel hw;
        final ModelDtype dtype;
        final Map<Integer, Timeline.Device> devices = new LinkedHashMap<>();
        final List<Timeline.Span> spans = new ArrayList<>();
        long flops;
        /** Bytes all devices sent in collectives, in the modelled dtype. */
        double bytesSent;

        Run(HardwareModel hw, ModelDtype dtype) {
            this.hw = hw;
            this.dtype = dtype;
        }
    }

    /** A compute span that later elementwise operations may fuse into. */
    private static final class Fusion {
        int spanIndex;
        long lastId;
        double start;
        double end;
        double vectorFlops;
        double bytes;
        double lastOutBytes;
        String name;
        long flops;
        boolean matmul;
        /** The matmul's [m, k]·[k, n], for its tiles. */
        long m;
        long k;
        long n;
        /** How far a SCALE_ACCUMULATE epilogue has got: 0 scaled at most, 1 accumulated, 2 activated. */
        int epilogueStage;
        /** A reduction ended this group: nothing more fuses into it. */
        boolean reduced;
    }

    /** Something that becomes ready at a time: an array on a device (the result of an event). */
    private record Done(double time, long seq, Dev dev, long id) {
    }

    /** One device of one shardMap call. */
    private static final class Dev {
        final DeviceTrace trace;
        final List<TraceEvent> events;
        final Map<Long, Integer> index = new HashMap<>();
        final Map<Long, List<Integer>> consumers = new HashMap<>();
        final int[] missing;
        final Map<Long, Double> ready = new HashMap<>();
        final List<CollectiveEvent> collectives = new ArrayList<>();
        final Map<Long, Integer> collectiveNumber = new HashMap<>();
        final java.util.TreeSet<Integer> runnable = new java.util.TreeSet<>();
        final Map<String, Double> linkFree = new HashMap<>();
        double[] arrival;
        double computeFree;
        int finished;
        Fusion group;

        Dev(DeviceTrace trace, double t0) {
            this.trace = trace;
            this.events = trace.events();
            this.computeFree = t0;
            this.missing = new int[events.size()];
            for (int i = 0; i < events.size(); i++) {
                TraceEvent e = events.get(i);
                index.put(e.id(), i);
                if (e instanceof CollectiveEvent c) {
                    collectiveNumber.put(c.id(), collectives.size());
                    collectives.add(c);
                }
            }
            for (int i = 0; i < events.size(); i++) {
                for (long in : new HashSet<>(events.get(i).inputs())) {
                    if (index.containsKey(in)) {
                        missing[i]++;
                        consumers.computeIfAbsent(in, x -> new ArrayList<>()).add(i);
                    }
                }
            }
            arrival = new double[collectives.size()];
            java.util.Arrays.fill(arrival, Double.NaN);
        }

        double link(String key) {
            return linkFree.getOrDefault(key, 0.0);
        }
    }

    /**
     * The scheduling of one shardMap call: a discrete-event simulation. An array becoming ready may make operations
     * runnable; a device's compute stream runs, whenever it is free, the runnable operation that comes first in
     * program order (a list scheduler, as XLA's latency-hiding scheduler reorders independent work); a device
     * arrives at a collective when its operand is ready, and the collective starts when its group has arrived and
     * its links are free.
     */
    private static final class Program {
        final ShardMapTrace sm;
        final Run run;
        final HardwareModel hw;
        final double t0;
        final Dev[] devs;
        final Mesh mesh;
        final java.util.PriorityQueue<Done> queue = new java.util.PriorityQueue<>(
                java.util.Comparator.comparingDouble(Done::time).thenComparingLong(Done::seq));
        long seq;

        Program(ShardMapTrace sm, Run run, double t0) {
            this.sm = sm;
            this.run = run;
            this.hw = run.hw;
            this.t0 = t0;
            this.mesh = sm.mesh();
            List<DeviceTrace> ds = sm.devices();
            devs = new Dev[ds.size()];
            for (int d = 0; d < devs.length; d++) {
                DeviceTrace dt = ds.get(d);
                devs[d] = new Dev(dt, t0);
                run.devices.putIfAbsent(dt.deviceId(), new Timeline.Device(dt.deviceId(), label(dt)));
            }
            int k = devs.length == 0 ? 0 : devs[0].collectives.size();
            for (Dev dev : devs) {
                if (dev.collectives.size() != k) {
                    throw new IllegalArgumentException("cannot model shardMap '" + sm.functionName() + "': device "
                            + dev.trace.deviceId() + " made " + dev.collectives.size() + " collectives and device "
                            + devs[0].trace.deviceId() + " made " + k + "; every device must make the same ones");
                }
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
            for (Dev d : devs) {
                for (int i = 0; i < d.events.size(); i++) {
                    if (d.missing[i] == 0) {
                        becomeReady(d, i, t0);
                    }
                }
            }
            for (Dev d : devs) {
                startCompute(d, t0);
            }
            while (!queue.isEmpty()) {
                // Everything that becomes ready at the same moment, before any stream picks its next operation,
                // so that the choice by program order sees all of it.
                double now = queue.peek().time();
                while (!queue.isEmpty() && queue.peek().time() <= now) {
                    Done done = queue.poll();
                    Dev d = done.dev();
                    d.ready.put(done.id(), done.time());
                    for (int c : d.consumers.getOrDefault(done.id(), List.of())) {
                        if (--d.missing[c] == 0) {
                            becomeReady(d, c, done.time());
                        }
                    }
                    Integer i = d.index.get(done.id());
                    if (i != null && !(d.events.get(i) instanceof CollectiveEvent)) {
                        d.finished++;
                    }
                }
                for (Dev x : devs) {
                    startCompute(x, now);
                }
            }
            double end = t0;
            for (Dev d : devs) {
                long compute = d.events.stream().filter(e -> !(e instanceof CollectiveEvent)).count();
                if (d.finished != compute) {
                    throw new IllegalStateException("cost model: shardMap '" + sm.functionName() + "' cannot be"
                            + " scheduled: device " + d.trace.deviceId() + " waits for an array no event makes");
                }
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

        private void finish(Dev d, long id, double time) {
            queue.add(new Done(time, seq++, d, id));
        }

        /** Event i of d has every input: free ops finish at once, compute ops wait for the stream, collectives arrive. */
        private void becomeReady(Dev d, int i, double time) {
            TraceEvent e = d.events.get(i);
            if (e instanceof CollectiveEvent c) {
                int k = d.collectiveNumber.get(c.id());
                d.arrival[k] = time;
                arrive(d, k);
            } else if (e instanceof LocalOpEvent op && op.kind().fusesIntoConsumer()) {
                finish(d, e.id(), time);
            } else {
                d.runnable.add(i);
            }
        }

        /**
         * The factor from an event's bytes to the modelled dtype's: the framework's 4-byte elements (float32, int32)
         * take the modelled dtype's size; bfloat16 arrays already count their own 2 bytes and keep them.
         */
        private double scale(DType dtype) {
            return dtype == DType.BFLOAT16 ? 1.0 : run.dtype.scale();
        }

        /** Bytes of one element as the events count them before scaling (bool is modelled as 4, as before). */
        private static int elementBytes(DType dtype) {
            return dtype == DType.BFLOAT16 ? 2 : 4;
        }

        /** Starts work on d's compute stream if it is free at {@code now} and something is runnable. */
        private void startCompute(Dev d, double now) {
            if (d.computeFree > now || d.runnable.isEmpty()) {
                return;
            }
            int i = d.runnable.pollFirst();
            TraceEvent e = d.events.get(i);
            double start = Math.max(now, d.computeFree);
            double scale = scale(e instanceof LocalOpEvent op ? op.dtype() : ((MatmulEvent) e).dtype());
            if (e instanceof LocalOpEvent op && fusesInto(d, op, start)) {
                Fusion g = d.group;
                g.vectorFlops += op.flops();
                // The producer's result no longer goes through memory: neither its write nor this read — unless
                // something else reads it too, then it is still written (XLA's multi-output fusion).
                boolean alsoReadElsewhere = d.consumers.getOrDefault(g.lastId, List.of()).size() > 1;
                g.bytes += op.bytes() * scale - (alsoReadElsewhere ? 1 : 2) * g.lastOutBytes;
                g.lastOutBytes = elements(op.shape()) * elementBytes(op.dtype()) * scale;
                g.lastId = op.id();
                g.end = Math.max(start, g.start + seconds(g));
                g.name = g.name + " + " + op.name();
                Timeline.Span old = run.spans.get(g.spanIndex);
                run.spans.set(g.spanIndex, new Timeline.Span(old.device(), old.track(), g.name, old.category(),
                        g.start, g.end, g.flops, Math.round(g.bytes)));
                d.computeFree = g.end;
                finish(d, op.id(), g.end);
                return;
            }
            Fusion g = new Fusion();
            g.start = start;
            g.lastId = e.id();
            String category;
            if (e instanceof MatmulEvent m) {
                g.bytes = m.bytes() * scale;
                g.lastOutBytes = (double) m.m() * m.n() * elementBytes(m.dtype()) * scale;
                g.name = "dot [" + m.m() + ", " + m.k() + "]·[" + m.k() + ", " + m.n() + "]";
                g.flops = m.flops();
                g.matmul = true;
                g.m = m.m();
                g.k = m.k();
                g.n = m.n();
                run.flops += m.flops();
                category = "matmul";
            } else {
                LocalOpEvent op = (LocalOpEvent) e;
                g.vectorFlops = op.flops();
                g.bytes = op.bytes() * scale;
                g.lastOutBytes = elements(op.shape()) * elementBytes(op.dtype()) * scale;
                g.name = op.name() + " " + op.shape();
                g.reduced = op.op() instanceof ReduceOp;
                category = "elementwise";
            }
            g.end = start + seconds(g);
            g.spanIndex = run.spans.size();
            run.spans.add(new Timeline.Span(d.trace.deviceId(), Timeline.COMPUTE, g.name, category, g.start, g.end,
                    g.flops, Math.round(g.bytes)));
            d.group = g;
            d.computeFree = g.end;
            finish(d, e.id(), g.end);
        }

        /**
         * Whether an elementwise op that starts the moment the group before it on the stream ends, reading that
         * group's result, fuses into it (XLA's fusion); when it does, records how far the group's epilogue has got.
         * Called once per op, just before the op is added to the group.
         */
        private boolean fusesInto(Dev d, LocalOpEvent op, double start) {
            Fusion g = d.group;
            if (g == null || op.flops() <= 0 || start > g.end || !op.inputs().contains(g.lastId) || g.reduced) {
                return false;
            }
            if (!g.matmul) {
                // XLA's loop fusion: elementwise work, and a reduction ending it, in one kernel.
                g.reduced = op.op() instanceof ReduceOp;
                return true;
            }
            if (op.op() instanceof ReduceOp) {
                return false;
            }
            if (hw.kernels().epilogue() == KernelModel.Epilogue.ANY) {
                return true;
            }
            // cuBLAS's output stage: alpha · A·B (a scale by something smaller than the result), + beta · C (one
            // accumulate), then an activation; anything else, or out of that order, is a kernel of its own.
            // A scalar operand besides the matmul's result: at most two 4-byte elements read beyond it.
            boolean byScalar = op.bytes() <= 2L * elements(op.shape()) * elementBytes(op.dtype()) + 8;
            int stage;
            if (op.op() == dev.shardlings.array.BinaryOp.MUL && byScalar) {
                stage = 0;
            } else if (op.op() == dev.shardlings.array.BinaryOp.ADD || op.op() == dev.shardlings.array.BinaryOp.SUB) {
                stage = 1;
            } else if (op.op() == dev.shardlings.array.UnaryOp.RELU
                    || op.op() == dev.shardlings.array.BinaryOp.MAX && byScalar) {
                stage = 2;
            } else {
                return false;
            }
            if (stage < g.epilogueStage || stage == g.epilogueStage && stage > 0) {
                return false;
            }
            g.epilogueStage = stage;
            return true;
        }

        /**
         * One kernel's time: its fixed cost, then compute (a matmul's whole tiles in whole waves, plus elementwise
         * FLOPs at the vector rate) against bytes at the achieved bandwidth ({@link KernelModel}).
         */
        private double seconds(Fusion g) {
            KernelModel km = hw.kernels();
            double compute = g.vectorFlops / hw.vectorFlopsPerSecond();
            double fixed = km.opSeconds();
            if (g.matmul) {
                compute += km.matmulComputeSeconds(g.m, g.k, g.n, hw.achievedMatmulRate(run.dtype));
                fixed = km.matmulOpSeconds(run.dtype);
            }
            return fixed + km.combine(compute, g.bytes / hw.achievedMemoryRate());
        }

        // ----------------------------------------------------------------------------------------- collectives

        /** Device d has arrived at its collective number k (its operand is ready at d.arrival[k]). */
        private void arrive(Dev d, int k) {
            CollectiveEvent ev = d.collectives.get(k);
            Members g = groupOf(d, ev.axes());
            if (ev.kind() == Collective.PPERMUTE) {
                sendFrom(g, g.position, k, ev);
            } else if (++g.arrivedCount[k] == g.members.length) {
                ringCollective(g.members, k, ev);
            }
        }

        /** The group of d for a collective over {@code axes}, with d's position in it (its linear index). */
        private Members groupOf(Dev d, List<String> axes) {
            return groupsFor(axes).get(d);
        }

        private final Map<List<String>, Map<Dev, Members>> groupCache = new HashMap<>();

        private Map<Dev, Members> groupsFor(List<String> axes) {
            return groupCache.computeIfAbsent(axes, a -> {
                List<String> names = mesh.axisNames();
                int n = 1;
                for (String x : a) {
                    n *= mesh.axisSize(x);
                }
                int k = devs.length == 0 ? 0 : devs[0].collectives.size();
                Map<List<Integer>, Dev[]> byKey = new LinkedHashMap<>();
                Map<List<Integer>, int[]> counts = new HashMap<>();
                Map<Dev, Members> out = new HashMap<>();
                for (Dev d : devs) {
                    List<Integer> key = new ArrayList<>();
                    for (int i = 0; i < names.size(); i++) {
                        if (!a.contains(names.get(i))) {
                            key.add(d.trace.coords().get(i));
                        }
                    }
                    int lin = 0;
                    for (String x : a) {
                        lin = lin * mesh.axisSize(x) + d.trace.coords().get(names.indexOf(x));
                    }
                    int size = n;
                    byKey.computeIfAbsent(key, x -> new Dev[size])[lin] = d;
                    counts.computeIfAbsent(key, x -> new int[k]);
                    Members g = new Members();
                    g.members = byKey.get(key);
                    g.position = lin;
                    g.arrivedCount = counts.get(key);
                    out.put(d, g);
                }
                return out;
            });
        }

        /** A device's group for one collective: its members in linear-index order and its position among them. */
        private static final class Members {
            Dev[] members;
            int position;
            int[] arrivedCount;
        }

        /** The ppermute messages that leave position s of the group, and s's own result when nothing arrives. */
        private void sendFrom(Members grp, int s, int k, CollectiveEvent ev) {
            Dev[] g = grp.members;
            Dev src = g[s];
            String axis = String.join(",", ev.axes());
            double bytes = Collective.PPERMUTE.bytesPerDevice(g.length).of(ev.operandBytes() * scale(ev.dtype()));
            boolean receives = false;
            for (List<Integer> p : ev.permutation()) {
                int from = p.get(0);
                int t = p.get(1);
                receives |= t == s;
                if (from != s) {
                    continue;
                }
                Dev dst = g[t];
                if (t == s) {
                    finish(dst, dst.collectives.get(k).id(), src.arrival[k]);
                    continue;
                }
                List<Dev> hopsFrom = new ArrayList<>();
                List<String> keys = new ArrayList<>();
                route(g, s, t, axis, hopsFrom, keys);
                double start = src.arrival[k];
                for (int h = 0; h < keys.size(); h++) {
                    start = Math.max(start, hopsFrom.get(h).link(keys.get(h)));
                }
                int hops = hw.switched() ? 1 : keys.size();
                double busy = start + bytes / hw.linkBytesPerSecond();
                double end = busy + hops * hw.hopLatencySeconds();
                // A link is busy while the bytes stream through it; the hop latency delays the arrival only.
                for (int h = 0; h < keys.size(); h++) {
                    hopsFrom.get(h).linkFree.put(keys.get(h), busy);
                }
                finish(dst, dst.collectives.get(k).id(), end);
                run.bytesSent += bytes;
                run.spans.add(new Timeline.Span(src.trace.deviceId(), keys.get(0), "ppermute → device "
                        + dst.trace.deviceId(), "collective", start, end, 0, Math.round(bytes)));
            }
            if (!receives) {
                finish(src, src.collectives.get(k).id(), src.arrival[k]); // zeros, made locally
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
            if (hw.ring(n, mesh.size())) {
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

        private void ringCollective(Dev[] g, int k, CollectiveEvent ev) {
            int n = g.length;
            List<String> axes = ev.axes();
            double b = ev.operandBytes() * scale(ev.dtype());
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
                start = Math.max(start, d.arrival[k]);
                for (String key : keys) {
                    start = Math.max(start, d.link(key));
                }
            }
            double time = n == 1 ? 0 : seconds(ev.kind(), n, b, axes);
            double end = start + time;
            for (Dev d : g) {
                long sent = Math.round(d.collectives.get(k).bytesSent() * scale(d.collectives.get(k).dtype()));
                for (String key : keys) {
                    d.linkFree.put(key, end);
                    run.spans.add(new Timeline.Span(d.trace.deviceId(), key, ev.kind().jaxName() + " over "
                            + String.join(",", axes), "collective", start, end, 0, sent));
                }
                finish(d, d.collectives.get(k).id(), end);
                run.bytesSent += sent;
            }
        }

        /** The book's ring formulas: time of one collective over n devices with an operand of b bytes. */
        private double seconds(Collective kind, int n, double b, List<String> axes) {
            int live = 0;
            boolean ring = true;
            for (String a : axes) {
                if (mesh.axisSize(a) > 1) {
                    live++;
                    ring &= hw.ring(mesh.axisSize(a), mesh.size());
                }
            }
            double w = hw.linkBytesPerSecond() * Math.max(1, live);
            double bandwidth = hw.switched() ? w : ring ? 2 * w : w;
            int steps = hw.switched() ? n - 1 : ring ? n / 2 : n - 1;
            double lat = steps * hw.hopLatencySeconds();
            double moved = kind.bytesPerDevice(n).of(b); // the primitive's bytes, in the modelled dtype
            switch (kind) {
                case ALL_TO_ALL: {
                    double load = hw.switched() ? moved / w : ring ? n * b / (8 * w) : n * b / (4 * w);
                    return Math.max(moved / bandwidth, load) + lat;
                }
                case PSUM:
                case PMEAN:
                case PMAX:
                case PMIN: // a reduce-scatter, then an all-gather of the reduced chunks: two passes of latency
                    return moved / bandwidth + 2 * lat;
                default:
                    return moved / bandwidth + lat;
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
