package dev.shardlings.spmd;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.shardlings.array.BinaryOp;
import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.array.ReduceOp;
import dev.shardlings.array.UnaryOp;
import dev.shardlings.primitive.ArrayType;
import dev.shardlings.primitive.Binary;
import dev.shardlings.primitive.BroadcastInDim;
import dev.shardlings.primitive.Concatenate;
import dev.shardlings.primitive.DotGeneral;
import dev.shardlings.primitive.Primitive;
import dev.shardlings.primitive.Reduce;
import dev.shardlings.primitive.Reshape;
import dev.shardlings.primitive.Reshard;
import dev.shardlings.primitive.ShardingConstraint;
import dev.shardlings.primitive.Slice;
import dev.shardlings.primitive.Transpose;
import dev.shardlings.primitive.Unary;
import dev.shardlings.sharding.AxisType;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.NamedSharding;
import dev.shardlings.sharding.PartitionSpec;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Runs every case JAX typed without error (the recorded cases of ExplicitTypingConformanceTest: random meshes of
 * 1-3 axes, random layouts and shapes) through the partitioner, on random values (fixed seed), twice: on the
 * mesh with Explicit axes and on the same devices with Auto axes. The gathered result must equal the primitive
 * applied to the whole arrays, and its layout must be the type's (Explicit) or divide the shape (Auto).
 */
class PartitioningConformanceTest {

    private static List<JsonNode> cases() throws IOException {
        var in = PartitioningConformanceTest.class.getResourceAsStream(
                "/dev/shardlings/primitive/explicit-typing-random.jsonl");
        List<JsonNode> out = new ArrayList<>();
        ObjectMapper json = new ObjectMapper();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                JsonNode c = json.readTree(line);
                if (c.get("error").isNull() && !"add_scalar".equals(c.get("op").asText())) {
                    out.add(c);
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

    private static PartitionSpec spec(JsonNode n) {
        if (n == null || n.isNull()) {
            return null;
        }
        List<Object> entries = new ArrayList<>();
        for (JsonNode e : n) {
            List<String> axes = new ArrayList<>();
            e.forEach(a -> axes.add(a.asText()));
            entries.add(axes.isEmpty() ? null : axes);
        }
        return PartitionSpec.P(entries.toArray());
    }

    private static Primitive primitive(JsonNode c) {
        JsonNode p = c.get("params");
        return switch (c.get("op").asText()) {
            case "sin" -> new Unary(UnaryOp.SIN);
            case "add" -> new Binary(BinaryOp.ADD);
            case "dot_general" -> new DotGeneral(ints(p.get("lhs_contracting")), ints(p.get("rhs_contracting")),
                    ints(p.get("lhs_batch")), ints(p.get("rhs_batch")), spec(p.get("out_sharding")));
            case "reduce_sum" -> new Reduce(ReduceOp.SUM, ints(p.get("axes")));
            case "reduce_max" -> new Reduce(ReduceOp.MAX, ints(p.get("axes")));
            case "transpose" -> new Transpose(ints(p.get("permutation")));
            case "reshape" -> new Reshape(ints(p.get("new_sizes")), spec(p.get("out_sharding")));
            case "concatenate" -> new Concatenate(p.get("dimension").asInt());
            case "slice" -> new Slice(ints(p.get("start_indices")), ints(p.get("limit_indices")));
            case "broadcast_in_dim" -> new BroadcastInDim(ints(p.get("shape")), ints(p.get("broadcast_dimensions")));
            case "reshard" -> new Reshard(spec(p.get("spec")));
            case "with_sharding_constraint" -> new ShardingConstraint(spec(p.get("spec")));
            default -> throw new AssertionError("unknown op " + c);
        };
    }

    @TestFactory
    Stream<DynamicTest> everyTypedCaseComputesTheWholeArrayResultOnExplicitAndAutoAxes() throws IOException {
        List<DynamicTest> tests = new ArrayList<>();
        for (JsonNode c : cases()) {
            for (AxisType kind : new AxisType[] {AxisType.EXPLICIT, AxisType.AUTO}) {
                tests.add(DynamicTest.dynamicTest(c.get("id") + " " + c.get("op").asText() + " " + kind + " "
                        + c.get("inputs"), () -> check(c, kind)));
            }
        }
        return tests.stream();
    }

    private static void check(JsonNode c, AxisType kind) {
        JsonNode m = c.get("mesh");
        List<String> names = new ArrayList<>();
        m.get("names").forEach(n -> names.add(n.asText()));
        AxisType[] types = new AxisType[names.size()];
        java.util.Arrays.fill(types, kind);
        Mesh mesh = Mesh.makeMesh(ints(m.get("sizes")).stream().mapToInt(Integer::intValue).toArray(),
                names.toArray(new String[0]), types);
        Random random = new Random(c.get("id").asLong());
        List<GlobalOps.Operand> operands = new ArrayList<>();
        List<NDArray> wholes = new ArrayList<>();
        for (JsonNode i : c.get("inputs")) {
            int[] shape = ints(i.get("shape")).stream().mapToInt(Integer::intValue).toArray();
            int n = 1;
            for (int s : shape) {
                n *= s;
            }
            float[] v = new float[n];
            for (int k = 0; k < n; k++) {
                v[k] = random.nextInt(15) - 7; // small integers: every sum is exact in float32
            }
            NDArray whole = NDArray.fromFloats(v, shape);
            wholes.add(whole);
            operands.add(GlobalOps.of(ShardedArray.devicePut(whole, new NamedSharding(mesh, spec(i.get("spec"))))));
        }
        Primitive p = primitive(c);
        if (kind == AxisType.AUTO && p instanceof ShardingConstraint) {
            p = new Reshard(((ShardingConstraint) p).spec());
        }
        ShardedArray out = GlobalOps.run(p, operands);
        NDArray expected = p.apply(wholes);
        NDArray got = out.gather();
        assertArrayEquals(expected.shape(), got.shape());
        assertTrue(got.allclose(expected, 1e-6, 1e-4), () -> "expected " + expected + "\n got " + got);
        if (kind == AxisType.EXPLICIT) {
            assertEquals(c.get("result").asText(), out.type().toString());
        }
        // every device's block, replicas included, is its slice of the whole result
        for (ShardedArray.Shard s : out.addressableShards()) {
            NDArray want = expected;
            List<NamedSharding.Slice> slices = s.index().slices();
            for (int d = 0; d < slices.size(); d++) {
                if (!slices.get(d).full()) {
                    want = want.slice(d, slices.get(d).start(), slices.get(d).stop());
                }
            }
            NDArray block = s.data();
            NDArray w = want;
            assertTrue(block.allclose(w, 1e-6, 1e-4), () -> "device " + s.device().id() + " holds " + block
                    + " instead of " + w);
        }
        assertEquals(DType.FLOAT32, got.dtype());
    }
}
