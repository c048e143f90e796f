package dev.shardlings.grader.problem1;

import dev.shardlings.grader.CourseMethod;
import dev.shardlings.grader.GradedPart;
import dev.shardlings.grader.Part;

/** Part 1.1a, graded against the implementation chosen by -Dgrade.target (exercises or solutions). */
@GradedPart(Part.P1_1A)
class Part11aPerShardMeanTest extends Problem1PartTest {
    @Override
    void check(Problem1Case c) {
        Problem1Checks.perShardMean(CourseMethod.PER_SHARD_MEAN.as(Problem1Checks.PerShardMean.class), c);
    }
}
