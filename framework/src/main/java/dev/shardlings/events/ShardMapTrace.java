package dev.shardlings.events;

import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.PartitionSpec;

import java.util.List;

/**
 * The record of one {@code shardMap} call: its mesh, specs and, per device in mesh order, what that device did.
 *
 * @param functionName the name given to the mapped function (for messages)
 * @param mesh         the mesh it ran on
 * @param inSpecs      the in_specs
 * @param outSpecs     the out_specs
 * @param devices      one trace per device, in {@code mesh.devices()} order
 * @param origin       what ran it: a hand-written shardMap, a jit program, or an eager global-view operation
 */
public record ShardMapTrace(String functionName, Mesh mesh, List<PartitionSpec> inSpecs,
                            List<PartitionSpec> outSpecs, List<DeviceTrace> devices, Origin origin) {
    /** @throws NullPointerException naming the component if a component or an element of a list is null */
    public ShardMapTrace {
        java.util.Objects.requireNonNull(functionName, "functionName");
        java.util.Objects.requireNonNull(origin, "origin");
        java.util.Objects.requireNonNull(mesh, "mesh");
        inSpecs = Lists.copyOfNonNull(inSpecs, "inSpecs");
        outSpecs = Lists.copyOfNonNull(outSpecs, "outSpecs");
        devices = Lists.copyOfNonNull(devices, "devices");
    }

    /**
     * The record of a hand-written shardMap call ({@link Origin#SHARD_MAP}).
     *
     * @throws NullPointerException naming the component if a component or an element of a list is null
     */
    public ShardMapTrace(String functionName, Mesh mesh, List<PartitionSpec> inSpecs, List<PartitionSpec> outSpecs,
                         List<DeviceTrace> devices) {
        this(functionName, mesh, inSpecs, outSpecs, devices, Origin.SHARD_MAP);
    }

    /** Every collective of every device, device by device. */
    public List<TraceEvent.CollectiveEvent> collectives() {
        return devices.stream().flatMap(d -> d.collectives().stream()).toList();
    }

    /** The largest single allocation on any device, in bytes. */
    public long largestAllocation() {
        return devices.stream().mapToLong(DeviceTrace::largestAllocation).max().orElse(0);
    }
}
