package dev.shardlings.grader.problem4;

import dev.shardlings.grader.CourseMethod;
import dev.shardlings.grader.GradedPart;
import dev.shardlings.grader.Part;
import dev.shardlings.grader.problem3.MatmulCase;
import dev.shardlings.grader.problem3.MatmulPartTest;

/** Part 4.1, graded against the implementation chosen by -Dgrade.target (exercises or solutions). */
@GradedPart(Part.P4_1)
class Part41BidirectionalAllReduceMatmulTest extends MatmulPartTest {
    @Override
    protected void check(MatmulCase c) {
        Problem4Checks.allReduceMatmul(CourseMethod.P4_ALL_REDUCE_MATMUL.binary(), c);
    }
}
