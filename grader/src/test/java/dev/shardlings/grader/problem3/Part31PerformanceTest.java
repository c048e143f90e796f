package dev.shardlings.grader.problem3;

import dev.shardlings.grader.CourseMethod;
import dev.shardlings.grader.GradedPart;
import dev.shardlings.grader.Part;
import dev.shardlings.grader.grade.GradingListener;
import dev.shardlings.grader.checks.ModelledTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestReporter;

/**
 * Part 3.1p: the modelled time of part 3.1 against the reference solution's (see docs/profiles.md); when the
 * graded target is solutions/, also that the stored reference time is still exact.
 */
@GradedPart(Part.P3_1P)
class Part31PerformanceTest {
    @Test
    void modelledTimeWithinTheLimit(TestReporter reporter) {
        ModelledTime.Result r = Problem3Checks.allReduceMatmulTime(CourseMethod.P3_ALL_REDUCE_MATMUL.as(Problem3Checks.Tiled.class));
        GradingListener.publish(reporter, r);
        ModelledTime.requireFresh(Part.P3_1P, Problem3Checks.SETTING, r);
    }
}
