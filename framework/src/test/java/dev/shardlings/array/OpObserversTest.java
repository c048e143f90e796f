package dev.shardlings.array;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

@SuppressWarnings("try") // observer scopes are used for their effect, not referenced in the body
class OpObserversTest {
    /** Records everything it sees. */
    static class Recorder implements OpObserver {
        final List<String> allocations = new ArrayList<>();
        final List<long[]> matmuls = new ArrayList<>();
        long bytes;

        @Override
        public void allocated(DType dtype, int[] shape, long b) {
            allocations.add(dtype.shortName() + Shapes.str(shape));
            bytes += b;
        }

        @Override
        public void matmul(int m, int k, int n, DType dtype) {
            matmuls.add(new long[] {m, k, n, 2L * m * k * n});
        }
    }

    private static Recorder record(Supplier<?> op) {
        Recorder r = new Recorder();
        try (OpObservers.Scope s = OpObservers.install(r)) {
            op.get();
        }
        return r;
    }

    @Test
    void matmulReportsTwoMknFlopsAndOneAllocation() {
        NDArray a = NDArray.ones(DType.FLOAT32, 3, 5);
        NDArray b = NDArray.ones(DType.FLOAT32, 5, 7);
        Recorder r = record(() -> a.matmul(b));
        assertEquals(1, r.matmuls.size());
        assertArrayEquals(new long[] {3, 5, 7, 210}, r.matmuls.get(0));
        assertEquals(List.of("f32(3,7)"), r.allocations);
        assertEquals(3 * 7 * 4, r.bytes);
    }

    @Test
    void aTransposedOperandReportsTheSameMatmulAndFlopsAndNoTranspose() {
        NDArray at = NDArray.ones(DType.FLOAT32, 5, 3); // A = atᵀ is [3, 5]
        NDArray bt = NDArray.ones(DType.FLOAT32, 7, 5); // B = btᵀ is [5, 7]
        List<Long> flops = new ArrayList<>();
        List<LocalOp> ops = new ArrayList<>();
        Recorder r = new Recorder() {
            @Override
            public long op(LocalOp op, DType dtype, int[] shape, long[] inputs, long f, long bytes) {
                ops.add(op);
                flops.add(f);
                return 0;
            }
        };
        try (OpObservers.Scope s = OpObservers.install(r)) {
            at.matmul(true, bt, true);
        }
        assertArrayEquals(new long[] {3, 5, 7, 210}, r.matmuls.get(0));
        assertEquals(List.of(AccumulateOp.DOT), ops);
        assertEquals(List.of(210L), flops);
        assertEquals(List.of("f32(3,7)"), r.allocations);
    }

    @Test
    void intMatmulReportsItsDtype() {
        List<DType> seen = new ArrayList<>();
        OpObserver o = new OpObserver() {
            @Override
            public void allocated(DType dtype, int[] shape, long bytes) {
            }

            @Override
            public void matmul(int m, int k, int n, DType dtype) {
                seen.add(dtype);
            }
        };
        NDArray a = NDArray.arange(4).reshape(2, 2);
        try (OpObservers.Scope s = OpObservers.install(o)) {
            a.matmul(a);
            a.matmul(a.astype(DType.FLOAT32));
        }
        assertEquals(List.of(DType.INT32, DType.FLOAT32), seen);
    }

    @Test
    void everyNewBufferIsReportedExactlyOnce() {
        NDArray x = NDArray.arange(6, DType.FLOAT32).reshape(2, 3);
        NDArray i = NDArray.arange(6).reshape(2, 3);
        List<Supplier<?>> ops = List.of(
                () -> NDArray.zeros(DType.INT32, 2, 3), () -> NDArray.fromFloats(new float[6], 2, 3),
                () -> NDArray.of(1, 2), () -> NDArray.scalar(1f), () -> x.transpose(), () -> x.slice(1, 0, 2),
                () -> x.dynamicSlice(1, 5, 2), () -> x.index(0), () -> x.take(1, 2), () -> x.roll(1, 1),
                () -> x.roll(-1), () -> x.astype(DType.INT32), () -> x.broadcastTo(4, 2, 3), () -> x.add(i),
                () -> x.mul(2.5), () -> i.add(1), () -> i.div(i), () -> x.exp(), () -> i.neg(), () -> x.sum(),
                () -> x.mean(1), () -> i.max(KeepDims.KEEP, 0), () -> x.argmax(1), () -> NDArray.concat(0, x, i),
                () -> NDArray.stack(0, x, x, x));
        for (Supplier<?> op : ops) {
            Recorder r = record(op);
            assertEquals(1, r.allocations.size(), () -> "allocations " + r.allocations);
            NDArray result = (NDArray) op.get();
            assertEquals(List.of(result.dtype().shortName() + Shapes.str(result.shape())), r.allocations);
            assertEquals(result.nbytes(), r.bytes);
        }
    }

