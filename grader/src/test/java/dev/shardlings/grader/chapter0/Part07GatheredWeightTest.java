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

/** Part 0.7, graded against the implementation chosen by -Dgrade.target. */
@GradedPart(Part.P0_7)
class Part07GatheredWeightTest {

    static void check(Chapter0Case c) {
        Chapter0Checks.gatheredWeight(CourseMethod.MATMUL_WITH_GATHERED_WEIGHT.as(Chapter0Checks.Matmul.class), c);
    }

    @Property(tries = 60, seed = "1007")
    void meshesShapesAndValues(@ForAll("cases") Chapter0Case c) {
        check(c);
    }

    @Provide
    Arbitrary<Chapter0Case> cases() {
        return Chapter0Case.cases("i");
    }

    /** The tutorial's mesh: 8 devices along i. */
    @Example
    void eightDevices() {
        check(new Chapter0Case(MeshSpec.of("i", 8), 2, 2, 3, 0, 1));
    }

    @Example
    void oneDevice() {
        check(new Chapter0Case(MeshSpec.of("i", 1), 2, 2, 1, 1, 3));
    }

    @Example
    void downTheRingAndFurtherThanOnce() {
        check(new Chapter0Case(MeshSpec.of("i", 4, "Z", 2), 1, 2, 1, 2, -6));
    }
}
