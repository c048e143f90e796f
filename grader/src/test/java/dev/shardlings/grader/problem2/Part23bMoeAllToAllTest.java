package dev.shardlings.grader.problem2;

import dev.shardlings.grader.CourseMethod;
import dev.shardlings.grader.GradedPart;

/** Part 2.3b, graded against the implementation chosen by -Dgrade.target (exercises or solutions). */
@GradedPart("2.3b")
class Part23bMoeAllToAllTest extends MoePartTest {
    @Override
    void check(MoeCase c) {
        Problem2Checks.moeAllToAll(CourseMethod.MOE_ALL_TO_ALL.as(Problem2Checks.Ragged.class), c);
    }
}
