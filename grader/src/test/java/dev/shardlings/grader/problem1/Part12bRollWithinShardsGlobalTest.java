package dev.shardlings.grader.problem1;

import dev.shardlings.course.Problem1;
import dev.shardlings.grader.GradedPart;

/** Part 1.2b, graded against the implementation chosen by -Dgrade.target (exercises or solutions). */
@GradedPart("1.2b")
class Part12bRollWithinShardsGlobalTest extends Problem1PartTest {
    @Override
    void check(Problem1Case c) {
        Problem1Checks.rollWithinShardsGlobal(Problem1::rollWithinShardsGlobal, c);
    }
}
