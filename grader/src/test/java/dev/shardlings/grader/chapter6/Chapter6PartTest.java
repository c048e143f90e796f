package dev.shardlings.grader.chapter6;

import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.util.List;

/**
 * The cases every Chapter 6 part is graded on: a property over meshes (1–16 devices), layer sizes, batch rows,
 * steps and values, and fixed examples (seed 001's meshes — 8 devices in a row, 4 × 2 — and one device). Each part's
 * class says which kind of case it takes and which check to run.
 */
abstract class Chapter6PartTest {

    /** Which cases the part takes. */
    abstract Chapter6Kind kind();

    /** Runs the part's graded check on one case. */
    abstract void check(Chapter6Case c);

    @Property(tries = 25, seed = "6006")
    void meshesSizesAndValues(@ForAll("cases") Chapter6Case c) {
        check(c);
    }

    @Provide
    Arbitrary<Chapter6Case> cases() {
        return Chapter6Case.cases(kind());
    }

    /** Seed 001's meshes at a small size: 8 devices along 'batch', or 4 × 2, or 'model' of 8 for 6.5. */
    @Example
    void seed001Mesh() {
        check(switch (kind()) {
            case DATA_PARALLEL -> new Chapter6Case(8, 0, List.of(6, 8, 8, 8, 3), 2, 3, 61);
            case MANUAL_DATA_PARALLEL -> new Chapter6Case(8, 0, List.of(6, 8, 8, 8, 3), 2, 0, 63);
            case DATA_TENSOR_PARALLEL -> new Chapter6Case(4, 2, List.of(6, 8, 8, 8, 3), 2, 3, 62);
            case FSDP -> new Chapter6Case(8, 0, List.of(8, 16, 16, 8, 8), 2, 0, 64);
            case MEGATRON -> new Chapter6Case(0, 8, List.of(4, 6, 16), 1, 0, 65);
        });
    }

    @Example
    void oneDevice() {
        check(switch (kind()) {
            case DATA_PARALLEL -> new Chapter6Case(1, 0, List.of(3, 4, 5, 4, 2), 3, 2, 71);
            case MANUAL_DATA_PARALLEL -> new Chapter6Case(1, 0, List.of(3, 4, 5, 4, 2), 3, 0, 73);
            case DATA_TENSOR_PARALLEL -> new Chapter6Case(1, 1, List.of(3, 4, 5, 4, 2), 3, 2, 72);
            case FSDP -> new Chapter6Case(1, 0, List.of(3, 4, 5, 4, 2), 3, 0, 74);
            case MEGATRON -> new Chapter6Case(0, 1, List.of(3, 4, 5), 1, 0, 75);
        });
    }
}
