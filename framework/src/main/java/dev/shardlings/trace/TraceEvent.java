package dev.shardlings.trace;

import java.util.List;

/**
 * One thing a device did that the grader and the cost model care about: a collective or a matmul.
 * Events of one device are kept in program order.
 */
public sealed interface TraceEvent permits TraceEvent.CollectiveEvent, TraceEvent.MatmulEvent {

    /**
     * A collective as seen by one device.
     *
     * @param kind          which collective
     * @param axes          the mesh axes it ran over, in the order written (a tuple's first name is major)
     * @param groupSize     number of devices in this device's group ({@code axis_size(axes)})
     * @param dtype         JAX name of the operand dtype, e.g. {@code "float32"}
     * @param inputShape    shape of the operand on this device
     * @param outputShape   shape of the result on this device
     * @param bytesSent     bytes this device sends under the ring model of the book (see
     *                      {@code docs/}: all-reduce 2(n−1)/n·b, all-gather (n−1)·b, reduce-scatter and
     *                      all-to-all (n−1)/n·b, ppermute b when the device sends to another device), where b
     *                      is the operand's size in bytes
     * @param bytesReceived bytes this device receives under the same model
     * @param params        the static parameters in JAX's words, e.g. {@code "axis=0, tiled=true"}
     * @param permutation   for ppermute the (source, destination) pairs; empty for the others
     */
    record CollectiveEvent(Collective kind, List<String> axes, int groupSize, String dtype,
                           List<Integer> inputShape, List<Integer> outputShape,
                           long bytesSent, long bytesReceived, String params,
                           List<List<Integer>> permutation) implements TraceEvent {
        public CollectiveEvent {
            axes = List.copyOf(axes);
            inputShape = List.copyOf(inputShape);
            outputShape = List.copyOf(outputShape);
            permutation = permutation.stream().map(List::copyOf).toList();
        }

        /** A one-line description such as {@code psum over ('x',) of float32[2, 2]}. */
        public String describe() {
            StringBuilder sb = new StringBuilder(kind.jaxName()).append(" over ").append(axesRepr(axes))
                    .append(" of ").append(dtype).append(inputShape);
            if (!params.isEmpty()) {
                sb.append(" (").append(params).append(')');
            }
            return sb.toString();
        }
    }

    /**
     * A local matrix multiplication [m, k] · [k, n] on one device.
     *
     * @param flops 2·m·k·n floating-point operations (a multiply and an add per term)
     */
    record MatmulEvent(int m, int k, int n, String dtype, long flops) implements TraceEvent {
    }

    /** Python's tuple repr of axis names: {@code ('x',)} or {@code ('x', 'y')}. */
    static String axesRepr(List<String> axes) {
        StringBuilder sb = new StringBuilder("(");
        for (int i = 0; i < axes.size(); i++) {
            if (i > 0) {
                sb.append(", ");
            }
            sb.append('\'').append(axes.get(i)).append('\'');
        }
        if (axes.size() == 1) {
            sb.append(',');
        }
        return sb.append(')').toString();
    }
}
