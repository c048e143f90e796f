package dev.shardlings.grader.parts;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * One requirement a stub's Javadoc states in its "Graded:" line, and the checks that enforce it.
 *
 * @param method the course method whose Javadoc states it
 * @param clause the clause as written (clauses are separated by "; ")
 * @param checks the kinds of check that enforce it; at least one
 */
public record Requirement(CourseMethod<?> method, String clause, Set<Check> checks) {
    public Requirement {
        checks = Set.copyOf(checks);
        if (checks.isEmpty()) {
            throw new IllegalArgumentException("a requirement needs a check: " + clause);
        }
    }

    /**
     * The requirements of a modelled-time part of Problems 3 and 4 (stated in docs/profiles.md): the measured run
     * is right and done on the devices, then its modelled time.
     */
    public static List<Requirement> performance(CourseMethod<?> method) {
        return List.of(
                of(method, "the measured run at the book's sizes has the answer's shape, layout and values",
                        Check.VALUES, Check.LAYOUT),
                of(method, "its work runs in a shardMap: at least the problem's matmul FLOPs on the devices, no whole"
                        + " input on the host", Check.USES_SHARD_MAP, Check.FLOPS, Check.HOST_MEMORY),
                of(method, "modelled time at most 1.25× the reference's", Check.MODELLED_TIME));
    }

    /**
     * The requirements of a modelled-time part of Chapter 6: the measured run's answer, how it ran ({@code how}:
     * {@link Check#USES_JIT} or {@link Check#USES_SHARD_MAP}), and its modelled time.
     */
    public static List<Requirement> trainingPerformance(CourseMethod<?> method, Check how) {
        return List.of(
                of(method, "the measured run's answer has its shapes, layouts and values", Check.VALUES, Check.LAYOUT),
                of(method, how == Check.USES_JIT ? "it ran in programs compiled by jit" : "it ran in a shardMap", how),
                of(method, "modelled time at most 1.25× the reference's", Check.MODELLED_TIME));
    }

    /**
     * The requirements of a modelled-time part of Chapter 7, stated in its stub's "Graded (N.Mp, …):" paragraph:
     * the measured run's answer, that it ran in a shardMap, then its program part's own rules read from the trace
     * (the rows of {@code program} for {@code method} other than its values and its shardMap, word for word: the
     * measured run must keep them), a floor on every device's matmul FLOPs, and the modelled time.
     *
     * @param program    the program part's requirements, in its stub's order
     * @param flopsFloor the FLOPs floor's clause, as the grader's rule states it without the measured size's numbers
     */
    public static List<Requirement> measuredProgram(CourseMethod<?> method, List<Requirement> program,
                                                    String flopsFloor) {
        Set<Check> answer = Set.of(Check.VALUES, Check.LAYOUT, Check.USES_SHARD_MAP);
        List<Requirement> generic = trainingPerformance(method, Check.USES_SHARD_MAP);
        List<Requirement> rows = new ArrayList<>(generic.subList(0, 2));
        program.stream().filter(r -> r.method() == method && !answer.containsAll(r.checks())).forEach(rows::add);
        rows.add(of(method, flopsFloor, Check.FLOPS));
        rows.add(generic.get(2));
        return List.copyOf(rows);
    }

    /** {@code new Requirement(method, clause, Set.of(checks))}. */
    public static Requirement of(CourseMethod<?> method, String clause, Check... checks) {
        return new Requirement(method, clause, Set.of(checks));
    }
}
