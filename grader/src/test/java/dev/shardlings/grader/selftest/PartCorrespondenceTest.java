package dev.shardlings.grader.selftest;

import dev.shardlings.grader.CourseMethod;
import dev.shardlings.grader.Part;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Parts, graded test classes, course methods, stubs and docs correspond one to one: every part has exactly one
 * graded test class, every course method belongs to exactly one (non-performance) part, every stub of a part
 * carries that part's task marker, throws its {@code ExerciseNotDone} and points at the part's docs section.
 * (Signatures against exercises/ and solutions/ are {@code CourseMethodTest}'s; that every docs link names an
 * existing heading is {@code DocsLinksTest}'s.)
 */
class PartCorrespondenceTest {

    @Test
    void everyPartHasExactlyOneGradedTestClass() throws Exception {
        Map<Part, List<Class<?>>> classes = CourseSources.gradedClasses();
        List<String> wrong = new ArrayList<>();
        for (Part p : Part.values()) {
            List<Class<?>> cs = classes.getOrDefault(p, List.of());
            if (cs.size() != 1) {
                wrong.add(p.number() + " has " + cs.size() + " graded test classes: " + cs);
            }
        }
        assertEquals(List.of(), wrong);
    }

    @Test
    void everyCourseMethodBelongsToExactlyOnePart() {
        List<String> wrong = new ArrayList<>();
        for (CourseMethod m : CourseMethod.values()) {
            List<Part> owners = Part.all().stream().filter(p -> !p.isPerformance() && p.methods().contains(m)).toList();
            if (owners.size() != 1) {
                wrong.add(m.signature() + " belongs to " + owners);
            }
        }
        for (Part p : Part.values()) {
            Set<String> files = new java.util.HashSet<>(p.methods().stream().map(CourseMethod::className).toList());
            if (p.methods().isEmpty() || files.size() != 1) {
                wrong.add(p.number() + " has methods in " + files + "; a part's methods live in one file");
            }
            if (p.isPerformance() && Part.byNumber(p.number().replace("p", "")).map(b -> !b.methods()
                    .contains(p.methods().get(0))).orElse(true)) {
                wrong.add(p.number() + " times a method its base part does not grade");
            }
        }
        assertEquals(List.of(), wrong);
        assertEquals(EnumSet.allOf(CourseMethod.class), EnumSet.copyOf(Part.all().stream()
                .flatMap(p -> p.methods().stream()).toList()));
    }

    @Test
    void everyStubCarriesItsPartsMarker() throws Exception {
        List<String> wrong = new ArrayList<>();
        for (Part p : Part.values()) {
            if (p.isPerformance()) {
                continue;
            }
            for (CourseMethod m : p.methods()) {
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
