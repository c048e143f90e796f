package dev.shardlings.bench;

import dev.shardlings.array.NDArray;
import dev.shardlings.course.Problem3;
import dev.shardlings.course.Problem4;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.spmd.ShardedArray;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

import static dev.shardlings.sharding.PartitionSpec.P;

/**
 * The collective matmuls of Problems 3 and 4 (the reference solutions) on 64- and 256-device meshes (X, Y), at a
 * small size, f32: A[B_X, D_Y] · W[D, F_Y] → Out[B_X, F_Y] (the all-gather collective matmul, one ppermute per
 * step around the Y ring, 3.0 one way and 4.0 both ways) and Tmp[B_X, F_Y] · W2[F_Y, D] → Out[B_X, D_Y] (the
 * reduce-scatter one, 3.2 and 4.2), with B = 256, D = F = 512. On 16 × 16 that is 15 ring steps of 256 devices
 * each; the target is under a second per call.
 */
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
public class CollectiveMatmulScalingBench extends BenchDefaults {

    static final int B = 256;
    static final int D = 512;
    static final int F = 512;

    /** X x Y. */
    @Param({"8x8", "16x16"})
    public String mesh;

    private ShardedArray a;
    private ShardedArray w;
    private ShardedArray tmp;
    private ShardedArray w2;

    @Setup
    public void setup() {
        String[] xy = mesh.split("x");
        Mesh m = Mesh.makeMesh(new int[]{Integer.parseInt(xy[0]), Integer.parseInt(xy[1])}, "X", "Y");
        a = ShardedArray.devicePut(NDArray.fromFloats(randomFloats(B * D, 11), B, D), m, P("X", "Y"));
        w = ShardedArray.devicePut(NDArray.fromFloats(randomFloats(D * F, 12), D, F), m, P(null, "Y"));
        tmp = ShardedArray.devicePut(NDArray.fromFloats(randomFloats(B * F, 13), B, F), m, P("X", "Y"));
        w2 = ShardedArray.devicePut(NDArray.fromFloats(randomFloats(F * D, 14), F, D), m, P("Y", null));
    }

    @Benchmark
    public ShardedArray problem3AllGatherMatmul() {
        return Problem3.allGatherMatmul(a, w);
    }

    @Benchmark
    public ShardedArray problem4AllGatherMatmul() {
        return Problem4.allGatherMatmul(a, w);
    }

    @Benchmark
    public ShardedArray problem3ReduceScatterMatmul() {
        return Problem3.reduceScatterMatmul(tmp, w2);
    }

    @Benchmark
    public ShardedArray problem4ReduceScatterMatmul() {
        return Problem4.reduceScatterMatmul(tmp, w2);
    }
}
