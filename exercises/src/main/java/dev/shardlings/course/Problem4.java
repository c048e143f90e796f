package dev.shardlings.course;

// What the tasks below use; an import left unused is harmless.
import dev.shardlings.ExerciseNotDone;
import dev.shardlings.array.NDArray;
import dev.shardlings.spmd.ShardedArray;

import java.util.List;

import static dev.shardlings.sharding.PartitionSpec.P;
import static dev.shardlings.spmd.Collectives.*;
import static dev.shardlings.spmd.ShardMap.shardMap;

/**
 * Problem 4 — bidirectional collective matmuls (worked problem 4). The versions of Problem 3 send everything one
 * way round the ring along Y, so half of every link — its other direction — sits idle. Here half of the data goes
 * up the ring (s → s + 1) and half goes down (s → s − 1), so each direction carries half as much and, on
 * hardware, the communication takes about half as long.
 *
 * <p>Graded for every part: values (on every device, replicas included); only ppermutes over Y, each a shift by
 * one step round the ring, in both directions when Y has at least 3 devices; per device, each direction carries at
 * most half of the bytes the one-way version sends (rounded up to whole blocks in 4.0 and 4.2, where no message
 * may be larger than one block [B/X, D/Y]); the same matmul FLOPs as the one-way version. Either design passes
 * 4.0 and 4.2: half blocks both ways for n − 1 steps, or whole blocks both ways for about n/2 steps.
 * Read {@code docs/problem-4.md}; grade with {@code mvn test -Pgrade}.
 *
 * <p>This file stands alone: use the framework, the JDK and this class only, never another course file (copy a
 * helper you need into this file). Each course file is graded on its own, and one that does not compile is
 * graded as its stub, so a helper taken from it would break this file too.
 */
public final class Problem4 {

    private Problem4() {
    }

    /**
     * Part 4.0 — bidirectional 3.0: A[B_X, D_Y] ·_D W[D, F_Y] → Out[B_X, F_Y], layouts as in 3.0. D/Y is even: split
     * each A chunk into two halves along D and send them opposite ways round the ring.
     *
     * <p>Graded: values (on every device, replicas included); only ppermutes over Y, each one step round the ring,
     * both ways when Y has at least 3 devices; no message larger than one A block [B/X, D/Y]; each direction at most
     * ⌈(n − 1)/2⌉ blocks; every matmul contracts at most D/Y; 2·(B/X)·D·(F/Y) matmul FLOPs per device.
     * Docs: docs/problem-4.md#part-40-bidirectional-all-gather-collective-matmul
     */
    public static ShardedArray allGatherMatmul(ShardedArray a, ShardedArray w) {
        // TODO(4.0): If each half of a chunk travels its own way round the ring, which chunk's half does a device
        //  hold after s steps in each direction, and how many steps until every device has used every chunk?
        throw new ExerciseNotDone("4.0");
    }

    /**
     * Part 4.1 — bidirectional 3.1: A[B_X, D_Y] ·_D W[D_Y, F] → Out[B_X, F], layouts as in 3.1, with the all-reduce
     * built from ppermutes instead of psum: reduce-scatter then all-gather around the ring, half of the partial
     * product (along F, which is a multiple of 2·Y) going up and half going down. The result is equal on every
     * device along Y, but ppermute leaves it marked as varying: declare the out spec with {@code checkVma(false)}.
     *
     * <p>Graded: values (on every device, replicas included); only ppermutes over Y (no psum), each one step round
     * the ring, both ways when Y has at least 3 devices; each direction at most (n − 1)/n · V bytes, V = the bytes
     * of the [B/X, F] partial product (on a ring of 2, 2(n − 1)/n · V); 2·(B/X)·(D/Y)·F matmul FLOPs per device.
     * Docs: docs/problem-4.md#part-41-bidirectional-all-reduce-collective-matmul
     */
    public static ShardedArray allReduceMatmul(ShardedArray a, ShardedArray w) {
        // TODO(4.1): An all-reduce is a reduce-scatter followed by an all-gather: how do you write each with
        //  one-step ppermutes, and how do you split the partial product so that both directions carry half?
        throw new ExerciseNotDone("4.1");
    }

    /**
     * Part 4.2 — bidirectional 3.2: Tmp[B_X, F_Y] ·_F W2[F_Y, D] → Out[B_X, D_Y], layouts as in 3.2. D/Y is even:
     * split each accumulator into its left and right halves and pass them opposite ways round the ring.
     *
     * <p>Graded: values (on every device, replicas included); only ppermutes over Y, each one step round the ring,
     * both ways when Y has at least 3 devices; no message larger than one accumulator block [B/X, D/Y]; each
     * direction at most ⌈(n − 1)/2⌉ blocks; every matmul computes at most D/Y columns; 2·(B/X)·(F/Y)·D matmul FLOPs
     * per device.
     * Docs: docs/problem-4.md#part-42-bidirectional-reduce-scatter-collective-matmul
     */
    public static ShardedArray reduceScatterMatmul(ShardedArray tmp, ShardedArray w2) {
        // TODO(4.2): With each accumulator split into a left and a right half going opposite ways, which chunk must
        //  each half start with so that it arrives complete at its owner?
        throw new ExerciseNotDone("4.2");
    }
}
