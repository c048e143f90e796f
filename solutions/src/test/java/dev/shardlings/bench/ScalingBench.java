package dev.shardlings.bench;

import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.spmd.Collectives;
import dev.shardlings.spmd.ShardMap;
import dev.shardlings.spmd.ShardedArray;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.TimeUnit;

import static dev.shardlings.sharding.PartitionSpec.P;
import static dev.shardlings.spmd.Tiling.TILED;

/**
 * The runtime's cost as the mesh grows from 1 to 256 devices, one-axis meshes ("N") and two-axis ones ("RxC",
 * up to 16 × 16, a TPU v5e pod slice), all devices sharing the machine's cores:
 * <ul>
 *   <li>{@code psumCall}: one shardMap call whose function is a psum over every axis of a one-element block,
 *       x f32[N] sharded over all axes → f32[] (the runtime's fixed cost per call);</li>
 *   <li>{@code allGatherCall}: a tiled all-gather over every axis of x f32[{@value #GATHERED}] (1 MiB), so every
 *       device ends with the whole 1 MiB: N MiB written per call, work that itself grows linearly (the out spec
 *       keeps every device's copy, so the call assembles nothing).</li>
 * </ul>
 * The references, in the same run:
 * <ul>
 *   <li>{@code cyclicBarrierReference}: as many platform threads as devices meeting three times (a call's start,
 *       its collective and its end) at a {@link java.util.concurrent.CyclicBarrier}, the JDK's ready-made
 *       primitive ({@link BarrierParty#cyclic});</li>
 *   <li>{@code yieldBarrierReference}: the same three meetings of as many threads whose waiters only yield
 *       ({@link BarrierParty#yielding}) — the floor of one platform thread per device on shared cores, and how
 *       that floor itself grows with the threads;</li>
 *   <li>{@code copiesReference}: one thread filling as many fresh 1 MiB arrays as there are devices with
 *       {@link System#arraycopy}, the bytes an all-gather call writes, so the caches' share of its growth shows.</li>
 * </ul>
 * Each reference's helper threads exist only while that reference is measured. The report ({@link BenchReport})
 * sets each size against the one half its size (target: a doubling of devices at most doubles the time), shows
 * how the references grow over the same range, and draws the curves ({@link ScalingPlot},
 * docs/performance/scaling.svg).
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
public class ScalingBench extends BenchDefaults {

    /** Floats in the gathered array (1 MiB), a multiple of every mesh size measured. */
    static final int GATHERED = 256 * 1024;

    /** The mesh: "N" for one axis of N devices, "RxC" for two axes. */
    @Param({"1", "2", "4", "8", "16", "32", "64", "128", "256", "2x2", "4x4", "8x8", "16x16"})
    public String mesh;

    private ShardMap.Unary psum;
    private ShardMap.Unary gather;
    private ShardedArray one;
    private ShardedArray gathered;
    private BarrierParty barrier;
    private float[] source;

    /** The mesh a parameter names, with axes "A", "B". */
    static Mesh parseMesh(String text) {
        int[] shape = Arrays.stream(text.split("x")).mapToInt(Integer::parseInt).toArray();
        return shape.length == 1 ? Mesh.makeMesh(shape, "A") : Mesh.makeMesh(shape, "A", "B");
    }

    @Setup
    public void setup(BenchmarkParams params) {
        Mesh m = parseMesh(mesh);
        String[] axes = m.axisNames().toArray(new String[0]);
        Object axesSpec = axes.length == 1 ? axes[0] : List.of(axes);
        one = ShardedArray.devicePut(NDArray.arange(m.size(), DType.FLOAT32), m, P(axesSpec));
        psum = ShardMap.shardMap(b -> Collectives.psum(b, axes), m, P(axesSpec), P());
        source = randomFloats(GATHERED, 7);
        gathered = ShardedArray.devicePut(NDArray.fromFloats(source, GATHERED), m, P(axesSpec));
        // all_gather's result stays varying (JAX's all_gather_invariant is the other one), so the out spec keeps
        // each device's copy: nothing is assembled.
        gather = ShardMap.shardMap(b -> Collectives.allGather(b, List.of(axes), 0, TILED), m,
                P(axesSpec), P(axesSpec));
        // A reference's helpers run only in its own trial: yielding helpers would take the cores from the others.
        String measured = params.getBenchmark();
        if (measured.endsWith(".cyclicBarrierReference")) {
            barrier = BarrierParty.cyclic(m.size());
        } else if (measured.endsWith(".yieldBarrierReference")) {
            barrier = BarrierParty.yielding(m.size());
        }
    }

    @TearDown
    public void tearDown() throws InterruptedException {
        if (barrier != null) {
            barrier.close();
            barrier = null;
        }
    }

    @Benchmark
    public int cyclicBarrierReference() throws InterruptedException, BrokenBarrierException {
        return threeMeetings();
    }

    @Benchmark
    public int yieldBarrierReference() throws InterruptedException, BrokenBarrierException {
        return threeMeetings();
    }

    /** A call's start, its collective and its end, as meetings of the trial's barrier party. */
    private int threeMeetings() throws InterruptedException, BrokenBarrierException {
        barrier.await();
        barrier.await();
        return barrier.await();
    }

    /** One fresh 1 MiB copy of the gathered array per device: the bytes of an all-gather call, on one thread. */
    @Benchmark
    public float[][] copiesReference() {
        int n = one.mesh().size();
        float[][] copies = new float[n][];
        for (int d = 0; d < n; d++) {
            copies[d] = new float[GATHERED];
            System.arraycopy(source, 0, copies[d], 0, GATHERED);
        }
        return copies;
    }

    @Benchmark
    public ShardedArray psumCall() {
        return psum.apply(one);
    }

    @Benchmark
    public ShardedArray allGatherCall() {
        return gather.apply(gathered);
    }
}
