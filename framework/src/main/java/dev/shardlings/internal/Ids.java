package dev.shardlings.internal;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Ids of the operations that made arrays, unique in the JVM and increasing: the trace's event ids, the ids the
 * host recording gives the arrays it sees made, and those of arrays a program receives. An array carries the id
 * of the operation that made its buffer, so an id above the value of {@link #last()} taken before a call proves
 * that the array was made, by the framework, during that call (the grader's provenance check).
 */
public final class Ids {

    private static final AtomicLong LAST = new AtomicLong();

    private Ids() {
    }

    /** A fresh id, above every id given so far. */
    public static long next() {
        return LAST.incrementAndGet();
    }

    /** The last id given (0 before the first). */
    public static long last() {
        return LAST.get();
    }
}
