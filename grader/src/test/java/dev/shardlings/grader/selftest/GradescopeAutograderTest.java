package dev.shardlings.grader.selftest;

import dev.shardlings.grader.tools.GradescopeZip;
import dev.shardlings.grader.grade.Assignments;
import dev.shardlings.grader.grade.Results;
import dev.shardlings.grader.parts.Part;
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
        return runAutograder(root, classpath, Map.of());
    }

    /** Runs run_autograder with the root at {@code root} and more environment; returns its exit status. */
    private static int runAutograder(Path root, String classpath, Map<String, String> more) throws Exception {
        ProcessBuilder pb = new ProcessBuilder("bash", COURSE.resolve("grader/gradescope/run_autograder").toString())
                .redirectErrorStream(true).redirectOutput(root.resolve("stdout").toFile());
        Map<String, String> env = pb.environment();
        env.put("AUTOGRADER_ROOT", root.toString());
        env.put("SHARDLINGS_COURSE", COURSE.toString());
        env.put("SHARDLINGS_CLASSPATH", classpath);
        env.put("GRADE_ONLY", ONLY);
        env.put("SHARDLINGS_GRADE_ARGS", "--heap=256m --no-sandbox-user");
        env.putAll(more);
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
    void anAssignmentsGradeHoldsAndScoresOnlyItsParts(@TempDir Path dir) throws Exception {
        Files.createDirectories(dir.resolve("submission"));
        for (String f : dev.shardlings.grader.sandbox.CourseClasses.FILES) {
            Files.copy(SOLUTIONS.resolve(f), dir.resolve("submission").resolve(f));
        }
        assertEquals(0, runAutograder(dir, System.getProperty("java.class.path"),
                Map.of("SHARDLINGS_ASSIGNMENT", "chapter-0")));
        Results r = Results.read(dir.resolve("results/results.json"));
        Assignments.Assignment ch0 = Assignments.defaults().named("chapter-0");
        assertEquals(ch0.parts().stream().map(Part::number).toList(), r.tests().stream().map(Results.TestResult::number)
                .toList(), "chapter 0's parts only");
        assertEquals(ch0.points(), r.maxScore());
        assertEquals("chapter-0", r.extraData().get("assignment"));
        assertTrue(part(r, "0.8").passed(), part(r, "0.8").output());
    }

    @Test
    void theZipsHaveExecutableScriptsAtTheirRootTheirAssignmentAndNoSolutions(@TempDir Path dir) throws Exception {
        assertEquals(0, new CommandLine(new GradescopeZip()).execute("--course=" + COURSE, "--out=" + dir));
        for (Assignments.Assignment a : Assignments.defaults().all()) {
            Path zip = GradescopeZip.zipOf(dir, a.name());
            List<String> names = new ArrayList<>();
            try (ZipFile z = ZipFile.builder().setPath(zip).get()) {
                for (ZipArchiveEntry e : Collections.list(z.getEntries())) {
                    names.add(e.getName());
                    assertFalse(e.getName().startsWith("solutions/") || e.getName().endsWith(".class")
                            || e.getName().contains("/target/") || e.getName().startsWith(".ci/"), e.getName());
                    if (List.of("setup.sh", "run_autograder", "create-sandbox-user.sh").contains(e.getName())) {
                        assertEquals(0755, e.getUnixMode() & 0777, e.getName() + " is executable");
                    }
                }
                assertEquals(a.name() + "\n", new String(z.getInputStream(z.getEntry("ASSIGNMENT")).readAllBytes(),
                        StandardCharsets.UTF_8), "run_autograder grades " + a.name());
            }
            assertTrue(names.containsAll(List.of("setup.sh", "run_autograder", "pom.xml", "ASSIGNMENT",
                    "exercises/src/main/java/dev/shardlings/course/Problem1.java", "grader/pom.xml")), names.toString());
        }
        assertEquals(2, new CommandLine(new GradescopeZip()).execute("--course=" + COURSE, "--out=" + dir,
                "--assignment=week-9"), "an unknown assignment is refused");
    }

    /**
     * setup.sh with apt-get, mvn and useradd replaced by recorders (no root needed): a JDK 17 or later already on
     * the PATH is kept, Maven's repository and every jar of the class path lie inside the course folder, and the
     * folder ends unreadable to others. With a JDK 11 on the PATH it asks apt for JDK 17.
     */
    @Test
    void setupKeepsASuitableJdkAndGradesFromJarsOfItsOwn(@TempDir Path dir) throws Exception {
        Path calls = Files.createDirectories(dir.resolve("calls"));
        Path bin = Files.createDirectories(dir.resolve("bin"));
        fake(bin, "apt-get", "echo \"$*\" >> " + calls + "/apt-get");
        fake(bin, "useradd", "echo \"$*\" >> " + calls + "/useradd");
        fake(bin, "mvn", "echo \"$*\" >> " + calls + "/mvn\nfor a in \"$@\"; do case \"$a\" in -DoutputDirectory=*)"
                + " mkdir -p \"${a#*=}\"; touch \"${a#*=}/lib.jar\";; esac; done\nmkdir -p grader/target");
        Path source = setupSource(dir.resolve("source"));
        String javaBin = Path.of(System.getProperty("java.home"), "bin").toString();
        assertEquals(0, runSetup(source, bin + ":" + javaBin + ":" + System.getenv("PATH")), read(source));
        assertFalse(Files.exists(calls.resolve("apt-get")), "a JDK 17+ and Maven are there: nothing installed");
        List<String> mvn = Files.readAllLines(calls.resolve("mvn"));
        assertTrue(mvn.size() >= 2 && mvn.stream().allMatch(l -> l.contains("-Dmaven.repo.local=" + source
                + "/.m2-autograder")), mvn.toString());
        String cp = Files.readString(source.resolve("grader/target/gradescope-classpath.txt"));
        for (String entry : cp.split(":")) {
            assertTrue(entry.startsWith(source + "/grader/target/"), "inside the course: " + entry);
        }
        assertTrue(cp.endsWith(source + "/grader/target/autograder-lib/lib.jar"), cp);
        assertEquals(java.util.Set.of(java.nio.file.attribute.PosixFilePermission.OWNER_READ,
                java.nio.file.attribute.PosixFilePermission.OWNER_WRITE,
                java.nio.file.attribute.PosixFilePermission.OWNER_EXECUTE), Files.getPosixFilePermissions(source),
                "chmod -R go-rwx");

        Path old = Files.createDirectories(dir.resolve("jdk11"));
        fake(old, "java", "echo '    java.specification.version = 11' >&2");
        fake(old, "javac", "exit 0");
        Path source2 = setupSource(dir.resolve("source2"));
        runSetup(source2, bin + ":" + old + ":" + System.getenv("PATH"));
        List<String> apt = Files.readAllLines(calls.resolve("apt-get"));
        assertTrue(apt.stream().anyMatch(l -> l.startsWith("install") && l.contains("openjdk-17-jdk-headless")
                && !l.contains("maven")), apt.toString());
    }

    private static Path setupSource(Path source) throws Exception {
        Path stubs = Files.createDirectories(source.resolve("exercises/src/main/java/dev/shardlings/course"));
        Files.writeString(stubs.resolve("Chapter0.java"), "package dev.shardlings.course;\n");
        for (String s : List.of("setup.sh", "run_autograder", "create-sandbox-user.sh")) {
            Files.copy(COURSE.resolve("grader/gradescope").resolve(s), source.resolve(s));
        }
        return source;
    }

    private static int runSetup(Path source, String path) throws Exception {
        ProcessBuilder pb = new ProcessBuilder("bash", source.resolve("setup.sh").toString()).redirectErrorStream(true)
                .redirectOutput(source.resolveSibling(source.getFileName() + ".log").toFile());
        pb.environment().put("PATH", path);
        Process p = pb.start();
        assertTrue(p.waitFor(300, TimeUnit.SECONDS), "setup.sh finishes");
        return p.exitValue();
    }

    private static String read(Path source) throws Exception {
        return Files.readString(source.resolveSibling(source.getFileName() + ".log"));
    }

    private static void fake(Path bin, String name, String body) throws Exception {
        Path f = bin.resolve(name);
        Files.writeString(f, "#!/usr/bin/env bash\n" + body + "\n");
        f.toFile().setExecutable(true);
    }
}
