package dev.shardlings.grader.problem3;

import dev.shardlings.grader.CourseMethod;
import dev.shardlings.grader.GradedPart;
import dev.shardlings.grader.Part;
import dev.shardlings.grader.grade.GradingListener;
import dev.shardlings.grader.checks.ModelledTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestReporter;

/**
 * Part 3.0p: the modelled time of part 3.0 against the reference solution's (see docs/profiles.md); when the
 * graded target is solutions/, also that the stored reference time is still exact.
 */
@GradedPart(Part.P3_0P)
class Part30PerformanceTest {
    @Test
    void modelledTimeWithinTheLimit(TestReporter reporter) {
        ModelledTime.Result r = Problem3Checks.allGatherMatmulTime(CourseMethod.P3_ALL_GATHER_MATMUL.binary(), CourseMethod.P3_ALL_GATHER_MATMUL_NAIVE.binary());
        GradingListener.publish(reporter, r);
        ModelledTime.requireFresh(Part.P3_0P, Problem3Checks.SETTING, r);
    }
}
