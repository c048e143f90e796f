package dev.shardlings.grader.hostile;

import dev.shardlings.grader.GradedPart;
import org.junit.jupiter.api.Test;

/** A hostile fixture for IsolatedGradingTest (never run by Surefire: the name does not end in Test). Fails with an exception. */
@GradedPart("0.7")
class ThrowFixture {
    @Test
    void misbehaves() throws Exception {
        throw new IllegalStateException("a student's bug");
    }
}
