package dev.shardlings.grader.chapter6;

import dev.shardlings.grader.CourseMethod;
import dev.shardlings.grader.GradedPart;
import dev.shardlings.grader.Part;

/** Part 6.2, graded against the implementation chosen by -Dgrade.target (exercises or solutions). */
@GradedPart(Part.P6_2)
class Part62TrainDataTensorParallelTest extends Chapter6PartTest {
    @Override
    Chapter6Kind kind() {
        return Chapter6Kind.DATA_TENSOR_PARALLEL;
    }

    @Override
    void check(Chapter6Case c) {
        Chapter6Checks.trainDataTensorParallel(CourseMethod.C6_TRAIN_DATA_TENSOR_PARALLEL.as(Chapter6Checks.Train.class), c);
    }
}
