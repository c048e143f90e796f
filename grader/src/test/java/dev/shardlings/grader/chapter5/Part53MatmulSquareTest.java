package dev.shardlings.grader.chapter5;

import dev.shardlings.grader.CourseMethod;
import dev.shardlings.grader.GradedPart;
import dev.shardlings.grader.Part;

/** Part 5.3, graded against the implementation chosen by -Dgrade.target (exercises or solutions). */
@GradedPart(Part.P5_3)
class Part53MatmulSquareTest extends Chapter5PartTest {
    @Override
    void check(Chapter5Case c) {
        Chapter5Checks.matmulSquare(CourseMethod.C5_MATMUL_SQUARE.as(Chapter5Checks.PlacedMatmul.class), c);
    }
}
