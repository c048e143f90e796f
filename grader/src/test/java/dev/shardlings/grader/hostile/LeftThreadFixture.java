package dev.shardlings.grader.hostile;

import dev.shardlings.grader.GradedPart;
import org.junit.jupiter.api.Test;

/** A hostile fixture for IsolatedGradingTest (never run by Surefire: the name does not end in Test). Starts a thread that never stops, and passes. */
@GradedPart("0.5")
class LeftThreadFixture {
    @Test
    void misbehaves() throws Exception {
        Thread t = new Thread(() -> {
            while (true) {
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException e) {
                    // a student's thread that ignores interrupts
                }
            }
        });
        t.start();
    }
}
