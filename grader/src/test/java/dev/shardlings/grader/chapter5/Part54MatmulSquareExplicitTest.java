package dev.shardlings.grader.chapter5;

import dev.shardlings.grader.CourseMethod;
import dev.shardlings.grader.GradedPart;
import dev.shardlings.grader.Part;

/** Part 5.4, graded against the implementation chosen by -Dgrade.target (exercises or solutions). */
@GradedPart(Part.P5_4)
class Part54MatmulSquareExplicitTest extends Chapter5PartTest {
    @Override
    void check(Chapter5Case c) {
        Chapter5Checks.matmulSquareExplicit(CourseMethod.C5_MATMUL_SQUARE_EXPLICIT.as(Chapter5Checks.PlacedMatmul.class), c);
    }
}
