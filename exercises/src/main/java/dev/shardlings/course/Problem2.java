package dev.shardlings.course;

// What the tasks below use; an import left unused is harmless.
import dev.shardlings.ExerciseNotDone;
import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.jit.Jit;
import dev.shardlings.spmd.ShardMap;
import dev.shardlings.spmd.ShardedArray;

import java.util.ArrayList;
import java.util.List;

import static dev.shardlings.sharding.PartitionSpec.P;
import static dev.shardlings.spmd.Collectives.*;
import static dev.shardlings.spmd.ShardMap.shardMap;
import static dev.shardlings.spmd.Tiling.TILED;

/**
 * Problem 2 — a mixture of experts (worked problem 2 of "How To Scale Your Model", part 10). E expert matrices
 * W f32[E, D, F], activations A f32[S, D] and a routing B int32[S] with values in [0, E): token i goes through expert
 * B[i], Out[i] = A[i] · W[B[i]], so Out is f32[S, F]. Sharded, the experts are split over X and the hidden columns
 * over Y: W[E_X, D, F_Y], A[S_X, D_Y], B[S_X], Out[S_X, F_Y].
 *
 * <p>Useful here: {@code NDArray.take(indices, axis)} (gather rows by an int32 index array), {@code argsort()}
 * (stable), {@code w.take(0, e)} (one expert's [D, F] matrix), {@code toIntArray()} (read routing values in Java).
 * Read {@code docs/problem-2.md} first; grade with {@code mvn test -Pgrade}.
 *
 * <p>This file stands alone: use the framework, the JDK and this class only, never another course file (copy a
 * helper you need into this file). Each course file is graded on its own, and one that does not compile is
 * graded as its stub, so a helper taken from it would break this file too.
 */
public final class Problem2 {

    private Problem2() {
    }

    /**
     * Part 2.1 — the local version, on one device: A f32[S, D], W f32[E, D, F], B int32[S] → Out f32[S, F] with
     * Out[i] = A[i] · W[B[i]].
     *
     * <p>Do not build an [S, D, F] array (W.take(B, 0) would: every token's own copy of its expert). Group the
     * tokens by expert and multiply each group by its expert once.
     *
     * <p>Graded: values (routings: uniform, all tokens to one expert, experts that get no token); no shardMap; no
     * array of S·D·F elements or more is allocated; each expert's tokens in one matmul: exactly 2·S·D·F matmul
     * FLOPs, at most one matmul per expert that has tokens.
     * Docs: docs/problem-2.md#part-21-the-local-version
     */
    public static NDArray moeLocal(NDArray a, NDArray w, NDArray b) {
        // TODO(2.1): Which ordering of the tokens puts each expert's tokens next to each other? Once each group is
        //  multiplied by its expert, how do the rows return to the tokens' order?
        throw new ExerciseNotDone("2.1");
    }

    /**
     * Part 2.2 — jit the local version (the book's question 2): the same layouts as 2.3a, A[S_X, D_Y],
     * W[E_X, D, F_Y], B[S_X], on a mesh whose axes are Auto; Out[S_X, F_Y]. Write the MoE on whole arrays and
     * compile it with {@code Jit.jit}. The sort-based 2.1 cannot be traced: its group sizes depend on B's values.
     *
     * <p>Graded: values and layout; compiled by jit, with no hand-written shardMap.
     * Docs: docs/problem-2.md#part-22-jit-the-local-version-and-read-what-the-compiler-did
     */
    public static ShardedArray moeJit(ShardedArray a, ShardedArray w, ShardedArray b) {
        // TODO(2.2): Which form of the MoE has shapes that depend on E, S and D only, never on B's values? Which
        //  array says, for every token and expert, whether the token goes there? How does jit learn the layout
        //  Out must have?
        throw new ExerciseNotDone("2.2");
    }

    /**
     * Part 2.2, the report: how many bytes one device receives in the collectives of the program {@link #moeJit}
     * compiles for these arguments (read the compiled program: {@code lower(a, w, b)} gives its {@code asText()} and
     * {@code costAnalysis()}).
     *
     * <p>Graded: equal to the most bytes any device received in the collectives of the program moeJit ran, read
     * from the trace.
     * Docs: docs/problem-2.md#part-22-jit-the-local-version-and-read-what-the-compiler-did
     */
    public static int moeJitBytesReceived(ShardedArray a, ShardedArray w, ShardedArray b) {
        // TODO(2.2): Which part of the compiled program reports what one device receives, and must it be the same
        //  program moeJit runs?
        throw new ExerciseNotDone("2.2");
    }

