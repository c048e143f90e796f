package dev.shardlings.spmd;

/**
 * How a collective lays out the blocks it moves: JAX's {@code tiled=} keyword, spelled out so the call reads as
 * it behaves ({@code allGather(x, "X", 0, Tiling.TILED)} rather than {@code allGather(x, "X", 0, true)}).
 *
 * <p>For x of shape [I, J] on a group of n devices:
 * <ul>
 *   <li>{@code allGather} along dim 0: {@link #TILED} concatenates to [n·I, J]; {@link #UNTILED} stacks along a
 *       new dimension to [n, I, J].</li>
 *   <li>{@code psumScatter} along dim 0: {@link #TILED} keeps the rank, giving [I/n, J]; {@link #UNTILED} needs
 *       I = n and removes the dimension, giving [J].</li>
 *   <li>{@code allToAll}: {@link #TILED} splits and concatenates along existing dimensions; {@link #UNTILED}
 *       needs the split dimension to equal n, removes it and inserts a new dimension of size n at the concat
 *       dimension.</li>
 * </ul>
 */
public enum Tiling {
    /** {@code tiled=True}: blocks are concatenated along (or split from) an existing dimension. */
    TILED,
    /** {@code tiled=False}, JAX's default: a dimension of size n is added (all-gather) or removed. */
    UNTILED;

    boolean tiled() {
        return this == TILED;
    }
}
