package dev.shardlings.spmd;

import org.junit.jupiter.api.Test;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Interrupts reach the task they are meant for and no other: a shardMap whose caller was interrupted interrupts
 * its devices, and a device thread that has meanwhile finished that task and taken a later call's must not see it
 * (that call would fail with "a device thread was interrupted while waiting").
 */
class DeviceThreadsTest {

    @Test
    void aRunningTaskIsInterrupted() throws Exception {
        CountDownLatch interrupted = new CountDownLatch(1);
        CountDownLatch started = new CountDownLatch(1);
        Runnable[] task = new Runnable[1];
        task[0] = () -> {
            started.countDown();
            try {
                Thread.sleep(TimeUnit.MINUTES.toMillis(1));
            } catch (InterruptedException e) {
                interrupted.countDown();
            }
        };
        Thread t = DeviceThreads.start(task[0]);
        assertTrue(started.await(30, TimeUnit.SECONDS));
        DeviceThreads.interrupt(t, task[0]);
        assertTrue(interrupted.await(30, TimeUnit.SECONDS), "the running task was not interrupted");
    }

    @Test
    void anInterruptForAFinishedTaskIsNotDelivered() throws Exception {
        CountDownLatch done = new CountDownLatch(1);
        Runnable first = done::countDown;
        Thread t = DeviceThreads.start(first);
        assertTrue(done.await(30, TimeUnit.SECONDS));
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (t.getState() == Thread.State.RUNNABLE && System.nanoTime() < until) {
            Thread.sleep(1); // until the thread has finished the task and waits for the next
        }
        DeviceThreads.interrupt(t, first);
        assertFalse(t.isInterrupted(), "an interrupt for a finished task reached its thread");
    }
}
