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

/** Part 0.9, graded against the implementation chosen by -Dgrade.target. */
@GradedPart(Part.P0_9)
class Part09SliceAndAverageTest {

    static void check(Chapter0Case c) {
        Chapter0Checks.sliceAndAverage(CourseMethod.SLICE_AND_AVERAGE.unary(), c);
    }

    @Property(tries = 60, seed = "1009")
    void meshesShapesAndValues(@ForAll("cases") Chapter0Case c) {
        check(c);
    }

    @Provide
    Arbitrary<Chapter0Case> cases() {
        return Chapter0Case.cases("x", "y");
    }

    /** The book's mesh: 2 × 4 devices named x and y. */
    @Example
    void booksMesh() {
        check(new Chapter0Case(MeshSpec.of("x", 2, "y", 4), 3, 1, 1, 0, 0));
    }

    @Example
    void oneDevice() {
        check(new Chapter0Case(MeshSpec.of("x", 1, "y", 1), 1, 1, 1, 1, 0));
    }
}
