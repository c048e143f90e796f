package dev.shardlings.grader;

import java.util.List;
import java.util.Optional;

/** Every graded part of the course, in the order of the course. The single source of titles and points. */
public final class Parts {

    private static final String P1 = "exercises/src/main/java/dev/shardlings/course/Problem1.java";

    /** Part 1.1a. */
    public static final Part P1_1A = new Part("1.1a", "per-shard mean with shardMap", 2,
            P1 + " → perShardMean", "docs/problem-1.md#part-11a-per-shard-mean-with-shardmap",
            "reduce each block to shape (1, 1) with mean(true) so that out spec P(\"X\", \"Y\") assembles an [X, Y] array.");
    /** Part 1.1b. */
    public static final Part P1_1B = new Part("1.1b", "per-shard mean in global view", 2,
            P1 + " → perShardMeanGlobal", "docs/problem-1.md#part-11b-per-shard-mean-in-global-view",
            "reshape [S, D] to [X, S/X, Y, D/Y]: axes 0 and 2 pick the shard, axes 1 and 3 run inside it.");
    /** Part 1.2a. */
    public static final Part P1_2A = new Part("1.2a", "roll within shards with shardMap", 3,
            P1 + " → rollWithinShards", "docs/problem-1.md#part-12a-roll-within-shards-with-shardmap",
            "inside shardMap each device sees only its block, so roll(block, shift, 0) can never cross a shard"
                    + " boundary; subtract the block afterwards.");
    /** Part 1.2b. */
    public static final Part P1_2B = new Part("1.2b", "roll within shards in global view", 3,
            P1 + " → rollWithinShardsGlobal", "docs/problem-1.md#part-12b-roll-within-shards-in-global-view",
            "reshape [S, D] to [X, S/X, D] and roll along axis 1: a roll along the whole axis 0 would move rows"
                    + " across shard boundaries.");

    private static final List<Part> ALL = List.of(P1_1A, P1_1B, P1_2A, P1_2B);

    private Parts() {
    }

    /** All parts in course order. */
    public static List<Part> all() {
        return ALL;
    }

    /** The part with this number. */
    public static Optional<Part> byNumber(String number) {
        return ALL.stream().filter(p -> p.number().equals(number)).findFirst();
    }
}
