package dev.shardlings.grader.judge;

import dev.shardlings.events.Trace;
import dev.shardlings.grader.parts.Part;

import java.util.Objects;

/**
 * One call of student code on one test case that returned: what every check of the case needs to know. Made by
 * {@link Guard#run}; the checks ({@code Checks}, {@code TraceRules.perDevice}) read the part, the case text and the
 * trace from here instead of taking them as separate arguments.
 *
 * @param part     the part under test
 * @param caseText the case in words (mesh, shapes, parameters), the second line of every report
 * @param value    what the call returned (never null: a null result fails in the Guard)
 * @param trace    what the call did: its shardMaps, each device's collectives, matmuls and allocations
 * @param <T>      the result's type: a {@code ShardedArray} for shardMap parts, an {@code NDArray} for global-view
 *                 parts
 */
public record CaseRun<T>(Part part, String caseText, T value, Trace trace) {

    public CaseRun {
        Objects.requireNonNull(part, "part");
        Objects.requireNonNull(caseText, "caseText");
        Objects.requireNonNull(value, "value");
        Objects.requireNonNull(trace, "trace");
    }

    /** A report on this case whose first line says what went wrong, with the case under it. */
    public Report report(String what) {
        return Report.of(part, what).about(caseText);
    }
}
