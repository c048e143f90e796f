package dev.shardlings.grader.problem2;

import dev.shardlings.grader.CourseMethod;
import dev.shardlings.grader.GradedPart;
import dev.shardlings.grader.Part;

/** Part 2.3a, graded against the implementation chosen by -Dgrade.target (exercises or solutions). */
@GradedPart(Part.P2_3A)
class Part23aMoeAllGatherTest extends MoePartTest {
    @Override
    void check(MoeCase c) {
        Problem2Checks.moeAllGather(CourseMethod.MOE_ALL_GATHER.as(Problem2Checks.Sharded.class), c);
    }
}
