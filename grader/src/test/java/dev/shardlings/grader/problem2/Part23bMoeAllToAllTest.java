package dev.shardlings.grader.problem2;

import dev.shardlings.grader.CourseMethod;
import dev.shardlings.grader.GradedPart;
import dev.shardlings.grader.Part;

/** Part 2.3b, graded against the implementation chosen by -Dgrade.target (exercises or solutions). */
@GradedPart(Part.P2_3B)
class Part23bMoeAllToAllTest extends MoePartTest {
    @Override
    void check(MoeCase c) {
        Problem2Checks.moeAllToAll(CourseMethod.MOE_ALL_TO_ALL.as(Problem2Checks.Ragged.class), c);
    }
}
