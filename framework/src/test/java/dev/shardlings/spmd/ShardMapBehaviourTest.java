package dev.shardlings.spmd;

import dev.shardlings.array.NDArray;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.events.Collective;
import dev.shardlings.events.ShardMapTrace;
import dev.shardlings.events.Trace;
import dev.shardlings.events.TraceEvent;
import dev.shardlings.events.Tracing;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static dev.shardlings.spmd.Tiling.TILED;
import static dev.shardlings.sharding.PartitionSpec.P;
import static dev.shardlings.spmd.Collectives.allGather;
import static dev.shardlings.spmd.Collectives.axisIndex;
import static dev.shardlings.spmd.Collectives.ppermute;
import static dev.shardlings.spmd.Collectives.psum;
import static dev.shardlings.spmd.ShardMap.shardMap;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** shardMap's in/out specs, check_vma, failure behaviour and trace. */
class ShardMapBehaviourTest {

    static final Mesh I4 = SeedCollectivesTest.I4;
    static final Mesh XY = SeedCollectivesTest.XY;
    static final NDArray SEED = SeedCollectivesTest.SEED;

    /*
     * Time limits. What these tests check is "reported at once, never a hang", not speed, and they must hold on a
     * machine ten times busier than a quiet one: a test that must not wait for the collective time limit sets
     * that limit to LONG and gives the call NO_HANG, so passing within NO_HANG can only mean the runtime did not
     * wait for the limit, however slow the machine.
     */
    static final Duration NO_HANG = Duration.ofSeconds(30);
    static final Duration LONG = Duration.ofMinutes(10);

    @Test
    void localShapesFollowTheInSpec() {
        Mesh ij = Mesh.makeMesh(new int[]{4, 2}, "i", "j");
        int[][] seen = new int[1][];
        shardMap(b -> {
            seen[0] = b.shape();
            return b;
        }, ij, P("i", null), P("i", null)).apply(NDArray.zeros(dev.shardlings.array.DType.FLOAT32, 12, 12));
        assertArrayEquals(new int[]{3, 12}, seen[0]);
    }

    @Test
    void replicationCheckFollowsTheVaryingAxes() {
        // psum over 'y' leaves a value that varies over x only: out P('x') is fine.
        NDArray ok = shardMap(b -> psum(b, "y"), XY, P("x", "y"), P("x")).apply(NDArray.arange(8).reshape(4, 2))
                .gather();
        assertArrayEquals(new int[]{4, 1}, ok.shape());
        // all_gather stays varying: out P() is an error.
        assertThrows(IllegalArgumentException.class,
                () -> shardMap(b -> allGather(b, "i", 0, TILED), I4, P("i"), P()).apply(SEED));
        assertThrows(IllegalArgumentException.class,
                () -> shardMap(b -> ppermute(b, "i", new int[][]{{0, 1}}), I4, P("i"), P()).apply(SEED));
        assertThrows(IllegalArgumentException.class,
                () -> shardMap(b -> axisIndex("i").reshape(1), I4, P("i"), P()).apply(SEED));
    }

    @Test
    void checkVmaOffTakesTheFirstBlock() {
        NDArray out = shardMap(b -> b, I4, P("i"), P()).checkVma(false).apply(SEED).gather();
        assertArrayEquals(new int[]{3, 1, 4, 1}, out.toIntArray());
        NDArray cols = shardMap(b -> b, XY, P("x", "y"), P("x")).checkVma(false)
                .apply(NDArray.arange(8).reshape(4, 2)).gather();
        assertArrayEquals(new int[]{0, 2, 4, 6}, cols.toIntArray());
    }

