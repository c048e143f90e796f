package dev.shardlings.cost;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The model-matmuls command: what it writes, and that bad input is named, exits 2 and writes nothing. */
class ModelMatmulsTest {

    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String hardware, String rowsJson) throws IOException {
        Path in = dir.resolve("rows.json");
        Files.writeString(in, rowsJson);
        return run(hardware, in.toString(), dir.resolve("out.json").toString());
    }

    private int run(String hardware, String in, String to) {
        return ModelMatmuls.run(new ModelMatmuls.Options(hardware, in, to),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    /** No output and no temporary file left in the output's folder. */
    private void assertNothingWritten() throws IOException {
        assertFalse(Files.exists(dir.resolve("out.json")), err());
        try (var files = Files.list(dir)) {
            assertEquals(List.of(), files.map(p -> p.getFileName().toString())
                    .filter(n -> n.startsWith(".model-matmuls-")).toList());
        }
    }

    private static double micros(String hw, ModelDtype d, int m, int k, int c) {
        return BigDecimal.valueOf(MatmulStep.modelledSeconds(HardwareModel.builtIn(hw), d, m, k, c) * 1e6)
                .setScale(3, RoundingMode.HALF_EVEN).doubleValue();
    }

    @Test
    void eachRowGetsItsStepsModelledTimeAndKeepsItsFieldsInOrder() throws IOException {
        assertEquals(0, run("h100-8-nvlink", """
                [{"name": "naive", "dtype": "bfloat16", "m": 512, "K": 2048, "chunks": 1,
                  "measured_us": 17.60529999998539},
                 {"dtype": "float32", "modelled_us": 1, "m": 64, "K": 96, "chunks": 3}]
                """), err());
        JsonNode rows = new ObjectMapper().readTree(dir.resolve("out.json").toFile());
        assertEquals(2, rows.size());
        List<String> first = new ArrayList<>();
        rows.get(0).fieldNames().forEachRemaining(first::add);
        assertEquals(List.of("name", "dtype", "m", "K", "chunks", "measured_us", "modelled_us"), first);
        assertEquals("17.60529999998539", rows.get(0).get("measured_us").asText(), "other numbers kept exactly");
        assertEquals(micros("h100-8-nvlink", ModelDtype.BFLOAT16, 512, 2048, 1),
                rows.get(0).get("modelled_us").asDouble(), 0.0);
        List<String> second = new ArrayList<>();
        rows.get(1).fieldNames().forEachRemaining(second::add);
        assertEquals(List.of("dtype", "modelled_us", "m", "K", "chunks"), second, "replaced where it was");
        assertEquals(micros("h100-8-nvlink", ModelDtype.FLOAT32, 64, 96, 3), rows.get(1).get("modelled_us")
                .asDouble(), 0.0);
        assertTrue(out.toString(StandardCharsets.UTF_8).startsWith("modelled 2 rows on h100-8-nvlink"));
        try (var files = Files.list(dir)) {
            assertEquals(List.of("out.json", "rows.json"), files.map(p -> p.getFileName().toString()).sorted()
                    .toList(), "no temporary file left");
        }
    }

    @Test
    void aHardwareModelFileServesAsWellAsABuiltInName() throws IOException {
        Path model = dir.resolve("my-v5e.json");
        Files.writeString(model, HardwareModel.builtIn("tpu-v5e").toJson());
        Files.writeString(dir.resolve("rows.json"), "[{\"dtype\": \"bfloat16\", \"m\": 8, \"K\": 16, \"chunks\": 2}]");
        assertEquals(0, run(model.toString(), dir.resolve("rows.json").toString(), dir.resolve("out.json")
                .toString()), err());
        JsonNode rows = new ObjectMapper().readTree(dir.resolve("out.json").toFile());
        assertEquals(micros("tpu-v5e", ModelDtype.BFLOAT16, 8, 16, 2), rows.get(0).get("modelled_us").asDouble(),
                0.0);
    }

    @Test
    void everyBadRowIsNamedByRowAndFieldAndNothingIsWritten() throws IOException {
        assertEquals(ModelMatmuls.BAD_INPUT, run("h100-8-nvlink", """
                [{"dtype": "bfloat16", "m": 512, "K": 2048, "chunks": 4},
                 {"dtype": "float16", "m": 512, "K": 2048, "chunks": 4},
                 {"dtype": "bfloat16", "m": 512, "K": 2048, "chunks": 3},
                 {"dtype": "bfloat16", "m": 0, "K": 2048, "chunks": 4},
                 {"dtype": "bfloat16", "m": 512.5, "K": -2048, "chunks": "4"},
                 {"dtype": "bfloat16", "m": 512, "k": 2048, "chunks": 4},
                 {"m": 512, "K": 2048, "chunks": 4},
                 [512, 2048, 4],
                 {"dtype": "bfloat16", "m": 4294967296, "K": 2048, "chunks": 4},
                 {"dtype": "bfloat16", "m": 2147483647, "K": 2147483647, "chunks": 1},
                 {"dtype": "bfloat16", "m": 1, "K": 134217728, "chunks": 67108864}]
                """));
        assertEquals("""
                model-matmuls: nothing written (rows count from 0):
                  rows.json row 1, field "dtype": unknown dtype "float16"; use "bfloat16" or "float32"
                  rows.json row 2, field "K": 2048 is not divisible by chunks = 3
                  rows.json row 3, field "m": must be a positive integer (at most 2147483647), got 0
                  rows.json row 4, field "m": must be a positive integer (at most 2147483647), got 512.5
                  rows.json row 4, field "K": must be a positive integer (at most 2147483647), got -2048
                  rows.json row 4, field "chunks": must be a positive integer (at most 2147483647), got "4"
                  rows.json row 5: missing field "K" (there is "k": field names are case-sensitive)
                  rows.json row 6: missing field "dtype"
                  rows.json row 7: must be an object such as {"dtype": "bfloat16", "m": 512, "K": 2048, "chunks": 4}, got array
                  rows.json row 8, field "m": must be a positive integer (at most 2147483647), got 4294967296
                  rows.json row 9, fields "m" and "K": m = 2147483647, k = 2147483647: the step's FLOPs or bytes do not fit in a long
                  rows.json row 10, field "chunks": 67108864 is more than 4096
                """, err().replace(System.lineSeparator(), "\n"));
        assertNothingWritten();
    }

    @Test
    void aFileThatIsNotAnArrayOfRowsIsRefused() throws IOException {
        assertEquals(ModelMatmuls.BAD_INPUT, run("h100-8-nvlink", "[{\"dtype\": \"bfloat16\", \"m\": 1,}]"));
        assertTrue(err().contains("rows.json is not valid JSON (line 1, column 31): Unexpected character ('}'"),
                err());
        assertNothingWritten();
        for (String json : List.of("{\"dtype\": \"bfloat16\"}", "", "[] []",
                "[{\"dtype\": \"bfloat16\", \"m\": 8, \"m\": 8, \"K\": 8, \"chunks\": 1}]")) {
            err.reset();
            assertEquals(ModelMatmuls.BAD_INPUT, run("h100-8-nvlink", json), json);
            assertTrue(err().contains("rows.json"), err());
            assertNothingWritten();
        }
    }

    @Test
    void aMissingOptionOrUnknownHardwareIsNamed() throws IOException {
        Files.writeString(dir.resolve("rows.json"), "[]");
        String in = dir.resolve("rows.json").toString();
        String to = dir.resolve("out.json").toString();
        assertEquals(ModelMatmuls.BAD_INPUT, run(null, in, to));
        assertTrue(err().contains("missing -Dhardware (e.g. -Dhardware=h100-8-nvlink)"), err());
        assertEquals(ModelMatmuls.BAD_INPUT, run("h100-8-nvlink", null, to));
        assertTrue(err().contains("missing -Din (e.g. -Din=rows.json)"), err());
        assertEquals(ModelMatmuls.BAD_INPUT, run("h100-8-nvlink", in, ""));
        assertTrue(err().contains("missing -Dout (e.g. -Dout=out.json)"), err());
        assertEquals(ModelMatmuls.BAD_INPUT, run("h200", in, to));
        assertTrue(err().contains("-Dhardware=h200: no built-in hardware model of that name and no such file;"
                + " built in: tpu-v5e, tpu-v4, h100-8-nvlink"), err());
        assertEquals(ModelMatmuls.BAD_INPUT, run("h100-8-nvlink", dir.resolve("none.json").toString(), to));
        assertTrue(err().contains("none.json: no such file"), err());
        assertEquals(ModelMatmuls.BAD_INPUT, run("h100-8-nvlink", in, dir.resolve("no/such/out.json").toString()));
        assertTrue(err().contains("does not exist"), err());
        assertNothingWritten();
    }

    @Test
    void aModelFileWithoutTheRowsDtypeIsNamedOnTheRow() throws IOException {
        HardwareModel bf16Only = new HardwareModel("bf16-only", "", "switch", java.util.Map.of("bfloat16", 1e12),
                1e12, 1e12, 1e9, 0, 1, List.of());
        Path model = dir.resolve("bf16-only.json");
        Files.writeString(model, bf16Only.toJson());
        Files.writeString(dir.resolve("rows.json"), "[{\"dtype\": \"float32\", \"m\": 8, \"K\": 8, \"chunks\": 1}]");
        assertEquals(ModelMatmuls.BAD_INPUT, run(model.toString(), dir.resolve("rows.json").toString(),
                dir.resolve("out.json").toString()));
        assertTrue(err().contains("rows.json row 0, field \"dtype\": hardware model 'bf16-only' has no matmul"
                + " rate for float32"), err());
        assertNothingWritten();
    }

    @Test
    void aFailedRunLeavesAnEarlierOutputAsItWas() throws IOException {
        Path to = dir.resolve("out.json");
        Files.writeString(to, "earlier");
        Files.writeString(dir.resolve("rows.json"), "[{\"dtype\": \"int8\", \"m\": 8, \"K\": 8, \"chunks\": 1}]");
        assertEquals(ModelMatmuls.BAD_INPUT, run("tpu-v4", dir.resolve("rows.json").toString(), to.toString()));
        assertEquals("earlier", Files.readString(to));
    }

    /** main itself, in a JVM of its own: the options as system properties, status 2, nothing on stdout. */
    @Test
    void mainExitsWithStatus2OnBadInput() throws IOException, InterruptedException {
        Files.writeString(dir.resolve("rows.json"), "[{\"dtype\": \"bfloat16\", \"m\": 8, \"K\": 8, \"chunks\": 3}]");
        Path to = dir.resolve("out.json");
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "-Dhardware=tpu-v5e",
                "-Din=" + dir.resolve("rows.json"), "-Dout=" + to, ModelMatmuls.class.getName())
                .redirectError(dir.resolve("err.txt").toFile()).start();
        String stdout = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the command did not end");
        String stderr = Files.readString(dir.resolve("err.txt"));
        assertEquals(ModelMatmuls.BAD_INPUT, p.exitValue(), stderr);
        assertEquals("", stdout);
        assertTrue(stderr.contains("rows.json row 0, field \"K\": 8 is not divisible by chunks = 3"), stderr);
        assertFalse(Files.exists(to));
    }
}
