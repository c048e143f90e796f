package dev.shardlings.grader.hostile;

import dev.shardlings.grader.GradedPart;
import org.junit.jupiter.api.Test;

/** A hostile fixture for IsolatedGradingTest (never run by Surefire: the name does not end in Test). Passes (graded in a fresh JVM after the ones above). */
@GradedPart("0.6")
class PassFixture {
    @Test
    void misbehaves() throws Exception {
        org.junit.jupiter.api.Assertions.assertEquals(4, 2 + 2);
    }
}
