package dev.shardlings.cost;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * How one operation (one kernel) takes time on a chip, beyond the datasheet peaks of {@link HardwareModel}: the
 * rates a chip achieves, a fixed cost per operation, and the tiles a matmul is cut into. The {@code "kernels"}
 * object of a hardware model's JSON file; a model without one is a pure roofline at its peaks ({@link #ROOFLINE}).
 *
 * <h2>What an operation costs</h2>
 * A fused group of operations (one kernel: a matmul with the elementwise work fused into its output, or an
 * elementwise operation alone) takes
 * <pre>  fixed cost + max(compute, memory) + unhidden_fraction · min(compute, memory)</pre>
 * where memory = bytes / achieved memory bandwidth, and compute for a matmul [m, k]·[k, n] counts whole tiles in
 * whole waves: the result is cut into tiles of one of {@link #matmulTiles()} (the shape that finishes first is
 * taken, as a library's heuristics or XLA's autotuner choose), {@link #matmulUnits()} units run one tile each at a
 * time, so the matmul takes ⌈tiles / units⌉ waves, each the time one unit takes for one tile
 * (2 · tile_m · tile_n · k FLOPs at achieved rate × efficiency / units). When one wave is not full and k is at least
 * twice {@link #minSplitDepth()}, k is split so that more units work (split-K). Elementwise FLOPs run at the
 * vector rate of the hardware model.
 *
 * <h2>Fusion</h2>
 * {@link Epilogue#ANY}: every elementwise operation that reads a matmul's result as it comes out fuses into it (a
 * TPU's XLA). {@link Epilogue#SCALE_ACCUMULATE}: a matmul kernel's output stage only scales its product by a
 * scalar, adds one other array and applies an activation (a ReLU), in that order, as cuBLAS's
 * {@code alpha · A·B + beta · C} with an epilogue does on a GPU; any other elementwise operation, or one out of
 * that order, is a kernel of its own. On every chip, elementwise operations that read an elementwise kernel's
 * result as it comes out fuse into it (loop fusion), and a reduction ends such a kernel.
 *
 * @param matmulFlopsPerSecond achieved matmul FLOP/s per dtype ({@link ModelDtype#jaxName()} keys); a dtype not
 *                             listed runs at the hardware model's peak
 * @param memoryBytesPerSecond achieved memory bandwidth, bytes read plus written per second; 0: the hardware
 *                             model's peak
 * @param opSeconds            fixed cost of each operation that is not a matmul (launch, prologue, epilogue), s
 * @param matmulOpSeconds      fixed cost of each matmul kernel per dtype, s; a dtype not listed costs
 *                             {@code opSeconds}
 * @param matmulTiles          the tile shapes a matmul's result can be cut into, each with its efficiency; empty:
 *                             no tile or wave quantization
 * @param matmulUnits          how many units run tiles at the same time (SMs of a GPU, MXUs of a TPU chip)
 * @param minSplitDepth       smallest depth k a split-K part may have; 0: never split
 * @param unhiddenFraction     the share of the shorter of compute and memory that does not overlap the longer,
 *                             0 (perfect overlap, the roofline) to 1 (none)
 * @param epilogue             what fuses into a matmul's output
 * @param sources              where each figure comes from, measured ones with date, chip and method
 */
public record KernelModel(Map<String, Double> matmulFlopsPerSecond, double memoryBytesPerSecond, double opSeconds,
                          Map<String, Double> matmulOpSeconds, List<Tile> matmulTiles, int matmulUnits,
                          int minSplitDepth, double unhiddenFraction, Epilogue epilogue, List<String> sources) {

    /** No kernel effects: the peaks of the hardware model, no fixed cost, no tiles, full fusion (0 = peak). */
    public static final KernelModel ROOFLINE = new KernelModel(Map.of(), 0, 0, Map.of(), List.of(), 1, 0, 0,
            Epilogue.ANY, List.of());

    /**
     * A tile of a matmul's result, [m, n], and the share of the per-unit rate a unit reaches on it (smaller tiles
     * reuse less of what they load).
     *
     * @param m          rows of the tile, elements
     * @param n          columns of the tile, elements
     * @param efficiency the share of a unit's rate reached on this tile, in (0, 1]
     */
    public record Tile(int m, int n, double efficiency) {
        /** @throws IllegalArgumentException if a size is not positive or the efficiency is not in (0, 1] */
        public Tile {
            if (m <= 0 || n <= 0) {
                throw new IllegalArgumentException("a matmul tile needs positive sizes, got [" + m + ", " + n + "]");
            }
            if (!(efficiency > 0 && efficiency <= 1)) {
                throw new IllegalArgumentException("tile [" + m + ", " + n + "]: efficiency must be in (0, 1], got "
                        + efficiency);
            }
        }
    }

    /** What elementwise work fuses into a matmul kernel's output. */
    public enum Epilogue {
        /** Any elementwise operation reading the result as it comes out (XLA on a TPU). */
        ANY("any"),
        /** Scaling the product by a scalar, adding one other array, then a ReLU (cuBLAS's alpha · A·B + beta · C). */
        SCALE_ACCUMULATE("scale_accumulate");

        private final String json;

        Epilogue(String json) {
            this.json = json;
        }

        @JsonValue
        String json() {
            return json;
        }

        /** @throws IllegalArgumentException naming the values there are */
        @JsonCreator
        static Epilogue of(String s) {
            for (Epilogue e : values()) {
                if (e.json.equals(s)) {
                    return e;
                }
            }
            throw new IllegalArgumentException("epilogue must be \"any\" or \"scale_accumulate\", got " + s);
        }
    }

    /**
     * Checks every figure; a missing map or list is empty, a missing epilogue {@link Epilogue#ANY}.
     *
     * @throws IllegalArgumentException naming the field when a figure is negative, a rate not positive, a dtype
     *                                  unknown or the fraction outside [0, 1]
     */
    public KernelModel {
        matmulFlopsPerSecond = positiveRates("matmul_flops_per_second", matmulFlopsPerSecond, false);
        matmulOpSeconds = positiveRates("matmul_op_seconds", matmulOpSeconds, true);
        if (!(memoryBytesPerSecond >= 0) || Double.isInfinite(memoryBytesPerSecond)) {
            throw new IllegalArgumentException("kernels.memory_bytes_per_second must be >= 0 (0: the peak), got "
                    + memoryBytesPerSecond);
        }
        if (!(opSeconds >= 0) || Double.isInfinite(opSeconds)) {
            throw new IllegalArgumentException("kernels.op_seconds must be >= 0, got " + opSeconds);
        }
        matmulTiles = List.copyOf(Objects.requireNonNullElse(matmulTiles, List.of()));
        if (matmulUnits < 1) {
            throw new IllegalArgumentException("kernels.matmul_units must be >= 1, got " + matmulUnits);
        }
        if (minSplitDepth < 0) {
            throw new IllegalArgumentException("kernels.min_split_depth must be >= 0 (0: never), got "
                    + minSplitDepth);
        }
        if (!(unhiddenFraction >= 0 && unhiddenFraction <= 1)) {
            throw new IllegalArgumentException("kernels.unhidden_fraction must be in [0, 1], got " + unhiddenFraction);
        }
        epilogue = Objects.requireNonNullElse(epilogue, Epilogue.ANY);
        sources = List.copyOf(Objects.requireNonNullElse(sources, List.of()));
    }

    private static Map<String, Double> positiveRates(String field, Map<String, Double> m, boolean zeroAllowed) {
        Map<String, Double> out = new TreeMap<>();
        if (m != null) {
            m.forEach((k, v) -> {
                ModelDtype.of(k);
                if (v == null || !(zeroAllowed ? v >= 0 : v > 0) || Double.isInfinite(v)) {
                    throw new IllegalArgumentException("kernels." + field + "." + k + " must be "
                            + (zeroAllowed ? ">= 0" : "positive") + ", got " + v);
                }
                out.put(k, v);
            });
        }
        return java.util.Collections.unmodifiableMap(out);
    }

    /** Achieved matmul FLOP/s for dtype, or {@code peak} where none is given. */
    double matmulRate(ModelDtype dtype, double peak) {
        return matmulFlopsPerSecond.getOrDefault(dtype.jaxName(), peak);
    }

    /** Achieved memory bandwidth, or {@code peak} where none is given. */
    double memoryRate(double peak) {
        return memoryBytesPerSecond > 0 ? memoryBytesPerSecond : peak;
    }

    /** The fixed cost of a matmul kernel of dtype, seconds. */
    double matmulOpSeconds(ModelDtype dtype) {
        return matmulOpSeconds.getOrDefault(dtype.jaxName(), opSeconds);
    }

    /**
     * Seconds of compute of a matmul [m, k]·[k, n] at {@code rate} FLOP/s for the whole chip, counting whole tiles
     * in whole waves; without tiles, 2·m·k·n / rate.
     */
    double matmulComputeSeconds(long m, long k, long n, double rate) {
        double ideal = 2.0 * m * k * n / rate;
        if (matmulTiles.isEmpty() || m == 0 || k == 0 || n == 0) {
            return ideal;
        }
        double best = Double.POSITIVE_INFINITY;
        for (Tile t : matmulTiles) {
            long tiles = ceilDiv(m, t.m()) * ceilDiv(n, t.n());
            long split = 1;
            if (minSplitDepth > 0 && tiles < matmulUnits) {
                split = Math.max(1, Math.min(matmulUnits / tiles, k / minSplitDepth));
            }
            long waves = ceilDiv(tiles * split, matmulUnits);
            double perUnit = rate * t.efficiency() / matmulUnits;
            best = Math.min(best, waves * 2.0 * t.m() * t.n() * ceilDiv(k, split) / perUnit);
        }
        return best;
    }

    /** How compute and memory time combine in one kernel. */
    double combine(double compute, double memory) {
        return Math.max(compute, memory) + unhiddenFraction * Math.min(compute, memory);
    }

    private static long ceilDiv(long a, long b) {
        return (a + b - 1) / b;
    }
}
