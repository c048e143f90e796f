package dev.shardlings.spmd;

import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.array.OpObserver;
import dev.shardlings.array.OpObserver.Work;
import dev.shardlings.array.OpObservers;
import dev.shardlings.sharding.Device;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.events.DeviceTrace;
import dev.shardlings.events.TraceEvent;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

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
    /** Bytes the device's differentiation tapes hold now, and the most they held (the modelled activation memory). */
    private long residualBytes;
    private long peakResidualBytes;
    /** Whose work the matmuls are now (set by the tapes), and the FLOPs of the autodiff's own (DeviceTrace). */
    private Work work = Work.PROGRAM;
    private long pullbackFlops;
    private long recomputedFlops;
    /** While a collective builds its result: its id, which every array it makes carries. 0 otherwise. */
    private long collectiveId;
    private long collectiveInput;
    private int[] pendingMatmul;
    private DType pendingOperands;
    private DType pendingRhsOperands;

    /** Whether the caller records a trace: without one, no events are built (they cost more than small ops). */
    private final boolean tracing;
    /** Bytes of the argument blocks this device was handed (the trace's argumentBytes). */
    private final long argumentBytes;
    /** Whether the shardMap checks varying axes (JAX's check_vma); collectives check their operand's only then. */
    final boolean checkVma;

    /**
     * The ids of the arrays this device may read without capturing them: its argument blocks, then every array
     * its operations and collectives made (tracked only while tracing).
     */
    private final java.util.Set<Long> own = new java.util.HashSet<>();
    /** Ids of arrays read that are not {@link #own}: captured from outside the function (DeviceTrace). */
    private final java.util.Set<Long> captured = new java.util.HashSet<>();

    DeviceContext(Mesh mesh, int flat, Exchange exchange, Map<List<String>, AxisGroups> groupCache,
                  boolean tracing, boolean checkVma, List<NDArray> arguments) {
        long bytes = 0;
        for (NDArray a : arguments) {
            bytes += a.nbytes();
            own.add(OpObservers.originOf(a));
        }
        this.argumentBytes = bytes;
        this.tracing = tracing;
        this.checkVma = checkVma;
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
     * @param op   the collective's JAX name
     * @param axes its axes (named in the message when there is no device)
     * @throws IllegalStateException if called outside a shardMap function: JAX's unbound-axis text for the first
     *                               axis (outside shard_map no axis is bound), or, without axes, the framework's
     */
    static DeviceContext require(String op, List<String> axes) {
        DeviceContext ctx = CURRENT.get();
        if (ctx == null) {
            throw new IllegalStateException(axes.isEmpty() ? op + " was called outside shardMap with no axis name."
                    + " Collectives exchange data between the devices along mesh axes, so they only work inside the"
                    + " function passed to ShardMap.shardMap(...)." : AxisGroups.unbound(op, axes.get(0)));
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

    /**
     * Starts a collective whose operand is {@code operand}: until {@link #record} the arrays the collective makes
     * are its result, not local operations, and carry its id.
     */
    void beginCollective(NDArray operand) {
        collectiveId = dev.shardlings.internal.Ids.next();
        collectiveInput = OpObservers.originOf(operand);
        if (tracing) {
            read(collectiveInput);
            own.add(collectiveId);
        }
    }

    /** Notes a read of the array with id {@code id}: captured when this device neither was handed it nor made it. */
    private void read(long id) {
        // 0: made while no observer gave ids — the framework's own quiet intermediates (LocalTape.quietly, a
        // group's shared reduction) or arrays made before any recording — which cannot be told apart
        if (id != 0 && !own.contains(id)) {
            captured.add(id);
        }
    }

    /** The id of the collective in progress. */
    long collectiveId() {
        return collectiveId;
    }

    /** The id of the operand of the collective in progress. */
    long collectiveInput() {
        return collectiveInput;
    }

    /** Records the collective in progress (the event is built only when tracing) and ends it. */
    void record(Supplier<TraceEvent.CollectiveEvent> e) {
        if (tracing) {
            events.add(e.get());
        }
        collectiveId = 0;
    }

    @Override
    public void allocated(DType dtype, int[] shape, long bytes) {
        largest = Math.max(largest, bytes);
        allocated += bytes;
    }

    @Override
    public void residuals(long deltaBytes) {
        residualBytes += deltaBytes;
        peakResidualBytes = Math.max(peakResidualBytes, residualBytes);
    }

    @Override
    public Work work(Work now) {
        Work before = work;
        work = now;
        return before;
    }

    @Override
    public void matmul(int m, int k, int n, DType dtype) {
        matmul(m, k, n, dtype, dtype);
    }

    @Override
    public void matmul(int m, int k, int n, DType dtype, DType operandDtype) {
        matmul(m, k, n, dtype, operandDtype, operandDtype);
    }

    @Override
    public void matmul(int m, int k, int n, DType dtype, DType lhs, DType rhs) {
        if (tracing) {
            pendingMatmul = new int[] {m, k, n}; // the op(...) call that follows records it
            pendingOperands = lhs;
            pendingRhsOperands = rhs;
        }
    }

    @Override
    public long op(dev.shardlings.array.LocalOp op, DType dtype, int[] shape, long[] inputs, long flops, long bytes) {
        if (collectiveId != 0) {
            return collectiveId;
        }
        if (!tracing) {
            return 0; // "made untraced"
        }
        long id = dev.shardlings.internal.Ids.next();
        for (long input : inputs) {
            read(input);
        }
        own.add(id);
        List<Long> in = Arrays.stream(inputs).boxed().toList();
        if (pendingMatmul != null) {
            int[] mkn = pendingMatmul;
            pendingMatmul = null;
            events.add(new TraceEvent.MatmulEvent(mkn[0], mkn[1], mkn[2], dtype, flops, id, in, pendingOperands,
                    pendingRhsOperands));
            if (work == Work.PULLBACK) {
                pullbackFlops = Math.addExact(pullbackFlops, flops); // never wraps: DeviceTrace checks it
            } else if (work == Work.RECOMPUTE) {
                recomputedFlops = Math.addExact(recomputedFlops, flops);
            }
        } else {
            events.add(new TraceEvent.LocalOpEvent(op, dtype, Arrays.stream(shape).boxed().toList(),
                    flops, bytes, id, in));
        }
        return id;
    }

    DeviceTrace toTrace() {
        return new DeviceTrace(device.id(), device.coords(), events, largest, allocated, argumentBytes,
                peakResidualBytes, pullbackFlops, recomputedFlops, captured.size());
    }
}
