package dev.shardlings.course;

// What the tasks below use; an import left unused is harmless.
import dev.shardlings.ExerciseNotDone;
import dev.shardlings.array.KeepDims;
import dev.shardlings.array.NDArray;
import dev.shardlings.random.PRNG;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.spmd.ShardedArray;

import static dev.shardlings.sharding.PartitionSpec.P;
import static dev.shardlings.sharding.PartitionSpec.tuple;
import static dev.shardlings.spmd.Collectives.*;
import static dev.shardlings.spmd.ShardMap.shardMap;
import static dev.shardlings.spmd.Tiling.TILED;

/**
 * Chapter 0 — the tutorials' examples: sharded matmuls and their communication, parallel normalisation, a
 * gathered weight, a ring shift, a slice-and-average and per-device randomness.
 *
 * <p>Every part is a shardMap program. The grader runs it on meshes it varies (1–16 devices; extra mesh axes your
 * arrays are replicated over may appear), on shapes that divide evenly and random values, compares with the
 * answer computed on the whole arrays, and checks from the trace which collectives you used (in brackets below).
 * Read {@code docs/chapter-0.md} first; grade with {@code mvn test -Pgrade}.
 *
 * <p>This file stands alone: use the framework, the JDK and this class only, never another course file (copy a
 * helper you need into this file). Each course file is graded on its own, and one that does not compile is
 * graded as its stub, so a helper taken from it would break this file too.
 */
public final class Chapter0 {

    private Chapter0() {
    }

    /**
     * Part 0.1 — A[I_X, J] · B[J, K_Y] → C[I_X, K_Y]. [no collectives]
     *
     * <p>Inputs: {@code a} f32[I, J] laid out {@code P("X", null)}, {@code b} f32[J, K] laid out
     * {@code P(null, "Y")}. Output: C = A·B, f32[I, K] laid out {@code P("X", "Y")}. The contracting dimension J is
     * whole on every device.
     *
     * <p>Graded: values and layout; a shardMap program; no collectives; 2·(I/X)·J·(K/Y) matmul FLOPs per device
     * (each device multiplies its own two blocks once).
     * Docs: docs/chapter-0.md#part-01-no-sharded-contracting-dimension
     */
    public static ShardedArray matmulNoCommunication(ShardedArray a, ShardedArray b) {
        // TODO(0.1): Which dimension does the product contract, and does any device lack part of it? What is each
        //  device's block of C made of, then?
        throw new ExerciseNotDone("0.1");
    }

    /**
     * Part 0.2 — A[I, J_X] · B[J, K] → C[I, K]. [exactly one all-gather, of A over X]
     *
     * <p>Inputs: {@code a} f32[I, J] laid out {@code P(null, "X")}, {@code b} f32[J, K] laid out {@code P()}.
     * Output: C f32[I, K] laid out {@code P()} (every device holds all of C).
     *
     * <p>Graded: values and layout; exactly one all-gather per device, over X, of A's block [I, J/X]; 2·I·J·K matmul
     * FLOPs per device.
     * Docs: docs/chapter-0.md#part-02-one-operand-sharded-on-the-contracting-dimension
     */
    public static ShardedArray matmulGatherA(ShardedArray a, ShardedArray b) {
        // TODO(0.2): Which columns of A does a device lack, and which collective brings them? An out spec of P()
        //  promises that every device holds the same value: which gather in docs/framework.md gives a result the
        //  types know to be the same on every device?
        throw new ExerciseNotDone("0.2");
    }

    /**
     * Part 0.3 — A[I, J_X] · B[J_X, K] → C[I, K]. [a local matmul, then exactly one psum over X]
     *
     * <p>Inputs: {@code a} laid out {@code P(null, "X")}, {@code b} laid out {@code P("X", null)}. Output: C
     * f32[I, K] laid out {@code P()}.
     *
     * <p>Graded: values and layout; exactly one psum per device, over X, of the partial product [I, K]; 2·I·(J/X)·K
     * matmul FLOPs per device.
     * Docs: docs/chapter-0.md#part-03-both-operands-sharded-on-the-contracting-dimension
     */
    public static ShardedArray matmulPsum(ShardedArray a, ShardedArray b) {
        // TODO(0.3): Is the product of a device's two blocks all of C, or one term of a sum? Which collective
        //  finishes that sum on every device?
        throw new ExerciseNotDone("0.3");
    }

