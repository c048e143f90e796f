package dev.shardlings.grader.problem3;

import dev.shardlings.grader.CourseMethod;
import dev.shardlings.grader.GradedPart;
import dev.shardlings.grader.Part;

/** Part 3.2, graded against the implementation chosen by -Dgrade.target (exercises or solutions). */
@GradedPart(Part.P3_2)
class Part32ReduceScatterMatmulTest extends MatmulPartTest {
    @Override
    protected void check(MatmulCase c) {
        Problem3Checks.reduceScatterMatmul(CourseMethod.P3_REDUCE_SCATTER_MATMUL.binary(), c);
    }
}
