package dev.shardlings.grader.parts;

/**
 * The outcome of a passing performance part ({@link Part.Timed}).
 *
 * @param micros    the modelled time of the implementation, µs
 * @param reference the reference solution's, µs
 * @param note      the line for the report: both times and the limit
 */
public record TimedResult(double micros, double reference, String note) {
}
