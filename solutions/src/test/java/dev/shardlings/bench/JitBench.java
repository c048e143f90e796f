package dev.shardlings.bench;

import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.jit.Compiled;
import dev.shardlings.jit.Jit;
import dev.shardlings.jit.Jitted;
import dev.shardlings.sharding.AxisType;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.NamedSharding;
import dev.shardlings.spmd.ShardMap;
import dev.shardlings.spmd.ShardedArray;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Setup;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static dev.shardlings.sharding.PartitionSpec.P;

/**
 * What {@code jit} costs beside the work it runs, on 8 devices with Auto axes:
 * <ul>
 *   <li>{@link #traceAndPartitionMlp}: tracing, layout choice and partitioning of the seed-001 MLP's forward pass
 *       and loss (4 layers [784, 1024, 1024, 1024, 10], batch 1024 split 8 ways), cold — a new jitted function each
 *       time, so nothing is cached;</li>
 *   <li>{@link #cacheHitMlp}: the same call on a jitted function that has seen the signature (signature key and
 *       cache lookup);</li>
 *   <li>{@link #jittedElementwise} against {@link #shardMapElementwise}: {@code 2·x + 1} on f32[8192] split 8 ways,
 *       as a jitted program and as the hand-written shardMap of the same work.</li>
 * </ul>
 */
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class JitBench extends BenchDefaults {

    private static final int[] SIZES = {784, 1024, 1024, 1024, 10};
    private static final int BATCH = 1024;

    private List<ShardedArray> mlpArgs;
    private Jitted warm;
    private ShardedArray x;
    private Jitted elementwise;
    private ShardMap.Unary shardMapped;

    private static List<ShardedArray> loss(List<ShardedArray> a) {
        ShardedArray h = a.get(0);
        for (int l = 0; l < 4; l++) {
            ShardedArray w = a.get(2 + 2 * l);
            ShardedArray b = a.get(3 + 2 * l);
            h = h.matmul(w).add(b);
            if (l < 3) {
                h = h.maximum(0.0);
            }
        }
        return List.of(h.sub(a.get(1)).square().mean());
    }

    @Setup
    public void setup() {
        Mesh mesh = Mesh.makeMesh(new int[] {8}, new String[] {"batch"}, AxisType.AUTO);
        NamedSharding rows = new NamedSharding(mesh, P("batch"));
        NamedSharding replicated = new NamedSharding(mesh, P());
        mlpArgs = new java.util.ArrayList<>();
        mlpArgs.add(ShardedArray.devicePut(NDArray.zeros(DType.FLOAT32, BATCH, SIZES[0]), rows));
        mlpArgs.add(ShardedArray.devicePut(NDArray.zeros(DType.FLOAT32, BATCH, SIZES[4]), rows));
        for (int l = 0; l < 4; l++) {
            mlpArgs.add(ShardedArray.devicePut(NDArray.zeros(DType.FLOAT32, SIZES[l], SIZES[l + 1]), replicated));
            mlpArgs.add(ShardedArray.devicePut(NDArray.zeros(DType.FLOAT32, SIZES[l + 1]), replicated));
        }
        warm = Jit.jitList(JitBench::loss);
        warm.lower(mlpArgs.toArray());

        x = ShardedArray.devicePut(NDArray.fromFloats(randomFloats(8192, 1), 8192), mesh, P("batch"));
        elementwise = Jit.jit(v -> v.mul(2.0).add(1.0));
        elementwise.call(x);
        shardMapped = ShardMap.shardMap(b -> b.mul(2f).add(1f), mesh, P("batch"), P("batch"));
    }

    @Benchmark
    public Compiled traceAndPartitionMlp() {
        return Jit.jitList(JitBench::loss).lower(mlpArgs.toArray());
    }

    @Benchmark
    public Compiled cacheHitMlp() {
        return warm.lower(mlpArgs.toArray());
    }

    @Benchmark
    public ShardedArray jittedElementwise() {
        return elementwise.call(x).get(0);
    }

    @Benchmark
    public ShardedArray shardMapElementwise() {
        return shardMapped.apply(x);
    }
}
