package dev.shardlings.grader.problem3;

import dev.shardlings.course.Problem3;
import dev.shardlings.grader.GradedPart;
import dev.shardlings.grader.GradingListener;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestReporter;

/** Part 3.0p: the modelled time of part 3.0 against the reference solution's (see docs/profiles.md). */
@GradedPart("3.0p")
class Part30PerformanceTest {
    @Test
    void modelledTimeWithinTheLimit(TestReporter reporter) {
        reporter.publishEntry(GradingListener.NOTE, Problem3Checks.allGatherMatmulTime(Problem3::allGatherMatmul, Problem3::allGatherMatmulNaive).note());
    }
}
