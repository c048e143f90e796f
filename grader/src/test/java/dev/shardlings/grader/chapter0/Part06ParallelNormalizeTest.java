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

/** Part 0.6, graded against the implementation chosen by -Dgrade.target. */
@GradedPart(Part.P0_6)
class Part06ParallelNormalizeTest {

    static void check(Chapter0Case c) {
        Chapter0Checks.normalize(CourseMethod.PARALLEL_NORMALIZE.unary(), c);
    }

    @Property(tries = 60, seed = "1006")
    void meshesShapesAndValues(@ForAll("cases") Chapter0Case c) {
        check(c);
    }

    @Provide
    Arbitrary<Chapter0Case> cases() {
        return Chapter0Case.cases("i", "j");
    }

    /** The tutorial's mesh: 4 × 2 devices named i and j. */
    @Example
    void tutorialsMesh() {
        check(new Chapter0Case(MeshSpec.of("i", 4, "j", 2), 2, 3, 2, 0, 1));
    }

    @Example
    void oneDevice() {
        check(new Chapter0Case(MeshSpec.of("i", 1, "j", 1), 2, 2, 1, 1, 0));
    }

    @Example
    void sixteenDevices() {
        check(new Chapter0Case(MeshSpec.of("j", 4, "i", 4), 1, 2, 2, 2, -5));
    }
}
