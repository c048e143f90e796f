package dev.shardlings.grader;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a test class as the tests of one graded part. The part scores its points when every test of the class
 * passes, and 0 otherwise. The part's title, points and pointers live in {@link Part}.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface GradedPart {
    /** The part number as listed in {@link Part}, e.g. {@code "1.1a"}. */
    Part value();
}
