package dev.shardlings.trace;

/** What ran a traced per-device program: the program's author, as far as the grader is concerned. */
public enum Origin {
    /** A {@code shardMap} the program called: per-device code written by hand (Manual axes). */
    SHARD_MAP,
    /** A program compiled by {@code jit}: the partitioner chose what each device computes and communicates. */
    JIT,
    /** One global-view operation of {@code ShardedArray} run eagerly (a one-operation program). */
    GLOBAL_OP
}
