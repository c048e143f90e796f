package dev.shardlings.grader.problem4;

import dev.shardlings.grader.CourseMethod;
import dev.shardlings.grader.GradedPart;
import dev.shardlings.grader.Part;
import dev.shardlings.grader.problem3.MatmulCase;
import dev.shardlings.grader.problem3.MatmulPartTest;

/** Part 4.0, graded against the implementation chosen by -Dgrade.target (exercises or solutions). */
@GradedPart(Part.P4_0)
class Part40BidirectionalAllGatherMatmulTest extends MatmulPartTest {
    @Override
    protected void check(MatmulCase c) {
        Problem4Checks.allGatherMatmul(CourseMethod.P4_ALL_GATHER_MATMUL.binary(), c);
    }
}
