package dev.shardlings.grader.chapter6;

import dev.shardlings.grader.CourseMethod;
import dev.shardlings.grader.GradedPart;
import dev.shardlings.grader.grade.GradingListener;
import dev.shardlings.grader.checks.ModelledTime;
import dev.shardlings.grader.Part;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestReporter;

/**
 * Part 6.5p: the modelled time of part 6.5 against the reference solution's (see docs/chapter-6.md);
 * when the graded target is solutions/, also that the stored reference time is still exact.
 */
@GradedPart(Part.P6_5P)
class Part65PerformanceTest {
    @Test
    void modelledTimeWithinTheLimit(TestReporter reporter) {
        ModelledTime.Result r = Chapter6Checks.megatronMlpTime(CourseMethod.C6_MEGATRON_MLP.as(Chapter6Checks.Block.class));
        GradingListener.publish(reporter, r);
        ModelledTime.requireFresh(Part.P6_5P, Chapter6Checks.SETTING_65, r);
    }
}
