package dev.shardlings.bench;

import java.util.Random;

/**
 * What the benchmarks share. Every benchmark forks a JVM with {@code -Xms6g -Xmx6g -XX:+AlwaysPreTouch}: a fixed
 * heap touched up front, because otherwise the first allocations of each size pay the operating system's page
 * faults — a cost of the JVM's start, not of the code measured (a 64 MB all-gather ran 3× slower on an untouched
 * heap). Annotations cannot share an array constant, so each {@code @Fork} spells the options out.
 */
final class BenchSettings {

    private BenchSettings() {
    }

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
