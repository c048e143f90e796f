package dev.shardlings.grader.problem3;

import dev.shardlings.course.Problem3;
import dev.shardlings.grader.GradedPart;

/** Part 3.1, graded against the implementation chosen by -Dgrade.target (exercises or solutions). */
@GradedPart("3.1")
class Part31AllReduceMatmulTest extends MatmulPartTest {
    @Override
    protected void check(MatmulCase c) {
        Problem3Checks.allReduceMatmul(Problem3::allReduceMatmul, c);
    }
}
