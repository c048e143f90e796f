package dev.shardlings.grader.problem3;

import dev.shardlings.grader.CourseMethod;
import dev.shardlings.grader.GradedPart;
import dev.shardlings.grader.Part;

/** Part 3.0, graded against the implementation chosen by -Dgrade.target (exercises or solutions). */
@GradedPart(Part.P3_0)
class Part30AllGatherMatmulTest extends MatmulPartTest {
    @Override
    protected void check(MatmulCase c) {
        Problem3Checks.allGatherMatmul(CourseMethod.P3_ALL_GATHER_MATMUL.binary(), CourseMethod.P3_ALL_GATHER_MATMUL_NAIVE.binary(), c);
    }
}
