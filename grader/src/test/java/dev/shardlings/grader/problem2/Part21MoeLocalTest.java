package dev.shardlings.grader.problem2;

import dev.shardlings.grader.CourseMethod;
import dev.shardlings.grader.GradedPart;
import dev.shardlings.grader.Part;

/** Part 2.1, graded against the implementation chosen by -Dgrade.target (exercises or solutions). */
@GradedPart(Part.P2_1)
class Part21MoeLocalTest extends MoePartTest {
    @Override
    void check(MoeCase c) {
        Problem2Checks.moeLocal(CourseMethod.MOE_LOCAL.as(Problem2Checks.Local.class), c);
    }
}
