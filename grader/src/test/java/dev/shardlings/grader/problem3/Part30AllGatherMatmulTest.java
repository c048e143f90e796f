package dev.shardlings.grader.problem3;

import dev.shardlings.course.Problem3;
import dev.shardlings.grader.GradedPart;

/** Part 3.0, graded against the implementation chosen by -Dgrade.target (exercises or solutions). */
@GradedPart("3.0")
class Part30AllGatherMatmulTest extends MatmulPartTest {
    @Override
    protected void check(MatmulCase c) {
        Problem3Checks.allGatherMatmul(Problem3::allGatherMatmul, Problem3::allGatherMatmulNaive, c);
    }
}
