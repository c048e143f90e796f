package dev.shardlings.grader.hostile;

import dev.shardlings.grader.GradedPart;
import org.junit.jupiter.api.Test;

/** A hostile fixture for IsolatedGradingTest (never run by Surefire: the name does not end in Test). Calls System.exit. */
@GradedPart("0.1")
class ExitFixture {
    @Test
    void misbehaves() throws Exception {
        System.exit(3);
    }
}
