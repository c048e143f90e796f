package dev.shardlings.sharding;

import java.util.List;
import java.util.Objects;

/**
 * One (simulated) device of a mesh.
 *
 * @param id       the device id ({@code jax.Device.id})
 * @param platform the platform in lower case, e.g. {@code "cpu"} ({@code jax.Device.platform})
 * @param coords   the device's coordinates in its mesh, in mesh axis order
 */
public record Device(int id, String platform, List<Integer> coords) {
    /**
     * @throws NullPointerException     naming the component if platform, coords or a coordinate is null
     * @throws IllegalArgumentException if the id is negative
     */
    public Device {
        Objects.requireNonNull(platform, "platform");
        coords = Lists.copyOfNonNull(coords, "coords");
        if (id < 0) {
            throw new IllegalArgumentException("device id must be >= 0, got " + id);
        }
    }

    /** JAX's repr, e.g. {@code CpuDevice(id=3)}. */
    @Override
    public String toString() {
        String p = platform.isEmpty() ? "" : Character.toUpperCase(platform.charAt(0)) + platform.substring(1);
        return p + "Device(id=" + id + ")";
    }

    /** JAX's short label used when printing inside shard_map, e.g. {@code cpu:3}. */
    public String label() {
        return platform + ":" + id;
    }
}
