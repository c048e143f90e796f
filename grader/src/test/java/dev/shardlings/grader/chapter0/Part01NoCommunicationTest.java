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

/** Part 0.1, graded against the implementation chosen by -Dgrade.target. */
@GradedPart(Part.P0_1)
class Part01NoCommunicationTest {

    static void check(Chapter0Case c) {
        Chapter0Checks.noCommunication(CourseMethod.MATMUL_NO_COMMUNICATION.as(Chapter0Checks.Matmul.class), c);
    }

    @Property(tries = 60, seed = "1001")
    void meshesShapesAndValues(@ForAll("cases") Chapter0Case c) {
        check(c);
    }

    @Provide
    Arbitrary<Chapter0Case> cases() {
        return Chapter0Case.cases("X", "Y");
    }

    /** 4 × 4 matrices on a 2 × 2 mesh, the size of the tutorial's example. */
    @Example
    void fourByFourOnTwoByTwo() {
        check(new Chapter0Case(MeshSpec.of("X", 2, "Y", 2), 2, 4, 2, 0, 0));
    }

    @Example
    void oneDevice() {
        check(new Chapter0Case(MeshSpec.of("X", 1, "Y", 1), 2, 3, 1, 1, 0));
    }

    @Example
    void sixteenDevicesWithAReplicatedAxis() {
        check(new Chapter0Case(MeshSpec.of("Z", 2, "X", 8, "Y", 1), 1, 1, 2, 2, 0));
    }
}
