package dev.shardlings.grader.problem3;

import dev.shardlings.grader.CourseMethod;
import dev.shardlings.grader.GradedPart;
import dev.shardlings.grader.Part;

/** Part 3.3, graded against the implementation chosen by -Dgrade.target (exercises or solutions). */
@GradedPart(Part.P3_3)
class Part33TransformerBlockTest extends MatmulPartTest {
    @Override
    protected void check(MatmulCase c) {
        Problem3Checks.transformerBlock(CourseMethod.TRANSFORMER_BLOCK.as(Problem3Checks.Block.class), CourseMethod.TRANSFORMER_BLOCK_NAIVE.as(Problem3Checks.Block.class), c);
    }
}
