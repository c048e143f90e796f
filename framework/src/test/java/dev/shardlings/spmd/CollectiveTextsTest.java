package dev.shardlings.spmd;

import dev.shardlings.array.NDArray;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.PartitionSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.util.List;
import java.util.function.UnaryOperator;

import static dev.shardlings.spmd.Tiling.TILED;
import static dev.shardlings.spmd.Tiling.UNTILED;
import static dev.shardlings.sharding.PartitionSpec.P;
import static dev.shardlings.spmd.Collectives.allGather;
import static dev.shardlings.spmd.Collectives.allToAll;
import static dev.shardlings.spmd.Collectives.axisIndex;
import static dev.shardlings.spmd.Collectives.axisSize;
import static dev.shardlings.spmd.Collectives.pmax;
import static dev.shardlings.spmd.Collectives.pmean;
import static dev.shardlings.spmd.Collectives.pmin;
import static dev.shardlings.spmd.Collectives.ppermute;
import static dev.shardlings.spmd.Collectives.psum;
import static dev.shardlings.spmd.Collectives.psumScatter;
import static dev.shardlings.spmd.ShardMap.shardMap;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The collectives' error texts against those JAX 0.10.2 printed for the same calls inside
 * {@code jax.jit(jax.shard_map(...))} on 8 CPU devices (and outside shard_map under jit). JAX raises ValueError,
 * NameError or IndexError; the framework raises IllegalArgumentException inside a shardMap (reported as the cause of
 * a DeviceFailureException) and IllegalStateException outside one.
 */
class CollectiveTextsTest {

    static final Mesh I4 = Mesh.makeMesh(new int[]{4}, "i");
    static final Mesh XY = Mesh.makeMesh(new int[]{4, 2}, "x", "y");

    /** The text of what f threw on the devices of a shardMap over {@code mesh} (in P(first axis), out P(it)). */
    static String thrown(Mesh mesh, UnaryOperator<NDArray> f, NDArray x) {
        PartitionSpec spec = P(mesh.axisNames().get(0));
        DeviceFailureException e = assertThrows(DeviceFailureException.class,
                () -> shardMap(f, mesh, spec, spec).checkVma(false).apply(x));
        return assertInstanceOf(IllegalArgumentException.class, e.getCause()).getMessage();
    }

    static void assertJaxText(String jax, Mesh mesh, UnaryOperator<NDArray> f, NDArray x) {
        assertEquals(JaxText.java(jax), thrown(mesh, f, x));
    }

    static void assertJaxTextOutside(String jax, Executable call) {
        assertEquals(JaxText.java(jax), assertThrows(IllegalStateException.class, call).getMessage());
    }

    static final NDArray X16 = NDArray.arange(16);

    @Test
    void anAxisNoShardMapBinds() {
        // JAX's text differs by collective (check_vma=False; with it on, psum raises a bare AssertionError).
        String psumText = "Found an unbound axis name: z. To fix this, please call psum under `jax.shard_map`.";
        assertJaxText(psumText, I4, b -> psum(b, "z"), X16);
        assertJaxText(psumText, I4, b -> pmean(b, "z"), X16);
        assertJaxText(psumText, I4, b -> pmax(b, "z"), X16);
        assertJaxText(psumText, I4, b -> pmin(b, "z"), X16);
        assertJaxText("Found an unbound axis name: z. To fix this, please call ppermute under `jax.shard_map`.", I4,
                b -> ppermute(b, "z", new int[][]{{0, 1}}), X16);
        assertJaxText("Found an unbound axis name: z. To fix this, please call axis_index under `jax.shard_map`.", I4,
                b -> axisIndex("z").reshape(1), X16);
        assertJaxText("unbound axis name: z", I4, b -> allGather(b, "z", 0, TILED), X16);
        assertJaxText("unbound axis name: z", I4, b -> psumScatter(b, "z", 0, TILED), X16);
        assertJaxText("unbound axis name: z", I4, b -> allToAll(b, "z", 0, 0, TILED), X16);
        assertJaxText("unbound axis name: z", I4, b -> b.mul(axisSize("z")), X16);
    }

