package dev.shardlings.grader.selftest;

import dev.shardlings.grader.parts.CourseMethod;
import dev.shardlings.grader.parts.Part;
import dev.shardlings.grader.grade.Course;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Parts, chapter tables, course methods, stubs and docs correspond one to one: every part a chapter's table
 * declares is graded (listed in the table's {@code PARTS} and so in {@link Course}), part numbers and selection
 * names are unique, every course method a table declares belongs to exactly one (non-performance) part, every stub
 * of a part carries that part's task marker, throws its {@code ExerciseNotDone} and points at the part's docs
 * section. (Signatures against exercises/ and solutions/ are {@code CourseMethodTest}'s; that every docs link names
 * an existing heading is {@code DocsLinksTest}'s.)
 */
class PartCorrespondenceTest {

    /** The chapter tables: every {@code …Checks} class of the grader's chapter packages (the table heads each). */
    private static List<Class<?>> tables() throws Exception {
        Path classes = Path.of(Part.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        try (Stream<Path> files = Files.walk(classes)) {
            List<Class<?>> out = new ArrayList<>();
            for (Path f : files.filter(f -> f.getFileName().toString().matches("(Chapter|Problem)\\d+Checks\\.class"))
                    .sorted().toList()) {
                String name = classes.relativize(f).toString().replace(f.getFileSystem().getSeparator(), ".")
                        .replaceAll("\\.class$", "");
                out.add(Class.forName(name));
            }
            return out;
        }
    }

    private static <T> List<T> declared(Class<?> table, Class<T> type) throws IllegalAccessException {
        List<T> out = new ArrayList<>();
        for (Field f : table.getDeclaredFields()) {
            if (Modifier.isStatic(f.getModifiers()) && f.getType() == type) {
                f.setAccessible(true);
                out.add(type.cast(f.get(null)));
            }
        }
        return out;
    }

    @Test
    void everyDeclaredPartIsGradedOnce() throws Exception {
        List<String> wrong = new ArrayList<>();
        List<Class<?>> tables = tables();
        assertEquals(Course.CHAPTERS.size(), tables.size(), "chapter tables " + tables + " are not all in Course");
        for (Class<?> t : tables) {
            for (Part p : declared(t, Part.class)) {
                if (!Course.all().contains(p)) {
                    wrong.add(t.getSimpleName() + " declares part " + p.number() + " but does not list it in PARTS");
                }
            }
        }
        Set<String> numbers = new HashSet<>();
        Set<String> names = new HashSet<>();
        for (Part p : Course.all()) {
            if (!numbers.add(p.number()) || !names.add(p.selectionName())) {
                wrong.add(p.number() + " (" + p.selectionName() + ") is listed twice or shares its number or name");
            }
        }
        assertEquals(List.of(), wrong);
    }

    @Test
    void everyCourseMethodBelongsToExactlyOnePart() throws Exception {
        List<String> wrong = new ArrayList<>();
        for (Class<?> t : tables()) {
            for (CourseMethod<?> m : declared(t, CourseMethod.class)) {
                List<Part> owners = Course.all().stream().filter(p -> !p.isPerformance() && p.methods().contains(m))
                        .toList();
                if (owners.size() != 1) {
                    wrong.add(m.signature() + " belongs to " + owners);
                }
            }
        }
        for (Part p : Course.all()) {
            Set<String> files = new HashSet<>(p.methods().stream().map(CourseMethod::className).toList());
            if (files.size() != 1 || !files.contains(p.chapter().className())) {
                wrong.add(p.number() + " has methods in " + files + "; a part's methods live in its chapter's file");
            }
            if (p.isPerformance() && Course.byNumber(p.number().replace("p", "")).map(b -> !b.methods()
                    .contains(p.methods().get(0))).orElse(true)) {
                wrong.add(p.number() + " times a method its base part does not grade");
            }
        }
        assertEquals(List.of(), wrong);
    }

    @Test
    void everyStubCarriesItsPartsMarker() throws Exception {
        List<String> wrong = new ArrayList<>();
        for (Part p : Course.all()) {
            if (p.isPerformance()) {
                continue;
            }
            for (CourseMethod<?> m : p.methods()) {
                String body = CourseSources.body(m);
                if (!body.contains("// TODO(" + p.number() + "):")
                        || !body.contains("throw new ExerciseNotDone(\"" + p.number() + "\");")) {
                    wrong.add(m.signature() + " is not marked TODO(" + p.number() + ") with ExerciseNotDone(\""
                            + p.number() + "\")");
                }
                if (!CourseSources.javadoc(m).contains("Docs: " + p.docs())) {
                    wrong.add(m.signature() + "'s Javadoc does not point at " + p.docs());
                }
            }
        }
        assertEquals(List.of(), wrong);
    }
}
