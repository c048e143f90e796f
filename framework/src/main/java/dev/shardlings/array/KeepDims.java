package dev.shardlings.array;

/**
 * Whether a reduction keeps the reduced axes as size 1: numpy's {@code keepdims=} keyword, spelled out so the
 * call reads as it behaves ({@code x.mean(KeepDims.KEEP, 1)} on [B, D] gives [B, 1], ready to broadcast back
 * against x; {@code x.mean(1)} gives [B]).
 */
public enum KeepDims {
    /** {@code keepdims=True}: each reduced axis stays, with size 1. */
    KEEP,
    /** {@code keepdims=False}, the default: the reduced axes are removed. */
    DROP;

    boolean keep() {
        return this == KEEP;
    }
}
