package dev.shardlings.grader.problem4;

import dev.shardlings.grader.CourseMethod;
import dev.shardlings.grader.GradedPart;
import dev.shardlings.grader.Part;
import dev.shardlings.grader.grade.GradingListener;
import dev.shardlings.grader.checks.ModelledTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestReporter;

/**
 * Part 4.1p: the modelled time of part 4.1 against the reference solution's (see docs/profiles.md); when the
 * graded target is solutions/, also that the stored reference time is still exact.
 */
@GradedPart(Part.P4_1P)
class Part41PerformanceTest {
    @Test
    void modelledTimeWithinTheLimit(TestReporter reporter) {
        ModelledTime.Result r = Problem4Checks.allReduceMatmulTime(CourseMethod.P4_ALL_REDUCE_MATMUL.binary());
        GradingListener.publish(reporter, r);
        ModelledTime.requireFresh(Part.P4_1P, Problem4Checks.SETTING, r);
    }
}
