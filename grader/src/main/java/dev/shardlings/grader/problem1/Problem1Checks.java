package dev.shardlings.grader.problem1;

import dev.shardlings.array.NDArray;
import dev.shardlings.grader.judge.CaseRun;
import dev.shardlings.grader.checks.Checks;
import dev.shardlings.grader.checks.Checks.Tolerance;
import dev.shardlings.grader.judge.Guard;
import dev.shardlings.grader.judge.CaseRun;
import dev.shardlings.grader.checks.Checks.Tolerance;
import dev.shardlings.grader.checks.Checks;
import dev.shardlings.grader.judge.Guard;
import dev.shardlings.grader.parts.Part;
import dev.shardlings.grader.judge.Reports;
import dev.shardlings.grader.checks.TraceRules;
import dev.shardlings.sharding.AxisType;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.NamedSharding;
import dev.shardlings.sharding.PartitionSpec;
import dev.shardlings.spmd.ShardedArray;

import java.util.List;

import static dev.shardlings.sharding.PartitionSpec.P;

/**
 * The graded checks of Problem 1. Each takes the implementation under test as a function, so the same check
 * grades exercises/, solutions/ and the grader's own deliberately wrong implementations.
 */
public final class Problem1Checks {

    private static final PartitionSpec XY = P("X", "Y");

    private Problem1Checks() {
    }

    /** Part 1.1a's signature. */
    @FunctionalInterface
    public interface PerShardMean {
        ShardedArray apply(ShardedArray a);
    }

    /** Part 1.1b's signature. */
    @FunctionalInterface
    public interface PerShardMeanGlobal {
        ShardedArray apply(ShardedArray a);
    }

    /** Part 1.2a's signature. */
    @FunctionalInterface
    public interface RollWithinShards {
        ShardedArray apply(ShardedArray a, int shift);
    }

    /** Part 1.2b's signature. */
    @FunctionalInterface
    public interface RollWithinShardsGlobal {
        ShardedArray apply(ShardedArray a, int shift);
    }

    /**
     * 1.1a: values equal the per-block means of the whole array, laid out P('X', 'Y'); shardMap used; no
     * collectives; the whole array never gathered on the host.
     *
     * @throws dev.shardlings.grader.judge.GradingFailure when a rule is broken
     */
    public static void perShardMean(PerShardMean impl, Problem1Case c) {
        Mesh mesh = c.mesh();
        NDArray a = c.array();
        ShardedArray sharded = ShardedArray.devicePut(a, mesh, XY);
        String text = c.describe(false);
        CaseRun<ShardedArray> run = Guard.run(Problem1Parts.P1_1A, text, () -> impl.apply(sharded));
        NDArray expected = Problem1Oracles.perShardMean(a, c.x(), c.y());
        Checks.shardedResult(run, Reports.inputs("Input A", a), expected, XY, Tolerance.float32(8), Reports.picture(sharded));
        ownBlockOnly(run, a.nbytes(), mesh.size());
        Checks.noHostGather(run, a.nbytes(), mesh.size());
    }

    /**
     * Every device works on its own block: no collectives, and no device allocates an array as large as the whole
     * input (which only gathering could give it).
     */
    private static void ownBlockOnly(CaseRun<ShardedArray> run, long wholeBytes, int devices) {
        TraceRules.Rule rule = TraceRules.noCollectives("every device already holds the rows it needs");
        if (devices > 1) {
            rule = rule.and(TraceRules.largestArrayBelow(wholeBytes, "that is as large as the whole input ("
                    + wholeBytes + " bytes): each device should work on its own block only"));
        }
        TraceRules.perDevice(run, "communicates, or works on more than its own block", "each device"
                + " works on its own block: no collectives, and no array as large as the whole input", rule);
    }

    /**
     * What the usual slips in 1.2 compute: rolling the other way (JAX's roll moves row r to r + shift), and rolling
     * the whole array instead of each shard's rows (which only differs at the shards' edges).
     */
    private static List<Checks.Mistake> rollMistakes(NDArray a, Problem1Case c) {
        return List.of(
                new Checks.Mistake("rolling by −shift", Problem1Oracles.rollWithinShards(a, c.x(), -c.shift()),
                        "roll(x, shift, 0) moves row r to row r + shift (out[r] = x[r − shift]), as jnp.roll does;"
                                + " you moved rows the other way"),
                new Checks.Mistake("rolling all S rows as one array", Problem1Oracles.rollWithinShards(a, 1,
                        c.shift()), "roll each device's S/X rows on their own: the last row of a shard wraps to"
                        + " the first row of the same shard, never to the next shard"));
    }

