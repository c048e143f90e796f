package dev.shardlings.events;

import java.util.List;
import java.util.Objects;

/**
 * One thing a device did that the grader and the cost model care about: a collective, a matmul or another local
 * operation. Events of one device are kept in program order.
 *
 * <p>Every event has an {@link #id()}, unique within the JVM, and the arrays it produced carry that id; an event's
 * inputs name the ids of the arrays it read. Together they form the dataflow graph the cost model schedules: an
 * input id that no event of the same device produced is an argument of the shardMap call (ready at its start).
 */
public sealed interface TraceEvent permits TraceEvent.CollectiveEvent, TraceEvent.MatmulEvent,
        TraceEvent.LocalOpEvent {

    /** The id of this event; the arrays it produced carry it. */
    long id();

    /** The ids of the arrays this event read, in operand order (0: an array made outside any trace). */
    List<Long> inputs();

    /**
     * A collective as seen by one device.
     *
     * @param kind          which collective
     * @param axes          the mesh axes it ran over, in the order written (a tuple's first name is major)
     * @param groupSize     number of devices in this device's group ({@code axis_size(axes)})
     * @param dtype         the operand's dtype
     * @param inputShape    shape of the operand on this device
     * @param outputShape   shape of the result on this device
     * @param bytesSent     bytes this device sends under the ring model of the book
     *                      ({@link Collective#bytesPerDevice}; ppermute: only when the device sends to another
     *                      device)
     * @param bytesReceived bytes this device receives under the same model
     * @param params        the static parameters, typed by kind ({@link CollectiveParams#text()} gives JAX's words)
     * @param id            the event's id (see {@link TraceEvent})
     * @param input         the id of the operand
     */
    record CollectiveEvent(Collective kind, List<String> axes, int groupSize, dev.shardlings.array.DType dtype,
                           List<Integer> inputShape, List<Integer> outputShape,
                           long bytesSent, long bytesReceived, CollectiveParams params, long id, long input)
            implements TraceEvent {
        /** @throws NullPointerException naming the component if a reference component or an element is null */
        public CollectiveEvent {
            Objects.requireNonNull(kind, "kind");
            axes = Lists.copyOfNonNull(axes, "axes");
            Objects.requireNonNull(dtype, "dtype");
            inputShape = Lists.copyOfNonNull(inputShape, "inputShape");
            outputShape = Lists.copyOfNonNull(outputShape, "outputShape");
            Objects.requireNonNull(params, "params");
        }

        /** For ppermute the (source, destination) pairs; empty for the other collectives. */
        public List<List<Integer>> permutation() {
            return params instanceof CollectiveParams.Permute p ? p.pairs() : List.of();
        }

        @Override
        public List<Long> inputs() {
            return List.of(input);
        }

        /**
         * Bytes of the operand on this device: its elements times its dtype's size (4 for float32 and int32, 2 for
         * bfloat16, 1 for bool), the same bytes {@link #bytesSent()} counts.
         */
        public long operandBytes() {
            long n = dtype.byteSize();
            for (int d : inputShape) {
                n *= d;
            }
            return n;
        }

        /** A one-line description such as {@code psum over ('x',) of float32[2, 2]}. */
        public String describe() {
            StringBuilder sb = new StringBuilder(kind.jaxName()).append(" over ").append(axesRepr(axes))
                    .append(" of ").append(dtype.jaxName()).append(inputShape);
            if (!params.text().isEmpty()) {
                sb.append(" (").append(params.text()).append(')');
            }
            return sb.toString();
        }
    }

    /**
     * A local matrix multiplication [m, k] · [k, n] on one device.
     *
     * @param flops  2·m·k·n floating-point operations (a multiply and an add per term)
     * @param id     the event's id; 0 for a matmul on the host outside shardMap
     * @param inputs the ids of the two operands (empty on the host)
     * @param operandDtype the dtype of the operands the caller passed: bfloat16 for {@code matmul(a, b, FLOAT32)} of
     *               bfloat16 operands even where the framework widens them itself (under autodiff it records
     *               exact conversions to float32 first), so that a rule can tell that matmul from a float32 one of
     *               copies the caller widened; the left operand's where the two differ
     * @param rhsOperandDtype the right operand's dtype as the caller passed it, kept apart from the left's so that
     *               a bfloat16 × float32 dot (JAX's transpose of a bfloat16 one: a float32 cotangent times a
     *               bfloat16 operand) still shows its bfloat16 operand
     */
    record MatmulEvent(int m, int k, int n, dev.shardlings.array.DType dtype, long flops, long id, List<Long> inputs,
                       dev.shardlings.array.DType operandDtype, dev.shardlings.array.DType rhsOperandDtype)
            implements TraceEvent {
        /** @throws NullPointerException naming the component if a reference component or an element is null */
        public MatmulEvent {
            Objects.requireNonNull(dtype, "dtype");
            inputs = Lists.copyOfNonNull(inputs, "inputs");
            Objects.requireNonNull(operandDtype, "operandDtype");
            Objects.requireNonNull(rhsOperandDtype, "rhsOperandDtype");
        }

        /** A matmul whose two operands had {@code operandDtype}. */
        public MatmulEvent(int m, int k, int n, dev.shardlings.array.DType dtype, long flops, long id,
                           List<Long> inputs, dev.shardlings.array.DType operandDtype) {
            this(m, k, n, dtype, flops, id, inputs, operandDtype, operandDtype);
        }

        /**
         * Whether either operand, as the caller passed it, had dtype {@code d}.
         *
         * @throws NullPointerException if d is null
         */
        public boolean hasOperand(dev.shardlings.array.DType d) {
            Objects.requireNonNull(d, "d");
            return operandDtype == d || rhsOperandDtype == d;
        }

        /** A matmul whose operands have its result's dtype. */
        public MatmulEvent(int m, int k, int n, dev.shardlings.array.DType dtype, long flops, long id,
                           List<Long> inputs) {
            this(m, k, n, dtype, flops, id, inputs, dtype);
        }

        /** Bytes read and written at the result dtype's size (4 for float32/int32, 2 for bfloat16). */
        public long bytes() {
            return (long) dtype.byteSize() * ((long) m * k + (long) k * n + (long) m * n);
        }
    }

    /**
     * Any other local operation on one device that made a new array: elementwise arithmetic, a reduction, data
     * movement (slice, concatenate, transpose, …) or the creation of an array.
     *
     * @param op     the operation, e.g. {@link dev.shardlings.array.BinaryOp#ADD},
     *               {@link dev.shardlings.array.DataOp#SLICE}, {@link dev.shardlings.array.ReduceOp#SUM}
     * @param dtype  the result's dtype
     * @param shape  the result's shape
     * @param flops  arithmetic operations (0 for data movement)
     * @param bytes  bytes read plus bytes written
     * @param id     the event's id
     * @param inputs the ids of the arrays read
     */
    record LocalOpEvent(dev.shardlings.array.LocalOp op, dev.shardlings.array.DType dtype, List<Integer> shape,
                        long flops, long bytes, long id, List<Long> inputs) implements TraceEvent {
        /** @throws NullPointerException naming the component if a reference component or an element is null */
        public LocalOpEvent {
            Objects.requireNonNull(op, "op");
            Objects.requireNonNull(dtype, "dtype");
            shape = Lists.copyOfNonNull(shape, "shape");
            inputs = Lists.copyOfNonNull(inputs, "inputs");
        }

        /** What kind of work the operation is: how the cost model counts it, whether it fuses into its consumer. */
        public dev.shardlings.array.OpKind kind() {
            return op.kind();
        }

        /** The operation's name for display, in JAX's words ({@link dev.shardlings.array.LocalOp#jaxName()}). */
        public String name() {
            return op.jaxName();
        }
    }

    /**
     * Python's tuple repr of axis names: {@code ('x',)} or {@code ('x', 'y')}.
     *
     * @throws NullPointerException if axes or a name is null
     */
    static String axesRepr(List<String> axes) {
        Lists.copyOfNonNull(axes, "axes");
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
