package dev.shardlings.bench;

import dev.shardlings.array.NDArray;
import dev.shardlings.course.Problem3;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.spmd.ShardedArray;
import dev.shardlings.jit.Jit;
import dev.shardlings.jit.Jitted;
import dev.shardlings.sharding.AxisType;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

import static dev.shardlings.sharding.PartitionSpec.P;

/**
 * The book's collective matmul example on a 2 × 4 mesh (X, Y), in float32: A[B_X, D_Y] · W[D, F_Y] →
 * Out[B_X, F_Y], 2·B·D·F FLOPs per call, with the 8 simulated devices sharing the machine's cores.
 * <ul>
 *   <li>{@code allGatherThenMatmul}: AllGather_Y of A, then one local matmul per device (what jit does);</li>
 *   <li>{@code collectiveMatmul}: A's chunks passed around the Y ring with ppermute, one chunk matmul per step;</li>
 *   <li>{@code jittedMatmul}: {@code Jit.jit(A · W)} with out sharding P('X', 'Y') on the same mesh with Auto axes
 *       — the compiler's program, which all-gathers A over Y as {@code allGatherThenMatmul} does by hand.</li>
 * </ul>
 * Both are the reference solutions of Problem 3 (3.0). {@link PeersByTurns} compares the first two, by turns in
 * the same run, with JAX on 8 simulated CPU devices running the same programs ({@code src/bench/peers.py}).
 */
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class ShardedMatmulBench extends BenchDefaults {

    /** B x D x F. */
    @Param({"256x512x2048", "1024x2048x8192"})
    public String size;

    private ShardedArray a;
    private ShardedArray w;
    private ShardedArray aAuto;
    private ShardedArray wAuto;
    private Jitted jitted;

    @Setup
    public void setup() {
        String[] bdf = size.split("x");
        int b = Integer.parseInt(bdf[0]);
        int d = Integer.parseInt(bdf[1]);
        int f = Integer.parseInt(bdf[2]);
        Mesh mesh = Mesh.makeMesh(new int[]{2, 4}, "X", "Y");
        a = ShardedArray.devicePut(NDArray.fromFloats(randomFloats(b * d, 4), b, d), mesh, P("X", "Y"));
        w = ShardedArray.devicePut(NDArray.fromFloats(randomFloats(d * f, 5), d, f), mesh, P(null, "Y"));
        Mesh auto = mesh.withAxisTypes(AxisType.AUTO, AxisType.AUTO);
        aAuto = ShardedArray.devicePut(a.gather(), auto, P("X", "Y"));
        wAuto = ShardedArray.devicePut(w.gather(), auto, P(null, "Y"));
        jitted = Jit.jit((x, v) -> x.matmul(v)).named("matmul").outShardings(P("X", "Y"));
        jitted.call(aAuto, wAuto); // compiled once, outside the measurement
    }

    @Benchmark
    public ShardedArray allGatherThenMatmul() {
        return Problem3.allGatherMatmulNaive(a, w);
    }

    @Benchmark
    public ShardedArray jittedMatmul() {
        return jitted.call(aAuto, wAuto).get(0);
    }

    @Benchmark
    public ShardedArray collectiveMatmul() {
        return Problem3.allGatherMatmul(a, w);
    }
}
