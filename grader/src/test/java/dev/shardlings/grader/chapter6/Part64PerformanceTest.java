package dev.shardlings.grader.chapter6;

import dev.shardlings.grader.CourseMethod;
import dev.shardlings.grader.GradedPart;
import dev.shardlings.grader.grade.GradingListener;
import dev.shardlings.grader.checks.ModelledTime;
import dev.shardlings.grader.Part;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestReporter;

/**
 * Part 6.4p: the modelled time of part 6.4 against the reference solution's (see docs/chapter-6.md);
 * when the graded target is solutions/, also that the stored reference time is still exact.
 */
@GradedPart(Part.P6_4P)
class Part64PerformanceTest {
    @Test
    void modelledTimeWithinTheLimit(TestReporter reporter) {
        ModelledTime.Result r = Chapter6Checks.fsdpStepTime(CourseMethod.C6_FSDP_STEP.as(Chapter6Checks.TrainingStep.class));
        GradingListener.publish(reporter, r);
        ModelledTime.requireFresh(Part.P6_4P, Chapter6Checks.SETTING_64, r);
    }
}
