package dev.shardlings.grader.chapter0;

import dev.shardlings.grader.CourseMethod;
import dev.shardlings.grader.GradedPart;
import dev.shardlings.grader.Part;
import dev.shardlings.grader.MeshSpec;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** Part 0.10, graded against the implementation chosen by -Dgrade.target. */
@GradedPart(Part.P0_10)
class Part10FoldKeyTest {

    static void check(Chapter0Case c) {
        Chapter0Checks.foldKey(CourseMethod.FOLD_KEY_OVER_AXIS.as(Chapter0Checks.FoldKey.class), c);
    }

    @Property(tries = 60, seed = "1010")
    void meshesAndKeys(@ForAll("cases") Chapter0Case c) {
        check(c);
    }

    @Provide
    Arbitrary<Chapter0Case> cases() {
        return Chapter0Case.cases("i", "j");
    }

    /** The tutorial's case: key(0) on a 4 × 2 mesh; rows are JAX's printed keys. */
    @Example
    void tutorialsKeys() {
        check(new Chapter0Case(MeshSpec.of("i", 4, "j", 2), 1, 1, 1, 0, 0));
    }

    @Example
    void axesTheOtherWayRound() {
        check(new Chapter0Case(MeshSpec.of("j", 2, "i", 8), 1, 1, 1, 42, 0));
    }
}