    @Test
    void aCapturedGlobalArrayCannotBeReadOnADevice() {
        ShardedArray global = ShardedArray.devicePut(SEED, I4, P("i"));
        DeviceFailureException e = assertThrows(DeviceFailureException.class, () -> shardMap(
                b -> global.gather().slice(0, 0, 4), I4, P("i"), P("i")).apply(SEED));
        IllegalStateException cause = assertInstanceOf(IllegalStateException.class, e.getCause());
        assertTrue(cause.getMessage().startsWith("ShardedArray.gather() was called inside the function passed to"
                + " shardMap, on device 0 at mesh coordinates (i=0)."), cause.getMessage());
        assertTrue(cause.getMessage().contains("as an argument with an in spec"), cause.getMessage());
        for (java.util.function.Consumer<ShardedArray> read : List.<java.util.function.Consumer<ShardedArray>>of(
                ShardedArray::blocks, ShardedArray::addressableShards, ShardedArray::perDeviceText,
                g -> g.shardOn(g.mesh().devices().get(1)))) {
            assertThrows(DeviceFailureException.class, () -> shardMap(b -> {
                read.accept(global);
                return b;
            }, I4, P("i"), P("i")).apply(SEED));
        }
        // On the host, before and after, reading is fine.
        assertEquals(16, global.gather().size());
    }

    @Test
    void closedOverValuesAreInvariantAndTile() {
        NDArray three = NDArray.full(3.0f, 1, 1);
        NDArray out = shardMap(b -> three, XY, P("x", "y"), P("x", "y")).apply(NDArray.arange(8).reshape(4, 2))
                .gather();
        assertArrayEquals(new int[]{4, 2}, out.shape());
        assertEquals(3.0f, out.floatAt(3, 1));
        assertEquals(1, shardMap(b -> three, I4, P("i"), P()).apply(SEED).gather().size());
    }

    @Test
    void anExceptionNamesTheDeviceAndCoordinates() {
        DeviceFailureException e = assertThrows(DeviceFailureException.class, () -> shardMap(b -> {
            if (axisIndex("x").intAt() == 2 && axisIndex("y").intAt() == 1) {
                throw new ArithmeticException("bad block");
            }
            return b;
        }, XY, P("x", "y"), P("x", "y")).apply(NDArray.arange(8).reshape(4, 2)));
        assertEquals(5, e.device().id());
        assertEquals(List.of(2, 1), e.coords());
        assertInstanceOf(ArithmeticException.class, e.getCause());
        assertTrue(e.getMessage().contains("device 5 at mesh coordinates (x=2, y=1)"), e.getMessage());
    }

    @Test
    void anExceptionWhileOthersWaitInACollectiveDoesNotHang() {
        DeviceFailureException e = assertTimeoutPreemptively(NO_HANG, () -> assertThrows(
                DeviceFailureException.class, () -> shardMap(b -> {
                    if (axisIndex("i").intAt() == 3) {
                        throw new IllegalStateException("device 3 gives up");
                    }
                    return psum(b, "i");
                }, I4, P("i"), P()).collectiveTimeout(LONG).apply(SEED)));
        assertEquals(3, e.device().id());
    }

    @Test
    void differentCollectivesAreReportedQuickly() {
        CollectiveMismatchException e = assertTimeoutPreemptively(NO_HANG, () -> assertThrows(
                CollectiveMismatchException.class, () -> shardMap(b -> axisIndex("i").intAt() == 0
                        ? psum(b, "i") : allGather(b, "i", 0, TILED).slice(0, 0, 4), I4, P("i"), P("i"))
                        .checkVma(false).collectiveTimeout(LONG).apply(SEED)));
        assertTrue(e.getMessage().contains("psum over ('i',) of int32[4]"), e.getMessage());
        assertTrue(e.getMessage().contains("all_gather over ('i',) of int32[4]"), e.getMessage());
        assertEquals(4, e.deviceStates().size());
    }

    @Test
    void differentAxesOrShapesAreMismatches() {
        assertTimeoutPreemptively(NO_HANG, () -> {
            assertThrows(CollectiveMismatchException.class, () -> shardMap(
                    b -> axisIndex("x").intAt() == 0 ? psum(b, "x") : psum(b, "y"), XY, P("x", "y"), P("x", "y"))
                    .checkVma(false).collectiveTimeout(LONG).apply(NDArray.arange(8).reshape(4, 2)));
            assertThrows(CollectiveMismatchException.class, () -> shardMap(
                    b -> axisIndex("i").intAt() == 1 ? psum(b.slice(0, 0, 2), "i") : psum(b, "i"), I4,
                    P("i"), P("i")).checkVma(false).collectiveTimeout(LONG).apply(SEED));
        });
    }