    @Test
    void outsideAShardMapNoAxisIsBound() {
        assertJaxTextOutside("Found an unbound axis name: i. To fix this, please call psum under `jax.shard_map`.",
                () -> psum(X16, "i"));
        assertJaxTextOutside("Found an unbound axis name: i. To fix this, please call psum under `jax.shard_map`.",
                () -> pmean(X16, "i"));
        assertJaxTextOutside("Found an unbound axis name: i. To fix this, please call psum under `jax.shard_map`.",
                () -> pmax(X16, "i"));
        assertJaxTextOutside("Found an unbound axis name: i. To fix this, please call ppermute under `jax.shard_map`.",
                () -> ppermute(X16, "i", new int[][]{{0, 1}}));
        assertJaxTextOutside("Found an unbound axis name: i. To fix this, please call axis_index under"
                + " `jax.shard_map`.", () -> axisIndex("i"));
        assertJaxTextOutside("unbound axis name: i", () -> allGather(X16, "i"));
        assertJaxTextOutside("unbound axis name: i", () -> psumScatter(X16, "i", 0, TILED));
        assertJaxTextOutside("unbound axis name: i", () -> allToAll(X16, "i", 0, 0, TILED));
        assertJaxTextOutside("unbound axis name: i", () -> axisSize("i"));
        // No axis at all: JAX has no text (psum returns x); the framework's says where collectives work.
        assertEquals("psum was called outside shardMap with no axis name. Collectives exchange data between the"
                + " devices along mesh axes, so they only work inside the function passed to ShardMap.shardMap(...).",
                assertThrows(IllegalStateException.class, () -> psum(X16)).getMessage());
    }

    @Test
    void anAxisNamedTwice() {
        String text = "repeated axis in `source` argument";
        NDArray x = NDArray.arange(8);
        assertJaxText(text, XY, b -> psum(b, "x", "x"), x);
        assertJaxText(text, XY, b -> pmean(b, "x", "x"), x);
        assertJaxText(text, XY, b -> pmax(b, "x", "x"), x);
        assertJaxText(text, XY, b -> pmin(b, "x", "x"), x);
        assertJaxText(text, XY, b -> allGather(b, List.of("x", "x"), 0, TILED), x);
        assertJaxText(text, XY, b -> ppermute(b, List.of("x", "x"), new int[][]{{0, 1}}), x);
        // JAX computes these with a group of n² devices (and then fails on a size, or returns made-up indices);
        // the framework refuses them with the same text.
        assertEquals(text, thrown(XY, b -> psumScatter(b, List.of("x", "x"), 0, TILED), NDArray.arange(32)));
        assertEquals(text, thrown(XY, b -> allToAll(b, List.of("x", "x"), 0, 0, TILED), NDArray.arange(32)));
        assertEquals(text, thrown(XY, b -> axisIndex("x", "x").reshape(1), x));
        assertEquals(text, thrown(XY, b -> b.mul(axisSize("x", "x")), x));
    }

    @Test
    void dimensionsOutOfRange() {
        assertJaxText("axis 2 is out of bounds for array of dimension 2", I4, b -> allGather(b, "i", 2, UNTILED), X16);
        assertJaxText("axis 1 is out of bounds for array of dimension 1", I4, b -> allGather(b, "i", 1, TILED), X16);
        assertJaxText("axis -3 is out of bounds for array of dimension 2", I4, b -> allGather(b, "i", -3, UNTILED), X16);
        assertJaxText("axis 3 is out of bounds for array of dimension 2", XY,
                b -> allGather(b, List.of("x", "y"), 3, UNTILED), NDArray.arange(8));
        // A tiled gather of a scalar: there is no dimension 0 to concatenate along.
        assertJaxText("axis 0 is out of bounds for array of dimension 0", I4,
                b -> allGather(b.sum(), "i", 0, TILED), X16);
        // JAX fails with IndexError ('tuple index out of range') or a lowering error here; the framework uses the
        // same text as all_gather.
        assertEquals("axis 1 is out of bounds for array of dimension 1", thrown(I4, b -> psumScatter(b, "i", 1, TILED),
                X16));
        assertEquals("axis 1 is out of bounds for array of dimension 1", thrown(I4, b -> allToAll(b, "i", 1, 0, TILED),
                X16));
        assertEquals("axis -2 is out of bounds for array of dimension 1", thrown(I4, b -> allToAll(b, "i", 0, -2, TILED),
                X16));
    }

    @Test
    void sizesThatDoNotFitTheGroup() {
        NDArray x48 = NDArray.arange(48);
        assertJaxText("The size of all_to_all split_axis (12) has to be divisible by the size of the named axis"
                + " ('x', 'y') (8)", XY, b -> allToAll(b, List.of("x", "y"), 0, 0, TILED), x48);
        assertJaxText("The size of all_to_all split_axis (3) has to be divisible by the size of the named axis i (4)",
                I4, b -> allToAll(b, "i", 0, 0, TILED), NDArray.arange(12));
        assertJaxText("all_to_all requires the size of the mapped axis axis_name to equal x.shape[split_axis], but"
                + " they are 8 and 12 respectively.", XY, b -> allToAll(b, List.of("x", "y"), 0, 0, UNTILED), x48);
        assertJaxText("tiled reduce_scatter operand scatter dimension size 12 must be divisible by shard_count 8", XY,
                b -> psumScatter(b, List.of("x", "y"), 0, TILED), x48);
        assertJaxText("reduce_scatter operand scatter dimension size 2 must match shard count 4", I4,
                b -> psumScatter(b, "i", 0, UNTILED), NDArray.arange(8));
    }
}
