package dev.shardlings.grader.problem3;

import dev.shardlings.course.Problem3;
import dev.shardlings.grader.GradedPart;

/** Part 3.2, graded against the implementation chosen by -Dgrade.target (exercises or solutions). */
@GradedPart("3.2")
class Part32ReduceScatterMatmulTest extends MatmulPartTest {
    @Override
    protected void check(MatmulCase c) {
        Problem3Checks.reduceScatterMatmul(Problem3::reduceScatterMatmul, c);
    }
}
