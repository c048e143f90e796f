package dev.shardlings.grader.problem1;

import dev.shardlings.grader.CourseMethod;
import dev.shardlings.grader.GradedPart;
import dev.shardlings.grader.Part;

/** Part 1.2b, graded against the implementation chosen by -Dgrade.target (exercises or solutions). */
@GradedPart(Part.P1_2B)
class Part12bRollWithinShardsGlobalTest extends Problem1PartTest {
    @Override
    void check(Problem1Case c) {
        Problem1Checks.rollWithinShardsGlobal(CourseMethod.ROLL_WITHIN_SHARDS_GLOBAL.as(Problem1Checks.RollWithinShardsGlobal.class), c);
    }
}
