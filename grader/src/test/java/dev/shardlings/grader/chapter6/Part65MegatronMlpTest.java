package dev.shardlings.grader.chapter6;

import dev.shardlings.grader.CourseMethod;
import dev.shardlings.grader.GradedPart;
import dev.shardlings.grader.Part;

/** Part 6.5, graded against the implementation chosen by -Dgrade.target (exercises or solutions). */
@GradedPart(Part.P6_5)
class Part65MegatronMlpTest extends Chapter6PartTest {
    @Override
    Chapter6Kind kind() {
        return Chapter6Kind.MEGATRON;
    }

    @Override
    void check(Chapter6Case c) {
        Chapter6Checks.megatronMlp(CourseMethod.C6_MEGATRON_MLP.as(Chapter6Checks.Block.class), c);
    }
}
