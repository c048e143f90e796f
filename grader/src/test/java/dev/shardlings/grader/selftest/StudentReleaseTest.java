package dev.shardlings.grader.selftest;

import dev.shardlings.grader.grade.Assignments;
import dev.shardlings.grader.tools.ClassroomWorkflow;
import dev.shardlings.grader.tools.StudentRelease;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The student release holds no solution in any form, grades the stubs, and builds without the solutions module;
 * a release that would leak one is refused. (CI also grades the release and runs its verify: .ci/run.)
 */
class StudentReleaseTest {

    private static final Path COURSE = Path.of("..").toAbsolutePath().normalize();
    private static final Path SOLUTIONS = COURSE.resolve("solutions/src/main/java/dev/shardlings/course");

    @Test
    void theReleaseHasNoSolutionsAndGradesTheStubs(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("release");
        int status = new CommandLine(new StudentRelease()).execute("--course=" + COURSE, "--out=" + out, "--no-git");
        assertEquals(0, status);
        assertFalse(Files.exists(out.resolve("solutions")));
        assertFalse(Files.exists(out.resolve("grader/src/test/java/dev/shardlings/grader/selftest")));
        assertFalse(Files.exists(out.resolve(".git")), "no history of the course's repository");
        try (Stream<Path> files = Files.walk(out)) {
            List<Path> all = files.filter(Files::isRegularFile).toList();
            for (Path f : all) {
                String name = f.getFileName().toString();
                assertFalse(name.endsWith(".class") || name.endsWith(".jar"), "compiled code: " + f);
                assertFalse(out.relativize(f).toString().contains("target"), "build output: " + f);
            }
            for (String course : dev.shardlings.grader.sandbox.CourseClasses.FILES) {
                String solution = Files.readString(SOLUTIONS.resolve(course));
                for (Path f : all) {
                    assertFalse(Files.readString(f).contains(solution.substring(solution.indexOf("public final class"))),
                            f + " holds the solution " + course);
                }
            }
        }
        String pom = Files.readString(out.resolve("pom.xml"));
        assertFalse(pom.contains("<module>solutions</module>"), pom);
        assertTrue(pom.contains("<grade.target>exercises</grade.target>"), pom);
        String graderPom = Files.readString(out.resolve("grader/pom.xml"));
        assertTrue(graderPom.contains("<grader.verify.excludes>**/GradedPartsTest.java</grader.verify.excludes>"));
        assertTrue(graderPom.contains("<grader.stubs.dir>${project.basedir}/src/stubs</grader.stubs.dir>"),
                "the grader's copy of the stubs is frozen: the student edits exercises/");
        for (String course : dev.shardlings.grader.sandbox.CourseClasses.FILES) {
            assertEquals(Files.readString(COURSE.resolve("exercises/src/main/java/dev/shardlings/course/" + course)),
                    Files.readString(out.resolve("grader/src/stubs/" + course)), course);
        }
        assertEquals(ClassroomWorkflow.yaml(),
                Files.readString(out.resolve(".github/workflows/classroom.yml")), "Classroom's workflow is in place");
        for (Assignments.Assignment a : Assignments.defaults().all()) {
            assertEquals(ClassroomWorkflow.yaml(a, Optional.empty()), Files.readString(
                    out.resolve(".github/classroom-workflows/" + a.name() + ".yml")), a.name());
        }
        String readme = Files.readString(out.resolve("README.md"));
        assertTrue(readme.contains("mvn test -Pgrade") && readme.contains("mvn -B verify"), readme);
        assertFalse(readme.contains("For instructors"), "the students' README: " + readme);
    }

    /**
     * What a release must never carry: the instructor's tools and pages, and the framework's or the docs' code that
     * holds a graded part's answer (JitTest jits part 2.2's mixture of experts; Tour 7 lays the training step out as
     * parts 6.2 … 6.5 ask). The list is written out here, not read from StudentRelease, so that dropping an entry
     * there fails this test.
     */
    static final List<String> NEVER_SHIPPED = List.of("solutions", "DEVELOPERS.md", ".ci", "grader/gradescope",
            "docs/performance", "framework/src/test/java/dev/shardlings/jit/JitTest.java",
            "docs/src/main/java/dev/shardlings/tours/Tour07Training.java",
            "docs/src/test/resources/tours/Tour07Training.txt",
            "docs/src/test/resources/jax-checks/seed001_explicit.py",
            "docs/src/main/java/dev/shardlings/tours/Tour09FsdpTp.java",
            "docs/src/test/resources/tours/Tour09FsdpTp.txt",
            "docs/src/test/resources/jax-checks/tour09_fsdp_tp.py",
            "docs/src/main/java/dev/shardlings/tours/Tour10RingAttention.java",
            "docs/src/test/resources/tours/Tour10RingAttention.txt",
            "docs/src/test/resources/jax-checks/tour10_ring_attention.py",
            "docs/src/main/java/dev/shardlings/tours/Tour11Zero.java",
            "docs/src/test/resources/tours/Tour11Zero.txt",
            "docs/src/test/resources/jax-checks/tour11_zero.py",
            "docs/src/main/java/dev/shardlings/tours/Tour12MixedPrecision.java",
            "docs/src/test/resources/tours/Tour12MixedPrecision.txt",
            "docs/src/test/resources/jax-checks/tour12_mixed_precision.py",
            "docs/src/main/java/dev/shardlings/tours/Tour13Remat.java",
            "docs/src/test/resources/tours/Tour13Remat.txt",
            "docs/src/test/resources/jax-checks/tour13_remat.py");

