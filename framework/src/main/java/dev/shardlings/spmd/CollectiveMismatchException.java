package dev.shardlings.spmd;

import java.util.List;

/**
 * Thrown by {@code shardMap} when the devices' collectives do not line up: at the same step devices called
 * different collectives (another op, other axes, other shapes or dtypes, other parameters), some devices wait
 * in a collective that another device will never reach because it returned or failed, or devices waited longer
 * than the collective time limit. The message lists every device and what it was doing.
 */
public final class CollectiveMismatchException extends SpmdException {
    private static final long serialVersionUID = 1L;
    private final List<String> deviceStates;

    CollectiveMismatchException(String message, List<String> deviceStates) {
        super(message, null);
        this.deviceStates = List.copyOf(deviceStates);
    }

    /** One line per device, in mesh order, saying what it was doing when the run was stopped. */
    public List<String> deviceStates() {
        return deviceStates;
    }
}
