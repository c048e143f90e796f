package dev.shardlings.grader.problem1;

import dev.shardlings.array.NDArray;
import dev.shardlings.grader.CaseRun;
import dev.shardlings.grader.Checks;
import dev.shardlings.grader.Checks.Tolerance;
import dev.shardlings.grader.Guard;
import dev.shardlings.grader.Part;
import dev.shardlings.grader.Reports;
import dev.shardlings.grader.TraceRules;
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
        NDArray apply(NDArray a, Mesh mesh);
    }

    /** Part 1.2a's signature. */
    @FunctionalInterface
    public interface RollWithinShards {
        ShardedArray apply(ShardedArray a, int shift);
    }

    /** Part 1.2b's signature. */
    @FunctionalInterface
    public interface RollWithinShardsGlobal {
        NDArray apply(NDArray a, Mesh mesh, int shift);
    }

    /**
     * 1.1a: values equal the per-block means of the whole array, laid out P('X', 'Y'); shardMap used; no
     * collectives; the whole array never gathered on the host.
     *
     * @throws dev.shardlings.grader.GradingFailure when a rule is broken
     */
    public static void perShardMean(PerShardMean impl, Problem1Case c) {
        Mesh mesh = c.mesh();
        NDArray a = c.array();
        ShardedArray sharded = ShardedArray.devicePut(a, mesh, XY);
        String text = c.describe(false);
        CaseRun<ShardedArray> run = Guard.run(Part.P1_1A, text, () -> impl.apply(sharded));
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

    /** 1.1b: values equal the per-block means; no shardMap and so no collectives. */
    public static void perShardMeanGlobal(PerShardMeanGlobal impl, Problem1Case c) {
        Mesh mesh = c.mesh();
        NDArray a = c.array();
        String text = c.describe(false);
        CaseRun<NDArray> run = Guard.run(Part.P1_1B, text, () -> impl.apply(a, mesh));
        NDArray expected = Problem1Oracles.perShardMean(a, c.x(), c.y());
        Checks.wholeResult(run, Reports.inputs("Input A", a), expected, Tolerance.float32(8),
                NamedSharding.of(mesh, XY), List.of());
        Checks.noShardMap(run);
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
        CaseRun<ShardedArray> run = Guard.run(Part.P1_2A, text, () -> impl.apply(sharded, c.shift()));
        NDArray expected = Problem1Oracles.rollWithinShards(a, c.x(), c.shift());
        Checks.shardedResult(run, Reports.inputs("Input A", a), expected, XY, Tolerance.EXACT, Reports.picture(sharded),
                rollMistakes(a, c));
        ownBlockOnly(run, a.nbytes(), mesh.size());
        Checks.noHostGather(run, a.nbytes(), mesh.size());
    }

    /** 1.2b: values equal roll-minus-self inside every group of S/X rows; no shardMap. */
    public static void rollWithinShardsGlobal(RollWithinShardsGlobal impl, Problem1Case c) {
        Mesh mesh = c.mesh();
        NDArray a = c.array();
        String text = c.describe(true);
        CaseRun<NDArray> run = Guard.run(Part.P1_2B, text, () -> impl.apply(a, mesh, c.shift()));
        NDArray expected = Problem1Oracles.rollWithinShards(a, c.x(), c.shift());
        Checks.wholeResult(run, Reports.inputs("Input A", a), expected, Tolerance.EXACT, NamedSharding.of(mesh, XY),
                rollMistakes(a, c));
        Checks.noShardMap(run);
    }
}
