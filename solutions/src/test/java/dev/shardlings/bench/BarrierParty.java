package dev.shardlings.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;

/**
 * The reference the runtime's benchmarks set their calls against: n platform threads meeting at a
 * {@link CyclicBarrier}, n − 1 daemon helpers that wait at it in a loop and the benchmark thread, which calls
 * {@link #await()}. {@link #close()} interrupts the helpers and waits for them (up to a second each).
 */
final class BarrierParty implements AutoCloseable {

    private final CyclicBarrier barrier;
    private final List<Thread> helpers = new ArrayList<>();

    /** Starts the n − 1 helpers of a barrier of {@code threads} parties (one: a barrier nobody else meets). */
    BarrierParty(int threads) {
        barrier = new CyclicBarrier(threads);
        for (int t = 1; t < threads; t++) {
            Thread h = new Thread(() -> {
                try {
                    while (true) {
                        barrier.await();
                    }
                } catch (InterruptedException | BrokenBarrierException e) {
                    // torn down
                }
            }, "barrier-helper-" + t);
            h.setDaemon(true);
            h.start();
            helpers.add(h);
        }
    }

    /** One meeting of all the threads; returns the barrier's arrival index. */
    int await() throws InterruptedException, BrokenBarrierException {
        return barrier.await();
    }

    @Override
    public void close() throws InterruptedException {
        for (Thread h : helpers) {
            h.interrupt();
        }
        for (Thread h : helpers) {
            h.join(1000);
        }
        helpers.clear();
    }
}
