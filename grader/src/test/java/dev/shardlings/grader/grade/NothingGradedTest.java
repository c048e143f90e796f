package dev.shardlings.grader.grade;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A filter that names no part grades nothing: the judge leaves results.json alone, exits with
 * {@link IsolatedGrading#NOTHING_GRADED_STATUS} (which the grade profile accepts, so Maven prints no stack trace under
 * the one-line reason) and leaves the marker that makes the score-table step end the build with status 1.
 */
class NothingGradedTest {

    @Test
    void aFilterThatMatchesNoPartLeavesTheResultsAloneAndTheMarker(@TempDir Path dir) throws Exception {
        Path results = dir.resolve("results.json");
        Files.writeString(results, "{\"kept\": true}");
        int status = new CommandLine(new IsolatedGrading()).execute("--course-classes=" + dir,
                "--results=" + results, "--test-classes=" + dir, "--only=NoSuchPart*");
        assertEquals(IsolatedGrading.NOTHING_GRADED_STATUS, status);
        assertEquals("{\"kept\": true}", Files.readString(results), "results.json is not changed");
        Path marker = dir.resolve(IsolatedGrading.NOTHING_GRADED);
        assertTrue(Files.readString(marker).contains("no graded part matches -Dtest='NoSuchPart*'"));
        assertFalse(Files.readString(marker).contains("\u001b"), "plain text");
    }
}
