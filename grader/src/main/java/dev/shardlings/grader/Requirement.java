package dev.shardlings.grader;

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
}
