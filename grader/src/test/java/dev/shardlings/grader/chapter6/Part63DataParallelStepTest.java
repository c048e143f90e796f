package dev.shardlings.grader.chapter6;

import dev.shardlings.grader.CourseMethod;
import dev.shardlings.grader.GradedPart;
import dev.shardlings.grader.Part;

/** Part 6.3, graded against the implementation chosen by -Dgrade.target (exercises or solutions). */
@GradedPart(Part.P6_3)
class Part63DataParallelStepTest extends Chapter6PartTest {
    @Override
    Chapter6Kind kind() {
        return Chapter6Kind.MANUAL_DATA_PARALLEL;
    }

    @Override
    void check(Chapter6Case c) {
        Chapter6Checks.dataParallelStep(CourseMethod.C6_DATA_PARALLEL_STEP.as(Chapter6Checks.TrainingStep.class), c);
    }
}
