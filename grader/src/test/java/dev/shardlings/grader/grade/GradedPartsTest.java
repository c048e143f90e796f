package dev.shardlings.grader.grade;

/**
 * {@code mvn verify} grades every part against the implementation chosen by {@code -Dgrade.target} (the
 * solutions in the course's repository): Surefire runs {@link GradedParts}' parts through this class, and
 * {@code GradingListener} writes results.json. A student release excludes it (the stubs fail every part).
 */
class GradedPartsTest extends GradedParts {
}
