package dev.shardlings.grader;

import dev.shardlings.array.NDArray;

/** Pieces of the text a failing part shows the student. */
public final class Reports {

    /** Arrays up to this many elements are printed whole in a report. */
    static final int PRINT_LIMIT = 64;

    private Reports() {
    }

    /** {@code Part 1.2a (roll within shards with shardMap) <what>.} and a blank line. */
    public static String header(Part part, String what) {
        return "Part " + part.number() + " (" + part.title() + ") " + what + ".\n";
    }

    /** Where the stub is and which docs section explains the part. */
    public static String pointers(Part part) {
        return "Code: " + part.startAt() + "\nDocs: " + part.docs() + "\n";
    }

    /** The array printed in full when small, else its type and a note. */
    public static String show(NDArray a) {
        if (a.size() <= PRINT_LIMIT) {
            return a.toString();
        }
        return a.describe() + " (" + a.size() + " elements; too large to print whole)";
    }

    /** Python-style tuple of ints: {@code (3, 1)}, {@code (4,)}. */
    public static String tuple(int... xs) {
        StringBuilder sb = new StringBuilder("(");
        for (int i = 0; i < xs.length; i++) {
            if (i > 0) {
                sb.append(", ");
            }
            sb.append(xs[i]);
        }
        if (xs.length == 1) {
            sb.append(',');
        }
        return sb.append(')').toString();
    }
}
