package dev.shardlings.grader.selftest;

import dev.shardlings.grader.parts.CourseMethod;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Every course method the grader calls exists, public and static, with exactly the signature {@link CourseMethod}
 * gives, in the stubs and in the reference solutions — so the names the judge sends to the sandbox cannot drift
 * from the course. The classes are inspected in a class loader of their own and never initialised.
 */
class CourseMethodTest {

    @ParameterizedTest
    @ValueSource(strings = {"exercises", "solutions"})
    void everyEntryMatchesTheCourse(String module) throws Exception {
        Path classes = Path.of("..", module, "target", "classes").toAbsolutePath().normalize();
        Assumptions.assumeTrue(Files.isDirectory(classes.resolve("dev/shardlings/course")),
                module + " is not built here (a student release has no solutions/)");
        List<String> wrong = new ArrayList<>();
        try (URLClassLoader loader = new URLClassLoader(new URL[]{classes.toUri().toURL()},
                CourseMethodTest.class.getClassLoader())) {
            for (CourseMethod<?> m : CourseSources.courseMethods()) {
                Class<?> c = Class.forName("dev.shardlings.course." + m.className(), false, loader);
                try {
                    Method method = c.getMethod(m.methodName(), m.parameterTypes().toArray(Class<?>[]::new));
                    if (!Modifier.isStatic(method.getModifiers()) || method.getReturnType() != m.returnType()) {
                        wrong.add(m.signature() + " is not static or does not return " + m.returnType().getSimpleName());
                    }
                } catch (NoSuchMethodException e) {
                    wrong.add(m.signature() + " is missing");
                }
            }
        }
        assertEquals(List.of(), wrong, "in " + module);
    }
}
