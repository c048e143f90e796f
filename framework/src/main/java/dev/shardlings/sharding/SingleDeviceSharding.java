package dev.shardlings.sharding;

import java.util.Objects;

/**
 * {@code jax.sharding.SingleDeviceSharding}: the whole array on one device — the sharding of a freshly created
 * array ({@code jnp.arange(8).sharding}), which lands on its process's first local device. Such an array is
 * uncommitted: an operation with placed arrays moves it to their devices (the framework's {@code NDArray}).
 *
 * @param device the device holding the array
 */
public record SingleDeviceSharding(Device device) {
    /** @throws NullPointerException if device is null */
    public SingleDeviceSharding {
        Objects.requireNonNull(device, "device");
    }

    /**
     * JAX's repr without {@code memory_kind} (as {@link NamedSharding}'s), e.g.
     * {@code SingleDeviceSharding(device=CpuDevice(id=0))}.
     */
    @Override
    public String toString() {
        return "SingleDeviceSharding(device=" + device + ")";
    }
}
