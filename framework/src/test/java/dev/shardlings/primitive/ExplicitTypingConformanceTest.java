package dev.shardlings.primitive;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.shardlings.array.BinaryOp;
import dev.shardlings.array.DType;
import dev.shardlings.array.ReduceOp;
import dev.shardlings.array.UnaryOp;
import dev.shardlings.sharding.AxisType;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.PartitionSpec;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Replays typing cases recorded from real JAX 0.10.2 (src/test/python/explicit_typing_random.py wrote them:
 * random meshes of 1-3 Explicit axes, random specs and shapes, every primitive the framework types) through the
 * primitives' typing rules: each case must give JAX's {@code jax.typeof} text, or a sharding error with JAX's text.
 * Cases where JAX raised another kind of error (a shape error, an unsupported sharding it checks elsewhere) must
 * be refused too, by an exception of any kind.
 */
class ExplicitTypingConformanceTest {

    private static final String FILE = "explicit-typing-random.jsonl";

    static List<JsonNode> cases() throws IOException {
        InputStream in = ExplicitTypingConformanceTest.class.getResourceAsStream(FILE);
        assertNotNull(in, "missing test resource " + FILE);
        ObjectMapper json = new ObjectMapper();
        List<JsonNode> out = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                if (!line.isBlank()) {
                    out.add(json.readTree(line));
                }
            }
        }
        return out;
    }

    private static List<Integer> ints(JsonNode n) {
        List<Integer> out = new ArrayList<>();
        n.forEach(x -> out.add(x.asInt()));
        return out;
    }

    private static List<List<String>> dims(JsonNode n) {
        List<List<String>> out = new ArrayList<>();
        for (JsonNode e : n) {
            List<String> axes = new ArrayList<>();
            e.forEach(a -> axes.add(a.asText()));
            out.add(axes);
        }
        return out;
    }

    private static PartitionSpec spec(JsonNode n) {
        return n == null || n.isNull() ? null : Specs.toSpec(dims(n));
    }

    /** The primitive and operand types of a case, as the framework's API builds them. */
    private record Call(Primitive primitive, List<ArrayType> operands) {
    }

    private static Call call(JsonNode c, Mesh mesh) {
        List<ArrayType> in = new ArrayList<>();
        for (JsonNode i : c.get("inputs")) {
            in.add(new ArrayType("int32".equals(i.get("dtype").asText()) ? DType.INT32 : DType.FLOAT32,
                    ints(i.get("shape")), dims(i.get("spec")), mesh));
        }
        JsonNode p = c.get("params");
        return switch (c.get("op").asText()) {
            case "sin" -> new Call(new Unary(UnaryOp.SIN), in);
            case "add" -> new Call(new Binary(BinaryOp.ADD), in);
            case "add_scalar" -> new Call(new Binary(BinaryOp.ADD), List.of(in.get(0),
                    ArrayType.unsharded(DType.FLOAT32)));
            case "dot_general" -> new Call(new DotGeneral(ints(p.get("lhs_contracting")), ints(p.get("rhs_contracting")),
                    ints(p.get("lhs_batch")), ints(p.get("rhs_batch")), spec(p.get("out_sharding"))), in);
            case "reduce_sum" -> new Call(new Reduce(ReduceOp.SUM, ints(p.get("axes"))), in);
            case "reduce_max" -> new Call(new Reduce(ReduceOp.MAX, ints(p.get("axes"))), in);
            case "transpose" -> new Call(new Transpose(ints(p.get("permutation"))), in);
            case "reshape" -> new Call(new Reshape(ints(p.get("new_sizes")), spec(p.get("out_sharding"))), in);
            case "concatenate" -> new Call(new Concatenate(p.get("dimension").asInt()), in);
            case "slice" -> new Call(new Slice(ints(p.get("start_indices")), ints(p.get("limit_indices"))), in);
            case "broadcast_in_dim" -> new Call(new BroadcastInDim(ints(p.get("shape")),
                    ints(p.get("broadcast_dimensions"))), in);
            case "reshard" -> new Call(new Reshard(spec(p.get("spec"))), in);
            case "with_sharding_constraint" -> new Call(new ShardingConstraint(spec(p.get("spec"))), in);
            default -> throw new AssertionError("unknown op in " + c);
        };
    }

    @TestFactory
    Stream<DynamicTest> everyRecordedCaseTypesAsInJax() throws IOException {
        List<JsonNode> all = cases();
        assertTrue(all.size() >= 200, "expected a few hundred recorded cases, got " + all.size());
        return all.stream().map(c -> DynamicTest.dynamicTest(c.get("id") + " " + c.get("op").asText() + " "
                + c.get("inputs") + " " + c.get("params"), () -> {
            JsonNode m = c.get("mesh");
            List<String> names = new ArrayList<>();
            m.get("names").forEach(n -> names.add(n.asText()));
            int[] sizes = ints(m.get("sizes")).stream().mapToInt(Integer::intValue).toArray();
            AxisType[] types = new AxisType[names.size()];
            java.util.Arrays.fill(types, AxisType.EXPLICIT);
            Mesh mesh = Mesh.makeMesh(sizes, names.toArray(new String[0]), types);
            Call call = call(c, mesh);
            JsonNode error = c.get("error");
            if (error == null || error.isNull()) {
                ArrayType t = call.primitive().typeOf(call.operands());
                assertEquals(c.get("result").asText(), t.toString());
                return;
            }
            String type = error.get("type").asText();
            String message = error.get("message").asText();
            try {
                ArrayType t = call.primitive().typeOf(call.operands());
                fail("JAX refused this with " + type + ": " + message + "\nbut the framework typed it " + t);
            } catch (ShardingTypeError e) {
                assertEquals("ShardingTypeError", type, "JAX raised " + type + ": " + message);
                assertEquals(message, e.getMessage());
            } catch (AssertionError e) {
                if (e instanceof org.opentest4j.AssertionFailedError) {
                    throw e;
                }
                assertEquals("AssertionError", type, "JAX raised " + type + ": " + message);
                assertEquals(message, e.getMessage());
            } catch (RuntimeException e) {
                assertTrue(!"ShardingTypeError".equals(type) && !"AssertionError".equals(type),
                        "JAX raised " + type + ": " + message + "\nbut the framework threw " + e);
            }
        }));
    }
}
