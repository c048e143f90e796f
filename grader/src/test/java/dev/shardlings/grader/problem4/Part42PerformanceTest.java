package dev.shardlings.grader.problem4;

import dev.shardlings.course.Problem4;
import dev.shardlings.grader.GradedPart;
import dev.shardlings.grader.GradingListener;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestReporter;

/** Part 4.2p: the modelled time of part 4.2 against the reference solution's (see docs/profiles.md). */
@GradedPart("4.2p")
class Part42PerformanceTest {
    @Test
    void modelledTimeWithinTheLimit(TestReporter reporter) {
        reporter.publishEntry(GradingListener.NOTE, Problem4Checks.reduceScatterMatmulTime(Problem4::reduceScatterMatmul).note());
    }
}