    @Test
    void viewsReportNothing() {
        NDArray x = NDArray.arange(6, DType.FLOAT32);
        Recorder r = record(() -> List.of(x.reshape(2, 3), x.reshape(-1, 2).expandDims(0).squeeze(),
                x.withVaryingAxes(Set.of("i")), x.pvary("i", "j"), x.astype(DType.FLOAT32), x.broadcastTo(6)));
        assertEquals(List.of(), r.allocations);
    }

    @Test
    void splitReportsEachPieceOnce() {
        NDArray x = NDArray.arange(12).reshape(3, 4);
        Recorder r = record(() -> x.split(1, 2));
        assertEquals(List.of("i32(3,2)", "i32(3,2)"), r.allocations);
    }

    @Test
    void scalarOperandsOfBinaryOpsAreNotReported() {
        NDArray x = NDArray.arange(3);
        Recorder r = record(() -> x.add(2).sub(1.5f).maximum(0.25).floorDiv(2));
        assertEquals(List.of("i32(3,)", "f32(3,)", "f32(3,)", "f32(3,)"), r.allocations);
    }

    @Test
    void scopesNestAndRestoreThePreviousObserver() {
        assertNull(OpObservers.current());
        Recorder outer = new Recorder();
        Recorder inner = new Recorder();
        try (OpObservers.Scope a = OpObservers.install(outer)) {
            assertSame(outer, OpObservers.current());
            try (OpObservers.Scope b = OpObservers.install(inner)) {
                assertSame(inner, OpObservers.current());
                NDArray.zeros(DType.FLOAT32, 2);
                try (OpObservers.Scope c = OpObservers.install(null)) {
                    assertNull(OpObservers.current());
                    NDArray.zeros(DType.FLOAT32, 5);
                }
            }
            assertSame(outer, OpObservers.current());
            NDArray.zeros(DType.INT32, 3);
        }
        assertNull(OpObservers.current());
        assertEquals(List.of("f32(2,)"), inner.allocations);
        assertEquals(List.of("i32(3,)"), outer.allocations);
    }

    @Test
    void closingTwiceIsHarmless() {
        Recorder r = new Recorder();
        OpObservers.Scope s = OpObservers.install(r);
        s.close();
        s.close();
        assertNull(OpObservers.current());
    }

    @Test
    void observersArePerThread() throws InterruptedException {
        Recorder r = new Recorder();
        AtomicReference<OpObserver> seenOnOtherThread = new AtomicReference<>(r);
        try (OpObservers.Scope s = OpObservers.install(r)) {
            Thread t = new Thread(() -> {
                seenOnOtherThread.set(OpObservers.current());
                NDArray.zeros(DType.FLOAT32, 4);
            });
            t.start();
            t.join();
        }
        assertNull(seenOnOtherThread.get());
        assertEquals(List.of(), r.allocations);
    }

    @Test
    void closingOnAnotherThreadIsRejected() throws InterruptedException {
        OpObservers.Scope s = OpObservers.install(new Recorder());
        try {
            AtomicReference<Throwable> error = new AtomicReference<>();
            Thread t = new Thread(() -> {
                try {
                    s.close();
                } catch (Throwable e) {
                    error.set(e);
                }
            });
            t.start();
            t.join();
            assertTrue(error.get() instanceof IllegalStateException, String.valueOf(error.get()));
            assertTrue(error.get().getMessage().contains("must be closed on that thread"));
        } finally {
            s.close();
        }
        assertNull(OpObservers.current());
    }

