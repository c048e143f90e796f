package dev.shardlings.bench;

import dev.shardlings.autodiff.Autodiff;
import dev.shardlings.jit.Compiled;
import dev.shardlings.jit.Jit;
import dev.shardlings.jit.Jitted;
import dev.shardlings.nn.Mlp;
import dev.shardlings.random.PRNG;
import dev.shardlings.sharding.AxisType;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.NamedSharding;
import dev.shardlings.spmd.ShardedArray;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.Warmup;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static dev.shardlings.sharding.PartitionSpec.P;

/**
 * One data-parallel SGD step of seed 001's MLP ({@link Mlp}), layer sizes [784, 1024, 1024, 1024, 10], batch 1024,
 * {@code jax.random.key(0)}, on 8 devices (mesh 'batch' = 8, Auto axes; parameters replicated P(), inputs and
 * targets P('batch')):
 * <ul>
 *   <li>{@link #step}: one jitted program, {@code jit(λ(params, batch). sgd(params, grad(loss)(params, batch),
 *       1e-5))}, fed its own output as in training — the program JAX's reference runs
 *       ({@code src/bench/jax_training_step.py}; {@link TrainingVersusJax} compares the two by turns in the same
 *       bench run);</li>
 *   <li>{@link #gradThenSgd}: {@code jit(grad(loss))}, then {@link Mlp#sgd} outside jit (eight eager
 *       operations, one shardMap each), as Tour07Training trains;</li>
 *   <li>{@link #traceAndPartitionStepCold}: tracing the step with its gradient, choosing layouts and partitioning
 *       ({@code lower} only) on a fresh jitted function each time, single shot;</li>
 *   <li>{@link #cacheHitStep}: {@code lower} of the same signature on a jitted function that has compiled it.</li>
 * </ul>
 * The two steps are sampled one call at a time (JMH's SampleTime), so the report can set their median against the
 * median JAX's script reports; on a machine shared with other work the mean is pulled up by the slow calls.
 */
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 8, time = 2)
public class TrainingBench extends BenchDefaults {

    static final int[] SIZES = {784, 1024, 1024, 1024, 10};
    static final int BATCH = 1024;
    static final float LR = 1e-5f;

    private List<ShardedArray> params;
    private ShardedArray inputs;
    private ShardedArray targets;
    private Jitted step;
    private Jitted grad;
    private Jitted warm;

    /** (params…, inputs, targets) → the gradients of the loss with respect to the params. */
    static List<ShardedArray> grads(List<ShardedArray> a) {
        int n = a.size() - 2;
        int[] all = new int[n];
        for (int k = 0; k < n; k++) {
            all[k] = k;
        }
        return Autodiff.<ShardedArray>gradList(ps -> Mlp.loss(ps, a.get(n), a.get(n + 1)), all)
                .apply(a.subList(0, n));
    }

    /** (params…, inputs, targets) → the parameters after one SGD step. */
    static List<ShardedArray> sgdStep(List<ShardedArray> a) {
        return Mlp.sgd(a.subList(0, a.size() - 2), grads(a), LR);
    }

    @Setup
    public void setup() {
        Mesh mesh = Mesh.makeMesh(new int[] {8}, new String[] {"batch"}, AxisType.AUTO);
        Mlp.Model m = Mlp.init(PRNG.key(0), SIZES, BATCH);
        params = new ArrayList<>();
        for (var p : m.params()) {
            params.add(ShardedArray.devicePut(p, new NamedSharding(mesh, P())));
        }
        inputs = ShardedArray.devicePut(m.inputs(), new NamedSharding(mesh, P("batch")));
        targets = ShardedArray.devicePut(m.targets(), new NamedSharding(mesh, P("batch")));
        step = Jit.jitList(TrainingBench::sgdStep).named("train_step");
        grad = Jit.jitList(TrainingBench::grads).named("grad_loss");
        warm = Jit.jitList(TrainingBench::sgdStep).named("train_step");
        warm.lower(args());
    }

    private Object[] args() {
        List<Object> a = new ArrayList<>(params);
        a.add(inputs);
        a.add(targets);
        return a.toArray();
    }

    @Benchmark
    @BenchmarkMode(Mode.SampleTime)
    public List<ShardedArray> step() {
        params = step.call(args());
        return params;
    }

    @Benchmark
    @BenchmarkMode(Mode.SampleTime)
    public List<ShardedArray> gradThenSgd() {
        params = Mlp.sgd(params, grad.call(args()), LR);
        return params;
    }

    @Benchmark
    @BenchmarkMode(Mode.SingleShotTime)
    @Warmup(iterations = 20)
    @Measurement(iterations = 40)
    public Compiled traceAndPartitionStepCold() {
        return Jit.jitList(TrainingBench::sgdStep).named("train_step").lower(args());
    }

    @Benchmark
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    @Warmup(iterations = 3, time = 1)
    @Measurement(iterations = 5, time = 1)
    public Compiled cacheHitStep() {
        return warm.lower(args());
    }
}