    @Test
    void nothingInstructorOnlyShips(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("release");
        assertEquals(0, new CommandLine(new StudentRelease()).execute("--course=" + COURSE, "--out=" + out,
                "--no-git"));
        for (String p : NEVER_SHIPPED) {
            assertTrue(Files.exists(COURSE.resolve(p)), "the course has " + p + " (else this list is stale)");
            assertFalse(Files.exists(out.resolve(p)), p + " must never ship");
        }
        for (String page : List.of("docs/classroom.md", "docs/grading-integrity.md", "docs/performance.md")) {
            String text = Files.readString(out.resolve(page));
            assertTrue(text.startsWith("# ") && text.contains("for instructors and is not part of the students'")
                    && text.lines().count() == 3, page + " in the release: " + text);
        }
        try (Stream<Path> files = Files.walk(out)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                String text = Files.readString(f, java.nio.charset.StandardCharsets.ISO_8859_1);
                String rel = out.relativize(f).toString();
                if (!rel.endsWith("tools/StudentRelease.java")) { // the list of what is left out
                    for (String tour : List.of("Tour07Training", "Tour09FsdpTp", "Tour10RingAttention", "Tour11Zero",
                            "Tour12MixedPrecision", "Tour13Remat")) {
                        assertFalse(text.contains(tour), rel + " names " + tour);
                    }
                }
                assertFalse(text.contains("problem22TheDenseMoeSendsTheBufferToTheExperts"), rel);
                if (rel.startsWith("docs") && rel.endsWith(".md")) {
                    assertFalse(text.contains("solutions/") || text.contains("instructor-only"), rel);
                }
                // An instructor page is a 3-line note in the release: no students' page sends them there.
                if (rel.endsWith(".md")) {
                    assertFalse(Pattern.compile("\\]\\((docs/)?(classroom|grading-integrity|performance)\\.md")
                            .matcher(text).find(), rel + " links an instructor page");
                }
            }
        }
        assertTrue(Files.readString(COURSE.resolve("docs/profiles.md")).contains("solutions/"),
                "the course's own page keeps its instructor paragraphs");
        assertTrue(Files.readString(out.resolve("docs/profiles.md")).contains("## Performance points"),
                "the students' sections stay");
    }

    @Test
    void aReleaseForOneAssignmentGradesItWithTheInstructorsChecksummedGrader(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("release");
        assertEquals(0, new CommandLine(new StudentRelease()).execute("--course=" + COURSE, "--out=" + out,
                "--no-git", "--assignment=problem-1", "--grader=my-org/shardlings-template@grader-2026"));
        String yaml = Files.readString(out.resolve(".github/workflows/classroom.yml"));
        assertEquals(ClassroomWorkflow.yaml(Assignments.defaults().named("problem-1"), Optional.of(
                ClassroomWorkflow.GraderSource.parse("my-org/shardlings-template@grader-2026",
                        ClassroomWorkflow.checksum(out)))), yaml, "the checksum of the release as pushed");
        assertEquals(2, new CommandLine(new StudentRelease()).execute("--course=" + COURSE, "--out="
                + dir.resolve("other"), "--no-git", "--assignment=week-9"), "an unknown assignment");
        assertEquals(2, new CommandLine(new StudentRelease()).execute("--course=" + COURSE, "--out="
                + dir.resolve("other"), "--no-git", "--grader=not a repository"), "a bad grader");
    }

    @Test
    void aReleaseThatWouldCarryASolutionIsRefused(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("release");
        Files.createDirectories(out);
        // A hostile or careless course: the stub replaced by the solution.
        Path course = dir.resolve("course");
        copy(COURSE, course, List.of("pom.xml", "grader/pom.xml", "exercises/src/main/java/dev/shardlings/course",
                "solutions/src/main/java/dev/shardlings/course"));
        Files.copy(SOLUTIONS.resolve("Problem1.java"), course.resolve("exercises/src/main/java/dev/shardlings/course/"
                + "Problem1.java"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        Files.delete(out);
        int status = new CommandLine(new StudentRelease()).execute("--course=" + course, "--out=" + out, "--no-git");
        assertEquals(1, status, "the release is refused");
    }

    @Test
    void anExistingFolderIsNotOverwritten(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("keep.txt"), "mine");
        assertEquals(2, new CommandLine(new StudentRelease()).execute("--course=" + COURSE, "--out=" + dir));
        assertEquals("mine", Files.readString(dir.resolve("keep.txt")));
    }

    private static void copy(Path from, Path to, List<String> parts) throws Exception {
        for (String part : parts) {
            Path src = from.resolve(part);
            if (Files.isDirectory(src)) {
                try (Stream<Path> s = Files.list(src)) {
                    for (Path f : s.toList()) {
                        Files.createDirectories(to.resolve(part));
                        Files.copy(f, to.resolve(part).resolve(f.getFileName()));
                    }
                }
            } else {
                Files.createDirectories(to.resolve(part).getParent());
                Files.copy(src, to.resolve(part));
            }
        }
    }
}
