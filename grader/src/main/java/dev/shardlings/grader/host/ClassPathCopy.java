package dev.shardlings.grader.host;

import dev.shardlings.grader.sandbox.SandboxMain;
import dev.shardlings.grader.sandboxboot.SandboxBoot;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * The sandbox's private class path: copies of what it may load (the framework, the grader's sandbox packages, the
 * course classes) taken from where this JVM loads them, so that nothing else of the judge's class path is reachable.
 */
public final class ClassPathCopy {

    private ClassPathCopy() {
    }

    /**
     * Copies what the sandbox may load into {@code dir}: the framework (without its libraries, which only the cost
     * model uses: the judge models time), this grader's sandbox package and the sandbox's boot class (nothing else
     * of the grader), then the course classes (only dev/shardlings/course). The boot class builds the module layer
     * from them ({@link SandboxBoot}); only the boot folder is the JVM's class path.
     *
     * @return the folders, in this order: framework, sandbox package, boot, course classes
     */
    static List<String> copy(Path dir, Path courseClasses) throws IOException {
        Files.createDirectories(dir);
        Path framework = dir.resolve("framework");
        Path from = locationOf(dev.shardlings.array.NDArray.class);
        if (Files.isDirectory(from)) {
            copyTree(from, framework, f -> true);
        } else {
            try (FileSystem jar = FileSystems.newFileSystem(from)) {
                copyTree(jar.getPath("/"), framework, f -> !f.toString().startsWith("/META-INF"));
            }
        }
        Path sandbox = copyPackage(SandboxMain.class, dir.resolve("sandbox"));
        Path boot = copyPackage(SandboxBoot.class, dir.resolve("boot"));
        Path course = dir.resolve("course");
        copyCourse(courseClasses, course);
        return List.of(framework.toString(), sandbox.toString(), boot.toString(), course.toString());
    }

    /** Copies the class files of dev/shardlings/course (only those) from {@code courseClasses} into {@code course}. */
    private static void copyCourse(Path courseClasses, Path course) throws IOException {
        copyTree(courseClasses.resolve("dev/shardlings/course"), course.resolve("dev/shardlings/course"),
                f -> f.toString().endsWith(".class"));
    }

    /**
     * Replaces the course classes of a copy made by {@link #copy} with those of {@code courseClasses}, and makes
     * the copy read-only again.
     *
     * @param course the course folder of the copy (the last folder {@link #copy} returned)
     */
    static void replaceCourse(Path course, Path courseClasses) throws IOException {
        Folders.writable(course);
        Folders.deleteRecursively(course.resolve("dev/shardlings/course"));
        copyCourse(courseClasses, course);
        Folders.readOnly(course);
    }

    /** Copies the class files of {@code c}'s package (not of its sub-packages) from the grader to {@code to}. */
    private static Path copyPackage(Class<?> c, Path to) throws IOException {
        Path grader = locationOf(c);
        String pkg = c.getPackageName().replace('.', '/');
        Predicate<Path> own = f -> f.toString().endsWith(".class")
                && f.getParent().toString().replace('\\', '/').endsWith(pkg);
        if (Files.isDirectory(grader)) {
            copyTree(grader.resolve(pkg), to.resolve(pkg), own);
        } else {
            try (FileSystem jar = FileSystems.newFileSystem(grader)) {
                copyTree(jar.getPath(pkg), to.resolve(pkg), own);
            }
        }
        return to;
    }

    /**
     * The framework and the libraries it uses, where this JVM loads them from: what course code compiles against
     * and what the sandbox may load besides the course.
     */
    public static List<Path> frameworkClassPath() {
        return Stream.of(dev.shardlings.array.NDArray.class,
                        com.fasterxml.jackson.databind.ObjectMapper.class, com.fasterxml.jackson.core.JsonFactory.class,
                        com.fasterxml.jackson.annotation.JsonProperty.class,
                        org.apache.commons.text.StringEscapeUtils.class, org.apache.commons.lang3.StringUtils.class)
                .map(ClassPathCopy::locationOf).toList();
    }

    private static Path locationOf(Class<?> c) {
        try {
            return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException("cannot locate " + c, e);
        }
    }

    private static void copyTree(Path from, Path to, Predicate<Path> keep) throws IOException {
        Files.walkFileTree(from, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes a) throws IOException {
                Files.createDirectories(to.resolve(from.relativize(d).toString()));
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path f, BasicFileAttributes a) throws IOException {
                if (a.isRegularFile() && keep.test(f)) {
                    Files.copy(f, to.resolve(from.relativize(f).toString()), StandardCopyOption.REPLACE_EXISTING);
                }
                return FileVisitResult.CONTINUE;
            }
        });
    }
}
