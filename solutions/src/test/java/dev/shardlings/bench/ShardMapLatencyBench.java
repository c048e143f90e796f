package dev.shardlings.bench;

import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.spmd.Collectives;
import dev.shardlings.spmd.ShardMap;
import dev.shardlings.spmd.ShardedArray;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;

import java.util.concurrent.TimeUnit;

import static dev.shardlings.sharding.PartitionSpec.P;

/**
 * The fixed cost of the SPMD runtime: one shardMap call whose function is a single psum of a one-element block,
 * x f32[N_X] → psum_X → f32[] on a mesh of N devices (1 … 64). Everything a call does is in it: laying out the
 * argument, handing the devices to their threads, the collective's rendezvous, and assembling the output.
 * {@link BarrierReferenceBench} measures, in the same run, what one barrier of 8 plain platform threads costs.
 * Sampled, so that the report has the median and the 99th percentile of a call (the targets: ≤ 20 µs and ≤ 60 µs
 * on 8 devices) as well as the mean.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class ShardMapLatencyBench extends BenchDefaults {

    /** Devices in the (one-axis) mesh. */
    @Param({"1", "2", "4", "8", "16", "32", "64"})
    public int devices;

    private ShardMap.Unary psum;
    private ShardedArray x;

    @Setup
    public void setup() {
        Mesh mesh = Mesh.makeMesh(new int[]{devices}, "X");
        x = ShardedArray.devicePut(NDArray.arange(devices, DType.FLOAT32), mesh, P("X"));
        psum = ShardMap.shardMap(b -> Collectives.psum(b, "X"), mesh, P("X"), P());
    }

    @Benchmark
    public ShardedArray shardMapPsum() {
        return psum.apply(x);
    }
}
