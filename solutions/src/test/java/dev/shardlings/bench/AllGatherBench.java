package dev.shardlings.bench;

import dev.shardlings.array.NDArray;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.spmd.Collectives;
import dev.shardlings.spmd.ShardMap;
import dev.shardlings.spmd.ShardedArray;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;

import java.util.concurrent.TimeUnit;

import static dev.shardlings.spmd.Tiling.TILED;
import static dev.shardlings.sharding.PartitionSpec.P;

/**
 * A tiled all-gather of a 64 MB float32 array over N devices: x f32[16M_X] → every device holds all of x
 * (N × 64 MB written per call, into new buffers, as on real devices). The reference, in the same run, copies the
 * same N × 64 MB with {@link System#arraycopy} on one thread into buffers allocated once.
 */
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Measurement(iterations = 5, time = 2)
public class AllGatherBench extends BenchDefaults {

    /** Floats in the gathered array: 64 MB. */
    static final int ELEMENTS = 16 * 1024 * 1024;

    /** Devices in the (one-axis) mesh. */
    @Param({"2", "4", "8", "16"})
    public int devices;

    private ShardMap.Unary gather;
    private ShardedArray x;
    private float[] source;
    private float[][] copies;

    @Setup
    public void setup() {
        Mesh mesh = Mesh.makeMesh(new int[]{devices}, "X");
        NDArray whole = NDArray.fromFloats(randomFloats(ELEMENTS, 3), ELEMENTS);
        x = ShardedArray.devicePut(whole, mesh, P("X"));
        gather = ShardMap.shardMap(b -> Collectives.allGather(b, "X", 0, TILED), mesh, P("X"), P("X"));
        source = whole.toFloatArray();
        copies = new float[devices][ELEMENTS];
    }

    @Benchmark
    public ShardedArray allGather() {
        return gather.apply(x);
    }

    @Benchmark
    public float[][] arraycopyReference() {
        for (float[] c : copies) {
            System.arraycopy(source, 0, c, 0, ELEMENTS);
        }
        return copies;
    }
}
