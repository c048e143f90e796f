package dev.shardlings.grader;

import java.util.List;
import java.util.Set;

/**
 * The requirements of every part: each clause of its stubs' "Graded:" lines, word for word, and the kinds of
 * check that enforce it. {@code RequirementsTest} keeps this table, the stubs and the checks in step: a clause
 * added to a stub without a row here, or a row whose checks never run when the solutions are graded, fails the
 * build. The performance parts state their requirements in docs/profiles.md; their rows are written here.
 */
public final class Requirements {

    private Requirements() {
    }

    private static Requirement req(CourseMethod method, String clause, Check... checks) {
        return Requirement.of(method, clause, checks);
    }

    /** A performance part: the measured run is right and done on the devices, then its modelled time. */
    /** Chapter 6's performance parts: the measured run's answer, how it ran, and its modelled time. */
    private static List<Requirement> trainingPerformance(CourseMethod method, Check how) {
        return List.of(
                req(method, "the measured run's answer has its shapes, layouts and values", Check.VALUES, Check.LAYOUT),
                req(method, how == Check.USES_JIT ? "it ran in programs compiled by jit" : "it ran in a shardMap",
                        how),
                req(method, "modelled time at most 1.25× the reference's", Check.MODELLED_TIME));
    }

    private static List<Requirement> performance(CourseMethod method) {
        return List.of(
                req(method, "the measured run at the book's sizes has the answer's shape, layout and values",
                        Check.VALUES, Check.LAYOUT),
                req(method, "its work runs in a shardMap: at least the problem's matmul FLOPs on the devices, no whole"
                        + " input on the host", Check.USES_SHARD_MAP, Check.FLOPS, Check.HOST_MEMORY),
                req(method, "modelled time at most 1.25× the reference's", Check.MODELLED_TIME));
    }

