package dev.shardlings.docs;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Runs every tour and compares what it prints with its golden transcript in src/test/resources/tours, so a tour
 * can never drift silently from the values the seeds printed. After an intended change, regenerate the
 * transcripts with {@code mvn -pl docs test -Dtours.update=true} and review the diff.
 */
class ToursTest {

    private static final Path GOLDEN = Path.of("src/test/resources/tours");

    @ParameterizedTest
    @ValueSource(strings = {"Tour01Devices", "Tour02ShardedMatrices", "Tour03Collectives", "Tour04MatmulCases",
        "Tour05ShardMapBasics", "Tour06AutomaticParallelism", "Tour07Training",
        "Tour08Pipeline", "Tour09FsdpTp", "Tour10RingAttention", "Tour11Zero", "Tour12MixedPrecision", "Tour13Remat"})
    void tourPrintsItsGoldenTranscript(String tour) throws Exception {
        String out = run(tour);
        Path golden = GOLDEN.resolve(tour + ".txt");
        if (Boolean.getBoolean("tours.update")) {
            Files.writeString(golden, out, StandardCharsets.UTF_8);
        }
        assertTrue(Files.isRegularFile(golden), "no golden transcript " + golden
                + "; create it with -Dtours.update=true and review it");
        assertEquals(Files.readString(golden, StandardCharsets.UTF_8), out, "tour " + tour + " drifted");
    }

    static String run(String tour) throws Exception {
        Method main = Class.forName("dev.shardlings.tours." + tour).getMethod("main", String[].class);
        PrintStream before = System.out;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
        try {
            main.invoke(null, (Object) new String[0]);
        } finally {
            System.setOut(before);
        }
        return buf.toString(StandardCharsets.UTF_8);
    }
}
