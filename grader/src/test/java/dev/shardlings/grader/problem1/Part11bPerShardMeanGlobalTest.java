package dev.shardlings.grader.problem1;

import dev.shardlings.grader.CourseMethod;
import dev.shardlings.grader.GradedPart;
import dev.shardlings.grader.Part;

/** Part 1.1b, graded against the implementation chosen by -Dgrade.target (exercises or solutions). */
@GradedPart(Part.P1_1B)
class Part11bPerShardMeanGlobalTest extends Problem1PartTest {
    @Override
    void check(Problem1Case c) {
        Problem1Checks.perShardMeanGlobal(CourseMethod.PER_SHARD_MEAN_GLOBAL.as(Problem1Checks.PerShardMeanGlobal.class), c);
    }
}
