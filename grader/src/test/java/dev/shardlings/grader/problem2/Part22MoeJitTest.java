package dev.shardlings.grader.problem2;

import dev.shardlings.grader.CourseMethod;
import dev.shardlings.grader.GradedPart;
import dev.shardlings.grader.Part;

/** Part 2.2, graded against the implementation chosen by -Dgrade.target (exercises or solutions). */
@GradedPart(Part.P2_2)
class Part22MoeJitTest extends MoePartTest {
    @Override
    void check(MoeCase c) {
        Problem2Checks.moeJit(CourseMethod.MOE_JIT.as(Problem2Checks.Sharded.class),
                CourseMethod.MOE_JIT_BYTES_RECEIVED.as(Problem2Checks.BytesReport.class), c);
    }
}
