package dev.shardlings.array;

/**
 * What kind of work a local operation on one device is: how its FLOPs and bytes are counted, and whether the cost
 * model folds it into the operation that reads its result. Every {@link LocalOp} has one.
 */
public enum OpKind {
    /** A new array from nothing (zeros, arange, a literal): no FLOPs, bytes = the result; fused into its consumer. */
    CREATE(true),
    /** One FLOP per result element (add, sin, convert, …); bytes = operands + result. */
    ELEMENTWISE(false),
    /** One FLOP per operand element (reduce_sum, argmax, sort, …); bytes = operands + result. */
    REDUCTION(false),
    /**
     * Index arithmetic (slice, transpose, broadcast, take of a fixed index, roll): no FLOPs, reads what it writes;
     * XLA fuses it into its consumer, so the cost model gives it no time of its own.
     */
    INDEXING(true),
    /** Data copied into a new buffer (copy, concatenate, gather by an index array): no FLOPs, reads what it writes. */
    COPY(false),
    /** A matmul: 2·m·k·n FLOPs; bytes = operands + result. */
    MATMUL(false),
    /** n operands added into one: (n − 1)·size FLOPs; bytes = operands + result. */
    ADD_N(false);

    private final boolean fuses;

    OpKind(boolean fuses) {
        this.fuses = fuses;
    }

    /** True when the cost model folds the operation into its consumer (XLA's fusion), giving it no time of its own. */
    public boolean fusesIntoConsumer() {
        return fuses;
    }
}
