package dev.shardlings.jit;

import dev.shardlings.array.DType;
import dev.shardlings.array.DataOp;
import dev.shardlings.array.LocalOp;
import dev.shardlings.array.NDArray;
import dev.shardlings.primitive.Binary;
import dev.shardlings.primitive.BroadcastInDim;
import dev.shardlings.primitive.Compare;
import dev.shardlings.primitive.Concatenate;
import dev.shardlings.primitive.ConvertType;
import dev.shardlings.primitive.DotGeneral;
import dev.shardlings.primitive.Full;
import dev.shardlings.primitive.Primitive;
import dev.shardlings.primitive.Reduce;
import dev.shardlings.primitive.Reshape;
import dev.shardlings.primitive.Reshard;
import dev.shardlings.primitive.Select;
import dev.shardlings.primitive.ShardingConstraint;
import dev.shardlings.primitive.Slice;
import dev.shardlings.primitive.StopGradient;
import dev.shardlings.primitive.Transpose;
import dev.shardlings.primitive.Unary;
import dev.shardlings.sharding.Device;
import dev.shardlings.sharding.NamedSharding;
import dev.shardlings.spmd.DeviceProgram;
import dev.shardlings.spmd.ShardedArray;
import dev.shardlings.spmd.DataMovement;
import dev.shardlings.events.DeviceTrace;
import dev.shardlings.events.Origin;
import dev.shardlings.events.ShardMapTrace;
import dev.shardlings.events.Trace;
import dev.shardlings.events.TraceEvent;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * What one call of a {@link Compiled} program would record under {@link dev.shardlings.events.Tracing#record},
 * built from its per-device program and block shapes <em>without running it</em>: the same matmuls (m, k, n),
 * local operations (with the FLOPs and bytes the arrays report), collectives (kind, axes, shapes, the ring model's
 * bytes) and dataflow, device by device. So the cost model ({@link dev.shardlings.cost.CostModel}) can time a
 * program at sizes this machine could not hold or multiply — seed 001's full-size training step has 8192 × 8192
 * weights — from a {@code lower} alone. A test checks that the modelled timeline equals the one of a real call.
 *
 * <p>Each device also gets its peak memory ({@link #peakBytes}): arguments stay resident for the call, every
 * other buffer lives from the operation that makes it to its last reader (or the end, for a result), views share
 * their buffer — how XLA assigns buffers, not how the simulator keeps them (it holds every register to the end).
 *
 * <p>Modelled: the primitives and data-movement steps jit emits for whole-array code (elementwise, compare,
 * select, reductions, dot_general, broadcasts, reshapes, slices, transposes, concatenation, conversions, fills;
 * all-gather, all-reduce, all-to-all and local slices). Programs with a shardMap region, a
 * collective-permute relayout (roll, redistribute) or another primitive are refused: record a real call instead.
 */
public final class ProgramTrace {

    /** Ids of modelled events: far from the runtime's, unique in the JVM. */
    private static final java.util.concurrent.atomic.AtomicLong IDS =
            new java.util.concurrent.atomic.AtomicLong(1L << 52);

    private ProgramTrace() {
    }

    /**
     * The modelled trace of one call: one shardMap call (the jit program), with every device's events.
     *
     * @throws NullPointerException          if compiled is null
     * @throws UnsupportedOperationException for a program with a part not modelled (see the class comment)
     */
    public static Trace of(Compiled compiled) {
        Objects.requireNonNull(compiled, "compiled");
        List<DeviceTrace> devices = new ArrayList<>();
        for (Device d : compiled.mesh().devices()) {
            devices.add(new Run(compiled).device(d));
        }
        ShardMapTrace sm = new ShardMapTrace("jit_" + compiled.name(), compiled.mesh(), compiled.inSpecs(),
                compiled.outputShardings().stream().map(NamedSharding::spec).toList(), devices, Origin.JIT);
        return new Trace(List.of(sm), List.of(), 0);
    }

    /**
     * The most bytes any device holds at once during one call: its argument blocks, plus every buffer from the
     * operation that makes it to its last reader (results: to the end).
     *
     * @throws NullPointerException          if compiled is null
     * @throws UnsupportedOperationException as {@link #of}
     */
    public static long peakBytes(Compiled compiled) {
        Objects.requireNonNull(compiled, "compiled");
        long peak = 0;
        for (Device d : compiled.mesh().devices()) {
            Run r = new Run(compiled);
            r.device(d);
            peak = Math.max(peak, r.peak);
        }
        return peak;
    }

    /** A value in a register: the id of the event that made it, its block shape and dtype, and its buffer. */
    private record Val(long id, int[] shape, DType dtype, int buffer) {
        long bytes() {
            return (long) size(shape) * dtype.byteSize();
        }
    }

    /** The walk of the program for one device. */
    private static final class Run {
        final Compiled c;
        final DeviceProgram program;
        final List<TraceEvent> events = new ArrayList<>();
        final List<Long> bufferBytes = new ArrayList<>();
        final List<Integer> bufferEnd = new ArrayList<>(); // last instruction that reads it (MAX: to the end)
        final int[] lastRead;
        int at;
        long peak;
        long largest;
        long allocated;
        long argumentBytes;

        Run(Compiled c) {
            this.c = c;
            this.program = c.program();
            lastRead = new int[program.registers()];
            Arrays.fill(lastRead, -1);
            List<DeviceProgram.Instruction> ins = program.instructions();
            for (int i = 0; i < ins.size(); i++) {
                for (int r : reads(ins.get(i))) {
                    lastRead[r] = i;
                }
            }
            for (int o : c.outputRegisters()) {
                lastRead[o] = Integer.MAX_VALUE;
            }
        }

        private static List<Integer> reads(DeviceProgram.Instruction ins) {
            if (ins instanceof DeviceProgram.Apply a) {
                return a.inputs();
            }
            if (ins instanceof DeviceProgram.Move m) {
                return List.of(m.input());
            }
            return ((DeviceProgram.Region) ins).inputs();
        }

        DeviceTrace device(Device device) {
            Val[] reg = new Val[program.registers()];
            List<int[]> argShapes = c.argumentShapes();
            List<DType> argTypes = c.argumentDtypes();
            for (int k = 0; k < argShapes.size(); k++) {
                int b = buffer((long) size(argShapes.get(k)) * argTypes.get(k).byteSize(), Integer.MAX_VALUE);
                argumentBytes += bufferBytes.get(b);
                reg[k] = new Val(IDS.incrementAndGet(), argShapes.get(k), argTypes.get(k), b);
            }
            peak = live();
            List<DeviceProgram.Instruction> ins = program.instructions();
            for (at = 0; at < ins.size(); at++) {
                DeviceProgram.Instruction i = ins.get(at);
                if (i instanceof DeviceProgram.Apply a) {
                    reg[a.output()] = apply(a, reg, a.output());
                } else if (i instanceof DeviceProgram.Move m) {
                    Val x = reg[m.input()];
                    for (int s = 0; s < m.steps().size(); s++) {
                        boolean last = s == m.steps().size() - 1;
                        x = step(m.steps().get(s), x, last ? lastRead[m.output()] : at);
                    }
                    reg[m.output()] = x;
                } else {
                    throw new UnsupportedOperationException("ProgramTrace does not model a shardMap region inside jit ("
                            + ((DeviceProgram.Region) i).region().label() + "); record a real call instead");
                }
                peak = Math.max(peak, live());
            }
            return new DeviceTrace(device.id(), device.coords(), events, largest, allocated, argumentBytes);
        }

        /** Bytes of the buffers alive at instruction {@link #at} (made at or before it, read at or after it). */
        private long live() {
            long sum = 0;
            for (int b = 0; b < bufferBytes.size(); b++) {
                if (bufferEnd.get(b) >= at) {
                    sum += bufferBytes.get(b);
                }
            }
            return sum;
        }

        private int buffer(long bytes, int end) {
            bufferBytes.add(bytes);
            bufferEnd.add(Math.max(end, at));
            return bufferBytes.size() - 1;
        }

        /** A view of x (no event, same buffer) that lives as long as register out's readers need it. */
        private Val alias(Val x, int[] shape, DType dtype, int out) {
            bufferEnd.set(x.buffer, Math.max(bufferEnd.get(x.buffer), lastRead[out]));
            return new Val(x.id, shape, dtype, x.buffer);
        }

        /** A new buffer made by a local operation, with the FLOPs and bytes NDArray reports for it. */
        private Val op(LocalOp op, DType dtype, int[] shape, List<Val> in, int end) {
            long outBytes = (long) size(shape) * dtype.byteSize();
            long inBytes = 0;
            long inElements = 0;
            List<Long> ids = new ArrayList<>();
            for (Val v : in) {
                inBytes += v.bytes();
                inElements += size(v.shape);
                ids.add(v.id);
            }
            long flops = switch (op.kind()) {
                case ELEMENTWISE -> size(shape);
                case REDUCTION -> inElements;
                case ADD_N -> inElements - size(shape);
                default -> 0;
            };
            long bytes = switch (op.kind()) {
                case CREATE -> outBytes;
                case INDEXING, COPY -> 2 * outBytes;
                default -> inBytes + outBytes;
            };
            long id = IDS.incrementAndGet();
            events.add(new TraceEvent.LocalOpEvent(op, dtype, boxed(shape), flops, bytes, id, ids));
            return made(id, shape, dtype, outBytes, end);
        }

        private Val made(long id, int[] shape, DType dtype, long bytes, int end) {
            largest = Math.max(largest, bytes);
            allocated += bytes;
            return new Val(id, shape, dtype, buffer(bytes, end));
        }

        private Val apply(DeviceProgram.Apply a, Val[] reg, int out) {
            Primitive p = a.local();
            List<Val> in = new ArrayList<>();
            a.inputs().forEach(i -> in.add(reg[i]));
            int[] shape = a.localType().shapeArray();
            DType dtype = a.localType().dtype();
            int end = lastRead[out];
            if (p instanceof Reshape || p instanceof ShardingConstraint || p instanceof Reshard
                    || p instanceof StopGradient) {
                return alias(in.get(0), shape, dtype, out);
            }
            if (p instanceof BroadcastInDim) {
                return size(shape) == size(in.get(0).shape) ? alias(in.get(0), shape, dtype, out)
                        : op(DataOp.BROADCAST, dtype, shape, in, end);
            }
            if (p instanceof Slice) {
                return Arrays.equals(shape, in.get(0).shape) ? alias(in.get(0), shape, dtype, out)
                        : op(DataOp.SLICE, dtype, shape, in, end);
            }
            if (p instanceof ConvertType) {
                return in.get(0).dtype == dtype ? alias(in.get(0), shape, dtype, out)
                        : op(DataOp.CONVERT, dtype, shape, in, end);
            }
            if (p instanceof Transpose) {
                return op(DataOp.TRANSPOSE, dtype, shape, in, end);
            }
            if (p instanceof Full) {
                return op(DataOp.CREATE, dtype, shape, List.of(), end);
            }
            if (p instanceof Binary b) {
                return op(b.op(), dtype, shape, in, end);
            }
            if (p instanceof Unary u) {
                return op(u.op(), dtype, shape, in, end);
            }
            if (p instanceof Compare cmp) {
                return op(cmp.op(), dtype, shape, in, end);
            }
            if (p instanceof Select) {
                return op(DataOp.SELECT, dtype, shape, in, end);
            }
            if (p instanceof Concatenate) {
                return op(DataOp.CONCATENATE, dtype, shape, in, end);
            }
            if (p instanceof Reduce r) {
                return r.axes().isEmpty() ? op(dev.shardlings.array.BinaryOp.ADD, dtype, shape, in, end)
                        : op(r.op(), dtype, shape, in, end);
            }
            if (p instanceof DotGeneral d) {
                return dot(d, in.get(0), in.get(1), shape, dtype, end);
            }
            throw new UnsupportedOperationException("ProgramTrace does not model " + p.name() + "; record a real call"
                    + " instead");
        }

        /**
         * DotGeneral.apply: an operand that is neither in matmul order nor its transpose is transposed first (a
         * free, fused event); then one matmul, or one per batch index and a stack.
         */
        private Val dot(DotGeneral d, Val l, Val r, int[] shape, DType dtype, int end) {
            List<Integer> lf = free(l.shape.length, d.lhsContracting(), d.lhsBatch());
            List<Integer> rf = free(r.shape.length, d.rhsContracting(), d.rhsBatch());
            int b = prod(l.shape, d.lhsBatch());
            int m = prod(l.shape, lf);
            int k = prod(l.shape, d.lhsContracting());
            int n = prod(r.shape, rf);
            List<Integer> lp = concat(d.lhsBatch(), lf, d.lhsContracting());
            List<Integer> rp = concat(d.rhsBatch(), d.rhsContracting(), rf);
            Val lt = l;
            Val rt = r;
            boolean readTransposed = b == 1;
            if (!identity(lp) && !(readTransposed && identity(concat(d.lhsContracting(), lf)))) {
                lt = op(DataOp.TRANSPOSE, l.dtype, permuted(l.shape, lp), List.of(l), at);
            }
            if (!identity(rp) && !(readTransposed && identity(concat(rf, d.rhsContracting())))) {
                rt = op(DataOp.TRANSPOSE, r.dtype, permuted(r.shape, rp), List.of(r), at);
            }
            long outBytes = (long) size(shape) * dtype.byteSize();
            if (b == 1) {
                long id = IDS.incrementAndGet();
                events.add(new TraceEvent.MatmulEvent(m, k, n, dtype, 2L * m * k * n, id, List.of(lt.id, rt.id)));
                return made(id, shape, dtype, outBytes, end);
            }
            List<Val> products = new ArrayList<>();
            for (int i = 0; i < b; i++) {
                long id = IDS.incrementAndGet();
                events.add(new TraceEvent.MatmulEvent(m, k, n, dtype, 2L * m * k * n, id, List.of(lt.id, rt.id)));
                products.add(made(id, new int[] {m, n}, dtype, (long) m * n * dtype.byteSize(), at));
            }
            return op(DataOp.CONCATENATE, dtype, shape, products, end);
        }

        /** One data-movement step as the runtime's collective (or local slice) records it. */
        private Val step(DataMovement s, Val x, int end) {
            int[] shape = s.outShape(x.shape, c.mesh());
            if (s instanceof DataMovement.SliceLocal || s instanceof DataMovement.SliceMajor) {
                op(DataOp.CREATE, DType.INT32, new int[0], List.of(), at); // the axis index the slice starts at
                return op(DataOp.SLICE, x.dtype, shape, List.of(x), end);
            }
            if (!(s instanceof DataMovement.OneCollective one)) {
                throw new UnsupportedOperationException("ProgramTrace does not model the collective-permutes of " + s
                        + "; record a real call instead");
            }
            int n = 1;
            for (String a : s.axes()) {
                n *= c.mesh().axisSize(a);
            }
            long moved = one.bytesReceived(x.bytes(), c.mesh());
            long id = IDS.incrementAndGet();
            events.add(new TraceEvent.CollectiveEvent(one.primitive(), s.axes(), n, x.dtype, boxed(x.shape),
                    boxed(shape), moved, moved, one.params(), id, x.id));
            return made(id, shape, x.dtype, (long) size(shape) * x.dtype.byteSize(), end);
        }
    }

    private static List<Integer> free(int rank, List<Integer> contracting, List<Integer> batch) {
        List<Integer> out = new ArrayList<>();
        for (int d = 0; d < rank; d++) {
            if (!contracting.contains(d) && !batch.contains(d)) {
                out.add(d);
            }
        }
        return out;
    }

    private static int prod(int[] shape, List<Integer> dims) {
        int p = 1;
        for (int d : dims) {
            p *= shape[d];
        }
        return p;
    }

    @SafeVarargs
    private static List<Integer> concat(List<Integer>... lists) {
        List<Integer> all = new ArrayList<>();
        for (List<Integer> l : lists) {
            all.addAll(l);
        }
        return all;
    }

    private static boolean identity(List<Integer> perm) {
        for (int i = 0; i < perm.size(); i++) {
            if (perm.get(i) != i) {
                return false;
            }
        }
        return true;
    }

    private static int[] permuted(int[] shape, List<Integer> perm) {
        int[] out = new int[perm.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = shape[perm.get(i)];
        }
        return out;
    }

    private static int size(int[] shape) {
        int n = 1;
        for (int d : shape) {
            n *= d;
        }
        return n;
    }

    private static List<Integer> boxed(int[] shape) {
        return Arrays.stream(shape).boxed().toList();
    }

    /** Block shapes of a compiled program's arguments (its parameters, then its constants) on any device. */
    static List<int[]> argumentShapes(dev.shardlings.sharding.Mesh mesh, Jaxpr jaxpr, List<Object> constants,
                                      List<dev.shardlings.sharding.PartitionSpec> inSpecs) {
        List<int[]> out = new ArrayList<>();
        for (int k = 0; k < inSpecs.size(); k++) {
            int[] global = k < jaxpr.inputs().size() ? jaxpr.inputs().get(k).type().shapeArray()
                    : globalShape(constants.get(k - jaxpr.inputs().size()));
            out.add(new NamedSharding(mesh, inSpecs.get(k)).shardShape(global));
        }
        return out;
    }

    /** Dtypes of the same arguments. */
    static List<DType> argumentDtypes(Jaxpr jaxpr, List<Object> constants) {
        List<DType> out = new ArrayList<>();
        jaxpr.inputs().forEach(v -> out.add(v.type().dtype()));
        for (Object o : constants) {
            out.add(o instanceof ShardedArray s ? s.dtype() : ((NDArray) o).dtype());
        }
        return out;
    }

    private static int[] globalShape(Object constant) {
        return constant instanceof ShardedArray s ? s.shape() : ((NDArray) constant).shape();
    }
}
