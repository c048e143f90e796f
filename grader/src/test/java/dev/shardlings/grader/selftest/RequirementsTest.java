package dev.shardlings.grader.selftest;

import dev.shardlings.grader.parts.Check;
import dev.shardlings.grader.parts.CheckLog;
import dev.shardlings.grader.parts.CourseMethod;
import dev.shardlings.grader.parts.Part;
import dev.shardlings.grader.parts.Requirement;
import dev.shardlings.grader.grade.Course;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Every requirement a stub states is enforced: each clause of each "Graded:" line has a row in its part's
 * requirements (and every row a clause), and grading the reference solutions runs every kind of check each row
 * names — so a requirement added to a stub without a check, or a check dropped from a part, fails the build.
 */
class RequirementsTest {

    @Test
    void everyGradedClauseHasARowAndEveryRowAClause() throws Exception {
        List<String> wrong = new ArrayList<>();
        for (Part p : Course.all()) {
            if (p.isPerformance()) {
                continue;
            }
            for (CourseMethod<?> m : p.methods()) {
                List<String> stated = CourseSources.gradedClauses(m);
                List<String> rows = p.requirements().stream().filter(r -> r.method() == m)
                        .map(Requirement::clause).toList();
                if (stated.isEmpty()) {
                    wrong.add(m.signature() + " has no \"Graded:\" line");
                } else if (!stated.equals(rows)) {
                    wrong.add(m.signature() + ":\n    stub states " + stated + "\n    table has   " + rows);
                }
            }
        }
        assertEquals("", String.join("\n", wrong));
    }

    @Test
    void gradingTheSolutionsRunsEveryRequiredCheck() {
        CheckLog.clear();
        List<String> failed = new ArrayList<>();
        for (Part p : Course.all()) {
            // The fixed examples cover every check of a part (the random properties add cases, not checks); a
            // performance part runs whole.
            try {
                if (p.grading() instanceof Part.Timed t) {
                    t.measure().get();
                } else {
                    examples((Part.Cases<?>) p.grading());
                }
            } catch (RuntimeException | AssertionError e) {
                failed.add(p.number() + ": " + e.getMessage());
            }
        }
        assertEquals("", String.join("\n", failed), "the solutions must pass every example");
        List<String> wrong = new ArrayList<>();
        for (Part p : Course.all()) {
            for (CourseMethod<?> m : p.methods()) {
                Set<Check> required = p.checksOf(m);
                EnumSet<Check> missing = required.isEmpty() ? EnumSet.noneOf(Check.class) : EnumSet.copyOf(required);
                missing.removeAll(CheckLog.ran(p, m));
                if (!missing.isEmpty()) {
                    wrong.add(p.number() + " " + m.signature() + ": no check of kind " + missing + " ran");
                }
            }
        }
        assertEquals("", String.join("\n", wrong));
    }

    private static <C> void examples(Part.Cases<C> cases) {
        for (Part.Example<C> e : cases.examples()) {
            cases.check().accept(e.value());
        }
    }
}