    /**
     * Part 2.3a — sharded, by gathering: A[S_X, D_Y] laid out {@code P("X", "Y")}, W[E_X, D, F_Y]
     * {@code P("X", null, "Y")}, B[S_X] {@code P("X")}; Out[S_X, F_Y] laid out {@code P("X", "Y")}.
     *
     * <p>Gather what each device lacks (all tokens, all of D), let each device compute the tokens routed to its own
     * E/X experts for its F/Y columns (zeros for the others), and combine the devices' rows over X.
     *
     * <p>Graded: values and layout; all-gathers over X carry the tokens (rows of A, entries of B) and no collective
     * carries an expert block; each device's matmuls do exactly 2·n·D·(F/Y) FLOPs, n = the tokens routed to its
     * experts.
     * Docs: docs/problem-2.md#part-23a-gather-then-compute
     */
    public static ShardedArray moeAllGather(ShardedArray a, ShardedArray w, ShardedArray b) {
        // TODO(2.3a): What must a device see whole to compute its experts' tokens for its F/Y columns? After that,
        //  every device has rows for all S tokens, most of them zero: which collective both adds them over X and
        //  leaves each device its own rows?
        throw new ExerciseNotDone("2.3a");
    }

    /**
     * Part 2.3b — sharded, ragged all-to-all: same layouts as 2.3a. Send each token only to the device that holds
     * its expert and send the result back, with allToAll over X, at most {@code capacity} tokens per (source,
     * destination) pair per round, in as many rounds as the busiest pair needs (agree on that number with a
     * collective first). Pad a round's buffer with zero rows and mark them so that no device multiplies them.
     *
     * <p>Graded: values; at least one all-to-all over X (when X > 1); no all-gather over X; each device's matmuls
     * do exactly 2·n·D·(F/Y) FLOPs, n = the tokens routed to its experts (no padded compute); no single array on a
     * device larger than the largest of (S/X + 1)·D, (X·capacity + 1)·D, D·(F/Y), (X·capacity + 1)·(F/Y) and
     * (S/X + 1)·(F/Y) elements (one device's tokens or one round's buffers, each with a zero row) — far below the
     * (E/X)·S·D of a masked [E/X, S, D] buffer.
     * Docs: docs/problem-2.md#part-23b-ragged-all-to-all
     */
    public static ShardedArray moeAllToAll(ShardedArray a, ShardedArray w, ShardedArray b, int capacity) {
        // TODO(2.3b): How does every device learn how many rounds the busiest pair needs? In one round, what does
        //  the buffer for one destination hold, and how does the receiver tell a padding row from a token?
        throw new ExerciseNotDone("2.3b");
    }

    /**
     * Part 2.4, local — top-k routing: B int32[S, k]; Out[i] is the mean over j of A[i] · W[B[i, j]] (an expert may
     * appear twice in one token's row; it then counts twice). Part 2.4 passes when both methods do.
     *
     * <p>Graded: values; no shardMap; no array of S·D·F elements or more; each expert's (token, expert) pairs in one
     * matmul: exactly 2·S·k·D·F matmul FLOPs, at most one matmul per expert that has pairs.
     * Docs: docs/problem-2.md#part-24-top-k-routing
     */
    public static NDArray moeTopKLocal(NDArray a, NDArray w, NDArray b) {
        // TODO(2.4): With k experts per token, what are the items you route? How do their results become one row
        //  per token?
        throw new ExerciseNotDone("2.4");
    }

    /**
     * Part 2.4, sharded — top-k on top of 2.3b: A {@code P("X", "Y")}, W {@code P("X", null, "Y")}, B int32[S, k]
     * laid out {@code P("X", null)}; Out laid out {@code P("X", "Y")}.
     *
     * <p>Graded: as 2.3b with the S·k (token, expert) pairs in place of the S tokens.
     * Docs: docs/problem-2.md#part-24-top-k-routing
     */
    public static ShardedArray moeTopKAllToAll(ShardedArray a, ShardedArray w, ShardedArray b, int capacity) {
        // TODO(2.4): What changes from 2.3b when the routed items are (token, expert) pairs, and where do the k
        //  results of one token meet again?
        throw new ExerciseNotDone("2.4");
    }
}
