package dev.shardlings.spmd;

import dev.shardlings.sharding.AxisType;
import dev.shardlings.sharding.Device;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.SingleDeviceSharding;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * What one process sees of a simulated multi-process run (JAX's multi-controller model): {@code jax.process_count()},
 * {@code jax.process_index()}, {@code jax.devices()} (all processes' devices), {@code jax.local_devices()} (this
 * process's), {@code device.process_index}, an array's {@code addressable_shards} (only the shards on local
 * devices) and the {@link SingleDeviceSharding} of a freshly created array.
 *
 * <p>Devices are numbered as JAX 0.10.2 numbers CPU devices under {@code jax.distributed.initialize}: process p's
 * local device i has id p·2048 + i (2 processes × 4 devices: ids 0…3 and 2048…2051). Since a {@link Mesh} takes
 * ids below {@link Mesh#MAX_DEVICES}, a view has at most 2 processes. Nothing runs in another JVM: every process's
 * shards exist here, and this view only says which of them the process can address.
 *
 * <pre>{@code
 * ProcessView p1 = ProcessView.of(2, 4, 1);                   // process 1 of 2, 4 CPU devices each
 * Mesh mesh = p1.makeMesh(new int[]{8}, "i");                 // all 8 devices, Explicit axis
 * ShardedArray x = ShardedArray.devicePut(NDArray.arange(8), mesh, P("i"));
 * p1.addressableShards(x);                                    // the shards of CpuDevice(id=2048) … (id=2051)
 * }</pre>
 *
 * <p>Immutable and thread-safe.
 */
public final class ProcessView {
    /** JAX's CPU device id of process p's local device i is p·2048 + i. */
    private static final int CPU_IDS_PER_PROCESS = 2048;

    private final int processCount;
    private final int processIndex;
    private final List<Device> devices;
    private final List<Device> localDevices;

    private ProcessView(int processCount, int localDeviceCount, int processIndex) {
        this.processCount = processCount;
        this.processIndex = processIndex;
        List<Device> all = new ArrayList<>();
        for (int p = 0; p < processCount; p++) {
            for (int i = 0; i < localDeviceCount; i++) {
                all.add(new Device(p * CPU_IDS_PER_PROCESS + i, "cpu", List.of()));
            }
        }
        this.devices = List.copyOf(all);
        this.localDevices = devices.subList(processIndex * localDeviceCount, (processIndex + 1) * localDeviceCount);
    }

    /**
     * The view of process {@code processIndex} in a run of {@code processCount} processes with
     * {@code localDeviceCount} CPU devices each ({@code XLA_FLAGS=--xla_force_host_platform_device_count=…} per
     * process).
     *
     * @throws IllegalArgumentException if a count is below 1, localDeviceCount exceeds 2048, processIndex is not in
     *                                  0 … processCount−1, or the ids would not fit a mesh (more than 2 processes)
     */
    public static ProcessView of(int processCount, int localDeviceCount, int processIndex) {
        if (processCount < 1 || localDeviceCount < 1 || localDeviceCount > CPU_IDS_PER_PROCESS) {
            throw new IllegalArgumentException("a simulated run needs at least 1 process and 1 to "
                    + CPU_IDS_PER_PROCESS + " devices per process, got " + processCount + " processes of "
                    + localDeviceCount + " devices");
        }
        if (processIndex < 0 || processIndex >= processCount) {
            throw new IllegalArgumentException("process index " + processIndex + " is out of range for "
                    + processCount + " processes");
        }
        long lastId = (long) (processCount - 1) * CPU_IDS_PER_PROCESS + localDeviceCount - 1;
        if (lastId >= Mesh.MAX_DEVICES) {
            throw new IllegalArgumentException(processCount + " processes of " + localDeviceCount + " devices need"
                    + " device ids up to " + lastId + " (process p's device i is p*" + CPU_IDS_PER_PROCESS + " + i,"
                    + " as JAX numbers CPU devices), but meshes take ids below " + Mesh.MAX_DEVICES
                    + ": simulate at most 2 processes");
        }
        return new ProcessView(processCount, localDeviceCount, processIndex);
    }

    /** {@code jax.process_count()}. */
    public int processCount() {
        return processCount;
    }

    /** {@code jax.process_index()}: this process's index, 0 … processCount−1. */
    public int processIndex() {
        return processIndex;
    }

    /** {@code jax.devices()}: every process's devices, process by process. */
    public List<Device> devices() {
        return devices;
    }

    /** {@code jax.local_devices()}: this process's devices. */
    public List<Device> localDevices() {
        return localDevices;
    }

    /**
     * {@code device.process_index}: the process a device of this run belongs to.
     *
     * @throws NullPointerException     if device is null
     * @throws IllegalArgumentException if the device's id is not one of this run's
     */
    public int processIndexOf(Device device) {
        Objects.requireNonNull(device, "device");
        int p = device.id() / CPU_IDS_PER_PROCESS;
        if (p >= processCount || device.id() % CPU_IDS_PER_PROCESS >= localDevices.size()) {
            throw new IllegalArgumentException(device + " is not a device of this run; its devices are " + devices);
        }
        return p;
    }

    /**
     * {@code jax.make_mesh(axis_sizes, axis_names)} in this run: all devices (every process's, in
     * {@link #devices()} order, row-major), Explicit axes.
     *
     * @throws NullPointerException     if an argument is null
     * @throws IllegalArgumentException as {@link Mesh#ofDeviceIds}, e.g. when the sizes do not multiply to the
     *                                  number of devices
     */
    public Mesh makeMesh(int[] axisSizes, String... axisNames) {
        Objects.requireNonNull(axisNames, "axisNames");
        AxisType[] explicit = new AxisType[axisNames.length];
        Arrays.fill(explicit, AxisType.EXPLICIT);
        return Mesh.ofDeviceIds(devices.stream().mapToInt(Device::id).toArray(), axisSizes, axisNames)
                .withAxisTypes(explicit);
    }

    /**
     * {@code x.addressable_shards} in this process: the shards of x on this process's devices, in mesh order.
     *
     * @throws NullPointerException     if x is null
     * @throws IllegalArgumentException if x is on a device that is not one of this run's
     * @throws IllegalStateException    for a traced value inside jit (it has no shards)
     */
    public List<ShardedArray.Shard> addressableShards(ShardedArray x) {
        Objects.requireNonNull(x, "x");
        List<ShardedArray.Shard> local = new ArrayList<>();
        for (ShardedArray.Shard s : x.addressableShards()) {
            if (processIndexOf(s.device()) == processIndex) {
                local.add(s);
            }
        }
        return List.copyOf(local);
    }

    /**
     * The sharding of a freshly created array in this process ({@code jnp.arange(8).sharding}): the whole array on
     * the first local device.
     */
    public SingleDeviceSharding defaultSharding() {
        return new SingleDeviceSharding(localDevices.get(0));
    }
}
