package dev.shardlings.bench;

import dev.shardlings.array.NDArray;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * C f32[n, n] = A f32[n, n] · B f32[n, n] called from host code ({@code NDArray.matmul}, the packed Vector API
 * kernel; from n = 128 it shares the work among the cores: B packed once, C's rows split),
 * 2n³ FLOPs per call. The reference is numpy's {@code a @ b} (OpenBLAS sgemm, one thread), measured by
 * {@code solutions/src/bench/numpy_reference.py} in the same run; {@link PeersByTurns} compares n = 1024, by turns,
 * with numpy on all OpenBLAS threads and on one. The warm-up lets C2 compile the micro-kernel
 * with the vector intrinsics; before that, the Vector API runs as plain Java, hundreds of times slower.
 */
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 4, time = 1)
public class LocalMatmulBench extends BenchDefaults {

    /** Matrix side. */
    @Param({"128", "256", "512", "1024"})
    public int n;

    private NDArray a;
    private NDArray b;

    @Setup
    public void setup() {
        a = NDArray.fromFloats(randomFloats(n * n, 1), n, n);
        b = NDArray.fromFloats(randomFloats(n * n, 2), n, n);
    }

    @Benchmark
    public NDArray matmul() {
        return a.matmul(b);
    }
}
