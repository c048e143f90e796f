package dev.shardlings.profiles;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.cost.HardwareModel;
import dev.shardlings.cost.ModelDtype;
import dev.shardlings.course.Problem3;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.spmd.ShardedArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static dev.shardlings.sharding.PartitionSpec.P;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The profile report on two small programs: every file, every field, and the profile list itself. */
class ReferenceProfilesTest {

    @Test
    void writesSummaryPerfettoSvgAndIndex(@TempDir Path out) throws Exception {
        Mesh mesh = Mesh.makeMesh(new int[]{1, 4}, "X", "Y");
        ShardedArray a = ShardedArray.devicePut(NDArray.zeros(DType.FLOAT32, 8, 16), mesh, P("X", "Y"));
        ShardedArray w = ShardedArray.devicePut(NDArray.zeros(DType.FLOAT32, 16, 32), mesh, P(null, "Y"));
        List<ReferenceProfiles.Program> programs = List.of(
                new ReferenceProfiles.Program("small", "naive", "3.0", "B, D, F = 8, 16, 32", ModelDtype.BFLOAT16,
                        () -> Problem3.allGatherMatmulNaive(a, w)),
                new ReferenceProfiles.Program("small", "collective", "3.0", "B, D, F = 8, 16, 32",
                        ModelDtype.BFLOAT16, () -> Problem3.allGatherMatmul(a, w)));
        List<HardwareModel> models = List.of(HardwareModel.builtIn("tpu-v5e"), HardwareModel.builtIn("tpu-v4"));
        ReferenceProfiles.write(out, programs, models);

        JsonNode summary = new ObjectMapper().readTree(out.resolve("summary.json").toFile());
        assertEquals(4, summary.get("entries").size(), "two programs on two models");
        for (JsonNode e : summary.get("entries")) {
            for (String key : List.of("problem", "variant", "hardware", "modelled_us", "wall_ms", "flops",
                    "bytes_communicated")) {
                assertTrue(e.has(key), key + " in " + e);
            }
            assertTrue(e.get("modelled_us").asDouble() > 0, e.toString());
            assertTrue(Files.exists(out.resolve(e.get("perfetto").asText())), e.toString());
        }
        JsonNode collective = summary.get("entries").get(2);
        assertEquals("collective", collective.get("variant").asText());
        assertEquals(3L * 4 * 8 * 4 * 2, collective.get("bytes_communicated").asLong(),
                "3 ppermutes of a bf16[8, 4] block on each of 4 devices");
        assertTrue(Files.readString(out.resolve("svg/small--collective--tpu-v4.svg")).startsWith("<svg"));
        String html = Files.readString(out.resolve("index.html"));
        assertTrue(html.contains("<table>") && html.contains("small--collective--tpu-v4.json") && html.contains("<svg"),
                html);
    }

    @Test
    void aLoweredProgramIsModelledWithoutRunningAndReportsItsPeakMemory(@TempDir Path out) throws Exception {
        Mesh mesh = Mesh.makeMesh(new int[]{8}, new String[]{"batch"}, dev.shardlings.sharding.AxisType.AUTO);
        // seed 001's step at a small size, lowered only
        java.util.function.Supplier<dev.shardlings.jit.Compiled> lowered = () -> {
            List<Object> args = new java.util.ArrayList<>();
            int[] sizes = {16, 32, 10};
            for (int l = 0; l < 2; l++) {
                args.add(ShardedArray.devicePut(NDArray.zeros(DType.FLOAT32, sizes[l], sizes[l + 1]), mesh, P()));
                args.add(ShardedArray.devicePut(NDArray.zeros(DType.FLOAT32, sizes[l + 1]), mesh, P()));
            }
            args.add(ShardedArray.devicePut(NDArray.zeros(DType.FLOAT32, 64, 16), mesh, P("batch", null)));
            args.add(ShardedArray.devicePut(NDArray.zeros(DType.FLOAT32, 64, 10), mesh, P("batch", null)));
            return dev.shardlings.jit.Jit.jitList(ReferenceProfiles::sgdStep).lower(args.toArray());
        };
        ReferenceProfiles.write(out, List.of(ReferenceProfiles.Program.lowered("mlp", "dp", "seed 001", "small",
                ModelDtype.FLOAT32, lowered)), List.of(HardwareModel.builtIn("tpu-v5e")));
        JsonNode e = new ObjectMapper().readTree(out.resolve("summary.json").toFile()).get("entries").get(0);
        assertTrue(e.get("modelled_without_running").asBoolean(), e.toString());
        assertTrue(e.get("modelled_us").asDouble() > 0 && e.get("flops").asLong() > 0, e.toString());
        // the gradients of W1, b1, W2, b2 are all-reduced: (16·32 + 32 + 32·10 + 10) floats, 2·7/8 of them each
        assertEquals(8L * 2 * 7 * (16 * 32 + 32 + 32 * 10 + 10) * 4 / 8, e.get("bytes_communicated").asLong(),
                e.toString());
        assertTrue(e.get("peak_bytes_per_device").asLong() > 4L * (16 * 32 + 32 * 10), e.toString());
    }

    @Test
    void theProfileListHasTheBooksCaseAndEveryGradedSolution() {
        List<ReferenceProfiles.Program> ps = ReferenceProfiles.programs();
        assertEquals(List.of("jit-allgather", "collective", "unsharded-baseline"), ps.stream()
                .filter(p -> p.problem().equals("collective-matmul-book")).map(ReferenceProfiles.Program::variant)
                .toList());
        List<String> parts = ps.stream().map(ReferenceProfiles.Program::part).distinct().toList();
        for (String part : List.of("0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7", "0.8", "0.9", "0.10", "1.1a",
                "1.2a", "2.3a", "2.3b", "2.4", "3.0", "3.1", "3.2", "3.3", "4.0", "4.1", "4.2")) {
            assertTrue(parts.contains(part), "part " + part + " is profiled");
        }
        assertEquals(List.of("naive", "collective", "jit"), ps.stream()
                .filter(p -> p.problem().equals("transformer-block")).map(ReferenceProfiles.Program::variant)
                .toList(), "3.3 with the seed's jit baseline");
        assertEquals(List.of("8-way-data-parallel", "4x2-data-tensor-parallel"), ps.stream()
                .filter(p -> p.problem().equals("seed-001-mlp-step")).map(ReferenceProfiles.Program::variant).toList());
        assertTrue(ps.stream().filter(p -> p.problem().equals("seed-001-mlp-step"))
                .allMatch(p -> p.lowered() != null && p.run() == null), "the full-size step is modelled, not run");
    }
}
