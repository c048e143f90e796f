package dev.shardlings.grader.problem1;

import dev.shardlings.course.Problem1;
import dev.shardlings.grader.GradedPart;

/** Part 1.2a, graded against the implementation chosen by -Dgrade.target (exercises or solutions). */
@GradedPart("1.2a")
class Part12aRollWithinShardsTest extends Problem1PartTest {
    @Override
    void check(Problem1Case c) {
        Problem1Checks.rollWithinShards(Problem1::rollWithinShards, c);
    }
}
