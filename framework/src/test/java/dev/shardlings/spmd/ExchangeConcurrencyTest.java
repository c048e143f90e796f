package dev.shardlings.spmd;

import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.sharding.Mesh;
import org.junit.jupiter.api.Test;

import static dev.shardlings.sharding.PartitionSpec.P;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The rendezvous without a lock on its common path ({@link Exchange}): posts count themselves in with an atomic,
 * so the checks that used to run atomically with a post now race with the other devices. These pin the races
 * down: a device that finishes the function right after a step completes is not a mismatch (a benchmark hit that
 * false report after some 10⁵ calls on 2 devices), a real one still is, and the shared reduction of a psum on big
 * meshes gives the oracle's values.
 */
class ExchangeConcurrencyTest {

    @Test
    void backToBackCallsNeverReportAFalseMismatch() {
        for (int n : new int[] {2, 3, 4}) {
            Mesh mesh = Mesh.makeMesh(new int[] {n}, "A");
            ShardedArray x = ShardedArray.devicePut(NDArray.arange(n, DType.FLOAT32), mesh, P("A"));
            ShardMap.Unary psum = ShardMap.shardMap(b -> Collectives.psum(b, "A"), mesh, P("A"), P());
            float expected = n * (n - 1) / 2f;
            for (int call = 0; call < 60_000 / n; call++) {
                assertEquals(expected, psum.apply(x).gather().floatAt(0), "call " + call + " on " + n + " devices");
            }
        }
    }

    /**
     * The race itself, held open: device 0 counts itself into step 0, and before it checks for returned devices,
     * device 1 completes the step, leaves the function and reports its return. Device 0 must then simply pass
     * the step (this failed with "device 1 returned from the function after 1 collective(s), but other devices
     * wait in collective #1" before the check looked at how far the returned device had come).
     */
    @Test
    void aDeviceThatFinishesWhileAnotherChecksInIsNoMismatch() throws Exception {
        Mesh mesh = Mesh.makeMesh(new int[] {2}, "A");
        java.util.concurrent.CountDownLatch oneReturned = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch zeroCountedIn = new java.util.concurrent.CountDownLatch(1);
        Exchange exchange = new Exchange(mesh, java.util.concurrent.TimeUnit.SECONDS.toNanos(30)) {
            @Override
            void countedIn(int device, int step) {
                if (device == 0) {
                    zeroCountedIn.countDown();
                    try {
                        oneReturned.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            }
        };
        Exchange.Signature sig = new Exchange.Signature(dev.shardlings.events.Collective.PSUM,
                java.util.List.of("A"), DType.FLOAT32, new int[] {1}, new dev.shardlings.events.CollectiveParams.None());
        java.util.concurrent.atomic.AtomicReference<Throwable> zeroFailed = new java.util.concurrent.atomic.AtomicReference<>();
        Thread zero = new Thread(() -> {
            try {
                exchange.exchange(0, 0, new Exchange.Post(sig, NDArray.zeros(DType.FLOAT32, 1)));
                exchange.returned(0, 1);
            } catch (Throwable t) {
                zeroFailed.set(t);
            }
        });
        zero.start();
        assertTrue(zeroCountedIn.await(30, java.util.concurrent.TimeUnit.SECONDS));
        exchange.exchange(1, 0, new Exchange.Post(sig, NDArray.zeros(DType.FLOAT32, 1)));
        exchange.returned(1, 1);
        oneReturned.countDown();
        zero.join(30_000);
        assertEquals(null, zeroFailed.get(), () -> "device 0 failed: " + zeroFailed.get());
        assertEquals(null, exchange.abortCause());
    }

    @Test
    void aDeviceThatSkipsTheCollectiveIsStillAMismatch() {
        Mesh mesh = Mesh.makeMesh(new int[] {4}, "A");
        ShardedArray x = ShardedArray.devicePut(NDArray.arange(4, DType.FLOAT32), mesh, P("A"));
        ShardMap.Unary skips = ShardMap.shardMap(b -> Collectives.axisIndex("A").intAt() == 2 ? b
                : Collectives.psum(b, "A").add(b.mul(0f)), mesh, P("A"), P("A")).checkVma(false);
        for (int call = 0; call < 200; call++) {
            CollectiveMismatchException e = assertThrows(CollectiveMismatchException.class, () -> skips.apply(x));
            assertTrue(e.getMessage().contains("returned from the function after 0 collective(s)"), e.getMessage());
        }
    }

    @Test
    void psumOnBigMeshesIsTheWholeArraySum() {
        // groups of 256, of 16 (each row of a 16 x 16 mesh) and of 2 (the per-member path): one shared sum per
        // group, copied by its members, must equal the oracle on every device
        Mesh line = Mesh.makeMesh(new int[] {256}, "A");
        NDArray values = NDArray.arange(256 * 3, DType.FLOAT32).mul(0.37f).sin().reshape(256, 3);
        ShardedArray x = ShardedArray.devicePut(values, line, P("A"));
        NDArray total = ShardMap.shardMap(b -> Collectives.psum(b, "A"), line, P("A"), P()).apply(x).gather();
        float[] oracle = new float[3];
        for (int i = 0; i < 256; i++) {
            for (int j = 0; j < 3; j++) {
                oracle[j] += values.floatAt(i, j); // device order, left to right, as psum adds
            }
        }
        for (int j = 0; j < 3; j++) {
            assertEquals(oracle[j], total.floatAt(0, j), "column " + j);
        }

        Mesh grid = Mesh.makeMesh(new int[] {16, 16}, "X", "Y");
        NDArray g = NDArray.arange(32 * 16, DType.FLOAT32).reshape(32, 16);
        ShardedArray gx = ShardedArray.devicePut(g, grid, P("X", "Y"));
        NDArray rows = ShardMap.shardMap(b -> Collectives.psum(b, "Y"), grid, P("X", "Y"), P("X", null))
                .apply(gx).gather(); // [32, 1]: each row summed over its 16 Y blocks
        for (int r = 0; r < 32; r++) {
            float sum = 0;
            for (int c = 0; c < 16; c++) {
                sum += g.floatAt(r, c);
            }
            assertEquals(sum, rows.floatAt(r, 0), "row " + r);
        }

        Mesh pairs = Mesh.makeMesh(new int[] {2, 8}, "X", "Y");
        ShardedArray px = ShardedArray.devicePut(g, pairs, P("X", "Y"));
        NDArray cols = ShardMap.shardMap(b -> Collectives.psum(b, "X"), pairs, P("X", "Y"), P(null, "Y"))
                .apply(px).gather(); // [16, 16]: the two halves of the rows added
        for (int r = 0; r < 16; r++) {
            for (int c = 0; c < 16; c++) {
                assertEquals(g.floatAt(r, c) + g.floatAt(r + 16, c), cols.floatAt(r, c));
            }
        }
    }
}
