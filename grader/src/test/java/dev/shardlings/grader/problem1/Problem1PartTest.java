package dev.shardlings.grader.problem1;

import dev.shardlings.array.DType;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The cases every Problem 1 part is graded on: a property over meshes (1–16 devices, X = 1 and Y = 1 included),
 * shapes, values and shifts, and fixed examples (the book's, one device, a single row or column of 16 devices,
 * shifts of zero, negative and larger than a shard, int32 values). Each part's class says which check to run.
 */
abstract class Problem1PartTest {

    /** Runs the part's graded check on one case. */
    abstract void check(Problem1Case c);

    @Property(tries = 80, seed = "1101")
    void meshesShapesValuesAndShifts(@ForAll("cases") Problem1Case c) {
        check(c);
    }

    @Provide
    Arbitrary<Problem1Case> cases() {
        return Problem1Case.cases();
    }

    /** The book's example: arange(4096) as int32 [512, 8] on a (4, 2) mesh, shift 5. */
    @Example
    void booksExample() {
        check(Problem1Case.arange(4, 2, 128, 4, 5));
    }

    @Example
    void oneDevice() {
        check(new Problem1Case(1, 1, 3, 2, 11, 1, DType.FLOAT32));
    }

    @Example
    void sixteenDevicesInOneRow() {
        check(new Problem1Case(16, 1, 2, 3, 12, -1, DType.FLOAT32));
    }

    @Example
    void sixteenDevicesInOneColumn() {
        check(new Problem1Case(1, 16, 4, 1, 13, 2, DType.FLOAT32));
    }

    @Example
    void shiftOfZero() {
        check(new Problem1Case(2, 2, 3, 2, 21, 0, DType.FLOAT32));
    }

    @Example
    void negativeShift() {
        check(new Problem1Case(2, 4, 4, 2, 22, -3, DType.FLOAT32));
    }

    @Example
    void shiftLargerThanAShard() {
        check(new Problem1Case(4, 2, 3, 2, 23, 3 * 3 + 2, DType.FLOAT32));
    }

    @Example
    void int32Values() {
        check(new Problem1Case(2, 2, 4, 2, 24, 5, DType.INT32));
    }
}
