package dev.shardlings.grader.problem1;

import dev.shardlings.array.DType;
import dev.shardlings.course.Problem1;
import dev.shardlings.grader.GradedPart;
import dev.shardlings.grader.Generators;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** Part 1.1a (per-shard mean with shardMap). Graded against the implementation chosen by -Dgrade.target. */
@GradedPart("1.1a")
class Part11aPerShardMeanTest {

    private static void check(Problem1Case c) {
        Problem1Checks.perShardMean(Problem1::perShardMean, c);
    }

    @Property(tries = 80, seed = "1101")
    void meshesShapesAndValues(@ForAll("cases") Problem1Case c) {
        check(c);
    }

    @Provide
    Arbitrary<Problem1Case> cases() {
        return Generators.problem1Cases();
    }

    /** The book's example: arange(4096) as int32 [512, 8] on a (4, 2) mesh. */
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
    void int32ValuesGiveAFloat32Mean() {
        check(new Problem1Case(2, 2, 4, 2, 24, 0, DType.INT32));
    }
}
