package dev.shardlings.cost;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * A modelled run: when each device computed and when each of its links carried data, on one
 * {@link HardwareModel} in one {@link ModelDtype}. Made by {@link CostModel#schedule}.
 *
 * @param hardware          the model's name
 * @param dtype             the modelled dtype's JAX name
 * @param devices           the devices, in the order of the first shardMap's mesh
 * @param spans             every busy interval, in the order they were scheduled
 * @param seconds           the modelled time of the whole run: the end of the last span (0 for an empty trace)
 * @param flops             matmul FLOPs on all devices
 * @param bytesSentTotal    bytes all devices sent in collectives, in the modelled dtype
 */
public record Timeline(String hardware, String dtype, List<Device> devices, List<Span> spans, double seconds,
                       long flops, long bytesSentTotal) {

    /** The name of the compute track of every device. */
    public static final String COMPUTE = "compute";

    public Timeline {
        devices = List.copyOf(devices);
        spans = List.copyOf(spans);
    }

    /**
     * A device of the run.
     *
     * @param id    the device id
     * @param label e.g. {@code "device 3 (X=0, Y=3)"}
     */
    public record Device(int id, String label) {
    }

    /**
     * One busy interval of one track of one device.
     *
     * @param device   the device id
     * @param track    {@link #COMPUTE}, or a link: {@code "Y+"} (towards higher indices along Y), {@code "Y-"},
     *                 {@code "out"} / {@code "in"} (the port of a switched device)
     * @param name     what ran, e.g. {@code "dot [256, 512]·[512, 1024] + add"} or {@code "ppermute → device 2"}
     * @param category {@code "matmul"}, {@code "elementwise"} or {@code "collective"}
     * @param start    seconds from the start of the run
     * @param end      seconds from the start of the run
     * @param flops    FLOPs done (compute spans)
     * @param bytes    bytes moved: memory traffic for compute spans, bytes sent for link spans
     */
    public record Span(int device, String track, String name, String category, double start, double end,
                       long flops, long bytes) {
        /** end − start. */
        public double seconds() {
            return end - start;
        }
    }

    /** The tracks a device used: compute first, then its links in name order. */
    public List<String> tracks(int device) {
        List<String> out = new ArrayList<>();
        out.add(COMPUTE);
        spans.stream().filter(s -> s.device() == device && !s.track().equals(COMPUTE)).map(Span::track).distinct()
                .sorted(Comparator.naturalOrder()).forEach(out::add);
        return out;
    }

    /**
     * One row of a device's picture and one thread of its trace: a track, or a part of it. The cost model lets a
     * link start its next message while the last one is still in flight (the hop latency), so two spans of one
     * track can partly overlap; the trace-event format needs the slices of one thread to nest, and boxes drawn on
     * one row would hide each other. {@link #lanes} therefore spreads a track's spans over as few lanes as keep
     * each lane's spans apart.
     *
     * @param track the track, e.g. {@link #COMPUTE} or {@code "Y-"}
     * @param index 0 for the track's first lane, 1 for its second, …
     * @param spans the lane's spans in start order; none overlaps another at whole nanoseconds
     */
    public record Lane(String track, int index, List<Span> spans) {

        public Lane {
            spans = List.copyOf(spans);
        }

        /** The lane's name: {@code "compute"}, {@code "link Y-"}, and for a second lane {@code "link Y- (2)"}. */
        public String name() {
            String base = track.equals(COMPUTE) ? COMPUTE : "link " + track;
            return index == 0 ? base : base + " (" + (index + 1) + ")";
        }
    }

    /**
     * The device's lanes, track by track in {@link #tracks} order: each span goes to the first lane of its track
     * whose last span ended (at whole nanoseconds, {@link #nanos}) when it starts. A track whose spans never overlap
     * is one lane; the compute track is always there, even when empty.
     */
    public List<Lane> lanes(int device) {
        List<Lane> out = new ArrayList<>();
        for (String track : tracks(device)) {
            List<Span> spans = this.spans.stream().filter(s -> s.device() == device && s.track().equals(track))
                    // By start, then end: a zero-length span at the start of another stays on its lane.
                    .sorted(Comparator.comparingLong((Span s) -> nanos(s.start()))
                            .thenComparingLong(s -> nanos(s.end())))
                    .toList();
            List<List<Span>> lanes = new ArrayList<>();
            for (Span s : spans) {
                List<Span> free = lanes.stream().filter(l -> nanos(l.get(l.size() - 1).end()) <= nanos(s.start()))
                        .findFirst().orElse(null);
                if (free == null) {
                    free = new ArrayList<>();
                    lanes.add(free);
                }
                free.add(s);
            }
            if (lanes.isEmpty()) {
                lanes.add(List.of());
            }
            for (int i = 0; i < lanes.size(); i++) {
                out.add(new Lane(track, i, lanes.get(i)));
            }
        }
        return out;
    }

    /** Seconds as whole nanoseconds, the resolution of the traces (Perfetto rounds microseconds to whole ns). */
    public static long nanos(double seconds) {
        return Math.round(seconds * 1e9);
    }

    /** Modelled time in microseconds. */
    public double micros() {
        return seconds * 1e6;
    }

    /** Seconds the device's compute track was busy. */
    public double computeSeconds(int device) {
        return spans.stream().filter(s -> s.device() == device && s.track().equals(COMPUTE))
                .mapToDouble(Span::seconds).sum();
    }
}