    @Test
    void aDeviceThatSkipsACollectiveIsReportedQuickly() {
        CollectiveMismatchException e = assertTimeoutPreemptively(NO_HANG, () -> assertThrows(
                CollectiveMismatchException.class, () -> shardMap(
                        b -> axisIndex("i").intAt() == 2 ? b : psum(b, "i"), I4, P("i"), P("i"))
                        .checkVma(false).collectiveTimeout(LONG).apply(SEED)));
        assertTrue(e.getMessage().contains("returned"), e.getMessage());
    }

    @Test
    void aDeviceThatNeverArrivesHitsTheTimeLimit() {
        Duration limit = Duration.ofMillis(300);
        java.util.concurrent.CountDownLatch othersArrive = new java.util.concurrent.CountDownLatch(3);
        CollectiveMismatchException e = assertTimeoutPreemptively(NO_HANG, () -> assertThrows(
                CollectiveMismatchException.class, () -> shardMap(b -> {
                    if (axisIndex("i").intAt() == 1) {
                        // Late by ten times the limit, counted from when the others go to wait: they reach the
                        // limit first however busy the machine is (the sleep is wall-clock time, as the limit is).
                        try {
                            othersArrive.await();
                            Thread.sleep(limit.multipliedBy(10).toMillis());
                        } catch (InterruptedException ignored) {
                            Thread.currentThread().interrupt();
                        }
                    } else {
                        othersArrive.countDown();
                    }
                    return psum(b, "i");
                }, I4, P("i"), P("i")).checkVma(false).collectiveTimeout(limit).apply(SEED)));
        assertTrue(e.getMessage().contains("waited more than 300 ms"), e.getMessage());
    }

    @Test
    void nestedShardMapIsRejected() {
        DeviceFailureException e = assertThrows(DeviceFailureException.class, () -> shardMap(
                b -> shardMap(c -> c, I4, P("i"), P("i")).apply(b).gather(), I4, P("i"), P("i")).checkVma(false)
                .apply(SEED));
        assertInstanceOf(IllegalStateException.class, e.getCause());
    }

    @Test
    void theTraceRecordsCollectivesBytesMatmulsAndAllocations() {
        Tracing.Traced<ShardedArray> t = Tracing.record(() -> shardMap(b -> {
            NDArray m = b.reshape(2, 2).matmul(b.reshape(2, 2));
            return psum(m.reshape(4), "i");
        }, I4, P("i"), P()).apply(SEED.astype(dev.shardlings.array.DType.FLOAT32)));
        Trace trace = t.trace();
        assertEquals(1, trace.shardMaps().size());
        ShardMapTrace sm = trace.shardMaps().get(0);
        assertEquals(4, sm.devices().size());
        for (var d : sm.devices()) {
            List<TraceEvent.CollectiveEvent> cs = d.collectives();
            assertEquals(1, cs.size());
            TraceEvent.CollectiveEvent c = cs.get(0);
            assertEquals(Collective.PSUM, c.kind());
            assertEquals(List.of("i"), c.axes());
            assertEquals(4, c.groupSize());
            assertEquals(2L * 3 * 16 / 4, c.bytesSent()); // all-reduce: 2(n-1)/n of 16 bytes
            assertEquals(16, d.flops()); // 2·2·2·2
            assertTrue(d.largestAllocation() >= 16);
        }
        assertEquals(4 * 16, trace.totalFlops());
    }

    @Test
    void resultsDoNotDependOnThreadTiming() {
        NDArray x = NDArray.fromFloats(new float[]{1e8f, 1f, -1e8f, 1f, 3.5f, -2f, 0.1f, 7f}, 8);
        NDArray first = shardMap(b -> psum(b, "i"), Mesh.makeMesh(new int[]{8}, "i"), P("i"), P()).apply(x).gather();
        for (int r = 0; r < 20; r++) {
            NDArray again = shardMap(b -> psum(b, "i"), Mesh.makeMesh(new int[]{8}, "i"), P("i"), P()).apply(x).gather();
            assertEquals(first, again);
        }
        // ((((((1e8 + 1) - 1e8) + 1) + 3.5) - 2) + 0.1) + 7, summed left to right in float32
        float expected = 0;
        for (float v : x.toFloatArray()) {
            expected += v;
        }
        assertEquals(expected, first.item());
    }

