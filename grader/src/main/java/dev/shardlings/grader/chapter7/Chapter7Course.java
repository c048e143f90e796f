package dev.shardlings.grader.chapter7;

import dev.shardlings.grader.parts.Part;

/**
 * Chapter 7 as the topic classes' rows name it. It lives apart from {@link Chapter7Checks}, whose table reads the
 * topic classes' rows: with both in one class, a topic class loaded first would read the table while it is built
 * (a null in it).
 */
final class Chapter7Course {

    /** Chapter 7, whose stubs are in {@code Chapter7.java}. */
    static final Part.Chapter CHAPTER = new Part.Chapter("chapter 7", "training at scale", "Chapter7");

    private Chapter7Course() {
    }
}
