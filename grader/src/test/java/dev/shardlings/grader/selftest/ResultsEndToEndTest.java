package dev.shardlings.grader.selftest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.shardlings.grader.grade.Results;
import dev.shardlings.grader.grade.ScoreTable;
import dev.shardlings.grader.grade.GradedParts;
import dev.shardlings.grader.problem1.Problem1Checks;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherFactory;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;
import static org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder.request;

/**
 * Runs one graded part through the JUnit Platform, as {@code mvn test -Pgrade} does, and checks the written
 * results.json against Gradescope's schema and the score table printed from it.
 */
class ResultsEndToEndTest {

    private static JsonNode byNumber(JsonNode tests, String number) {
        for (JsonNode t : tests) {
            if (number.equals(t.get("number").asText())) {
                return t;
            }
        }
        throw new AssertionError("no part " + number + " in " + tests);
    }

    @Test
    void aGradingRunWritesGradescopeResultsAndATable(@TempDir Path dir) throws Exception {
        Path results = dir.resolve("results.json");
        String before = System.getProperty("grade.results");
        System.setProperty("grade.results", results.toString());
        try {
            LauncherDiscoveryRequest req = request().selectors(selectClass(GradedParts.class)).build();
            Launcher launcher = LauncherFactory.create(); // registers GradingListener through META-INF/services
            GradedParts.select(List.of(Problem1Checks.P1_1B));
            launcher.execute(req);
        } finally {
            GradedParts.select(null);
            if (before == null) {
                System.clearProperty("grade.results");
            } else {
                System.setProperty("grade.results", before);
            }
        }
        assertTrue(Files.isRegularFile(results), "results.json written");

        JsonNode root = new ObjectMapper().readTree(results.toFile());
        assertTrue(root.get("score").isNumber());
        assertTrue(root.get("execution_time").isNumber());
        JsonNode tests = root.get("tests");
        assertTrue(tests.isArray());
        for (JsonNode t : tests) {
            for (String key : List.of("name", "number", "score", "max_score", "status", "output")) {
                assertTrue(t.has(key), "every test has " + key + ": " + t);
            }
            assertTrue(Set.of("passed", "failed").contains(t.get("status").asText()));
        }
        JsonNode p11b = byNumber(tests, "1.1b");
        assertEquals("1.1b", p11b.get("number").asText());
        assertEquals("passed", p11b.get("status").asText(), "the solutions pass part 1.1b");
        assertEquals(p11b.get("max_score").asDouble(), p11b.get("score").asDouble());
        JsonNode p11a = byNumber(tests, "1.1a");
        assertEquals("failed", p11a.get("status").asText(), "a part with no test in the run does not pass");
        assertEquals(0.0, p11a.get("score").asDouble());

        Results read = Results.read(results);
        String table = ScoreTable.format(read, "graded: solutions");
        assertTrue(table.contains("1.1b"), table);
        assertTrue(table.contains("PASS"), table);
        assertTrue(table.contains("not run"), table);
        assertFalse(table.contains("1.1b 1.1b"), "titles are not prefixed twice: " + table);
    }
}
