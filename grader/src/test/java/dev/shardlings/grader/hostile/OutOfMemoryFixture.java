package dev.shardlings.grader.hostile;

import dev.shardlings.grader.GradedPart;
import org.junit.jupiter.api.Test;

/** A hostile fixture for IsolatedGradingTest (never run by Surefire: the name does not end in Test). Allocates until the heap is full. */
@GradedPart("0.4")
class OutOfMemoryFixture {
    @Test
    void misbehaves() throws Exception {
        java.util.List<long[]> hoard = new java.util.ArrayList<>();
        while (true) {
            hoard.add(new long[1 << 20]);
        }
    }
}