    /** The requirements of {@code part}, in the order its stubs state them. */
    public static List<Requirement> of(Part part) {
        return switch (part) {
            case P0_1 -> List.of(
                    req(CourseMethod.MATMUL_NO_COMMUNICATION, "values and layout",
                            Check.VALUES, Check.LAYOUT),
                    req(CourseMethod.MATMUL_NO_COMMUNICATION, "a shardMap program",
                            Check.USES_SHARD_MAP),
                    req(CourseMethod.MATMUL_NO_COMMUNICATION, "no collectives",
                            Check.NO_COLLECTIVES),
                    req(CourseMethod.MATMUL_NO_COMMUNICATION, "2·(I/X)·J·(K/Y) matmul FLOPs per device (each device multiplies its own two "
                            + "blocks once)",
                            Check.FLOPS));
            case P0_2 -> List.of(
                    req(CourseMethod.MATMUL_GATHER_A, "values and layout",
                            Check.VALUES, Check.LAYOUT),
                    req(CourseMethod.MATMUL_GATHER_A, "exactly one all-gather per device, over X, of A's block [I, J/X]",
                            Check.COLLECTIVES, Check.OPERANDS),
                    req(CourseMethod.MATMUL_GATHER_A, "2·I·J·K matmul FLOPs per device",
                            Check.FLOPS));
            case P0_3 -> List.of(
                    req(CourseMethod.MATMUL_PSUM, "values and layout",
                            Check.VALUES, Check.LAYOUT),
                    req(CourseMethod.MATMUL_PSUM, "exactly one psum per device, over X, of the partial product [I, K]",
                            Check.COLLECTIVES, Check.OPERANDS),
                    req(CourseMethod.MATMUL_PSUM, "2·I·(J/X)·K matmul FLOPs per device",
                            Check.FLOPS));
            case P0_4 -> List.of(
                    req(CourseMethod.MATMUL_REDUCE_SCATTER_ALL_GATHER, "values and layout",
                            Check.VALUES, Check.LAYOUT),
                    req(CourseMethod.MATMUL_REDUCE_SCATTER_ALL_GATHER, "one psumScatter over X of the partial product [I, K], then one allGather over X "
                            + "of the summed rows [I/X, K], and no psum",
                            Check.COLLECTIVES, Check.OPERANDS),
                    req(CourseMethod.MATMUL_REDUCE_SCATTER_ALL_GATHER, "2·I·(J/X)·K matmul FLOPs per device",
                            Check.FLOPS));
            case P0_5 -> List.of(
                    req(CourseMethod.MATMUL_SAME_AXIS_GATHER_B, "values and layout",
                            Check.VALUES, Check.LAYOUT),
                    req(CourseMethod.MATMUL_SAME_AXIS_GATHER_B, "exactly one all-gather per device, over X, of B's block [J, K/X]",
                            Check.COLLECTIVES, Check.OPERANDS),
                    req(CourseMethod.MATMUL_SAME_AXIS_GATHER_B, "2·(I/X)·J·K matmul FLOPs per device",
                            Check.FLOPS),
                    req(CourseMethod.MATMUL_SAME_AXIS_GATHER_A, "values and layout",
                            Check.VALUES, Check.LAYOUT),
                    req(CourseMethod.MATMUL_SAME_AXIS_GATHER_A, "exactly one all-gather per device, over X, of A's block [I/X, J]",
                            Check.COLLECTIVES, Check.OPERANDS),
                    req(CourseMethod.MATMUL_SAME_AXIS_GATHER_A, "2·I·J·(K/X) matmul FLOPs per device",
                            Check.FLOPS));
            case P0_6 -> List.of(
                    req(CourseMethod.PARALLEL_NORMALIZE, "values and layout",
                            Check.VALUES, Check.LAYOUT),
                    req(CourseMethod.PARALLEL_NORMALIZE, "only pmean or psum over j (at least one), each of per-row statistics (at most "
                            + "one value per row of the block), and no all-gather",
                            Check.COLLECTIVES, Check.OPERANDS));
            case P0_7 -> List.of(
                    req(CourseMethod.MATMUL_WITH_GATHERED_WEIGHT, "values and layout",
                            Check.VALUES, Check.LAYOUT),
                    req(CourseMethod.MATMUL_WITH_GATHERED_WEIGHT, "exactly one all-gather per device, over i, of w's block [D/i, F]",
                            Check.COLLECTIVES, Check.OPERANDS),
                    req(CourseMethod.MATMUL_WITH_GATHERED_WEIGHT, "2·(rows/i)·D·F matmul FLOPs per device",
                            Check.FLOPS));
            case P0_8 -> List.of(
                    req(CourseMethod.RING_SHIFT, "values and layout",
                            Check.VALUES, Check.LAYOUT),
                    req(CourseMethod.RING_SHIFT, "at most one ppermute per device, over i, of the block, and no other collective",
                            Check.COLLECTIVES, Check.OPERANDS));
            case P0_9 -> List.of(
                    req(CourseMethod.SLICE_AND_AVERAGE, "values and layout",
                            Check.VALUES, Check.LAYOUT),
                    req(CourseMethod.SLICE_AND_AVERAGE, "exactly one pmean (or psum) per device, over both x and y, of the 4 sliced "
                            + "elements",
                            Check.COLLECTIVES, Check.OPERANDS));
            case P0_10 -> List.of(
                    req(CourseMethod.FOLD_KEY_OVER_AXIS, "values and layout (the keys bit for bit)",
                            Check.VALUES, Check.LAYOUT),
                    req(CourseMethod.FOLD_KEY_OVER_AXIS, "a shardMap program",
                            Check.USES_SHARD_MAP),
                    req(CourseMethod.FOLD_KEY_OVER_AXIS, "no collectives",
                            Check.NO_COLLECTIVES));
            case P1_1A -> List.of(
                    req(CourseMethod.PER_SHARD_MEAN, "values against the mean of each block of the whole array (float tolerance), and "
                            + "layout",
                            Check.VALUES, Check.LAYOUT),
                    req(CourseMethod.PER_SHARD_MEAN, "at least one shardMap call",
                            Check.USES_SHARD_MAP),
                    req(CourseMethod.PER_SHARD_MEAN, "no collectives",
                            Check.NO_COLLECTIVES),
                    req(CourseMethod.PER_SHARD_MEAN, "no device holds an array as large as the whole input",
                            Check.DEVICE_MEMORY),
                    req(CourseMethod.PER_SHARD_MEAN, "the whole array is never gathered on the host",
                            Check.HOST_MEMORY));
            case P1_1B -> List.of(
                    req(CourseMethod.PER_SHARD_MEAN_GLOBAL, "values (float tolerance) and layout",
                            Check.VALUES, Check.LAYOUT),
                    req(CourseMethod.PER_SHARD_MEAN_GLOBAL, "compiled by jit, with no hand-written shardMap",
                            Check.USES_JIT),
                    req(CourseMethod.PER_SHARD_MEAN_GLOBAL, "the compiled program has no collective",
                            Check.NO_COLLECTIVES));
            case P1_2A -> List.of(
                    req(CourseMethod.ROLL_WITHIN_SHARDS, "values against the definition applied to each block of the whole array, and "
                            + "layout",
                            Check.VALUES, Check.LAYOUT),
                    req(CourseMethod.ROLL_WITHIN_SHARDS, "at least one shardMap call",
                            Check.USES_SHARD_MAP),
                    req(CourseMethod.ROLL_WITHIN_SHARDS, "no collectives",
                            Check.NO_COLLECTIVES),
                    req(CourseMethod.ROLL_WITHIN_SHARDS, "no device holds an array as large as the whole input",
                            Check.DEVICE_MEMORY),
                    req(CourseMethod.ROLL_WITHIN_SHARDS, "the whole array is never gathered on the host",
                            Check.HOST_MEMORY));
            case P1_2B -> List.of(
                    req(CourseMethod.ROLL_WITHIN_SHARDS_GLOBAL, "values (exact) and layout",
                            Check.VALUES, Check.LAYOUT),
                    req(CourseMethod.ROLL_WITHIN_SHARDS_GLOBAL, "compiled by jit, with no hand-written shardMap",
                            Check.USES_JIT),
                    req(CourseMethod.ROLL_WITHIN_SHARDS_GLOBAL, "the compiled program has no collective",
                            Check.NO_COLLECTIVES));
            case P2_1 -> List.of(
                    req(CourseMethod.MOE_LOCAL, "values (routings: uniform, all tokens to one expert, experts that get no token)",
                            Check.VALUES),
                    req(CourseMethod.MOE_LOCAL, "no shardMap",
                            Check.NO_SHARD_MAP),
                    req(CourseMethod.MOE_LOCAL, "no array of S·D·F elements or more is allocated",
                            Check.HOST_MEMORY),
                    req(CourseMethod.MOE_LOCAL, "each expert's tokens in one matmul: exactly 2·S·D·F matmul FLOPs, at most one "
                            + "matmul per expert that has tokens",
                            Check.FLOPS, Check.MATMULS));
            case P2_2 -> List.of(
                    req(CourseMethod.MOE_JIT, "values and layout",
                            Check.VALUES, Check.LAYOUT),
                    req(CourseMethod.MOE_JIT, "compiled by jit, with no hand-written shardMap",
                            Check.USES_JIT),
                    req(CourseMethod.MOE_JIT_BYTES_RECEIVED, "equal to the bytes every device received in the collectives "
                            + "of the program moeJit ran, read from the trace",
                            Check.REPORTED_COMMUNICATION));
            case P2_3A -> List.of(
                    req(CourseMethod.MOE_ALL_GATHER, "values and layout",
                            Check.VALUES, Check.LAYOUT),
                    req(CourseMethod.MOE_ALL_GATHER, "all-gathers over X carry the tokens (rows of A, entries of B) and no collective "
                            + "carries an expert block",
                            Check.COLLECTIVES, Check.OPERANDS),
                    req(CourseMethod.MOE_ALL_GATHER, "each device's matmuls do exactly 2·n·D·(F/Y) FLOPs, n = the tokens routed to "
                            + "its experts",
                            Check.FLOPS));
            case P2_3B -> List.of(
                    req(CourseMethod.MOE_ALL_TO_ALL, "values",
                            Check.VALUES),
                    req(CourseMethod.MOE_ALL_TO_ALL, "at least one all-to-all over X (when X > 1)",
                            Check.COLLECTIVES),
                    req(CourseMethod.MOE_ALL_TO_ALL, "no all-gather over X",
                            Check.COLLECTIVES),
                    req(CourseMethod.MOE_ALL_TO_ALL, "each device's matmuls do exactly 2·n·D·(F/Y) FLOPs, n = the tokens routed to "
                            + "its experts (no padded compute)",
                            Check.FLOPS),
                    req(CourseMethod.MOE_ALL_TO_ALL, "no single array on a device larger than the largest of (S/X + 1)·D, (X·capacity "
                            + "+ 1)·D, D·(F/Y), (X·capacity + 1)·(F/Y) and (S/X + 1)·(F/Y) elements (one "
                            + "device's tokens or one round's buffers, each with a zero row) — far below the "
                            + "(E/X)·S·D of a masked [E/X, S, D] buffer",
                            Check.DEVICE_MEMORY));
            case P2_4 -> List.of(
                    req(CourseMethod.MOE_TOP_K_LOCAL, "values",
                            Check.VALUES),
                    req(CourseMethod.MOE_TOP_K_LOCAL, "no shardMap",
                            Check.NO_SHARD_MAP),
                    req(CourseMethod.MOE_TOP_K_LOCAL, "no array of S·D·F elements or more",
                            Check.HOST_MEMORY),
                    req(CourseMethod.MOE_TOP_K_LOCAL, "each expert's (token, expert) pairs in one matmul: exactly 2·S·k·D·F matmul "
                            + "FLOPs, at most one matmul per expert that has pairs",
                            Check.FLOPS, Check.MATMULS),
                    req(CourseMethod.MOE_TOP_K_ALL_TO_ALL, "as 2.3b with the S·k (token, expert) pairs in place of the S tokens",
                            Check.VALUES, Check.LAYOUT, Check.COLLECTIVES, Check.FLOPS, Check.DEVICE_MEMORY));
            case P3_0 -> List.of(
                    req(CourseMethod.P3_ALL_GATHER_MATMUL, "values",
                            Check.VALUES),
                    req(CourseMethod.P3_ALL_GATHER_MATMUL, "only ppermutes over Y (no all-gather), exactly n − 1 per device, each of one A "
                            + "block [B/X, D/Y] and one step round the ring",
                            Check.COLLECTIVES, Check.OPERANDS, Check.RING_STEPS),
                    req(CourseMethod.P3_ALL_GATHER_MATMUL, "every matmul multiplies one A chunk (contracts at most D/Y), so each can start "
                            + "as soon as its chunk arrives",
                            Check.MATMULS),
                    req(CourseMethod.P3_ALL_GATHER_MATMUL, "2·(B/X)·D·(F/Y) matmul FLOPs per device",
                            Check.FLOPS),
                    req(CourseMethod.P3_ALL_GATHER_MATMUL_NAIVE, "values",
                            Check.VALUES),
                    req(CourseMethod.P3_ALL_GATHER_MATMUL_NAIVE, "exactly one all-gather per device, over Y, of the A block",
                            Check.COLLECTIVES, Check.OPERANDS),
                    req(CourseMethod.P3_ALL_GATHER_MATMUL_NAIVE, "2·(B/X)·D·(F/Y) matmul FLOPs per device",
                            Check.FLOPS));
            case P3_1 -> List.of(
                    req(CourseMethod.P3_ALL_REDUCE_MATMUL, "values",
                            Check.VALUES),
                    req(CourseMethod.P3_ALL_REDUCE_MATMUL, "one psum over Y per tile (at least two), each of one output tile [B/X, "
                            + "F/tiles], so the psums together reduce exactly one [B/X, F] array — no more",
                            Check.COLLECTIVES, Check.OPERANDS),
                    req(CourseMethod.P3_ALL_REDUCE_MATMUL, "every matmul computes at most one tile",
                            Check.MATMULS),
                    req(CourseMethod.P3_ALL_REDUCE_MATMUL, "each psum reduces products of its own tile only, so no reduction waits for "
                            + "every matmul",
                            Check.OVERLAP),
                    req(CourseMethod.P3_ALL_REDUCE_MATMUL, "2·(B/X)·(D/Y)·F matmul FLOPs per device",
                            Check.FLOPS));
            case P3_2 -> List.of(
                    req(CourseMethod.P3_REDUCE_SCATTER_MATMUL, "values",
                            Check.VALUES),
                    req(CourseMethod.P3_REDUCE_SCATTER_MATMUL, "only ppermutes over Y, exactly n − 1 per device, each of one accumulator block "
                            + "[B/X, D/Y] and one step round the ring (no psum or psumScatter)",
                            Check.COLLECTIVES, Check.OPERANDS, Check.RING_STEPS),
                    req(CourseMethod.P3_REDUCE_SCATTER_MATMUL, "every matmul computes the partial product of at most one D chunk [B/X, D/Y]",
                            Check.MATMULS),
                    req(CourseMethod.P3_REDUCE_SCATTER_MATMUL, "2·(B/X)·(F/Y)·D matmul FLOPs per device",
                            Check.FLOPS));
            case P3_3 -> List.of(
                    req(CourseMethod.TRANSFORMER_BLOCK, "values",
                            Check.VALUES),
                    req(CourseMethod.TRANSFORMER_BLOCK, "the collectives of 3.0 then those of 3.2: 2(n − 1) one-step ppermutes over Y of "
                            + "[B/X, D/Y] blocks, nothing else",
                            Check.COLLECTIVES, Check.OPERANDS, Check.RING_STEPS),
                    req(CourseMethod.TRANSFORMER_BLOCK, "every matmul is one chunk of 3.0 or of 3.2",
                            Check.MATMULS),
                    req(CourseMethod.TRANSFORMER_BLOCK, "4·(B/X)·D·(F/Y) matmul FLOPs per device",
                            Check.FLOPS),
                    req(CourseMethod.TRANSFORMER_BLOCK_NAIVE, "values",
                            Check.VALUES),
                    req(CourseMethod.TRANSFORMER_BLOCK_NAIVE, "exactly one all-gather then one psumScatter over Y per device, of the In block "
                            + "and of the [B/X, D] partial product",
                            Check.COLLECTIVES, Check.OPERANDS),
                    req(CourseMethod.TRANSFORMER_BLOCK_NAIVE, "4·(B/X)·D·(F/Y) matmul FLOPs per device",
                            Check.FLOPS));
            case P4_0 -> List.of(
                    req(CourseMethod.P4_ALL_GATHER_MATMUL, "values (on every device, replicas included)",
                            Check.VALUES),
                    req(CourseMethod.P4_ALL_GATHER_MATMUL, "only ppermutes over Y, each one step round the ring, both ways when Y has at "
                            + "least 3 devices",
                            Check.COLLECTIVES, Check.RING_STEPS),
                    req(CourseMethod.P4_ALL_GATHER_MATMUL, "no message larger than one A block [B/X, D/Y]",
                            Check.OPERANDS),
                    req(CourseMethod.P4_ALL_GATHER_MATMUL, "each direction at most ⌈(n − 1)/2⌉ blocks",
                            Check.BYTES),
                    req(CourseMethod.P4_ALL_GATHER_MATMUL, "every matmul contracts at most D/Y",
                            Check.MATMULS),
                    req(CourseMethod.P4_ALL_GATHER_MATMUL, "2·(B/X)·D·(F/Y) matmul FLOPs per device",
                            Check.FLOPS));
            case P4_1 -> List.of(
                    req(CourseMethod.P4_ALL_REDUCE_MATMUL, "values (on every device, replicas included)",
                            Check.VALUES),
                    req(CourseMethod.P4_ALL_REDUCE_MATMUL, "only ppermutes over Y (no psum), each one step round the ring, both ways when Y "
                            + "has at least 3 devices",
                            Check.COLLECTIVES, Check.RING_STEPS),
                    req(CourseMethod.P4_ALL_REDUCE_MATMUL, "each direction at most (n − 1)/n · V bytes, V = the bytes of the [B/X, F] "
                            + "partial product (on a ring of 2, 2(n − 1)/n · V)",
                            Check.BYTES),
                    req(CourseMethod.P4_ALL_REDUCE_MATMUL, "2·(B/X)·(D/Y)·F matmul FLOPs per device",
                            Check.FLOPS));
            case P4_2 -> List.of(
                    req(CourseMethod.P4_REDUCE_SCATTER_MATMUL, "values (on every device, replicas included)",
                            Check.VALUES),
                    req(CourseMethod.P4_REDUCE_SCATTER_MATMUL, "only ppermutes over Y, each one step round the ring, both ways when Y has at "
                            + "least 3 devices",
                            Check.COLLECTIVES, Check.RING_STEPS),
                    req(CourseMethod.P4_REDUCE_SCATTER_MATMUL, "no message larger than one accumulator block [B/X, D/Y]",
                            Check.OPERANDS),
                    req(CourseMethod.P4_REDUCE_SCATTER_MATMUL, "each direction at most ⌈(n − 1)/2⌉ blocks",
                            Check.BYTES),
                    req(CourseMethod.P4_REDUCE_SCATTER_MATMUL, "every matmul computes at most D/Y columns",
                            Check.MATMULS),
                    req(CourseMethod.P4_REDUCE_SCATTER_MATMUL, "2·(B/X)·(F/Y)·D matmul FLOPs per device",
                            Check.FLOPS));
            case P5_1 -> List.of(
                    req(CourseMethod.C5_MATMUL_WITHOUT_COMMUNICATION, "values (float tolerance) and layout",
                            Check.VALUES, Check.LAYOUT),
                    req(CourseMethod.C5_MATMUL_WITHOUT_COMMUNICATION, "compiled by jit, with no hand-written shardMap",
                            Check.USES_JIT),
                    req(CourseMethod.C5_MATMUL_WITHOUT_COMMUNICATION, "the compiled program has no collective",
                            Check.NO_COLLECTIVES),
                    req(CourseMethod.C5_MATMUL_WITHOUT_COMMUNICATION, "every device holds only its blocks of A and B,"
                            + " (I·J/X + J·K/Y)·4 bytes of inputs", Check.DEVICE_MEMORY),
                    req(CourseMethod.C5_MATMUL_WITHOUT_COMMUNICATION, "every device does exactly 2·I·J·K/(X·Y) matmul FLOPs",
                            Check.FLOPS));
            case P5_2 -> List.of(
                    req(CourseMethod.C5_MATMUL_REDUCE_SCATTER, "values (float tolerance) and layout",
                            Check.VALUES, Check.LAYOUT),
                    req(CourseMethod.C5_MATMUL_REDUCE_SCATTER, "compiled by jit, with no hand-written shardMap",
                            Check.USES_JIT),
                    req(CourseMethod.C5_MATMUL_REDUCE_SCATTER, "every device receives at most (X−1)/X · I·K·4 bytes (one "
                            + "reduce-scatter of its partial product, where an all-reduce would cost twice that)",
                            Check.BYTES));
            case P5_3 -> List.of(
                    req(CourseMethod.C5_MATMUL_SQUARE, "values (float tolerance) and layout",
                            Check.VALUES, Check.LAYOUT),
                    req(CourseMethod.C5_MATMUL_SQUARE, "compiled by jit, with no hand-written shardMap",
                            Check.USES_JIT),
                    req(CourseMethod.C5_MATMUL_SQUARE, "exactly one collective per device, an all-reduce over Y of "
                            + "f32[B/X, F] (none when Y = 1)",
                            Check.COLLECTIVES, Check.OPERANDS));
            case P5_4 -> List.of(
                    req(CourseMethod.C5_MATMUL_SQUARE_EXPLICIT, "values (float tolerance) and layout",
                            Check.VALUES, Check.LAYOUT),
                    req(CourseMethod.C5_MATMUL_SQUARE_EXPLICIT, "no hand-written shardMap (jit or eager global-view "
                            + "operations)",
                            Check.NO_SHARD_MAP),
                    req(CourseMethod.C5_MATMUL_SQUARE_EXPLICIT, "exactly one collective per device, an all-reduce over Y "
                            + "of f32[B/X, F] (none when Y = 1)",
                            Check.COLLECTIVES, Check.OPERANDS));
            case P6_1 -> List.of(
                    req(CourseMethod.C6_TRAIN_DATA_PARALLEL, "trained parameters (float tolerance) and layouts, each P()",
                            Check.VALUES, Check.LAYOUT),
                    req(CourseMethod.C6_TRAIN_DATA_PARALLEL, "compiled by jit, with no hand-written shardMap",
                            Check.USES_JIT),
                    req(CourseMethod.C6_TRAIN_DATA_PARALLEL, "per device only all-reduces over 'batch', carrying the"
                            + " gradients' elements once per step", Check.COLLECTIVES),
                    req(CourseMethod.C6_TRAIN_DATA_PARALLEL, "no program hands a device more than the parameters and"
                            + " its rows of the batch", Check.DEVICE_MEMORY));
            case P6_2 -> List.of(
                    req(CourseMethod.C6_TRAIN_DATA_TENSOR_PARALLEL, "trained parameters (float tolerance) and layouts:"
                            + " W2 P(None, 'model'), b2 P('model'), W3 P('model', None), the rest P()",
                            Check.VALUES, Check.LAYOUT),
                    req(CourseMethod.C6_TRAIN_DATA_TENSOR_PARALLEL, "compiled by jit, with no hand-written shardMap",
                            Check.USES_JIT),
                    req(CourseMethod.C6_TRAIN_DATA_TENSOR_PARALLEL, "per step two all-reduces over 'model' of"
                            + " activations (forward f32[B/batch, n3], backward f32[B/batch, n1]) and all-reduces over"
                            + " 'batch' of the gradients' blocks, nothing else", Check.COLLECTIVES),
                    req(CourseMethod.C6_TRAIN_DATA_TENSOR_PARALLEL, "no program hands a device more than its blocks of"
                            + " the parameters and its rows of the batch (W2 and W3 take 1/model of their bytes)",
                            Check.DEVICE_MEMORY));
            case P6_3 -> List.of(
                    req(CourseMethod.C6_DATA_PARALLEL_STEP, "the parameters after one step (float tolerance), laid out"
                            + " P()", Check.VALUES, Check.LAYOUT),
                    req(CourseMethod.C6_DATA_PARALLEL_STEP, "a hand-written shardMap", Check.USES_SHARD_MAP),
                    req(CourseMethod.C6_DATA_PARALLEL_STEP, "every collective an all-reduce (psum or pmean) over"
                            + " 'batch' of one gradient, each parameter's once", Check.OPERANDS),
                    req(CourseMethod.C6_DATA_PARALLEL_STEP, "no program hands a device more than the parameters and"
                            + " its rows of the batch", Check.DEVICE_MEMORY));
            case P6_4 -> List.of(
                    req(CourseMethod.C6_FSDP_STEP, "the parameters after one step (float tolerance), each laid out"
                            + " P('batch')", Check.VALUES, Check.LAYOUT),
                    req(CourseMethod.C6_FSDP_STEP, "a hand-written shardMap", Check.USES_SHARD_MAP),
                    req(CourseMethod.C6_FSDP_STEP, "per device one all-gather over 'batch' of each parameter's shard"
                            + " and one reduce-scatter of each gradient, and no all-reduce", Check.OPERANDS),
                    req(CourseMethod.C6_FSDP_STEP, "no program hands a device more than its shards of the parameters"
                            + " and its rows of the batch", Check.DEVICE_MEMORY));
            case P6_5 -> List.of(
                    req(CourseMethod.C6_MEGATRON_MLP, "Y, dX, dW1 and dW2 (float tolerance) laid out P(), P(), P(None,"
                            + " 'model'), P('model', None)", Check.VALUES, Check.LAYOUT),
                    req(CourseMethod.C6_MEGATRON_MLP, "a hand-written shardMap", Check.USES_SHARD_MAP),
                    req(CourseMethod.C6_MEGATRON_MLP, "exactly two collectives per device, psums over 'model' of"
                            + " f32[B, D] (forward and backward)", Check.COLLECTIVES, Check.OPERANDS),
                    req(CourseMethod.C6_MEGATRON_MLP, "exactly 12·B·D·F/M matmul FLOPs per device", Check.FLOPS));
            case P6_2P -> trainingPerformance(CourseMethod.C6_TRAIN_DATA_TENSOR_PARALLEL, Check.USES_JIT);
            case P6_3P -> trainingPerformance(CourseMethod.C6_DATA_PARALLEL_STEP, Check.USES_SHARD_MAP);
            case P6_4P -> trainingPerformance(CourseMethod.C6_FSDP_STEP, Check.USES_SHARD_MAP);
            case P6_5P -> trainingPerformance(CourseMethod.C6_MEGATRON_MLP, Check.USES_SHARD_MAP);
            case P3_0P -> performance(CourseMethod.P3_ALL_GATHER_MATMUL);
            case P3_1P -> performance(CourseMethod.P3_ALL_REDUCE_MATMUL);
            case P3_2P -> performance(CourseMethod.P3_REDUCE_SCATTER_MATMUL);
            case P3_3P -> performance(CourseMethod.TRANSFORMER_BLOCK);
            case P4_0P -> performance(CourseMethod.P4_ALL_GATHER_MATMUL);
            case P4_1P -> performance(CourseMethod.P4_ALL_REDUCE_MATMUL);
            case P4_2P -> performance(CourseMethod.P4_REDUCE_SCATTER_MATMUL);
        };
    }

    /** Every kind of check some requirement of {@code part} names for calls of {@code method}. */
    public static Set<Check> checksOf(Part part, CourseMethod method) {
        java.util.EnumSet<Check> out = java.util.EnumSet.noneOf(Check.class);
        for (Requirement r : of(part)) {
            if (r.method() == method) {
                out.addAll(r.checks());
            }
        }
        return out;
    }
}
