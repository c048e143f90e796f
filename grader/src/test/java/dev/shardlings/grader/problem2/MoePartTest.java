package dev.shardlings.grader.problem2;

import dev.shardlings.grader.MeshSpec;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import static dev.shardlings.grader.problem2.MoeCase.Routing.ONE_EXPERT;
import static dev.shardlings.grader.problem2.MoeCase.Routing.REPEATED;
import static dev.shardlings.grader.problem2.MoeCase.Routing.SOME_EMPTY;
import static dev.shardlings.grader.problem2.MoeCase.Routing.UNIFORM;

/**
 * The cases every Problem 2 part is graded on: a property over meshes (X and Y plus up to one replicated axis,
 * 1–16 devices), numbers of experts and tokens, sizes, routings and capacities, and fixed examples — the book's
 * 2 × 4 mesh, one device, all tokens to one expert, experts with no token, a capacity of one token per round, and
 * (top-k) repeated experts in one token's choices.
 */
abstract class MoePartTest {

    /** Runs the part's graded check on one case. */
    abstract void check(MoeCase c);

    /** True for part 2.4 (k ≥ 2). */
    boolean topK() {
        return false;
    }

    private int k() {
        return topK() ? 2 : 1;
    }

    @Property(tries = 60, seed = "1200")
    void meshesSizesAndRoutings(@ForAll("cases") MoeCase c) {
        check(c);
    }

    @Provide
    Arbitrary<MoeCase> cases() {
        return MoeCase.cases(topK());
    }

    @Example
    void booksMesh() {
        check(new MoeCase(MeshSpec.of("X", 2, "Y", 4), 2, 3, 1, 2, k(), UNIFORM, 2, 40));
    }

    @Example
    void oneDevice() {
        check(new MoeCase(MeshSpec.of("X", 1, "Y", 1), 3, 4, 2, 2, k(), UNIFORM, 1, 41));
    }

    @Example
    void everyTokenToOneExpert() {
        check(new MoeCase(MeshSpec.of("X", 4, "Y", 2), 1, 3, 1, 1, k(), ONE_EXPERT, 2, 42));
    }

    @Example
    void expertsWithNoToken() {
        check(new MoeCase(MeshSpec.of("X", 4, "Y", 1), 3, 2, 2, 1, k(), SOME_EMPTY, 1, 43));
    }

    @Example
    void oneTokenPerRoundAndAReplicatedAxis() {
        check(new MoeCase(MeshSpec.of("Z", 2, "X", 2, "Y", 2), 2, 4, 1, 1, k(), UNIFORM, 1, 44));
    }

    @Example
    void repeatedExpertsInOneTokensChoices() {
        check(new MoeCase(MeshSpec.of("X", 2, "Y", 2), 2, 3, 1, 2, topK() ? 3 : 1, REPEATED, 2, 45));
    }
}
