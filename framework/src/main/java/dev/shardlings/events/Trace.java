package dev.shardlings.events;

import java.util.List;

/**
 * Everything recorded while a piece of code ran under {@link Tracing#record}: each {@code shardMap} call it made,
 * plus the work done on the calling (host) thread outside shardMap.
 *
 * @param shardMaps            the shardMap calls, in the order they finished
 * @param hostEvents           matmuls done on the host thread outside shardMap
 * @param hostLargestAllocation bytes of the largest array allocated on the host thread outside shardMap
 */
public record Trace(List<ShardMapTrace> shardMaps, List<TraceEvent> hostEvents, long hostLargestAllocation) {
    /** @throws NullPointerException naming the component if a list or an element of it is null */
    public Trace {
        shardMaps = Lists.copyOfNonNull(shardMaps, "shardMaps");
        hostEvents = Lists.copyOfNonNull(hostEvents, "hostEvents");
    }

    /** Every collective of every device in every shardMap call. */
    public List<TraceEvent.CollectiveEvent> collectives() {
        return shardMaps.stream().flatMap(s -> s.collectives().stream()).toList();
    }

    /** The largest single allocation anywhere (any device or the host), in bytes. */
    public long largestAllocation() {
        long devices = shardMaps.stream().mapToLong(ShardMapTrace::largestAllocation).max().orElse(0);
        return Math.max(devices, hostLargestAllocation);
    }

    /** Matmul FLOPs on all devices and the host. */
    public long totalFlops() {
        long d = shardMaps.stream().flatMap(s -> s.devices().stream()).mapToLong(DeviceTrace::flops).sum();
        long h = hostEvents.stream().filter(TraceEvent.MatmulEvent.class::isInstance)
                .mapToLong(e -> ((TraceEvent.MatmulEvent) e).flops()).sum();
        return d + h;
    }
}
