package dev.shardlings.grader.selftest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.shardlings.grader.judge.GradingFailure;
import dev.shardlings.grader.grade.IsolatedGrading;
import dev.shardlings.grader.checks.MeshSpec;
import dev.shardlings.grader.problem3.MatmulCase;
import dev.shardlings.grader.problem3.Problem3Checks;
import dev.shardlings.spmd.ShardMap;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static dev.shardlings.spmd.Tiling.TILED;
import static dev.shardlings.sharding.PartitionSpec.P;
import static dev.shardlings.spmd.Collectives.allGather;
import static dev.shardlings.spmd.Collectives.psumScatter;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Grades are reproducible: the same run gives the same results.json, byte for byte apart from the timing, and the
 * numbers in a report are the same on every JDK (a golden file, checked by CI on JDK 17 and on JDK 25).
 */
class ReproducibilityTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static String gradeWithoutTimes(Path dir) throws Exception {
        Path testClasses = Path.of(ReproducibilityTest.class.getProtectionDomain().getCodeSource().getLocation()
                .toURI());
        Path results = dir.resolve("results.json");
        int status = new CommandLine(new IsolatedGrading()).execute("--test-classes=" + testClasses,
                "--course-classes=" + System.getProperty("grade.classes"), "--results=" + results, "--only=Part{08RingShift,23bMoeAllToAll,31Performance}Test",
                "--target=" + System.getProperty("grade.target"));
        assertEquals(0, status);
        ObjectNode root = (ObjectNode) JSON.readTree(Files.readString(results));
        root.remove("execution_time");
        return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(root);
    }

    @Test
    void theSameRunGivesTheSameResultsJson(@TempDir Path dir) throws Exception {
        Assumptions.assumeTrue("solutions".equals(System.getProperty("grade.target")));
        String first = gradeWithoutTimes(dir.resolve("first"));
        String second = gradeWithoutTimes(dir.resolve("second"));
        assertEquals(first, second);
        JsonNode tests = JSON.readTree(first).get("tests");
        long passed = 0;
        for (JsonNode t : tests) {
            passed += "passed".equals(t.get("status").asText()) ? 1 : 0;
        }
        assertEquals(3, passed, "the three selected parts ran and passed: " + first);
    }

    @Test
    void aReportsNumbersAreTheSameOnEveryJdk() throws Exception {
        // A transformer block without its gelu: the report prints float32 values of both products and of gelu.
        Problem3Checks.Block linear = (in, win, wout) -> ShardMap.shardMap(b -> List.of(psumScatter(
                        allGather(b.get(0), "Y", 1, TILED).matmul(b.get(1)).matmul(b.get(2)), "Y", 1, TILED)), in.mesh(),
                List.of(P("X", "Y"), P(null, "Y"), P("Y", null)), List.of(P("X", "Y"))).call(in, win, wout).get(0);
        MatmulCase c = new MatmulCase(MeshSpec.of("X", 1, "Y", 2), 2, 1, 2, 11, 2);
        GradingFailure f = assertThrows(GradingFailure.class, () -> Problem3Checks.transformerBlock(linear, linear, c));
        String report = f.getMessage();
        if (Boolean.getBoolean("golden.update")) { // mvn test -Dgolden.update=true: rewrite the golden file
            Path classes = Path.of(ReproducibilityTest.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            Files.writeString(classes.resolve("../../src/test/resources/golden/transformer-block-report.txt")
                    .normalize(), report);
        }
        try (InputStream in = ReproducibilityTest.class.getResourceAsStream("/golden/transformer-block-report.txt")) {
            String golden = in == null ? "(missing)" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(golden, report, "if the change is intended, rewrite the golden file with"
                    + " mvn -pl grader test -Dtest=ReproducibilityTest -Dgolden.update=true");
        }
    }
}
