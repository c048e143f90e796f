package dev.shardlings.grader.grade;

import dev.shardlings.grader.parts.Part;
import dev.shardlings.grader.chapter0.Chapter0Parts;
import dev.shardlings.grader.chapter5.Chapter5Parts;
import dev.shardlings.grader.chapter6.Chapter6Parts;
import dev.shardlings.grader.problem1.Problem1Parts;
import dev.shardlings.grader.problem2.Problem2Parts;
import dev.shardlings.grader.problem3.Problem3Parts;
import dev.shardlings.grader.problem4.Problem4Parts;

import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The part registry: every chapter's table of parts, in course order. The score table, results.json, the
 * Classroom workflow and the requirement checks read the parts from here.
 */
public final class Course {

    /** Each chapter's parts, in course order. */
    public static final List<List<Part>> CHAPTERS = List.of(Chapter0Parts.PARTS, Problem1Parts.PARTS,
            Problem2Parts.PARTS, Problem3Parts.PARTS, Problem4Parts.PARTS, Chapter5Parts.PARTS, Chapter6Parts.PARTS);

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
