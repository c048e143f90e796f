package dev.shardlings.grader.problem2;

import dev.shardlings.course.Problem2;
import dev.shardlings.grader.GradedPart;

/** Part 2.3b, graded against the implementation chosen by -Dgrade.target (exercises or solutions). */
@GradedPart("2.3b")
class Part23bMoeAllToAllTest extends MoePartTest {
    @Override
    void check(MoeCase c) {
        Problem2Checks.moeAllToAll(Problem2::moeAllToAll, c);
    }
}
