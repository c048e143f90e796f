package dev.shardlings.jit;

import dev.shardlings.array.NDArray;
import dev.shardlings.sharding.AxisType;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.NamedSharding;
import dev.shardlings.spmd.Collectives;
import dev.shardlings.spmd.ShardMap;
import dev.shardlings.spmd.ShardedArray;
import dev.shardlings.events.Collective;
import dev.shardlings.events.Origin;
import dev.shardlings.events.Tracing;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.shardlings.sharding.PartitionSpec.P;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A shardMap called on traced values inside jit is a region of Manual axes in the compiled program (jax.shard_map
 * inside jax.jit): the compiler lays the operands out to its in specs, every device runs the hand-written
 * per-device function there, and the result continues with the out spec's layout.
 */
class ManualRegionTest {

    private static final Mesh MESH = Mesh.makeMesh(new int[] {4, 2}, new String[] {"X", "Y"}, AxisType.AUTO,
            AxisType.AUTO);

    private static NDArray data(int rows, int cols) {
        float[] v = new float[rows * cols];
        for (int i = 0; i < v.length; i++) {
            v[i] = ((i * 7) % 13) - 6f;
        }
        return NDArray.fromFloats(v, rows, cols);
    }

    /** Per-device row sums, completed by a psum over Y: out f32[8_X] = the rows' sums. */
    private static ShardMap.Unary rowSums() {
        return ShardMap.shardMap(block -> Collectives.psum(block.sum(1), "Y"), MESH, P("X", "Y"), P("X"));
    }

    @Test
    void aShardMapInsideJitRunsAsARegionOfTheCompiledProgram() {
        NDArray x = data(8, 6);
        ShardedArray xs = ShardedArray.devicePut(x, new NamedSharding(MESH, P("X", "Y")));
        Jitted f = Jit.jit(a -> rowSums().apply(a.sin()).mul(2.0)).named("manual_inside");
        Tracing.Traced<List<ShardedArray>> t = Tracing.record(() -> f.call(xs));
        NDArray expected = x.sin().sum(1).mul(NDArray.scalar(2f));
        assertTrue(t.value().get(0).gather().allclose(expected, 1e-5, 1e-5), t.value().get(0).gather().toString());
        assertEquals(1, t.trace().shardMaps().size(), "the shape-finding run on zeros is not traced");
        assertEquals(Origin.JIT_WITH_SHARD_MAP, t.trace().shardMaps().get(0).origin());
        assertTrue(t.trace().collectives().stream().allMatch(c -> c.kind() == Collective.PSUM
                && c.axes().equals(List.of("Y"))), t.trace().collectives().toString());
        String text = f.lower(xs).asText();
        assertTrue(text.contains("shard_map("), text);
        assertTrue(f.lower(xs).jaxpr().toString().contains("shard_map"), f.lower(xs).jaxpr().toString());
        assertEquals(1, f.traceCount(), "traced once; the second lower is a cache hit");
    }

    @Test
    void operandsAreReLaidOutToTheRegionsInSpecs() {
        NDArray x = data(8, 8);
        ShardedArray xs = ShardedArray.devicePut(x, new NamedSharding(MESH, P("Y", "X")));
        ShardedArray out = Jit.jit(a -> rowSums().apply(a)).call(xs).get(0);
        assertTrue(out.gather().allclose(x.sum(1), 1e-5, 1e-5));
        assertEquals(P("X"), out.spec());
    }

    @Test
    void aPureJitProgramIsStillJit() {
        ShardedArray xs = ShardedArray.devicePut(data(8, 6), new NamedSharding(MESH, P("X", "Y")));
        Tracing.Traced<List<ShardedArray>> t = Tracing.record(() -> Jit.jit(a -> a.sin()).call(xs));
        assertEquals(Origin.JIT, t.trace().shardMaps().get(0).origin());
    }

    @Test
    void aShardMapWithSeveralOutputsIsOneRegionThatRunsOnce() {
        // per device: the row sums completed by one psum over Y, and the block doubled; two results, two layouts
        NDArray x = data(8, 6);
        ShardedArray xs = ShardedArray.devicePut(x, new NamedSharding(MESH, P("X", "Y")));
        ShardMap two = ShardMap.shardMap(blocks -> List.of(Collectives.psum(blocks.get(0).sum(1), "Y"),
                        blocks.get(0).mul(2f)), MESH, List.of(P("X", "Y")), List.of(P("X"), P("X", "Y")));
        Jitted f = Jit.jitList(in -> {
            List<ShardedArray> r = two.call(in.get(0).sin());
            return List.of(r.get(0).add(1.0), r.get(1));
        }).named("two_results");
        Tracing.Traced<List<ShardedArray>> t = Tracing.record(() -> f.call(xs));
        assertTrue(t.value().get(0).gather().allclose(x.sin().sum(1).add(1f), 1e-5, 1e-5));
        assertTrue(t.value().get(1).gather().allclose(x.sin().mul(2f), 1e-5, 1e-5));
        assertEquals(P("X", "Y"), t.value().get(1).spec());
        // the function ran once per device: one psum each, not one per result
        assertEquals(MESH.size(), t.trace().collectives().size(), t.trace().collectives().toString());
        assertEquals(Origin.JIT_WITH_SHARD_MAP, t.trace().shardMaps().get(0).origin());
        Compiled c = f.lower(xs);
        assertTrue(c.jaxpr().toString().contains(" = shard_map "), c.jaxpr().toString());
        assertTrue(c.asText().contains("(f32[2], f32[2,3]) shard_map("), c.asText());
    }

    @Test
    void theRegionsOwnErrorsAreRaisedWhileTracing() {
        // out spec P() for a value that varies over X: check_vma's error, as a call outside jit would raise it
        ShardedArray xs = ShardedArray.devicePut(data(8, 6), new NamedSharding(MESH, P("X", "Y")));
        ShardMap.Unary bad = ShardMap.shardMap(block -> block.sum(1), MESH, P("X", "Y"), P());
        IllegalArgumentException outside = assertThrows(IllegalArgumentException.class, () -> bad.apply(xs));
        IllegalArgumentException inside = assertThrows(IllegalArgumentException.class,
                () -> Jit.jit(a -> bad.apply(a)).call(xs));
        assertEquals(outside.getMessage(), inside.getMessage());
    }
}
