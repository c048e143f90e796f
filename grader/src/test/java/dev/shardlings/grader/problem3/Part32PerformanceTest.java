package dev.shardlings.grader.problem3;

import dev.shardlings.grader.CourseMethod;
import dev.shardlings.grader.GradedPart;
import dev.shardlings.grader.Part;
import dev.shardlings.grader.grade.GradingListener;
import dev.shardlings.grader.checks.ModelledTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestReporter;

/**
 * Part 3.2p: the modelled time of part 3.2 against the reference solution's (see docs/profiles.md); when the
 * graded target is solutions/, also that the stored reference time is still exact.
 */
@GradedPart(Part.P3_2P)
class Part32PerformanceTest {
    @Test
    void modelledTimeWithinTheLimit(TestReporter reporter) {
        ModelledTime.Result r = Problem3Checks.reduceScatterMatmulTime(CourseMethod.P3_REDUCE_SCATTER_MATMUL.binary());
        GradingListener.publish(reporter, r);
        ModelledTime.requireFresh(Part.P3_2P, Problem3Checks.SETTING, r);
    }
}
