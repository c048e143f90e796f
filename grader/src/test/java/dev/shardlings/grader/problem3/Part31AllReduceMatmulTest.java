package dev.shardlings.grader.problem3;

import dev.shardlings.grader.CourseMethod;
import dev.shardlings.grader.GradedPart;
import dev.shardlings.grader.Part;

/** Part 3.1, graded against the implementation chosen by -Dgrade.target (exercises or solutions). */
@GradedPart(Part.P3_1)
class Part31AllReduceMatmulTest extends MatmulPartTest {
    @Override
    protected void check(MatmulCase c) {
        Problem3Checks.allReduceMatmul(CourseMethod.P3_ALL_REDUCE_MATMUL.as(Problem3Checks.Tiled.class), c);
    }
}
