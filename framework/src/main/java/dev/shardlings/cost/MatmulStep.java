package dev.shardlings.cost;

import dev.shardlings.array.BinaryOp;
import dev.shardlings.array.DType;
import dev.shardlings.array.DataOp;
import dev.shardlings.events.DeviceTrace;
import dev.shardlings.events.ShardMapTrace;
import dev.shardlings.events.Trace;
import dev.shardlings.events.TraceEvent;
import dev.shardlings.events.TraceEvent.LocalOpEvent;
import dev.shardlings.events.TraceEvent.MatmulEvent;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.PartitionSpec;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One per-chip step of a chunked matmul, modelled on one device without computing it: what the compute stream of
 * Problems 3 and 4 does between its collectives, and what a real chip was timed on. In JAX, with {@code c} chunks
 * of width {@code K / c}:
 *
 * <pre>{@code
 * def step(a, w):                 # a: dtype[m, K], w: dtype[K, K]
 *     acc = sum(a[:, i*s:(i+1)*s] @ w[i*s:(i+1)*s, :] for i in range(c))   # s = K // c
 *     return (acc * 0.01).astype(a.dtype)                                   # dtype[m, K]
 * }</pre>
 *
 * <p>The events are the ones the framework records for that body in a {@code shardMap} on one device (a test holds
 * them to a recorded run): per chunk two slices (free in the cost model: they fuse into their reader), a dot
 * [m, K/c]·[K/c, K], and from the second chunk on an add of the partial product to the accumulator; then a multiply
 * by the scalar 0.01. The cast back to the dtype has no event: the framework computes in one element type and
 * {@link ModelDtype} scales the bytes. They are built directly, so that shapes such as 8192 × 8192 cost nothing
 * to model.
 */
public final class MatmulStep {

    /** The most chunks a step may have: each is a few events, and a program of millions of kernels says nothing. */
    public static final int MAX_CHUNKS = 4096;

    private MatmulStep() {
    }

    /**
     * The modelled time of one step on one device of {@code hw}: the end of its compute stream under
     * {@link CostModel#schedule}.
     *
     * @param hw     the hardware model
     * @param dtype  the element type modelled (bytes per element and the matmul rate)
     * @param m      rows of A and of the result
     * @param k      K: columns of A, and rows and columns of W
     * @param chunks how many equal chunks K is split into (1: one matmul [m, K]·[K, K])
     * @return seconds
     * @throws NullPointerException     if hw or dtype is null
     * @throws IllegalArgumentException if m, k or chunks is not positive, chunks is more than {@link #MAX_CHUNKS},
     *                                  k is not divisible by chunks, the step's
     *                                  FLOPs or bytes do not fit in a long, or hw has no matmul rate for dtype
     */
    public static double modelledSeconds(HardwareModel hw, ModelDtype dtype, int m, int k, int chunks) {
        Objects.requireNonNull(hw, "hw");
        Objects.requireNonNull(dtype, "dtype");
        hw.matmulRate(dtype); // names the rates hw has before anything is built
        return CostModel.schedule(trace(m, k, chunks), hw, dtype).seconds();
    }

    /**
     * The step as the framework records it: one shardMap call on a one-device mesh.
     *
     * @throws IllegalArgumentException as {@link #modelledSeconds}
     */
    static Trace trace(int m, int k, int chunks) {
        positive("m", m);
        positive("k", k);
        positive("chunks", chunks);
        if (chunks > MAX_CHUNKS) {
            throw new IllegalArgumentException("chunks = " + chunks + " is more than " + MAX_CHUNKS
                    + " (each chunk is a kernel of its own)");
        }
        if (k % chunks != 0) {
            throw new IllegalArgumentException("k = " + k + " is not divisible by chunks = " + chunks);
        }
        int s = k / chunks;
        // 2·m·K·K FLOPs and the result's bytes, checked once: every per-event figure below is smaller.
        try {
            Math.multiplyExact(Math.multiplyExact(2L * m, k), (long) k);
            Math.multiplyExact(Math.multiplyExact(3L * Float.BYTES, m), (long) k);
            Math.multiplyExact(Math.multiplyExact(2L * Float.BYTES, k), (long) k);
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("m = " + m + ", k = " + k + ": the step's FLOPs or bytes do not fit"
                    + " in a long");
        }
        long a = 1;
        long w = 2;
        long[] next = {3};
        List<TraceEvent> events = new ArrayList<>();
        long acc = 0;
        for (int i = 0; i < chunks; i++) {
            long aSlice = slice(events, next, a, m, s);
            long wSlice = slice(events, next, w, s, k);
            long product = next[0]++;
            events.add(new MatmulEvent(m, s, k, DType.FLOAT32, 2L * m * s * k, product, List.of(aSlice, wSlice)));
            if (i == 0) {
                acc = product;
            } else {
                long sum = next[0]++;
                events.add(elementwise(BinaryOp.ADD, m, k, 3L * m * k * Float.BYTES, sum, List.of(acc, product)));
                acc = sum;
            }
        }
        // The scalar is a 0-d array made outside the trace (id 0), read once: 4 bytes.
        events.add(elementwise(BinaryOp.MUL, m, k, 2L * m * k * Float.BYTES + Float.BYTES, next[0]++,
                List.of(acc, 0L)));
        long largest = 0;
        long allocated = 0;
        for (TraceEvent e : events) {
            long bytes = e instanceof MatmulEvent mm ? 4L * mm.m() * mm.n() : outputBytes((LocalOpEvent) e);
            largest = Math.max(largest, bytes);
            allocated += bytes;
        }
        DeviceTrace device = new DeviceTrace(0, List.of(0), events, largest, allocated,
                (long) Float.BYTES * m * k + (long) Float.BYTES * k * k);
        Mesh one = Mesh.makeMesh(new int[]{1}, "chip");
        ShardMapTrace call = new ShardMapTrace("matmul_step", one,
                List.of(PartitionSpec.P(), PartitionSpec.P()), List.of(PartitionSpec.P()), List.of(device));
        return new Trace(List.of(call), List.of(), 0);
    }

    /** A slice [rows, cols] of the array {@code from}: read and written once, as NDArray reports it. */
    private static long slice(List<TraceEvent> events, long[] next, long from, int rows, int cols) {
        long id = next[0]++;
        events.add(new LocalOpEvent(DataOp.SLICE, DType.FLOAT32, List.of(rows, cols), 0,
                2L * rows * cols * Float.BYTES, id, List.of(from)));
        return id;
    }

    /** An elementwise op with a [m, k] result: one FLOP an element. */
    private static LocalOpEvent elementwise(BinaryOp op, int m, int k, long bytes, long id, List<Long> inputs) {
        return new LocalOpEvent(op, DType.FLOAT32, List.of(m, k), (long) m * k, bytes, id, inputs);
    }

    private static long outputBytes(LocalOpEvent e) {
        long n = Float.BYTES;
        for (int d : e.shape()) {
            n *= d;
        }
        return n;
    }

    private static void positive(String name, int v) {
        if (v <= 0) {
            throw new IllegalArgumentException(name + " must be a positive integer, got " + v);
        }
    }
}
