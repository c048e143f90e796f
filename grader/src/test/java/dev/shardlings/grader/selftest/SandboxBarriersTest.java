package dev.shardlings.grader.selftest;

import dev.shardlings.grader.host.Sandbox;
import dev.shardlings.grader.host.SandboxSeam;
import dev.shardlings.grader.sandboxboot.SandboxBoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The barriers that are a matter of class paths: what the judge can load, and what the sandbox can. */
class SandboxBarriersTest {

    @Test
    void theJudgeCannotLoadACourseClass() {
        for (String c : dev.shardlings.grader.sandbox.CourseClasses.NAMES) {
            assertThrows(ClassNotFoundException.class, () -> Class.forName("dev.shardlings.course." + c),
                    "the judge's class path must not hold " + c);
        }
    }

    @Test
    void theSandboxGetsNoGraderClassButItsOwnPackageAndCourseClassesComeLast(@TempDir Path dir) throws Exception {
        Path course = dir.resolve("classes");
        Path pkg = course.resolve("dev/shardlings/course");
        Files.createDirectories(pkg);
        Files.write(pkg.resolve("Problem1.class"), new byte[]{1});
        Files.write(pkg.resolve("Problem1$Inner.class"), new byte[]{2});
        // A library class and a grader class in the course folder: neither may reach the sandbox.
        Path shadow = course.resolve("com/fasterxml/jackson/databind/ObjectMapper.class");
        Files.createDirectories(shadow.getParent());
        Files.write(shadow, new byte[]{3});
        Path grader = course.resolve("dev/shardlings/grader/Checks.class");
        Files.createDirectories(grader.getParent());
        Files.write(grader, new byte[]{4});
        try (Sandbox s = new Sandbox(new Sandbox.Config(course, "64m", Duration.ofSeconds(5), false))) {
            List<String> cp = SandboxSeam.classPath(s);
            Path last = Path.of(cp.get(cp.size() - 1));
            try (Stream<Path> files = Files.walk(last)) {
                assertEquals(List.of("dev/shardlings/course/Problem1$Inner.class", "dev/shardlings/course/Problem1.class"),
                        files.filter(Files::isRegularFile).map(f -> last.relativize(f).toString().replace('\\', '/'))
                                .sorted().toList(), "only the course package is copied, and it comes last");
            }
            for (String entry : cp.subList(0, cp.size() - 1)) {
                Path e = Path.of(entry);
                if (!Files.isDirectory(e)) {
                    continue; // a library jar
                }
                try (Stream<Path> files = Files.walk(e)) {
                    List<String> grading = files.map(f -> e.relativize(f).toString().replace('\\', '/'))
                            .filter(f -> f.startsWith("dev/shardlings/grader/") && f.endsWith(".class"))
                            .filter(f -> !f.startsWith("dev/shardlings/grader/sandbox/"))
                            .filter(f -> !f.startsWith("dev/shardlings/grader/sandboxboot/")).toList();
                    assertEquals(List.of(), grading, "no grader class but the sandbox's packages in " + e);
                    assertFalse(Files.exists(e.resolve("dev/shardlings/course")), "course classes only last");
                }
            }
            assertTrue(s.barriers().get("judge_never_loads_course_classes"));
        }
    }

    @Test
    void aFolderWithoutCourseClassesIsRefusedWithAClearMessage(@TempDir Path dir) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new Sandbox(new Sandbox.Config(dir, "64m", Duration.ofSeconds(5), false)));
        assertTrue(e.getMessage().contains("compile the exercises first"), e.getMessage());
    }

    /**
     * The layer the sandbox runs course code in: the framework is a module that opens nothing and exports only the
     * public API (not the trace, the cost model, its internals or the sandbox's loop); the course is a module of
     * its own. What this means for reflection is tried by {@code EvidenceIntegrityTest}'s attacks.
     */
    @Test
    void theSandboxLayerExportsTheApiOnlyAndOpensNothing(@TempDir Path dir) throws Exception {
        Path framework = Path.of(dev.shardlings.array.NDArray.class.getProtectionDomain().getCodeSource().getLocation()
                .toURI());
        if (!Files.isDirectory(framework)) { // the reactor's verify puts the framework's jar on the class path
            Path unpacked = dir.resolve("framework");
            try (java.nio.file.FileSystem jar = java.nio.file.FileSystems.newFileSystem(framework);
                 Stream<Path> files = Files.walk(jar.getPath("/"))) {
                for (Path f : files.filter(Files::isRegularFile).filter(f -> !f.toString().startsWith("/META-INF"))
                        .toList()) {
                    Path to = unpacked.resolve(f.toString().substring(1));
                    Files.createDirectories(to.getParent());
                    Files.copy(f, to);
                }
            }
            framework = unpacked;
        }
        Path course = dir.resolve("course/dev/shardlings/course");
        Files.createDirectories(course);
        // The sandbox's loop is part of the framework's module (here with the rest of the grader's classes, which
        // the sandbox never gets: none of their packages may be exported either).
        Path loop = Path.of(dev.shardlings.grader.sandbox.SandboxMain.class.getProtectionDomain().getCodeSource()
                .getLocation().toURI());
        ModuleLayer layer = SandboxBoot.layer(List.of(framework, loop), dir.resolve("course"));
        Module fw = layer.findModule(SandboxBoot.FRAMEWORK).orElseThrow();
        Module c = layer.findModule(SandboxBoot.COURSE).orElseThrow();
        assertFalse(fw.getDescriptor().isOpen());
        assertEquals(java.util.Set.of(), fw.getDescriptor().opens(), "the framework opens no package");
        for (String p : fw.getPackages()) {
            assertEquals(SandboxBoot.API.contains(p), fw.isExported(p, c), p);
            assertFalse(fw.isOpen(p, c), p + " must not be open to course code");
        }
        assertFalse(fw.isExported("dev.shardlings.events", c));
        assertFalse(fw.isExported("dev.shardlings.internal", c));
        assertTrue(fw.isExported("dev.shardlings.spmd", c));
        assertEquals(java.util.Set.of("jdk.incubator.vector", "java.management", "java.base"),
                fw.getDescriptor().requires().stream().map(java.lang.module.ModuleDescriptor.Requires::name)
                        .collect(java.util.stream.Collectors.toSet()));
    }
}
