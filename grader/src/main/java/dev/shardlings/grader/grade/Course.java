package dev.shardlings.grader.grade;

import dev.shardlings.grader.parts.Part;
import dev.shardlings.grader.chapter0.Chapter0Checks;
import dev.shardlings.grader.chapter5.Chapter5Checks;
import dev.shardlings.grader.chapter6.Chapter6Checks;
import dev.shardlings.grader.chapter7.Chapter7Checks;
import dev.shardlings.grader.problem1.Problem1Checks;
import dev.shardlings.grader.problem2.Problem2Checks;
import dev.shardlings.grader.problem3.Problem3Checks;
import dev.shardlings.grader.problem4.Problem4Checks;

import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The part registry: every chapter's table of parts, in course order. The score table, results.json, the
 * Classroom workflow and the requirement checks read the parts from here.
 */
public final class Course {

    /** Each chapter's parts, in course order. */
    public static final List<List<Part>> CHAPTERS = List.of(Chapter0Checks.PARTS, Problem1Checks.PARTS,
            Problem2Checks.PARTS, Problem3Checks.PARTS, Problem4Checks.PARTS, Chapter5Checks.PARTS, Chapter6Checks.PARTS, Chapter7Checks.PARTS);

    private static final List<Part> ALL = Stream.concat(
            CHAPTERS.stream().flatMap(List::stream).filter(p -> !p.isPerformance()),
            CHAPTERS.stream().flatMap(List::stream).filter(Part::isPerformance)).toList();

    private Course() {
    }

    /** All parts: the programs in course order, then the modelled-time parts (3.0p …) in course order. */
    public static List<Part> all() {
        return ALL;
    }

    /** The part with this number. */
    public static Optional<Part> byNumber(String number) {
        return ALL.stream().filter(p -> p.number().equals(number)).findFirst();
    }
}
