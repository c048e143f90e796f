package dev.shardlings.events;

import java.util.List;

/**
 * Everything recorded while a piece of code ran under {@link Tracing#record}: each {@code shardMap} call it made,
 * plus the work done on the calling (host) thread outside shardMap.
 *
 * @param shardMaps            the shardMap calls, in the order they finished
 * @param hostEvents           matmuls and arithmetic (elementwise, reductions) done on the host thread outside
 *                             shardMap
 * @param hostLargestAllocation bytes of the largest array allocated on the host thread outside shardMap
 * @param resultPrograms       for each array the recorded code returned (a list's elements in order, or the value
 *                             itself), the index in {@code shardMaps} of the program whose events made it, or
 *                             {@link #NO_PROGRAM} when none did (made on the host — {@code devicePut} of host
 *                             values, say — or an argument handed back); empty when it was not worked out
 */
public record Trace(List<ShardMapTrace> shardMaps, List<TraceEvent> hostEvents, long hostLargestAllocation,
                    List<Integer> resultPrograms) {

    /** The {@link #resultPrograms} entry of an array that no recorded program made. */
    public static final int NO_PROGRAM = -1;

    /**
     * @throws NullPointerException     naming the component if a list or an element of it is null
     * @throws IllegalArgumentException if a result program is neither {@link #NO_PROGRAM} nor an index of
     *                                  {@code shardMaps}
     */
    public Trace {
        shardMaps = Lists.copyOfNonNull(shardMaps, "shardMaps");
        hostEvents = Lists.copyOfNonNull(hostEvents, "hostEvents");
        resultPrograms = Lists.copyOfNonNull(resultPrograms, "resultPrograms");
        for (int k : resultPrograms) {
            if (k < NO_PROGRAM || k >= shardMaps.size()) {
                throw new IllegalArgumentException("result program " + k + " is not one of the " + shardMaps.size()
                        + " recorded programs");
            }
        }
    }

    /**
     * A trace whose results' programs were not worked out.
     *
     * @throws NullPointerException naming the component if a list or an element of it is null
     */
    public Trace(List<ShardMapTrace> shardMaps, List<TraceEvent> hostEvents, long hostLargestAllocation) {
        this(shardMaps, hostEvents, hostLargestAllocation, List.of());
    }

    /**
     * This trace with other {@link #resultPrograms}.
     *
     * @throws NullPointerException     if resultPrograms is or holds null
     * @throws IllegalArgumentException as the constructor
     */
    public Trace withResultPrograms(List<Integer> resultPrograms) {
        return new Trace(shardMaps, hostEvents, hostLargestAllocation, resultPrograms);
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
