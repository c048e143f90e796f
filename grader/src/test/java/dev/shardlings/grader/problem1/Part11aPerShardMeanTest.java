package dev.shardlings.grader.problem1;

import dev.shardlings.course.Problem1;
import dev.shardlings.grader.GradedPart;

/** Part 1.1a, graded against the implementation chosen by -Dgrade.target (exercises or solutions). */
@GradedPart("1.1a")
class Part11aPerShardMeanTest extends Problem1PartTest {
    @Override
    void check(Problem1Case c) {
        Problem1Checks.perShardMean(Problem1::perShardMean, c);
    }
}
