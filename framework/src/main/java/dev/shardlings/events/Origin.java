package dev.shardlings.events;

/** What ran a traced per-device program: the program's author, as far as the grader is concerned. */
public enum Origin {
    /** A {@code shardMap} the program called: per-device code written by hand (Manual axes). */
    SHARD_MAP,
    /** A program compiled by {@code jit}: the partitioner chose what each device computes and communicates. */
    JIT,
    /** One global-view operation of {@code ShardedArray} run eagerly (a one-operation program). */
    GLOBAL_OP,
    /**
     * A program compiled by {@code jit} that contains a {@code shardMap} region: the partitioner chose the layouts
     * around it, and inside it every device ran per-device code written by hand.
     */
    JIT_WITH_SHARD_MAP;

    /** True when per-device code written by hand ran: a shardMap, alone or as a region of a jit program. */
    public boolean handWritten() {
        return this == SHARD_MAP || this == JIT_WITH_SHARD_MAP;
    }

    /** True for a program compiled by {@code jit}, with or without a shardMap region. */
    public boolean compiledByJit() {
        return this == JIT || this == JIT_WITH_SHARD_MAP;
    }
}
