package dev.shardlings.spmd;

import dev.shardlings.sharding.Device;

import java.util.List;

/**
 * Thrown by {@code shardMap} when the mapped function threw on a device. The cause is the device's exception;
 * the message names the device id and its mesh coordinates. When several devices threw on their own, the one
 * first in mesh order is reported and the message counts the others.
 */
public final class DeviceFailureException extends SpmdException {
    private static final long serialVersionUID = 1L;
    private final transient Device device;

    DeviceFailureException(String message, Device device, Throwable cause) {
        super(message, cause);
        this.device = device;
    }

    /** The device whose exception is the cause. */
    public Device device() {
        return device;
    }

    /** The device's mesh coordinates. */
    public List<Integer> coords() {
        return device.coords();
    }
}