    /**
     * Part 0.4 — the result of 0.3 from a reduce-scatter and an all-gather. [one psumScatter and one allGather over
     * X; no psum]
     *
     * <p>Same inputs and output as 0.3. ReduceScatter_X takes C[I, K]{U_X} to C[I_X, K]; AllGather_X takes that to
     * C[I, K].
     *
     * <p>Graded: values and layout; one psumScatter over X of the partial product [I, K], then one allGather over X
     * of the summed rows [I/X, K], and no psum; 2·I·(J/X)·K matmul FLOPs per device.
     * Docs: docs/chapter-0.md#part-04-all-reduce-as-reduce-scatter-then-all-gather
     */
    public static ShardedArray matmulReduceScatterAllGather(ShardedArray a, ShardedArray b) {
        // TODO(0.4): Along which dimension of the partial product can the first collective split its result so that
        //  each device ends with finished rows of C? What then brings every device all the rows?
        throw new ExerciseNotDone("0.4");
    }

    /**
     * Part 0.5, first half — A[I_X, J] · B[J, K_X] → C[I_X, K]. [exactly one all-gather, of B over X]
     *
     * <p>Inputs: {@code a} laid out {@code P("X", null)}, {@code b} laid out {@code P(null, "X")}. Output: C
     * f32[I, K] laid out {@code P("X", null)}. C[I_X, K_X] is not a legal sharding (X would split two dimensions),
     * so one operand must be gathered: here B.
     *
     * <p>Graded: values and layout; exactly one all-gather per device, over X, of B's block [J, K/X]; 2·(I/X)·J·K
     * matmul FLOPs per device.
     * Docs: docs/chapter-0.md#part-05-both-non-contracting-dimensions-on-the-same-axis
     */
    public static ShardedArray matmulSameAxisGatherB(ShardedArray a, ShardedArray b) {
        // TODO(0.5): C[I_X, K] needs whole rows of C on each device: whose split stops a device from computing
        //  them, and which collective undoes that split?
        throw new ExerciseNotDone("0.5");
    }

    /**
     * Part 0.5, second half — A[I_X, J] · B[J, K_X] → C[I, K_X]. [exactly one all-gather, of A over X]
     *
     * <p>Same inputs as the first half. Output: C f32[I, K] laid out {@code P(null, "X")}. Part 0.5 passes when
     * both halves do.
     *
     * <p>Graded: values and layout; exactly one all-gather per device, over X, of A's block [I/X, J]; 2·I·J·(K/X)
     * matmul FLOPs per device.
     * Docs: docs/chapter-0.md#part-05-both-non-contracting-dimensions-on-the-same-axis
     */
    public static ShardedArray matmulSameAxisGatherA(ShardedArray a, ShardedArray b) {
        // TODO(0.5): Now C[I, K_X]: which operand must each device hold whole this time?
        throw new ExerciseNotDone("0.5");
    }

    /**
     * Part 0.6 — parallel normalisation. [only pmean or psum over j; no all-gather]
     *
     * <p>Input: x f32[B, D] laid out {@code P("i", "j")}: the D features of a row are spread over the devices along
     * j. Output: f32[B, D] laid out {@code P("i", "j")}, every row normalised over its D features:
     * (x − mean) / sqrt(var + 1e-5), with the mean and the (population) variance over all D features of the row.
     *
     * <p>Graded: values and layout; only pmean or psum over j (at least one), each of per-row statistics (at most
     * one value per row of the block), and no all-gather.
     * Docs: docs/chapter-0.md#part-06-parallel-normalisation
     */
    public static ShardedArray parallelNormalize(ShardedArray x) {
        // TODO(0.6): A row's D features are spread over j: which per-row numbers can a device compute from its own
        //  features, and how few of them must travel for every device to know the row's mean and variance? Is
        //  the mean of the devices' variances the variance of the row?
        throw new ExerciseNotDone("0.6");
    }

