package dev.shardlings.grader.selftest;

import dev.shardlings.course.Problem3;
import dev.shardlings.course.Problem4;
import dev.shardlings.grader.ModelledTime;
import dev.shardlings.grader.Part;
import dev.shardlings.grader.Parts;
import dev.shardlings.grader.problem3.Problem3Checks;
import dev.shardlings.grader.problem4.Problem4Checks;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The stored reference times of the performance parts are exactly what the reference solutions model now. Runs
 * in the build, where the graded target is solutions/; writes the current times beside results.json, so that a
 * solution changed on purpose needs only a copy of that file.
 */
class ReferenceTimesTest {

    private static void same(Part part, ModelledTime.Setting setting, Supplier<ModelledTime.Result> check) {
        ModelledTime.Result r = check.get();
        ModelledTime.record(part, setting, r.micros());
        assertEquals(r.reference(), r.micros(), 0.0, () -> "part " + part.number() + ": the reference solution now"
                + " models " + r.micros() + " µs but reference-times.json says " + r.reference() + " µs. If the"
                + " solution changed on purpose, copy " + ModelledTime.written()
                + " to grader/src/main/resources/dev/shardlings/grader/reference-times.json.");
    }

    @Test
    void storedTimesAreTheSolutionsTimes() {
        Assumptions.assumeTrue("solutions".equals(System.getProperty("grade.target")),
                "reference times are checked when the grader grades solutions/");
        same(Parts.P3_0P, Problem3Checks.SETTING, () -> Problem3Checks.allGatherMatmulTime(Problem3::allGatherMatmul,
                Problem3::allGatherMatmulNaive));
        same(Parts.P3_1P, Problem3Checks.SETTING, () -> Problem3Checks.allReduceMatmulTime(Problem3::allReduceMatmul));
        same(Parts.P3_2P, Problem3Checks.SETTING,
                () -> Problem3Checks.reduceScatterMatmulTime(Problem3::reduceScatterMatmul));
        same(Parts.P3_3P, Problem3Checks.SETTING, () -> Problem3Checks.transformerBlockTime(Problem3::transformerBlock,
                Problem3::transformerBlockNaive));
        same(Parts.P4_0P, Problem4Checks.SETTING, () -> Problem4Checks.allGatherMatmulTime(Problem4::allGatherMatmul));
        same(Parts.P4_1P, Problem4Checks.SETTING, () -> Problem4Checks.allReduceMatmulTime(Problem4::allReduceMatmul));
        same(Parts.P4_2P, Problem4Checks.SETTING,
                () -> Problem4Checks.reduceScatterMatmulTime(Problem4::reduceScatterMatmul));
    }
}
