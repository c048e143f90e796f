package dev.shardlings.cost;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * What the cost model knows about one accelerator (one device of a mesh) and the network between devices. Models
 * are data: one JSON file each, with its sources. The built-in ones are {@code tpu-v5e}, {@code tpu-v4} and
 * {@code h100-8-nvlink} ({@link #builtIn(String)}); {@link CpuCalibration} measures this machine.
 *
 * <p>Units are SI: FLOP/s, bytes/s, seconds. JSON keys are the component names in snake_case, e.g.
 * {@code "memory_bytes_per_second": 8.1e11}.
 *
 * @param name                   short id, e.g. {@code "tpu-v5e"}
 * @param description            one line for people
 * @param topology               {@code "torus"}: each device has two links (one each way) to each neighbour
 *                               along every mesh axis, a message crosses one link per step along the axis; or
 *                               {@code "switch"}: each device has one port into a switch that connects every pair
 *                               in one hop (NVLink with NVSwitch)
 * @param matmulFlopsPerSecond   peak matmul FLOP/s per modelled dtype ({@link ModelDtype#jaxName()} keys)
 * @param vectorFlopsPerSecond   peak FLOP/s of elementwise work and reductions
 * @param memoryBytesPerSecond   memory (HBM) bandwidth, bytes/s
 * @param linkBytesPerSecond     bandwidth of one link in one direction (torus) or of a port in one direction
 *                               (switch), bytes/s
 * @param hopLatencySeconds      fixed cost of one step of a message (one hop), seconds
 * @param wraparoundMinAxisSize  torus only: an axis of at least this many devices is a ring (it wraps around)
 *                               when the slice is also large enough ({@code wraparoundMinSliceChips}); any other
 *                               axis is a line, whose ends are n − 1 hops apart
 * @param wraparoundMinSliceChips torus only: the fewest chips a slice (the whole mesh) needs before any of its axes
 *                               wraps around — 64 on TPU v4, whose wraparound links come from the optical switches
 *                               of a full 4 × 4 × 4 cube; 1 where only the axis length matters (TPU v5e); absent
 *                               or 0 in the JSON: 1
 * @param sources                where each figure comes from
 * @param kernels                what one operation costs beyond the peaks: achieved rates, a fixed cost per
 *                               operation, matmul tiles and waves, what fuses into a matmul
 *                               ({@link KernelModel}); absent in the JSON: {@link KernelModel#ROOFLINE}
 */
public record HardwareModel(String name, String description, String topology,
                            Map<String, Double> matmulFlopsPerSecond, double vectorFlopsPerSecond,
                            double memoryBytesPerSecond, double linkBytesPerSecond, double hopLatencySeconds,
                            int wraparoundMinAxisSize, int wraparoundMinSliceChips, List<String> sources,
                            KernelModel kernels) {

    /** The models shipped with the framework, by name. */
    public static final List<String> BUILT_IN = List.of("tpu-v5e", "tpu-v4", "h100-8-nvlink");

    private static final ObjectMapper JSON = new ObjectMapper()
            .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(SerializationFeature.INDENT_OUTPUT);

    /**
     * Checks every figure.
     *
     * @throws IllegalArgumentException naming the model and the field when a figure is missing, not positive, or
     *                                  the topology is unknown
     */
    public HardwareModel {
        String who = "hardware model '" + name + "'";
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("a hardware model needs a name");
        }
        if (!"torus".equals(topology) && !"switch".equals(topology)) {
            throw new IllegalArgumentException(who + ": topology must be \"torus\" or \"switch\", got " + topology);
        }
        if (matmulFlopsPerSecond == null || matmulFlopsPerSecond.isEmpty()) {
            throw new IllegalArgumentException(who + ": matmul_flops_per_second needs a rate for at least one dtype,"
                    + " e.g. {\"bfloat16\": 1.97e14}");
        }
        matmulFlopsPerSecond.forEach((k, v) -> {
            ModelDtype.of(k);
            positive(who, "matmul_flops_per_second." + k, v == null ? Double.NaN : v);
        });
        matmulFlopsPerSecond = java.util.Collections.unmodifiableMap(new TreeMap<>(matmulFlopsPerSecond));
        positive(who, "vector_flops_per_second", vectorFlopsPerSecond);
        positive(who, "memory_bytes_per_second", memoryBytesPerSecond);
        positive(who, "link_bytes_per_second", linkBytesPerSecond);
        if (!(hopLatencySeconds >= 0) || Double.isInfinite(hopLatencySeconds)) {
            throw new IllegalArgumentException(who + ": hop_latency_seconds must be >= 0, got " + hopLatencySeconds);
        }
        if (wraparoundMinAxisSize < 1) {
            throw new IllegalArgumentException(who + ": wraparound_min_axis_size must be >= 1 (1: every axis is a"
                    + " ring), got " + wraparoundMinAxisSize);
        }
        if (wraparoundMinSliceChips < 0) {
            throw new IllegalArgumentException(who + ": wraparound_min_slice_chips must be >= 1 (1: only the axis"
                    + " length decides), got " + wraparoundMinSliceChips);
        }
        wraparoundMinSliceChips = Math.max(1, wraparoundMinSliceChips);
        description = Objects.requireNonNullElse(description, "");
        sources = List.copyOf(Objects.requireNonNullElse(sources, List.of()));
        kernels = Objects.requireNonNullElse(kernels, KernelModel.ROOFLINE);
        for (Map.Entry<String, Double> e : kernels.matmulFlopsPerSecond().entrySet()) {
            Double peak = matmulFlopsPerSecond.get(e.getKey());
            if (peak == null || e.getValue() > peak) {
                throw new IllegalArgumentException(who + ": kernels.matmul_flops_per_second." + e.getKey() + " = "
                        + e.getValue() + " must not exceed the peak matmul_flops_per_second." + e.getKey() + " = "
                        + peak);
            }
        }
        if (kernels.memoryBytesPerSecond() > memoryBytesPerSecond) {
            throw new IllegalArgumentException(who + ": kernels.memory_bytes_per_second = "
                    + kernels.memoryBytesPerSecond() + " must not exceed the peak memory_bytes_per_second = "
                    + memoryBytesPerSecond);
        }
    }

    /**
     * A pure roofline model at its peaks ({@link KernelModel#ROOFLINE}).
     *
     * @throws IllegalArgumentException as the canonical constructor
     */
    public HardwareModel(String name, String description, String topology, Map<String, Double> matmulFlopsPerSecond,
                         double vectorFlopsPerSecond, double memoryBytesPerSecond, double linkBytesPerSecond,
                         double hopLatencySeconds, int wraparoundMinAxisSize, List<String> sources) {
        this(name, description, topology, matmulFlopsPerSecond, vectorFlopsPerSecond, memoryBytesPerSecond,
                linkBytesPerSecond, hopLatencySeconds, wraparoundMinAxisSize, 1, sources, KernelModel.ROOFLINE);
    }

    /**
     * A model whose wraparound depends on the axis length alone ({@code wraparoundMinSliceChips} 1).
     *
     * @throws IllegalArgumentException as the canonical constructor
     */
    public HardwareModel(String name, String description, String topology, Map<String, Double> matmulFlopsPerSecond,
                         double vectorFlopsPerSecond, double memoryBytesPerSecond, double linkBytesPerSecond,
                         double hopLatencySeconds, int wraparoundMinAxisSize, List<String> sources,
                         KernelModel kernels) {
        this(name, description, topology, matmulFlopsPerSecond, vectorFlopsPerSecond, memoryBytesPerSecond,
                linkBytesPerSecond, hopLatencySeconds, wraparoundMinAxisSize, 1, sources, kernels);
    }

    private static void positive(String who, String field, double v) {
        if (!(v > 0) || Double.isInfinite(v)) {
            throw new IllegalArgumentException(who + ": " + field + " must be a positive number, got " + v);
        }
    }

    /**
     * A built-in model.
     *
     * @throws IllegalArgumentException naming the built-in models when there is none of that name
     */
    public static HardwareModel builtIn(String name) {
        if (!BUILT_IN.contains(name)) {
            throw new IllegalArgumentException("no built-in hardware model '" + name + "'; built in: " + BUILT_IN
                    + " (or measure this machine with CpuCalibration.measure())");
        }
        try (InputStream in = HardwareModel.class.getResourceAsStream("hardware/" + name + ".json")) {
            if (in == null) {
                throw new IllegalStateException("the resource of hardware model '" + name + "' is missing from the"
                        + " framework jar");
            }
            return JSON.readValue(in, HardwareModel.class);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read hardware model '" + name + "'", e);
        }
    }

    /**
     * A model from a JSON file of the same form as the built-in ones.
     *
     * @throws UncheckedIOException     if the file cannot be read or is not JSON of that form
     * @throws IllegalArgumentException if a figure is invalid
     */
    public static HardwareModel read(Path file) {
        try {
            return JSON.readValue(Files.readString(file), HardwareModel.class);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read hardware model " + file + ": " + e.getMessage(), e);
        }
    }

    /** This model as JSON, in the form {@link #read(Path)} reads. */
    public String toJson() {
        try {
            return JSON.writeValueAsString(this);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The peak matmul rate for a modelled dtype, FLOP/s.
     *
     * @throws IllegalArgumentException when the model has no rate for that dtype, naming the ones it has
     */
    public double matmulRate(ModelDtype dtype) {
        Double r = matmulFlopsPerSecond.get(dtype.jaxName());
        if (r == null) {
            throw new IllegalArgumentException("hardware model '" + name + "' has no matmul rate for "
                    + dtype.jaxName() + "; it has " + matmulFlopsPerSecond.keySet());
        }
        return r;
    }

    /**
     * The matmul rate a kernel of this dtype achieves, FLOP/s: the kernel model's achieved rate, else the peak.
     *
     * @throws IllegalArgumentException when the model has no rate for that dtype, naming the ones it has
     */
    public double achievedMatmulRate(ModelDtype dtype) {
        return kernels.matmulRate(dtype, matmulRate(dtype));
    }

    /** The memory bandwidth kernels achieve, bytes read plus written per second: the kernel model's, else the peak. */
    public double achievedMemoryRate() {
        return kernels.memoryRate(memoryBytesPerSecond);
    }

    /** True when the devices connect through a switch rather than a torus. */
    public boolean switched() {
        return "switch".equals(topology);
    }

    /**
     * True when an axis of {@code size} devices in a slice of {@code sliceChips} chips wraps around (a ring) under
     * this model; always on a switch. On TPU v4 a 4-chip axis of a 2 × 4 or 4 × 4 slice is a line, the same axis
     * of a 4 × 4 × 4 cube a ring.
     *
     * @param size       devices along the axis (or the group, for a collective over several axes)
     * @param sliceChips chips of the whole slice, the mesh's size
     */
    public boolean ring(int size, int sliceChips) {
        return switched() || (size >= wraparoundMinAxisSize && sliceChips >= wraparoundMinSliceChips);
    }
}
