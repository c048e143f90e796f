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
                performanceClausesStated(p, wrong);
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

    /**
     * A performance part whose rows are one of the generic sets (the measured run's answer, how it ran, the modelled
     * time) is stated once for all in docs/profiles.md; one that checks more on its measured run (Chapter 7's, which
     * keep their program part's rules and a FLOPs floor) must state every clause in its stub's "Graded (N.Mp, …):"
     * paragraph, and a stub that states one must match the rows.
     */
    private static void performanceClausesStated(Part p, List<String> wrong) throws Exception {
        CourseMethod<?> m = p.methods().get(0);
        List<String> stated = CourseSources.performanceClauses(m, p.number());
        List<String> rows = p.requirements().stream().map(Requirement::clause).toList();
        boolean generic = rows.equals(clauses(Requirement.performance(m)))
                || rows.equals(clauses(Requirement.trainingPerformance(m, Check.USES_SHARD_MAP)))
                || rows.equals(clauses(Requirement.trainingPerformance(m, Check.USES_JIT)));
        if (stated.isEmpty() && !generic) {
            wrong.add(p.number() + " checks more than a performance part's generic clauses, but " + m.signature()
                    + " has no \"Graded (" + p.number() + ", …):\" paragraph stating " + rows);
        } else if (!stated.isEmpty() && !stated.equals(rows)) {
            wrong.add(p.number() + " " + m.signature() + ":\n    stub states " + stated + "\n    table has   " + rows);
        }
    }

    private static List<String> clauses(List<Requirement> rows) {
        return rows.stream().map(Requirement::clause).toList();
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
