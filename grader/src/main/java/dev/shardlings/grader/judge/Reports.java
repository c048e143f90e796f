package dev.shardlings.grader.judge;

import dev.shardlings.array.NDArray;
import dev.shardlings.spmd.ShardedArray;

/** How values look in a report ({@link Report} puts the report together). */
public final class Reports {

    /** Arrays up to this many elements are printed whole in a report. */
    static final int PRINT_LIMIT = 64;

    private Reports() {
    }

    /**
     * The sharding picture of {@code a} for a report: {@code jax.debug.visualize_array_sharding}'s boxes, or one
     * line when a single device holds it all (an 11-line box with one name in it says less than the line).
     */
    public static String picture(ShardedArray a) {
        if (a.mesh().size() == 1) {
            return "one device, CPU " + a.mesh().devices().get(0).id() + ", holds the whole array\n";
        }
        return a.visualize();
    }

    /** The array printed in full when small, else its type and a note. */
    public static String show(NDArray a) {
        if (a.size() <= PRINT_LIMIT) {
            return a.toString();
        }
        return a.describe() + " (" + a.size() + " elements; too large to print whole)";
    }

    /**
     * The whole inputs of a case as report text: {@code inputs("A", a, "B", b)} gives "\nA:\n…\nB:\n…" with each
     * array printed whole when small.
     */
    public static String inputs(Object... nameArray) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i + 1 < nameArray.length; i += 2) {
            sb.append('\n').append(nameArray[i]).append(":\n").append(show((NDArray) nameArray[i + 1]));
        }
        return sb.toString();
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
