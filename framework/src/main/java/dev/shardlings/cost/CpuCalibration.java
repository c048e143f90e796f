package dev.shardlings.cost;

import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.spmd.Collectives;
import dev.shardlings.spmd.ShardMap;

import java.time.LocalDate;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import static dev.shardlings.sharding.PartitionSpec.P;

/**
 * Measures this machine as a {@link HardwareModel} named {@code "cpu-local"}: one device is one core running the
 * framework's kernels, and devices talk through shared memory. A short micro-benchmark (about a second):
 * <ul>
 *   <li>matmul rate: float32 and int32 {@link NDArray#matmul} of 256 × 256 blocks on one thread (bfloat16 is
 *       modelled at the float32 rate: the framework computes in float32);</li>
 *   <li>vector rate: float32 elementwise adds of 1 Mi elements;</li>
 *   <li>memory bandwidth, and the link bandwidth (a message is a copy between cores): {@code System.arraycopy}
 *       of 16 MiB, counting bytes read and written;</li>
 *   <li>hop latency: one ppermute between two devices of a shardMap, per call.</li>
 * </ul>
 * The figures vary from run to run by some per cent; they are for profiles, never for grades.
 */
public final class CpuCalibration {

    private CpuCalibration() {
    }

    /** Measures this machine. Takes about a second; uses the calling thread and, for the latency, two more. */
    public static HardwareModel measure() {
        double f32 = matmulRate(DType.FLOAT32);
        double i32 = matmulRate(DType.INT32);
        double vector = vectorRate();
        double memory = copyBandwidth();
        double latency = hopLatency();
        String cpu = Runtime.getRuntime().availableProcessors() + " cores, " + System.getProperty("os.arch")
                + ", Java " + System.getProperty("java.version");
        return new HardwareModel("cpu-local", "This machine (" + cpu + "): one core per device, shared memory",
                "switch", Map.of("bfloat16", f32, "float32", f32, "int32", i32), vector, memory, memory, latency, 1,
                List.of(String.format(Locale.ROOT, "measured by CpuCalibration on %s: float32 matmul %.3g FLOP/s,"
                                + " int32 matmul %.3g, elementwise %.3g FLOP/s, arraycopy %.3g B/s (read + write),"
                                + " ppermute between two device threads %.3g s per call", LocalDate.now(), f32, i32,
                        vector, memory, latency)));
    }

    private static double matmulRate(DType dtype) {
        int n = 256;
        NDArray a = NDArray.ones(dtype, n, n);
        NDArray b = NDArray.ones(dtype, n, n);
        double flops = 2.0 * n * n * n;
        return rate(() -> a.matmul(b), flops, dtype == DType.INT32 ? 4 : 16);
    }

    private static double vectorRate() {
        int n = 1 << 20;
        NDArray a = NDArray.ones(DType.FLOAT32, n);
        return rate(() -> a.add(a), n, 40);
    }

    private static double copyBandwidth() {
        int n = 4 << 20;
        float[] src = new float[n];
        float[] dst = new float[n];
        return rate(() -> System.arraycopy(src, 0, dst, 0, n), 2.0 * 4 * n, 20);
    }

    private static double hopLatency() {
        Mesh two = Mesh.makeMesh(new int[]{2}, "i");
        NDArray x = NDArray.zeros(DType.FLOAT32, 2);
        int calls = 50;
        ShardMap.Unary f = ShardMap.shardMap(b -> {
            NDArray v = b;
            for (int k = 0; k < calls; k++) {
                v = Collectives.ppermute(v, "i", new int[][]{{0, 1}, {1, 0}});
            }
            return v;
        }, two, P("i"), P("i"));
        f.apply(x); // warm-up
        long t = System.nanoTime();
        f.apply(x);
        return (System.nanoTime() - t) / 1e9 / calls;
    }

    /** Work per second of {@code body}: the best of several timed batches after a warm-up. */
    private static double rate(Runnable body, double work, int reps) {
        for (int i = 0; i < reps; i++) {
            body.run();
        }
        double best = Double.MAX_VALUE;
        for (int batch = 0; batch < 3; batch++) {
            long t = System.nanoTime();
            for (int i = 0; i < reps; i++) {
                body.run();
            }
            best = Math.min(best, (System.nanoTime() - t) / 1e9 / reps);
        }
        return work / Math.max(best, 1e-9);
    }
}