    /** The case's mesh with Auto axes: in the jit parts the compiler, not the types, chooses layouts. */
    private static Mesh autoMesh(Problem1Case c) {
        return c.mesh().withAxisTypes(AxisType.AUTO, AxisType.AUTO);
    }

    /**
     * 1.1b: compiled by jit with no shardMap of its own; the compiled program has no collective; values equal the
     * per-block means, laid out P('X', 'Y').
     */
    public static void perShardMeanGlobal(PerShardMeanGlobal impl, Problem1Case c) {
        Mesh mesh = autoMesh(c);
        NDArray a = c.array();
        ShardedArray sharded = ShardedArray.devicePut(a, mesh, XY);
        String text = c.describe(false);
        CaseRun<ShardedArray> run = Guard.run(Problem1Parts.P1_1B, text, () -> impl.apply(sharded));
        Checks.compiledByJit(run);
        Checks.compiledWithoutCommunication(run, "Each output element depends on one device's block only. Reshape"
                + " [S, D] to [X, S/X, Y, D/Y]: X stays on dimension 0 and Y on dimension 2, so a mean over"
                + " dimensions 1 and 3 runs inside every device.");
        NDArray expected = Problem1Oracles.perShardMean(a, c.x(), c.y());
        Checks.shardedResult(run, Reports.inputs("Input A", a), expected, XY, Tolerance.float32(8),
                Reports.picture(sharded));
    }

    /**
     * 1.2a: values equal roll-minus-self inside every X shard of the whole array, laid out P('X', 'Y'); shardMap
     * used; no collectives; no gather on the host.
     */
    public static void rollWithinShards(RollWithinShards impl, Problem1Case c) {
        Mesh mesh = c.mesh();
        NDArray a = c.array();
        ShardedArray sharded = ShardedArray.devicePut(a, mesh, XY);
        String text = c.describe(true);
        CaseRun<ShardedArray> run = Guard.run(Problem1Parts.P1_2A, text, () -> impl.apply(sharded, c.shift()));
        NDArray expected = Problem1Oracles.rollWithinShards(a, c.x(), c.shift());
        Checks.shardedResult(run, Reports.inputs("Input A", a), expected, XY, Tolerance.EXACT, Reports.picture(sharded),
                rollMistakes(a, c));
        ownBlockOnly(run, a.nbytes(), mesh.size());
        Checks.noHostGather(run, a.nbytes(), mesh.size());
    }

    /**
     * 1.2b: compiled by jit with no shardMap of its own; the compiled program has no collective (a roll along the
     * split axis 0 makes the compiler move rows between devices); values equal roll-minus-self inside every group
     * of S/X rows, laid out P('X', 'Y').
     */
    public static void rollWithinShardsGlobal(RollWithinShardsGlobal impl, Problem1Case c) {
        Mesh mesh = autoMesh(c);
        NDArray a = c.array();
        ShardedArray sharded = ShardedArray.devicePut(a, mesh, XY);
        String text = c.describe(true);
        CaseRun<ShardedArray> run = Guard.run(Problem1Parts.P1_2B, text, () -> impl.apply(sharded, c.shift()));
        Checks.compiledByJit(run);
        Checks.compiledWithoutCommunication(run, "A roll along dimension 0, which X splits, moves rows from one"
                + " device to another, so the compiler had to move them. Reshape A to [X, S/X, D] first: the roll then"
                + " runs along dimension 1, which no device splits, and reshaping back gives every device its own"
                + " rows again.");
        NDArray expected = Problem1Oracles.rollWithinShards(a, c.x(), c.shift());
        Checks.shardedResult(run, Reports.inputs("Input A", a), expected, XY, Tolerance.EXACT,
                Reports.picture(sharded), rollMistakes(a, c));
    }
}
