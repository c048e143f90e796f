package dev.shardlings.grader.chapter5;

import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The cases every Chapter 5 part is graded on: a property over meshes (1–16 devices, X = 1 and Y = 1 included),
 * shapes and values, and fixed examples (seed 002's 2 × 2 mesh, one device, 16 devices in a row or a column, a
 * 4 × 2 mesh). Each part's class says which check to run.
 */
abstract class Chapter5PartTest {

    /** Runs the part's graded check on one case. */
    abstract void check(Chapter5Case c);

    @Property(tries = 40, seed = "5005")
    void meshesShapesAndValues(@ForAll("cases") Chapter5Case c) {
        check(c);
    }

    @Provide
    Arbitrary<Chapter5Case> cases() {
        return Chapter5Case.cases();
    }

    /** Seed 002's mesh: 2 × 2 devices. */
    @Example
    void twoByTwo() {
        check(new Chapter5Case(2, 2, 2, 2, 3, 51));
    }

    @Example
    void oneDevice() {
        check(new Chapter5Case(1, 1, 3, 2, 1, 52));
    }

    @Example
    void sixteenDevicesInOneRow() {
        check(new Chapter5Case(16, 1, 1, 1, 2, 53));
    }

    @Example
    void sixteenDevicesInOneColumn() {
        check(new Chapter5Case(1, 16, 2, 1, 1, 54));
    }

    @Example
    void fourByTwo() {
        check(new Chapter5Case(4, 2, 1, 3, 2, 55));
    }
}
