package dev.shardlings.grader.selftest;

import dev.shardlings.grader.parts.CourseMethod;
import dev.shardlings.grader.parts.Part;
import dev.shardlings.grader.grade.Course;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The course methods the parts call fit the checks' functional interfaces, checked by the compiler: the contract
 * {@code F f = Problem2::moeJit;}, one line per course method, is compiled against the course classes of
 * exercises/ and of solutions/ (javac reads their class files; no course class is loaded), so a signature that
 * drifted is a compile error that names the method and its part.
 */
class CourseContractTest {

    /** The contract's source: one method reference per course method, typed by the interface its checks call. */
    static String contract() {
        StringBuilder src = new StringBuilder("package dev.shardlings.course;\n\nfinal class CourseContract {\n"
                + "    static final Object[] METHODS = {\n");
        for (Part p : Course.all()) {
            if (p.isPerformance()) {
                continue;
            }
            for (CourseMethod<?> m : p.methods()) {
                src.append("        (").append(m.viaType()).append(") ").append(m.className()).append("::")
                        .append(m.methodName()).append(", // part ").append(p.number()).append('\n');
            }
        }
        return src.append("    };\n}\n").toString();
    }

    @ParameterizedTest
    @ValueSource(strings = {"exercises", "solutions"})
    void everyCourseMethodFitsItsInterface(String module, @TempDir Path dir) throws Exception {
        Path classes = Path.of("..", module, "target", "classes").toAbsolutePath().normalize();
        Assumptions.assumeTrue(Files.isDirectory(classes.resolve("dev/shardlings/course")),
                module + " is not built here (a student release has no solutions/)");
        Path source = Files.createDirectories(dir.resolve("src/dev/shardlings/course")).resolve("CourseContract.java");
        Files.writeString(source, contract());
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        String classPath = classes + File.pathSeparator + System.getProperty("java.class.path");
        try (StandardJavaFileManager files = javac.getStandardFileManager(diagnostics, null, null)) {
            boolean ok = javac.getTask(null, files, diagnostics, List.of("-proc:none", "-classpath", classPath,
                    "-d", Files.createDirectories(dir.resolve("out")).toString()), null,
                    files.getJavaFileObjects(source.toFile())).call();
            assertTrue(ok, () -> "a course method in " + module + " does not fit its check's interface:\n"
                    + diagnostics.getDiagnostics().stream().map(d -> d.getMessage(null) + "\n    "
                            + lineOf(source, d.getLineNumber())).collect(Collectors.joining("\n")));
        }
    }

    private static String lineOf(Path source, long line) {
        try {
            return Files.readAllLines(source).get((int) line - 1).strip();
        } catch (Exception e) {
            return "line " + line;
        }
    }
}
