package dev.shardlings.grader.parts;

/**
 * What a check enforces. Every check records its kind in {@link CheckLog} when it runs, and every requirement a
 * stub's "Graded:" line states names the kinds that enforce it ({@link Requirement}); {@code RequirementsTest}
 * grades the solutions and fails the build when a stated requirement's check never ran.
 */
public enum Check {
    /** The values on every device, replicas included, against an oracle computed on the whole arrays. */
    VALUES,
    /** The result's global shape, dtype and layout (out spec). */
    LAYOUT,
    /** The code ran at least one shardMap (the work happens in a per-device program). */
    USES_SHARD_MAP,
    /** The code ran no shardMap (a global-view part). */
    NO_SHARD_MAP,
    /** The work ran in a program compiled by jit, and no shardMap was written by hand. */
    USES_JIT,
    /** No collective at all. */
    NO_COLLECTIVES,
    /** Which collectives, over which axes, how many and in which order. */
    COLLECTIVES,
    /** The operand of each collective: its shape, and so which array it carries. */
    OPERANDS,
    /** Each ppermute is one step round the ring; which directions are used. */
    RING_STEPS,
    /** Bytes sent per ring direction. */
    BYTES,
    /** The matmul FLOPs of every device. */
    FLOPS,
    /** The shape or the number of the matmuls (one chunk or tile each, one per group). */
    MATMULS,
    /** No array as large as a stated bound on the host (e.g. the whole input gathered in one place). */
    HOST_MEMORY,
    /** No array as large as a stated bound on any device. */
    DEVICE_MEMORY,
    /** The dataflow lets communication overlap compute: each collective's operand comes from its own products. */
    OVERLAP,
    /** A figure the student reports about a compiled program (bytes received), against that program's trace. */
    REPORTED_COMMUNICATION,
    /** A pipeline's schedule read from the trace: which stage runs which microbatch at each step, and its bubble. */
    SCHEDULE,
    /** The modelled time on the part's hardware, against the reference. */
    MODELLED_TIME
}
