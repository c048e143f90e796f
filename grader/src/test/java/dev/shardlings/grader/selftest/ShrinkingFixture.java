package dev.shardlings.grader.selftest;

import dev.shardlings.grader.problem3.MatmulCase;
import dev.shardlings.grader.problem3.Problem3Checks;
import dev.shardlings.spmd.ShardedArray;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.util.function.BinaryOperator;

import static dev.shardlings.sharding.PartitionSpec.P;
import static dev.shardlings.spmd.Collectives.allGather;
import static dev.shardlings.spmd.ShardMap.shardMap;
import static dev.shardlings.spmd.Tiling.TILED;

/**
 * Not a test of its own (its name is outside Surefire's patterns): ShrinkingTest runs it. Part 3.0's property
 * with the baseline passed off as the collective version, which breaks the trace rule on every mesh, so jqwik's
 * shrinking should end on the smallest case there is.
 */
class ShrinkingFixture {

    @Property(tries = 60, seed = "1300")
    void gatheringInsteadOfPassingBlocks(@ForAll("cases") MatmulCase c) {
        BinaryOperator<ShardedArray> naive = (a, w) -> shardMap((x, y) -> allGather(x, "Y", 1, TILED).matmul(y),
                a.mesh(), P("X", "Y"), P(null, "Y"), P("X", "Y")).apply(a, w);
        Problem3Checks.allGatherMatmul(naive, naive, c);
    }

    @Provide
    Arbitrary<MatmulCase> cases() {
        return MatmulCase.cases();
    }
}
