package dev.shardlings.grader.hostile;

import dev.shardlings.grader.GradedPart;
import org.junit.jupiter.api.Test;

/** A hostile fixture for IsolatedGradingTest (never run by Surefire: the name does not end in Test). Calls Runtime.halt. */
@GradedPart("0.2")
class HaltFixture {
    @Test
    void misbehaves() throws Exception {
        Runtime.getRuntime().halt(4);
    }
}
