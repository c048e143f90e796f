package dev.shardlings.events;

import java.util.List;

/**
 * What one device did during one {@code shardMap} call.
 *
 * @param deviceId            the device's id
 * @param coords              the device's mesh coordinates, in mesh axis order
 * @param events              collectives and matmuls in program order
 * @param largestAllocation   bytes of the largest single array this device allocated (inputs handed to it by
 *                            shardMap are not counted; its outputs are)
 * @param allocatedBytes      bytes of all arrays this device allocated, added up
 * @param argumentBytes       bytes of the argument blocks shardMap handed this device (what its inputs occupy in
 *                            its memory: a replicated argument counts whole, one split over n devices 1/n)
 * @param peakResidualBytes   the most bytes this device's differentiation tapes held at once for their backward
 *                            passes (the modelled activation memory: every array a recorded operation read or made,
 *                            except the differentiated function's arguments; a {@code checkpoint}ed block holds
 *                            only its inputs and outputs, and its intermediates while it is recomputed)
 * @param pullbackFlops       matmul FLOPs the tapes' own vjp rules ran (the autodiff's backward pass; a pullback
 *                            the program handed a tape itself counts as the program's), part of {@link #flops()}
 * @param recomputedFlops     matmul FLOPs a checkpointed block ran forward again in the backward pass, part of
 *                            {@link #flops()}; set by the tapes only, so a grader can tell the autodiff's backward
 *                            pass (and rematerialisation) from one written by hand
 * @param capturedArrays      how many distinct arrays this device's operations and collectives read that it was
 *                            neither handed by shardMap nor made nor received itself: arrays the function captured
 *                            from outside (a host view of some device's block, an array made on the host). JAX
 *                            would embed such a capture in every device's program; here it is data that reached a
 *                            device without any argument or collective accounting for it
 */
public record DeviceTrace(int deviceId, List<Integer> coords, List<TraceEvent> events,
                          long largestAllocation, long allocatedBytes, long argumentBytes, long peakResidualBytes,
                          long pullbackFlops, long recomputedFlops, int capturedArrays) {
    /**
     * @throws NullPointerException     naming the component if coords, events or an element of them is null
     * @throws IllegalArgumentException if capturedArrays is negative, if pullbackFlops or recomputedFlops is
     *                                  negative or together they exceed
     *                                  {@link #flops()}: both are parts of the matmuls' FLOPs, and a trace read
     *                                  back from the sandbox's pipe must not claim more autodiff work than ran
     */
    public DeviceTrace {
        coords = Lists.copyOfNonNull(coords, "coords");
        events = Lists.copyOfNonNull(events, "events");
        if (capturedArrays < 0) {
            throw new IllegalArgumentException("negative count of captured arrays: " + capturedArrays);
        }
        if (pullbackFlops < 0 || recomputedFlops < 0) {
            throw new IllegalArgumentException("negative FLOPs: pullback " + pullbackFlops + ", recomputed "
                    + recomputedFlops);
        }
        long matmulFlops = 0;
        for (TraceEvent e : events) {
            if (e instanceof TraceEvent.MatmulEvent m) {
                matmulFlops = Math.addExact(matmulFlops, m.flops());
            }
        }
        if (Math.addExact(pullbackFlops, recomputedFlops) > matmulFlops) {
            throw new IllegalArgumentException("pullback (" + pullbackFlops + ") and recomputed ("
                    + recomputedFlops + ") FLOPs exceed the matmuls' " + matmulFlops);
        }
    }

    /** A device that differentiated nothing (or whose program is compiled: jit models its memory itself). */
    public DeviceTrace(int deviceId, List<Integer> coords, List<TraceEvent> events,
                       long largestAllocation, long allocatedBytes, long argumentBytes) {
        this(deviceId, coords, events, largestAllocation, allocatedBytes, argumentBytes, 0);
    }

    /** A device whose tapes ran no matmul in their backward passes. */
    public DeviceTrace(int deviceId, List<Integer> coords, List<TraceEvent> events,
                       long largestAllocation, long allocatedBytes, long argumentBytes, long peakResidualBytes) {
        this(deviceId, coords, events, largestAllocation, allocatedBytes, argumentBytes, peakResidualBytes, 0, 0);
    }

    /** A device that captured nothing from outside its function. */
    public DeviceTrace(int deviceId, List<Integer> coords, List<TraceEvent> events, long largestAllocation,
                       long allocatedBytes, long argumentBytes, long peakResidualBytes, long pullbackFlops,
                       long recomputedFlops) {
        this(deviceId, coords, events, largestAllocation, allocatedBytes, argumentBytes, peakResidualBytes,
                pullbackFlops, recomputedFlops, 0);
    }

    /** The collectives, in program order. */
    public List<TraceEvent.CollectiveEvent> collectives() {
        return events.stream().filter(TraceEvent.CollectiveEvent.class::isInstance)
                .map(TraceEvent.CollectiveEvent.class::cast).toList();
    }

    /** The matmuls, in program order. */
    public List<TraceEvent.MatmulEvent> matmuls() {
        return events.stream().filter(TraceEvent.MatmulEvent.class::isInstance)
                .map(TraceEvent.MatmulEvent.class::cast).toList();
    }

    /** Total matmul FLOPs of this device. */
    public long flops() {
        return matmuls().stream().mapToLong(TraceEvent.MatmulEvent::flops).sum();
    }

    /** Total bytes this device sent in collectives. */
    public long bytesSent() {
        return collectives().stream().mapToLong(TraceEvent.CollectiveEvent::bytesSent).sum();
    }
}
