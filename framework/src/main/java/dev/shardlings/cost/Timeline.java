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
