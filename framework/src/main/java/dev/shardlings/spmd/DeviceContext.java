package dev.shardlings.spmd;

import dev.shardlings.array.DType;
import dev.shardlings.array.OpObserver;
import dev.shardlings.sharding.Device;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.trace.DeviceTrace;
import dev.shardlings.trace.TraceEvent;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The state of one device while it runs the mapped function: which device it is, the run's rendezvous, and
 * the trace it is writing. Bound to the device's thread for the duration of the call; collectives find it
 * through {@link #current()}.
 */
final class DeviceContext implements OpObserver {

    private static final ThreadLocal<DeviceContext> CURRENT = new ThreadLocal<>();

    final Mesh mesh;
    final int flat;
    final Device device;
    final Exchange exchange;
    private final Map<List<String>, AxisGroups> groupCache;
    private final List<TraceEvent> events = new ArrayList<>();
    private int step;
    private long largest;
    private long allocated;

    DeviceContext(Mesh mesh, int flat, Exchange exchange, Map<List<String>, AxisGroups> groupCache) {
        this.mesh = mesh;
        this.flat = flat;
        this.device = mesh.devices().get(flat);
        this.exchange = exchange;
        this.groupCache = groupCache;
    }

    static DeviceContext current() {
        return CURRENT.get();
    }

    /**
     * The context of the calling device thread.
     *
     * @throws IllegalStateException if called outside a shardMap function
     */
    static DeviceContext require(String op) {
        DeviceContext ctx = CURRENT.get();
        if (ctx == null) {
            throw new IllegalStateException(op + " was called outside shardMap. Collectives exchange data between"
                    + " the devices of a mesh, so they only work inside the function you pass to"
                    + " ShardMap.shardMap(...), where each device runs it on its own block.");
        }
        return ctx;
    }

    void bind() {
        CURRENT.set(this);
    }

    static void unbind() {
        CURRENT.remove();
    }

    AxisGroups groups(List<String> axes, String op) {
        AxisGroups g = groupCache.get(axes);
        if (g == null) {
            g = AxisGroups.of(mesh, axes, op);
            groupCache.put(axes, g);
        }
        return g;
    }

    /** Number of the next collective of this device (0-based). */
    int nextStep() {
        return step++;
    }

    int steps() {
        return step;
    }

    void record(TraceEvent e) {
        events.add(e);
    }

    @Override
    public void allocated(DType dtype, int[] shape, long bytes) {
        largest = Math.max(largest, bytes);
        allocated += bytes;
    }

    @Override
    public void matmul(int m, int k, int n, DType dtype) {
        events.add(new TraceEvent.MatmulEvent(m, k, n, dtype.jaxName(), 2L * m * k * n));
    }

    DeviceTrace toTrace() {
        return new DeviceTrace(device.id(), device.coords(), events, largest, allocated);
    }
}
