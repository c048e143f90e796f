package dev.shardlings.grader.hostile;

import dev.shardlings.grader.GradedPart;
import org.junit.jupiter.api.Test;

/** A hostile fixture for IsolatedGradingTest (never run by Surefire: the name does not end in Test). Loops forever, ignoring interrupts. */
@GradedPart("0.3")
class EndlessFixture {
    @Test
    void misbehaves() throws Exception {
        long spins = 0;
        while (spins >= 0) {
            spins++;
        }
    }
}
