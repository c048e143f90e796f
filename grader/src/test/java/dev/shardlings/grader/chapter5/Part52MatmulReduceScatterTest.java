package dev.shardlings.grader.chapter5;

import dev.shardlings.grader.CourseMethod;
import dev.shardlings.grader.GradedPart;
import dev.shardlings.grader.Part;

/** Part 5.2, graded against the implementation chosen by -Dgrade.target (exercises or solutions). */
@GradedPart(Part.P5_2)
class Part52MatmulReduceScatterTest extends Chapter5PartTest {
    @Override
    void check(Chapter5Case c) {
        Chapter5Checks.matmulReduceScatter(CourseMethod.C5_MATMUL_REDUCE_SCATTER.as(Chapter5Checks.PlacedMatmul.class), c);
    }
}
