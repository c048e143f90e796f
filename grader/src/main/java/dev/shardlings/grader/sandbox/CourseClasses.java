package dev.shardlings.grader.sandbox;

import java.util.List;

/**
 * The course's classes, in course order: the one list every part of the grader reads (which classes a sandbox
 * request may name, which files are taken from a submission or shipped in a student release). Adding a chapter
 * means adding its class here; {@code CourseMethodTest} fails if a course method names a class not listed.
 */
public final class CourseClasses {

    /** The package every course class is in. */
    public static final String PACKAGE = "dev.shardlings.course";

    /** Simple names of the course classes, in course order. */
    public static final List<String> NAMES = List.of("Chapter0", "Problem1", "Problem2", "Problem3", "Problem4",
            "Chapter5", "Chapter6", "Chapter7");

    /** Their source files ({@code Chapter0.java} …), the only files taken from a submission. */
    public static final List<String> FILES = NAMES.stream().map(n -> n + ".java").toList();

    private CourseClasses() {
    }
}
