package dev.shardlings.grader.problem3;

import dev.shardlings.grader.CourseMethod;
import dev.shardlings.grader.GradedPart;
import dev.shardlings.grader.Part;
import dev.shardlings.grader.grade.GradingListener;
import dev.shardlings.grader.checks.ModelledTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestReporter;

/**
 * Part 3.3p: the modelled time of part 3.3 against the reference solution's (see docs/profiles.md); when the
 * graded target is solutions/, also that the stored reference time is still exact.
 */
@GradedPart(Part.P3_3P)
class Part33PerformanceTest {
    @Test
    void modelledTimeWithinTheLimit(TestReporter reporter) {
        ModelledTime.Result r = Problem3Checks.transformerBlockTime(CourseMethod.TRANSFORMER_BLOCK.as(Problem3Checks.Block.class), CourseMethod.TRANSFORMER_BLOCK_NAIVE.as(Problem3Checks.Block.class));
        GradingListener.publish(reporter, r);
        ModelledTime.requireFresh(Part.P3_3P, Problem3Checks.SETTING, r);
    }
}
