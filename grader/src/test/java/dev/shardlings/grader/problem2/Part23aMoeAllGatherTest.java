package dev.shardlings.grader.problem2;

import dev.shardlings.grader.CourseMethod;
import dev.shardlings.grader.GradedPart;

/** Part 2.3a, graded against the implementation chosen by -Dgrade.target (exercises or solutions). */
@GradedPart("2.3a")
class Part23aMoeAllGatherTest extends MoePartTest {
    @Override
    void check(MoeCase c) {
        Problem2Checks.moeAllGather(CourseMethod.MOE_ALL_GATHER.as(Problem2Checks.Sharded.class), c);
    }
}
