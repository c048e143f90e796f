package dev.shardlings.grader.problem3;

import dev.shardlings.course.Problem3;
import dev.shardlings.grader.GradedPart;

/** Part 3.3, graded against the implementation chosen by -Dgrade.target (exercises or solutions). */
@GradedPart("3.3")
class Part33TransformerBlockTest extends MatmulPartTest {
    @Override
    protected void check(MatmulCase c) {
        Problem3Checks.transformerBlock(Problem3::transformerBlock, Problem3::transformerBlockNaive, c);
    }
}