    /**
     * Part 0.7 — a matmul with a gathered weight: x[B_i, D] · w[D_i, F] → y[B_i, F]. [exactly one all-gather, of w
     * over i]
     *
     * <p>Inputs: x f32[B, D] laid out {@code P("i", null)}, w f32[D, F] laid out {@code P("i", null)}. Output: y
     * f32[B, F] laid out {@code P("i", null)}.
     *
     * <p>Graded: values and layout; exactly one all-gather per device, over i, of w's block [D/i, F]; 2·(rows/i)·D·F
     * matmul FLOPs per device.
     * Docs: docs/chapter-0.md#part-07-matmul-with-a-gathered-weight
     */
    public static ShardedArray matmulWithGatheredWeight(ShardedArray x, ShardedArray w) {
        // TODO(0.7): x keeps its rows of the batch; w is split over i along D, the dimension the product contracts.
        //  Which of the two must each device hold whole to compute its rows of y, and which collective gives it?
        throw new ExerciseNotDone("0.7");
    }

    /**
     * Part 0.8 — ring shift: np.roll across devices. [at most one ppermute over i; nothing else]
     *
     * <p>Input: x f32[N, M] laid out {@code P("i", null)} and a shift k of any sign and size. Output: f32[N, M]
     * laid out {@code P("i", null)} where the device at position p along i holds the block that the device at
     * (p − k) mod n held: every block moves k steps up the ring (k &lt; 0: down).
     *
     * <p>Graded: values and layout; at most one ppermute per device, over i, of the block, and no other collective.
     * Docs: docs/chapter-0.md#part-08-ring-shift
     */
    public static ShardedArray ringShift(ShardedArray x, int k) {
        // TODO(0.8): For a shift by k, where must the block at position p along i go — for any sign and size of k,
        //  a whole number of turns included? Can one collective move every block at once?
        throw new ExerciseNotDone("0.8");
    }

    /**
     * Part 0.9 — slice and average. [exactly one pmean (or psum) over both axes, of 4 elements]
     *
     * <p>Input: x f32[N] laid out {@code P(tuple("x", "y"))} (every block has at least 4 elements). Output: f32[4]
     * laid out {@code P()}: the mean over all devices of the first 4 elements of each device's block.
     *
     * <p>Graded: values and layout; exactly one pmean (or psum) per device, over both x and y, of the 4 sliced
     * elements.
     * Docs: docs/chapter-0.md#part-09-slice-and-average
     */
    public static ShardedArray sliceAndAverage(ShardedArray x) {
        // TODO(0.9): Which order makes the collective carry the fewest elements: slice then average, or average
        //  then slice? Over which axes must the average run so that every device is counted once?
        throw new ExerciseNotDone("0.9");
    }

    /**
     * Part 0.10 — per-device randomness. [no collectives]
     *
     * <p>Input: a raw PRNG key int32[2] (the same on every device) and a mesh with axes "i" and "j". Output:
     * int32[I, 2] laid out {@code P("i", null)}: row r is {@code PRNG.foldIn(key, r)}, the key of the devices at
     * i = r. Devices along i get different keys; devices along j the same one.
     *
     * <p>Graded: values and layout (the keys bit for bit); a shardMap program; no collectives.
     * Docs: docs/chapter-0.md#part-010-per-device-randomness
     */
    public static ShardedArray foldKeyOverAxis(NDArray key, Mesh mesh) {
        // TODO(0.10): What tells a device its position along i, and which PRNG function makes a new key from a key
        //  and a number?
        throw new ExerciseNotDone("0.10");
    }
}
