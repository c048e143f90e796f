package dev.shardlings.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * The references the runtime's benchmarks set their calls against: n platform threads meeting at a barrier, n − 1
 * daemon helpers that meet at it in a loop and the benchmark thread, which calls {@link #await()}. Two barriers:
 * <ul>
 *   <li>{@link #cyclic}: the JDK's {@link CyclicBarrier}, whose waiters park (each meeting wakes n − 1 threads
 *       through the kernel);</li>
 *   <li>{@link #yielding}: a counter and a generation, whose waiters only {@link Thread#yield()} until the last
 *       arrival starts the next generation — no lock, no park, no wake-up. This is the floor of any runtime that
 *       gives each device a platform thread of its own on shared cores and waits the way the SPMD runtime does:
 *       each meeting still needs every thread to get a turn on a core.</li>
 * </ul>
 * {@link #close()} stops the helpers and waits for them (up to a second each).
 */
final class BarrierParty implements AutoCloseable {

    /** One kind of meeting of all the parties. */
    private interface Meeting {
        int await() throws InterruptedException, BrokenBarrierException;
    }

    private final Meeting meeting;
    private final List<Thread> helpers = new ArrayList<>();
    private volatile boolean closed;

    /** {@code meeting} makes the barrier from a test of whether the party is closed, for waiters that never park. */
    private BarrierParty(int threads, Function<BooleanSupplier, Meeting> meeting) {
        this.meeting = meeting.apply(() -> closed);
        for (int t = 1; t < threads; t++) {
            Thread h = new Thread(() -> {
                try {
                    while (!closed) {
                        this.meeting.await();
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

    /** {@code threads} parties (one: a barrier nobody else meets) at a {@link CyclicBarrier}. */
    static BarrierParty cyclic(int threads) {
        CyclicBarrier barrier = new CyclicBarrier(threads);
        return new BarrierParty(threads, isClosed -> barrier::await);
    }

    /** {@code threads} parties at a barrier whose waiters yield until the last one arrives (see the class). */
    static BarrierParty yielding(int threads) {
        AtomicInteger arrived = new AtomicInteger();
        AtomicInteger generation = new AtomicInteger();
        return new BarrierParty(threads, isClosed -> () -> {
            int g = generation.get();
            int index = threads - arrived.incrementAndGet();
            if (index == 0) {
                arrived.set(0); // before the generation moves, so no early arrival at the next one is lost
                generation.set(g + 1);
                return 0;
            }
            while (generation.get() == g) {
                if (isClosed.getAsBoolean()) {
                    throw new InterruptedException("closed");
                }
                Thread.yield();
            }
            return index;
        });
    }

    /** One meeting of all the threads; returns the arrival index (0 for the last to arrive). */
    int await() throws InterruptedException, BrokenBarrierException {
        return meeting.await();
    }

    @Override
    public void close() throws InterruptedException {
        closed = true;
        for (Thread h : helpers) {
            h.interrupt();
        }
        for (Thread h : helpers) {
            h.join(1000);
        }
        helpers.clear();
    }
}
