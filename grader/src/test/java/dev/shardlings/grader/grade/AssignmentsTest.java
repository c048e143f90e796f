package dev.shardlings.grader.grade;

import dev.shardlings.grader.parts.Part;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Assignments: one per chapter and the course by default, the instructor's own validated with named errors. */
class AssignmentsTest {

    @Test
    void everyChapterIsAnAssignmentAndTheCourseIsTheSumOfThem() {
        Assignments a = Assignments.defaults();
        assertEquals(List.of("chapter-0", "problem-1", "problem-2", "problem-3", "problem-4", "chapter-5",
                "chapter-6", "chapter-7", "course"), a.all().stream().map(Assignments.Assignment::name).toList());
        assertEquals(Course.all(), a.named("").parts());
        assertEquals(a.named("course").points(), a.all().stream().filter(x -> !x.name().equals("course"))
                .mapToInt(Assignments.Assignment::points).sum(), "each part in exactly one chapter");
        assertTrue(a.named("problem-3").parts().stream().anyMatch(Part::isPerformance), "3.0p is Problem 3's");
        assertTrue(a.named("problem-1").parts().stream().allMatch(p -> p.number().startsWith("1.")));
    }

    @Test
    void anInstructorsAssignmentsAreReadInCourseOrder() {
        Assignments a = Assignments.parse("{\"week-1\": [\"1.2a\", \"0.*\"], \"performance\": [\"*p\"]}", "f");
        Assignments.Assignment week = a.named("week-1");
        assertEquals("0.1", week.parts().get(0).number());
        assertEquals("1.2a", week.parts().get(week.parts().size() - 1).number());
        assertTrue(a.named("performance").parts().stream().allMatch(Part::isPerformance));
        assertEquals(a.named("performance").parts().size(), Course.all().stream().filter(Part::isPerformance).count());
    }

    @Test
    void mistakesInTheFileAreNamed() {
        assertMessage("f: 'w': '9.1', 'x' match no part (the parts: 0.1", "{\"w\": [\"9.1\", \"1.*\", \"x\"]}");
        assertMessage("f: 'problem-1' is already an assignment", "{\"problem-1\": [\"1.*\"]}");
        assertMessage("f: the assignment name 'Week 1' must be", "{\"Week 1\": [\"1.*\"]}");
        assertMessage("f: 'w' must be a non-empty list", "{\"w\": []}");
        assertMessage("f: 'w' lists 3, not a part number", "{\"w\": [3]}");
        assertMessage("f must be a JSON object", "[\"1.*\"]");
        assertMessage("f is not JSON", "{\"w\": ");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Assignments.defaults().named("week-9"));
        assertTrue(e.getMessage().startsWith("no assignment 'week-9'; the assignments: chapter-0, problem-1"),
                e.getMessage());
    }

    @Test
    void gradeOptionsNarrowTheAssignmentByPartsAndTestGlobs() throws Exception {
        GradeOptions o = new GradeOptions();
        new CommandLine(o).parseArgs("--test-classes=x", "--assignment=problem-1", "--parts=1.2*,1.1b",
                "--only=Part12a*");
        assertEquals(List.of("1.2a"), o.selectedParts().stream().map(Part::number).toList());
        assertTrue(o.asArguments().containsAll(List.of("--assignment=problem-1", "--parts=1.2*,1.1b",
                "--only=Part12a*")), o.asArguments().toString());
        GradeOptions unset = new GradeOptions();
        new CommandLine(unset).parseArgs("--test-classes=x", "--assignment=${assignment}", "--parts=${parts}");
        assertEquals(Course.all(), unset.selectedParts(), "a Maven property nobody set selects every part");
        GradeOptions wrong = new GradeOptions();
        new CommandLine(wrong).parseArgs("--test-classes=x", "--parts=9.9");
        assertThrows(IllegalArgumentException.class, wrong::selectedParts);
    }

    @Test
    void aResultsFileOfAnAssignmentScoresOnlyItsParts() {
        Assignments.Assignment p1 = Assignments.defaults().named("problem-1");
        Results r = Results.of("exercises", p1.parts(), Map.of(), 0, "", Map.of("assignment", p1.name()));
        assertEquals(p1.parts().size(), r.tests().size());
        assertEquals(p1.points(), r.maxScore());
        assertEquals("problem-1", r.extraData().get("assignment"));
    }

    private static void assertMessage(String start, String json) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Assignments.parse(json, "f"));
        assertTrue(e.getMessage().startsWith(start), e.getMessage());
    }
}
