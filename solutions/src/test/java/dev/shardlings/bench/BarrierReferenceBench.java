package dev.shardlings.bench;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;

import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.TimeUnit;

/**
 * The reference for {@link ShardMapLatencyBench}: 8 platform threads meeting at a {@link BarrierParty} (7 helper
 * threads that wait at it in a loop, and the benchmark thread). One operation is one barrier — the least a
 * shardMap call with one collective could cost if built from the JDK's ready-made primitives, and a call needs
 * three such meetings (start, the collective, the end).
 */
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class BarrierReferenceBench extends BenchDefaults {

    private static final int THREADS = 8;

    private BarrierParty barrier;

    @Setup
    public void setup() {
        barrier = BarrierParty.cyclic(THREADS);
    }

    @Benchmark
    public int eightThreadBarrier() throws InterruptedException, BrokenBarrierException {
        return barrier.await();
    }

    @TearDown
    public void tearDown() throws InterruptedException {
        barrier.close();
    }
}
