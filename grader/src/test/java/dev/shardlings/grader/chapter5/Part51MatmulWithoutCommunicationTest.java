package dev.shardlings.grader.chapter5;

import dev.shardlings.grader.CourseMethod;
import dev.shardlings.grader.GradedPart;
import dev.shardlings.grader.Part;

/** Part 5.1, graded against the implementation chosen by -Dgrade.target (exercises or solutions). */
@GradedPart(Part.P5_1)
class Part51MatmulWithoutCommunicationTest extends Chapter5PartTest {
    @Override
    void check(Chapter5Case c) {
        Chapter5Checks.matmulWithoutCommunication(CourseMethod.C5_MATMUL_WITHOUT_COMMUNICATION.as(Chapter5Checks.MatmulWithoutCommunication.class), c);
    }
}
