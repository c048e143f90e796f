package dev.shardlings.grader.selftest;

import dev.shardlings.grader.tools.GradescopeZip;
import dev.shardlings.grader.grade.Results;
import org.apache.commons.compress.archivers.zip.ZipArchiveEntry;
import org.apache.commons.compress.archivers.zip.ZipFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Gradescope's side: run_autograder in a simulated /autograder (its root overridden) grades a submission into
 * results/results.json and exits 0 whatever happens, and the zip carries the scripts at its root, executable, and
 * no solution. (A subset of the parts keeps this quick; the full grade of the solutions is RequirementsTest's and
 * the grade profile's.)
 */
class GradescopeAutograderTest {

    private static final Path COURSE = Path.of("..").toAbsolutePath().normalize();
    private static final Path SOLUTIONS = COURSE.resolve("solutions/src/main/java/dev/shardlings/course");
    private static final String ONLY = "Part{08RingShift,11aPerShardMean,30AllGatherMatmul}Test";

    /** Runs run_autograder with the root at {@code root}; returns its exit status. */
    private static int runAutograder(Path root, String classpath) throws Exception {
        ProcessBuilder pb = new ProcessBuilder("bash", COURSE.resolve("grader/gradescope/run_autograder").toString())
                .redirectErrorStream(true).redirectOutput(root.resolve("stdout").toFile());
        Map<String, String> env = pb.environment();
        env.put("AUTOGRADER_ROOT", root.toString());
        env.put("SHARDLINGS_COURSE", COURSE.toString());
        env.put("SHARDLINGS_CLASSPATH", classpath);
        env.put("GRADE_ONLY", ONLY);
        env.put("SHARDLINGS_GRADE_ARGS", "--heap=256m --no-sandbox-user");
        Process p = pb.start();
        assertTrue(p.waitFor(300, TimeUnit.SECONDS), "run_autograder finishes");
        return p.exitValue();
    }

    private static Results.TestResult part(Results r, String number) {
        return r.tests().stream().filter(t -> t.number().equals(number)).findFirst().orElseThrow();
    }

    @Test
    void theSolutionsGetTheirPointsAndABrokenSubmissionLosesOnlyItsFilesParts(@TempDir Path dir) throws Exception {
        String classpath = System.getProperty("java.class.path");

        Path good = dir.resolve("good");
        Files.createDirectories(good.resolve("submission"));
        for (String f : dev.shardlings.grader.sandbox.CourseClasses.FILES) {
            Files.copy(SOLUTIONS.resolve(f), good.resolve("submission").resolve(f));
        }
        assertEquals(0, runAutograder(good, classpath));
        Results r = Results.read(good.resolve("results/results.json"));
        for (String n : List.of("0.8", "1.1a", "3.0")) {
            assertTrue(part(r, n).passed(), n + ": " + part(r, n).output());
        }
        assertEquals("submission", r.extraData().get("target"));

        Path broken = dir.resolve("broken");
        Files.createDirectories(broken.resolve("submission"));
        Files.copy(SOLUTIONS.resolve("Chapter0.java"), broken.resolve("submission/Chapter0.java"));
        Files.writeString(broken.resolve("submission/Problem1.java"),
                "package dev.shardlings.course;\npublic final class Problem1 { int x = ; }\n");
        assertEquals(0, runAutograder(broken, classpath));
        Results b = Results.read(broken.resolve("results/results.json"));
        assertTrue(part(b, "0.8").passed(), part(b, "0.8").output());
        assertEquals("Problem1.java did not compile", part(b, "1.1a").reason());
        assertEquals("Problem3.java is not in the submission", part(b, "3.0").reason(), "a missing file is the"
                + " stub, and says why: " + part(b, "3.0").output());
    }

    @Test
    void aGraderThatCannotRunStillLeavesAValidZeroGrade(@TempDir Path dir) throws Exception {
        Files.createDirectories(dir.resolve("submission"));
        assertEquals(0, runAutograder(dir, dir.resolve("no-such-classpath").toString()));
        String json = Files.readString(dir.resolve("results/results.json"), StandardCharsets.UTF_8);
        Results r = Results.read(dir.resolve("results/results.json"));
        assertEquals(0.0, r.score());
        assertTrue(r.output().contains("could not grade"), json);
    }

    @Test
    void theZipHasExecutableScriptsAtItsRootAndNoSolutions(@TempDir Path dir) throws Exception {
        Path zip = dir.resolve("autograder.zip");
        assertEquals(0, new CommandLine(new GradescopeZip()).execute("--course=" + COURSE, "--out=" + zip));
        List<String> names = new ArrayList<>();
        try (ZipFile z = ZipFile.builder().setPath(zip).get()) {
            for (ZipArchiveEntry e : Collections.list(z.getEntries())) {
                names.add(e.getName());
                assertFalse(e.getName().startsWith("solutions/") || e.getName().endsWith(".class")
                        || e.getName().contains("/target/"), e.getName());
                if (List.of("setup.sh", "run_autograder", "create-sandbox-user.sh").contains(e.getName())) {
                    assertEquals(0755, e.getUnixMode() & 0777, e.getName() + " is executable");
                }
            }
        }
        assertTrue(names.containsAll(List.of("setup.sh", "run_autograder", "pom.xml",
                "exercises/src/main/java/dev/shardlings/course/Problem1.java", "grader/pom.xml")), names.toString());
    }
}
