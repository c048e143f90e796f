package dev.shardlings.grader.problem3;

import dev.shardlings.course.Problem3;
import dev.shardlings.grader.GradedPart;
import dev.shardlings.grader.GradingListener;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestReporter;

/** Part 3.2p: the modelled time of part 3.2 against the reference solution's (see docs/profiles.md). */
@GradedPart("3.2p")
class Part32PerformanceTest {
    @Test
    void modelledTimeWithinTheLimit(TestReporter reporter) {
        reporter.publishEntry(GradingListener.NOTE, Problem3Checks.reduceScatterMatmulTime(Problem3::reduceScatterMatmul).note());
    }
}
