package dev.shardlings.grader.chapter6;

import dev.shardlings.grader.CourseMethod;
import dev.shardlings.grader.GradedPart;
import dev.shardlings.grader.grade.GradingListener;
import dev.shardlings.grader.checks.ModelledTime;
import dev.shardlings.grader.Part;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestReporter;

/**
 * Part 6.2p: the modelled time of part 6.2 against the reference solution's (see docs/chapter-6.md);
 * when the graded target is solutions/, also that the stored reference time is still exact.
 */
@GradedPart(Part.P6_2P)
class Part62PerformanceTest {
    @Test
    void modelledTimeWithinTheLimit(TestReporter reporter) {
        ModelledTime.Result r = Chapter6Checks.trainDataTensorParallelTime(CourseMethod.C6_TRAIN_DATA_TENSOR_PARALLEL.as(Chapter6Checks.Train.class));
        GradingListener.publish(reporter, r);
        ModelledTime.requireFresh(Part.P6_2P, Chapter6Checks.SETTING_62, r);
    }
}
