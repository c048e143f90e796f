package dev.shardlings.grader.problem3;

import dev.shardlings.grader.MeshSpec;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The cases every part of Problems 3 and 4 is graded on: a property over meshes (X and Y plus up to one replicated
 * axis, 1–16 devices, any axis order), sizes, values and tile counts, and fixed examples — the book's 2 × 4 mesh,
 * one device, rings of 2, 3 and 8, no ring at all (Y = 1), and a replicated extra axis placed first.
 */
public abstract class MatmulPartTest {

    /** Runs the part's graded check on one case. */
    protected abstract void check(MatmulCase c);

    @Property(tries = 60, seed = "1300")
    void meshesShapesAndValues(@ForAll("cases") MatmulCase c) {
        check(c);
    }

    @Provide
    Arbitrary<MatmulCase> cases() {
        return MatmulCase.cases();
    }

    /** The mesh of the book's collective matmul example: X = 2, Y = 4. */
    @Example
    void booksMesh() {
        check(new MatmulCase(MeshSpec.of("X", 2, "Y", 4), 2, 2, 3, 30, 2));
    }

    @Example
    void oneDevice() {
        check(new MatmulCase(MeshSpec.of("X", 1, "Y", 1), 2, 3, 2, 31, 3));
    }

    @Example
    void ringOfTwo() {
        check(new MatmulCase(MeshSpec.of("X", 1, "Y", 2), 1, 2, 2, 32, 2));
    }

    @Example
    void oddRing() {
        check(new MatmulCase(MeshSpec.of("X", 1, "Y", 3), 2, 1, 2, 33, 4));
    }

    @Example
    void ringOfEightOnSixteenDevices() {
        check(new MatmulCase(MeshSpec.of("X", 2, "Y", 8), 1, 1, 1, 34, 2));
    }

    @Example
    void noRing() {
        check(new MatmulCase(MeshSpec.of("X", 4, "Y", 1), 1, 3, 2, 35, 2));
    }

    @Example
    void replicatedAxisFirst() {
        check(new MatmulCase(MeshSpec.of("Z", 2, "Y", 4, "X", 2), 1, 2, 1, 36, 3));
    }
}
