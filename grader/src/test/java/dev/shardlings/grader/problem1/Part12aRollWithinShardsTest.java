package dev.shardlings.grader.problem1;

import dev.shardlings.grader.CourseMethod;
import dev.shardlings.grader.GradedPart;
import dev.shardlings.grader.Part;

/** Part 1.2a, graded against the implementation chosen by -Dgrade.target (exercises or solutions). */
@GradedPart(Part.P1_2A)
class Part12aRollWithinShardsTest extends Problem1PartTest {
    @Override
    void check(Problem1Case c) {
        Problem1Checks.rollWithinShards(CourseMethod.ROLL_WITHIN_SHARDS.as(Problem1Checks.RollWithinShards.class), c);
    }
}
