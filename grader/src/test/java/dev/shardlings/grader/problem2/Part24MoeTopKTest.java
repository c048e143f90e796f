package dev.shardlings.grader.problem2;

import dev.shardlings.course.Problem2;
import dev.shardlings.grader.GradedPart;

/** Part 2.4, graded against the implementation chosen by -Dgrade.target (exercises or solutions). */
@GradedPart("2.4")
class Part24MoeTopKTest extends MoePartTest {
    @Override
    void check(MoeCase c) {
        Problem2Checks.topK(Problem2::moeTopKLocal, Problem2::moeTopKAllToAll, c);
    }

    @Override
    boolean topK() {
        return true;
    }
}
