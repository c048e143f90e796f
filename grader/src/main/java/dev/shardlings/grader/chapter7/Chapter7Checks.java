package dev.shardlings.grader.chapter7;

import dev.shardlings.grader.parts.Part;

import java.util.List;
import java.util.stream.Stream;

/**
 * Chapter 7's table of parts (training at scale: 2-D FSDP × tensor parallelism, pipeline parallelism, ring
 * attention): the rows live beside their checks, one class per topic in this package; this class lists them in
 * course order (each topic's programs, then its modelled-time parts).
 */
public final class Chapter7Checks {

    /** Chapter 7, whose stubs are in {@code Chapter7.java}. */
    public static final Part.Chapter CHAPTER = Chapter7Course.CHAPTER;

    /** The parts of chapter 7, in course order. */
    public static final List<Part> PARTS = Stream.of(
            FsdpTpChecks.PARTS,
            PipelineChecks.PARTS,
            RingAttentionChecks.PARTS,
            ZeroChecks.PARTS,
            MixedPrecisionChecks.PARTS,
            RematChecks.PARTS
    ).flatMap(List::stream).toList();

    private Chapter7Checks() {
    }
}
