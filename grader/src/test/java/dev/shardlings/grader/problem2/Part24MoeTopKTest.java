package dev.shardlings.grader.problem2;

import dev.shardlings.grader.CourseMethod;
import dev.shardlings.grader.GradedPart;
import dev.shardlings.grader.Part;

/** Part 2.4, graded against the implementation chosen by -Dgrade.target (exercises or solutions). */
@GradedPart(Part.P2_4)
class Part24MoeTopKTest extends MoePartTest {
    @Override
    void check(MoeCase c) {
        Problem2Checks.topK(CourseMethod.MOE_TOP_K_LOCAL.as(Problem2Checks.Local.class), CourseMethod.MOE_TOP_K_ALL_TO_ALL.as(Problem2Checks.Ragged.class), c);
    }

    @Override
    boolean topK() {
        return true;
    }
}
