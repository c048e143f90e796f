package dev.shardlings.docs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.shardlings.cost.HardwareModel;
import dev.shardlings.cost.MatmulStep;
import dev.shardlings.cost.ModelDtype;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The examples of the model-matmuls command (docs/profiles.md's "Modelling a per-chip matmul", the course
 * README's "What a matmul shape costs on a chip") are what the model gives now: each out.json is its rows.json
 * with each row's modelled time added. When the cost model changes, rerun the command and paste its out.json.
 */
class ModelMatmulsExampleTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    @Test
    void theProfilesPageExampleIsTheModelsAnswerForItsRows() throws IOException {
        String text = Files.readString(ROOT.resolve("docs/profiles.md"));
        assertTrue(text.contains("\n## Modelling a per-chip matmul\n"),
                "docs/profiles.md has no section \"Modelling a per-chip matmul\"");
        check(text, "\n## Modelling a per-chip matmul\n");
    }

    @Test
    void theReadmeExampleIsTheModelsAnswerForItsRows() throws IOException {
        String text = Files.readString(ROOT.resolve("README.md"));
        // A student release's README is the students' own, which links to the profiles page instead.
        Assumptions.assumeTrue(text.contains("\n### What a matmul shape costs on a chip\n"));
        check(text, "\n### What a matmul shape costs on a chip\n");
    }

    private static void check(String text, String heading) throws IOException {
        int at = text.indexOf(heading);
        int end = text.indexOf("\n#", at + 1);
        String section = text.substring(at, end < 0 ? text.length() : end);
        Matcher hw = Pattern.compile("-Dhardware=([a-z0-9-]+)").matcher(section);
        assertTrue(hw.find(), "the section's command names no -Dhardware");
        HardwareModel model = HardwareModel.builtIn(hw.group(1));
        List<String> blocks = new ArrayList<>();
        Matcher json = Pattern.compile("```json\n(.*?)```", Pattern.DOTALL).matcher(section);
        while (json.find()) {
            blocks.add(json.group(1));
        }
        assertEquals(2, blocks.size(), "expected the example's rows.json and out.json");
        ObjectMapper mapper = new ObjectMapper();
        JsonNode rows = mapper.readTree(blocks.get(0));
        JsonNode out = mapper.readTree(blocks.get(1));
        assertEquals(rows.size(), out.size());
        for (int i = 0; i < rows.size(); i++) {
            ObjectNode want = rows.get(i).deepCopy();
            JsonNode r = rows.get(i);
            double us = MatmulStep.modelledSeconds(model, ModelDtype.of(r.get("dtype").asText()), r.get("m").asInt(),
                    r.get("K").asInt(), r.get("chunks").asInt()) * 1e6;
            want.put("modelled_us", BigDecimal.valueOf(us).setScale(3, RoundingMode.HALF_EVEN).doubleValue());
            assertEquals(want.toString(), out.get(i).toString(), "row " + i + " of the example (rows count from 0);"
                    + " when the model changed, rerun the section's command and paste its out.json");
        }
    }
}