    @Test
    void manyCallersAtOnceShareTheDeviceThreads() throws Exception {
        // The device threads are a shared pool and the calling thread runs device 0: four callers at once must
        // neither mix their devices up nor wait for each other's.
        Mesh mesh = Mesh.makeMesh(new int[]{8}, "i");
        NDArray x = NDArray.arange(8, dev.shardlings.array.DType.FLOAT32);
        var f = shardMap(b -> psum(b.mul(axisIndex("i").astype(dev.shardlings.array.DType.FLOAT32)), "i"), mesh,
                P("i"), P()).checkVma(false);
        java.util.concurrent.ExecutorService callers = java.util.concurrent.Executors.newFixedThreadPool(4);
        try {
            List<java.util.concurrent.Future<Float>> sums = new java.util.ArrayList<>();
            for (int c = 0; c < 4; c++) {
                sums.add(callers.submit(() -> {
                    float last = 0;
                    for (int r = 0; r < 200; r++) {
                        last = f.apply(x).gather().item();
                    }
                    return last;
                }));
            }
            for (var s : sums) {
                assertEquals(140f, s.get(NO_HANG.toSeconds() * 4, java.util.concurrent.TimeUnit.SECONDS)); // Σ i·i, i < 8
            }
        } finally {
            callers.shutdownNow();
        }
    }

    /**
     * A device that ignores the interrupt keeps its caller waiting: the call never returns while a device still runs
     * the function (a device thread that outlived its call would run code no trace covers).
     */
    @Test
    void anInterruptedCallerWaitsForADeviceThatIgnoresTheInterrupt() throws Exception {
        java.util.concurrent.atomic.AtomicBoolean deviceDone = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.atomic.AtomicBoolean doneBeforeThrow = new java.util.concurrent.atomic.AtomicBoolean();
        Thread caller = new Thread(() -> {
            try {
                shardMap(b -> {
                    if (axisIndex("i").intAt() == 1) {
                        long until = System.nanoTime() + 500_000_000L;
                        while (System.nanoTime() < until) {
                            Thread.interrupted(); // ignores every interrupt
                            Thread.onSpinWait();
                        }
                        deviceDone.set(true);
                    }
                    return b;
                }, I4, P("i"), P("i")).apply(SEED);
            } catch (IllegalStateException e) {
                doneBeforeThrow.set(deviceDone.get());
            }
        });
        caller.start();
        Thread.sleep(100);
        caller.interrupt();
        caller.join(NO_HANG.toMillis());
        assertTrue(!caller.isAlive(), "the caller still waits " + NO_HANG + " after the device stopped");
        assertTrue(doneBeforeThrow.get(), "the caller gave up before its device had stopped");
    }

    @Test
    void anInterruptedCallerInterruptsItsDevicesAndThrowsOnceTheyStop() throws Exception {
        java.util.concurrent.atomic.AtomicBoolean deviceInterrupted = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.atomic.AtomicReference<Throwable> thrown = new java.util.concurrent.atomic.AtomicReference<>();
        Thread caller = new Thread(() -> {
            try {
                shardMap(b -> {
                    if (axisIndex("i").intAt() == 1) {
                        try {
                            Thread.sleep(NO_HANG.toMillis() * 2); // longer than the test waits
                        } catch (InterruptedException e) {
                            deviceInterrupted.set(true);
                        }
                    }
                    return b;
                }, I4, P("i"), P("i")).apply(SEED);
            } catch (Throwable t) {
                thrown.set(t);
            }
        });
        caller.start();
        Thread.sleep(300); // usually inside the call by now; an interrupt before it is seen when the caller waits
        caller.interrupt();
        caller.join(NO_HANG.toMillis());
        assertTrue(!caller.isAlive(), "the caller still waits " + NO_HANG + " after its interrupt");
        assertInstanceOf(IllegalStateException.class, thrown.get());
        assertTrue(thrown.get().getMessage().contains("interrupted while waiting for the devices"),
                thrown.get().getMessage());
        long until = System.nanoTime() + NO_HANG.toNanos();
        while (!deviceInterrupted.get() && System.nanoTime() < until) {
            Thread.sleep(10);
        }
        assertTrue(deviceInterrupted.get(), "the sleeping device was not interrupted");
    }
}
