package dev.shardlings.grader.problem4;

import dev.shardlings.course.Problem4;
import dev.shardlings.grader.GradedPart;
import dev.shardlings.grader.GradingListener;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestReporter;

/** Part 4.1p: the modelled time of part 4.1 against the reference solution's (see docs/profiles.md). */
@GradedPart("4.1p")
class Part41PerformanceTest {
    @Test
    void modelledTimeWithinTheLimit(TestReporter reporter) {
        reporter.publishEntry(GradingListener.NOTE, Problem4Checks.allReduceMatmulTime(Problem4::allReduceMatmul).note());
    }
}
