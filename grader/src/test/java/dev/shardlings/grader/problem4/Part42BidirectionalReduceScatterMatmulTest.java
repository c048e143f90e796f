package dev.shardlings.grader.problem4;

import dev.shardlings.grader.CourseMethod;
import dev.shardlings.grader.GradedPart;
import dev.shardlings.grader.Part;
import dev.shardlings.grader.problem3.MatmulCase;
import dev.shardlings.grader.problem3.MatmulPartTest;

/** Part 4.2, graded against the implementation chosen by -Dgrade.target (exercises or solutions). */
@GradedPart(Part.P4_2)
class Part42BidirectionalReduceScatterMatmulTest extends MatmulPartTest {
    @Override
    protected void check(MatmulCase c) {
        Problem4Checks.reduceScatterMatmul(CourseMethod.P4_REDUCE_SCATTER_MATMUL.binary(), c);
    }
}