    @Test
    void observerGetsACopyOfTheShape() {
        List<int[]> shapes = new ArrayList<>();
        OpObserver o = new OpObserver() {
            @Override
            public void allocated(DType dtype, int[] shape, long bytes) {
                shapes.add(shape);
                shape[0] = 99;
            }

            @Override
            public void matmul(int m, int k, int n, DType dtype) {
            }
        };
        NDArray x;
        try (OpObservers.Scope s = OpObservers.install(o)) {
            x = NDArray.zeros(DType.FLOAT32, 2, 3);
        }
        assertArrayEquals(new int[] {2, 3}, x.shape());
        assertEquals(1, shapes.size());
    }

    /** A case of {@link #everyOperationReportsItsLocalOpWithTheNameTracesShow}. */
    private record Named(LocalOp op, String name, Supplier<?> run) {
    }

    @Test
    void everyOperationReportsItsLocalOpWithTheNameTracesShow() {
        NDArray x = NDArray.arange(6, DType.FLOAT32).reshape(2, 3);
        NDArray i = NDArray.arange(6).reshape(2, 3);
        List<Named> cases = List.of(
                new Named(DataOp.CREATE, "create", () -> NDArray.zeros(DType.INT32, 2)),
                new Named(DataOp.CONVERT, "convert", () -> x.astype(DType.INT32)),
                new Named(DataOp.TRANSPOSE, "transpose", () -> x.transpose()),
                new Named(DataOp.BROADCAST, "broadcast", () -> x.broadcastTo(2, 2, 3)),
                new Named(DataOp.SLICE, "slice", () -> x.dynamicSlice(1, 1, 2)),
                new Named(DataOp.TAKE, "take", () -> x.index(1)),
                new Named(DataOp.ROLL, "roll", () -> x.roll(1)),
                new Named(DataOp.GATHER, "gather", () -> x.take(NDArray.of(1, 0), 0)),
                new Named(DataOp.CONCATENATE, "concatenate", () -> NDArray.stack(0, x, x)),
                new Named(UnaryOp.SIN, "sin", () -> i.sin()),
                new Named(UnaryOp.RELU, "relu", () -> i.relu()),
                new Named(UnaryOp.COPY, "copy", () -> NDArray.addN(List.of(x))),
                new Named(BinaryOp.SUB, "subtract", () -> x.sub(1)),
                new Named(BinaryOp.FLOOR_DIV, "floor_divide", () -> i.floorDiv(i.add(1))),
                new Named(ReduceOp.SUM, "reduce_sum", () -> i.sum(0)),
                new Named(ReduceOp.MEAN, "reduce_mean", () -> x.mean()),
                new Named(SearchOp.ARGMAX, "argmax", () -> x.argmax(1)),
                new Named(SearchOp.ARGSORT, "sort", () -> NDArray.of(3, 1, 2).argsort()),
                new Named(AccumulateOp.DOT, "dot", () -> x.matmul(x.transpose())),
                new Named(AccumulateOp.ADD_N, "add", () -> NDArray.addN(List.of(x, x, x))));
        for (Named c : cases) {
            List<LocalOp> seen = new ArrayList<>();
            OpObserver o = new OpObserver() {
                @Override
                public void allocated(DType dtype, int[] shape, long bytes) {
                }

                @Override
                public void matmul(int m, int k, int n, DType dtype) {
                }

                @Override
                public long op(LocalOp op, DType dtype, int[] shape, long[] inputs, long flops, long bytes) {
                    seen.add(op);
                    return 0;
                }
            };
            try (OpObservers.Scope s = OpObservers.install(o)) {
                c.run().get();
            }
            assertEquals(c.op(), seen.get(seen.size() - 1), c.name());
            assertEquals(c.name(), c.op().jaxName());
        }
    }

    @Test
    void everyLocalOpIsListedOnceInAll() {
        assertEquals(LocalOp.ALL.size(), new java.util.HashSet<>(LocalOp.ALL).size());
        assertEquals(UnaryOp.values().length + BinaryOp.values().length + ReduceOp.values().length
                + SearchOp.values().length + DataOp.values().length + AccumulateOp.values().length
                + CompareOp.values().length,
                LocalOp.ALL.size());
    }
}
