package dev.shardlings.bench;

import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.Random;

/**
 * What the benchmarks share; JMH reads these class annotations from the superclass, and a benchmark overrides
 * the ones it needs longer. Average time per call, one fork, 3 warm-up and 5 measured iterations of 1 s.
 *
 * <p>The forked JVM gets a fixed heap touched up front ({@code -Xms6g -Xmx6g -XX:+AlwaysPreTouch}): otherwise
 * the first allocations of each size pay the operating system's page faults, a cost of the JVM's start and not
 * of the code measured (a 64 MB all-gather ran 3× slower on an untouched heap).
 */
@BenchmarkMode(Mode.AverageTime)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "-Xms6g", "-Xmx6g",
        "-XX:+AlwaysPreTouch"})
@State(Scope.Benchmark)
public abstract class BenchDefaults {

    /** n floats uniform in [-1, 1) from a fixed seed, so every run multiplies the same numbers. */
    static float[] randomFloats(int n, long seed) {
        Random r = new Random(seed);
        float[] out = new float[n];
        for (int i = 0; i < n; i++) {
            out[i] = r.nextFloat() * 2 - 1;
        }
        return out;
    }
}
