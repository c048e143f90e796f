package dev.shardlings.grader;

import java.util.List;
import java.util.Set;

/**
 * One requirement a stub's Javadoc states in its "Graded:" line, and the checks that enforce it.
 *
 * @param method the course method whose Javadoc states it
 * @param clause the clause as written (clauses are separated by "; ")
 * @param checks the kinds of check that enforce it; at least one
 */
public record Requirement(CourseMethod method, String clause, Set<Check> checks) {
    public Requirement {
        checks = Set.copyOf(checks);
        if (checks.isEmpty()) {
            throw new IllegalArgumentException("a requirement needs a check: " + clause);
        }
    }

    /** {@code new Requirement(method, clause, Set.of(checks))}. */
    public static Requirement of(CourseMethod method, String clause, Check... checks) {
        return new Requirement(method, clause, Set.of(checks));
    }

    /** Requirements of one method: {@code clauses} alternate clause text and a {@link Check} or {@code Check[]}. */
    static List<Requirement> list(CourseMethod method, Object... clauses) {
        List<Requirement> out = new java.util.ArrayList<>();
        for (int i = 0; i < clauses.length; i += 2) {
            Object c = clauses[i + 1];
            Check[] checks = c instanceof Check one ? new Check[]{one} : (Check[]) c;
            out.add(of(method, (String) clauses[i], checks));
        }
        return out;
    }
}
