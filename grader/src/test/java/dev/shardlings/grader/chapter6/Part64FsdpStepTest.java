package dev.shardlings.grader.chapter6;

import dev.shardlings.grader.CourseMethod;
import dev.shardlings.grader.GradedPart;
import dev.shardlings.grader.Part;

/** Part 6.4, graded against the implementation chosen by -Dgrade.target (exercises or solutions). */
@GradedPart(Part.P6_4)
class Part64FsdpStepTest extends Chapter6PartTest {
    @Override
    Chapter6Kind kind() {
        return Chapter6Kind.FSDP;
    }

    @Override
    void check(Chapter6Case c) {
        Chapter6Checks.fsdpStep(CourseMethod.C6_FSDP_STEP.as(Chapter6Checks.TrainingStep.class), c);
    }
}
