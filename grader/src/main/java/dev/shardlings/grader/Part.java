package dev.shardlings.grader;

/**
 * One graded part of the course.
 *
 * @param number  the part number, e.g. {@code "1.1a"} (Gradescope's {@code number})
 * @param title   a short title
 * @param points  points for a pass
 * @param startAt where the student's stub is: file and method
 * @param docs    the docs page and section that explain it
 * @param hint    one sentence that helps most when the values are wrong
 */
public record Part(String number, String title, int points, String startAt, String docs, String hint) {
}
