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

/** Part 0.5, graded against the implementation chosen by -Dgrade.target. */
@GradedPart(Part.P0_5)
class Part05SameAxisTest {

    static void check(Chapter0Case c) {
        Chapter0Checks.sameAxis(CourseMethod.MATMUL_SAME_AXIS_GATHER_B.as(Chapter0Checks.Matmul.class), CourseMethod.MATMUL_SAME_AXIS_GATHER_A.as(Chapter0Checks.Matmul.class), c);
    }

    @Property(tries = 60, seed = "1005")
    void meshesShapesAndValues(@ForAll("cases") Chapter0Case c) {
        check(c);
    }

    @Provide
    Arbitrary<Chapter0Case> cases() {
        return Chapter0Case.cases("X");
    }

    @Example
    void fourDevices() {
        check(new Chapter0Case(MeshSpec.of("X", 4), 2, 2, 3, 0, 0));
    }

    @Example
    void oneDevice() {
        check(new Chapter0Case(MeshSpec.of("X", 1), 2, 3, 1, 1, 0));
    }

    @Example
    void sixteenDevicesWithAReplicatedAxis() {
        check(new Chapter0Case(MeshSpec.of("Z", 2, "X", 8), 1, 1, 2, 2, 0));
    }
}
