package dev.shardlings.sharding;

import dev.shardlings.array.NDArray;
import dev.shardlings.spmd.ShardedArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.stream.Stream;

import static dev.shardlings.sharding.PartitionSpec.P;
import static dev.shardlings.sharding.PartitionSpec.tuple;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The monochrome pictures of {@code jax.debug.visualize_array_sharding}: every golden of jax-semantics.md §4.2
 * verbatim, and the upstream goldens of JAX's tests/debugging_primitives_test.py (VisualizeShardingTest).
 */
class ShardingVisualizerTest {

    static final Mesh XY = Mesh.makeMesh(new int[]{4, 2}, "x", "y");
    /** The upstream tests' 32-device (8, 4) mesh, ids 0..31 row-major. */
    static final Mesh XY32 = Mesh.makeMesh(new int[]{8, 4}, "x", "y");

    static Arguments golden(int[] shape, PartitionSpec spec, String picture) {
        return Arguments.of(java.util.Arrays.toString(shape) + " " + spec, shape, spec, picture);
    }

    /** §4.2: mesh (4,2) via make_mesh, stdout not a TTY, verbatim. */
    static Stream<Arguments> fourByTwoGoldens() {
        return Stream.of(
                golden(new int[]{8, 4}, P("x", "y"), """
                ┌───────┬───────┐
                │ CPU 0 │ CPU 1 │
                ├───────┼───────┤
                │ CPU 2 │ CPU 3 │
                ├───────┼───────┤
                │ CPU 4 │ CPU 5 │
                ├───────┼───────┤
                │ CPU 6 │ CPU 7 │
                └───────┴───────┘
                """),
                golden(new int[]{8, 4}, P("y", "x"), """
                ┌───────┬───────┬───────┬───────┐
                │       │       │       │       │
                │ CPU 0 │ CPU 2 │ CPU 4 │ CPU 6 │
                │       │       │       │       │
                │       │       │       │       │
                ├───────┼───────┼───────┼───────┤
                │       │       │       │       │
                │ CPU 1 │ CPU 3 │ CPU 5 │ CPU 7 │
                │       │       │       │       │
                │       │       │       │       │
                └───────┴───────┴───────┴───────┘
                """),
                golden(new int[]{8, 4}, P("x", null), """
                ┌──────────┐
                │ CPU 0,1  │
                ├──────────┤
                │ CPU 2,3  │
                ├──────────┤
                │ CPU 4,5  │
                ├──────────┤
                │ CPU 6,7  │
                └──────────┘
                """),
                golden(new int[]{8, 4}, P(null, "y"), """
                ┌───────────┬───────────┐
                │           │           │
                │           │           │
                │           │           │
                │           │           │
                │CPU 0,2,4,6│CPU 1,3,5,7│
                │           │           │
                │           │           │
                │           │           │
                │           │           │
                └───────────┴───────────┘
                """),
                golden(new int[]{8, 4}, P(tuple("x", "y"), null), """
                ┌──────────┐
                │  CPU 0   │
                ├──────────┤
                │  CPU 1   │
                ├──────────┤
                │  CPU 2   │
                ├──────────┤
                │  CPU 3   │
                ├──────────┤
                │  CPU 4   │
                ├──────────┤
                │  CPU 5   │
                ├──────────┤
                │  CPU 6   │
                ├──────────┤
                │  CPU 7   │
                └──────────┘
                """),
                golden(new int[]{8, 4}, P(tuple("y", "x"), null), """
                ┌──────────┐
                │  CPU 0   │
                ├──────────┤
                │  CPU 2   │
                ├──────────┤
                │  CPU 4   │
                ├──────────┤
                │  CPU 6   │
                ├──────────┤
                │  CPU 1   │
                ├──────────┤
                │  CPU 3   │
                ├──────────┤
                │  CPU 5   │
                ├──────────┤
                │  CPU 7   │
                └──────────┘
                """),
                golden(new int[]{8, 4}, P(), """
                ┌───────────────────┐
                │                   │
                │                   │
                │                   │
                │                   │
                │CPU 0,1,2,3,4,5,6,7│
                │                   │
                │                   │
                │                   │
                │                   │
                └───────────────────┘
                """),
                golden(new int[]{8}, P("x"), """
                ┌───────┬───────┬───────┬───────┐
                │CPU 0,1│CPU 2,3│CPU 4,5│CPU 6,7│
                └───────┴───────┴───────┴───────┘
                """),
                golden(new int[]{8}, P(tuple("x", "y")), """
                ┌───────┬───────┬───────┬───────┬───────┬───────┬───────┬───────┐
                │ CPU 0 │ CPU 1 │ CPU 2 │ CPU 3 │ CPU 4 │ CPU 5 │ CPU 6 │ CPU 7 │
                └───────┴───────┴───────┴───────┴───────┴───────┴───────┴───────┘
                """),
                golden(new int[]{8}, P(), """
                ┌───────────────────┐
                │CPU 0,1,2,3,4,5,6,7│
                └───────────────────┘
                """),
                golden(new int[]{8}, P("y"), """
                ┌───────────┬───────────┐
                │CPU 0,2,4,6│CPU 1,3,5,7│
                └───────────┴───────────┘
                """)
        );
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("fourByTwoGoldens")
    void fourByTwoMeshGolden(String name, int[] shape, PartitionSpec spec, String picture) {
        assertEquals(picture, ShardingVisualizer.visualizeSharding(shape, NamedSharding.of(XY, spec)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("fourByTwoGoldens")
    void shardedArrayVisualizeDrawsTheSamePicture(String name, int[] shape, PartitionSpec spec, String picture) {
        NDArray x = NDArray.arange(shape.length == 1 ? shape[0] : shape[0] * shape[1]).reshape(shape);
        assertEquals(picture, ShardedArray.devicePut(x, XY, spec).visualize());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("fourByTwoGoldens")
    void outputEndsWithExactlyOneNewline(String name, int[] shape, PartitionSpec spec, String picture) {
        String out = ShardingVisualizer.visualizeSharding(shape, NamedSharding.of(XY, spec));
        assertTrue(out.endsWith("┘\n"), out);
        assertTrue(!out.endsWith("\n\n"), out);
    }

    @Test
    void trailingNoneDoesNotChangeThePicture() {
        // P('x') and P('x', None) place shards identically
        assertEquals(ShardingVisualizer.visualizeSharding(new int[]{8, 4}, NamedSharding.of(XY, P("x", null))),
                ShardingVisualizer.visualizeSharding(new int[]{8, 4}, NamedSharding.of(XY, P("x"))));
    }

    // ---- upstream goldens ----------------------------------------------------------------------------------------

    @Test
    void trivialSharding() {
        Mesh m = Mesh.makeMesh(new int[]{1}, "x");
        assertEquals("""
                ┌───────┐
                │ CPU 0 │
                └───────┘
                """, ShardingVisualizer.visualizeSharding(new int[]{5}, NamedSharding.of(m, P("x"))));
    }

    @Test
    void trivialShardingWithScale() {
        Mesh m = Mesh.makeMesh(new int[]{1}, "x");
        String out = ShardingVisualizer.visualizeSharding(new int[]{5}, NamedSharding.of(m, P("x")), 8.0, 9, 80);
        assertEquals("""
                ┌──────────────────────────────────────┐
                │                CPU 0                 │
                └──────────────────────────────────────┘
                """, out);
        assertEquals(38, out.split("\n")[1].length() - 2, "inner width");
    }

    @Test
    void fullShardingTwoDigitIds() {
        assertEquals("""
                ┌───────┬───────┬───────┬───────┐
                │ CPU 0 │ CPU 1 │ CPU 2 │ CPU 3 │
                ├───────┼───────┼───────┼───────┤
                │ CPU 4 │ CPU 5 │ CPU 6 │ CPU 7 │
                ├───────┼───────┼───────┼───────┤
                │ CPU 8 │ CPU 9 │CPU 10 │CPU 11 │
                ├───────┼───────┼───────┼───────┤
                │CPU 12 │CPU 13 │CPU 14 │CPU 15 │
                ├───────┼───────┼───────┼───────┤
                │CPU 16 │CPU 17 │CPU 18 │CPU 19 │
                ├───────┼───────┼───────┼───────┤
                │CPU 20 │CPU 21 │CPU 22 │CPU 23 │
                ├───────┼───────┼───────┼───────┤
                │CPU 24 │CPU 25 │CPU 26 │CPU 27 │
                ├───────┼───────┼───────┼───────┤
                │CPU 28 │CPU 29 │CPU 30 │CPU 31 │
                └───────┴───────┴───────┴───────┘
                """, ShardingVisualizer.visualizeSharding(new int[]{8, 8}, NamedSharding.of(XY32, P("x", "y"))));
    }

    @Test
    void shardingWithReplication() {
        assertEquals("""
                ┌───────────────────────┐
                │      CPU 0,1,2,3      │
                ├───────────────────────┤
                │      CPU 4,5,6,7      │
                ├───────────────────────┤
                │     CPU 8,9,10,11     │
                ├───────────────────────┤
                │    CPU 12,13,14,15    │
                ├───────────────────────┤
                │    CPU 16,17,18,19    │
                ├───────────────────────┤
                │    CPU 20,21,22,23    │
                ├───────────────────────┤
                │    CPU 24,25,26,27    │
                ├───────────────────────┤
                │    CPU 28,29,30,31    │
                └───────────────────────┘
                """, ShardingVisualizer.visualizeSharding(new int[]{8, 8}, NamedSharding.of(XY32, P("x", null))));
    }

    @Test
    void shardingWithReplicationOnTheFourByTwoMeshSquareArray() {
        assertEquals("""
                ┌───────────┬───────────┐
                │           │           │
                │           │           │
                │           │           │
                │           │           │
                │CPU 0,2,4,6│CPU 1,3,5,7│
                │           │           │
                │           │           │
                │           │           │
                │           │           │
                └───────────┴───────────┘
                """, ShardingVisualizer.visualizeSharding(new int[]{8, 8}, NamedSharding.of(XY, P(null, "y"))));
    }

    @Test
    void wideArrayIsClampedToEighty() {
        String out = ShardingVisualizer.visualizeSharding(new int[]{128, 10000}, NamedSharding.of(XY32, P("x", null)));
        assertEquals("""
                ┌──────────────────────────────────────────────────────────────────────────────┐
                │                                 CPU 0,1,2,3                                  │
                ├──────────────────────────────────────────────────────────────────────────────┤
                │                                 CPU 4,5,6,7                                  │
                ├──────────────────────────────────────────────────────────────────────────────┤
                │                                CPU 8,9,10,11                                 │
                ├──────────────────────────────────────────────────────────────────────────────┤
                │                               CPU 12,13,14,15                                │
                ├──────────────────────────────────────────────────────────────────────────────┤
                │                               CPU 16,17,18,19                                │
                ├──────────────────────────────────────────────────────────────────────────────┤
                │                               CPU 20,21,22,23                                │
                ├──────────────────────────────────────────────────────────────────────────────┤
                │                               CPU 24,25,26,27                                │
                ├──────────────────────────────────────────────────────────────────────────────┤
                │                               CPU 28,29,30,31                                │
                └──────────────────────────────────────────────────────────────────────────────┘
                """, out);
        assertEquals("│" + " ".repeat(33) + "CPU 0,1,2,3" + " ".repeat(34) + "│", out.split("\n")[1]);
        for (String line : out.split("\n")) {
            assertEquals(80, line.length(), line);
        }
    }

    @Test
    void oneDimensionalEightDevices() {
        // upstream's PmapSharding golden, drawn from the equivalent NamedSharding on an (8,) mesh
        Mesh m = Mesh.makeMesh(new int[]{8}, "i");
        assertEquals("""
                ┌───────┬───────┬───────┬───────┬───────┬───────┬───────┬───────┐
                │ CPU 0 │ CPU 1 │ CPU 2 │ CPU 3 │ CPU 4 │ CPU 5 │ CPU 6 │ CPU 7 │
                └───────┴───────┴───────┴───────┴───────┴───────┴───────┴───────┘
                """, ShardingVisualizer.visualizeSharding(new int[]{8}, NamedSharding.of(m, P("i"))));
        assertEquals("""
                ┌───────┐
                │ CPU 0 │
                ├───────┤
                │ CPU 1 │
                ├───────┤
                │ CPU 2 │
                ├───────┤
                │ CPU 3 │
                ├───────┤
                │ CPU 4 │
                ├───────┤
                │ CPU 5 │
                ├───────┤
                │ CPU 6 │
                ├───────┤
                │ CPU 7 │
                └───────┘
                """, ShardingVisualizer.visualizeSharding(new int[]{8, 2}, NamedSharding.of(m, P("i", null))));
    }

    @Test
    void columnWithUnequalLabelsOnTpu() {
        Mesh m = Mesh.makeMesh("tpu", new int[]{8, 2}, "x", "y");
        String out = ShardingVisualizer.visualizeSharding(new int[]{8, 2}, NamedSharding.of(m, P("x", null)));
        assertEquals("""
                ┌─────────┐
                │ TPU 0,1 │
                ├─────────┤
                │ TPU 2,3 │
                ├─────────┤
                │ TPU 4,5 │
                ├─────────┤
                │ TPU 6,7 │
                ├─────────┤
                │ TPU 8,9 │
                ├─────────┤
                │TPU 10,11│
                ├─────────┤
                │TPU 12,13│
                ├─────────┤
                │TPU 14,15│
                └─────────┘
                """, out);
    }

    @Test
    void permutedMeshLabelsSortIdsWithinACell() {
        // derived from §4.1 (not a JAX golden): cells are keyed by chunk, each label lists the sorted ids of the
        // devices holding that chunk
        Mesh m = Mesh.ofDeviceIds(new int[]{3, 1, 0, 2, 7, 5, 6, 4}, new int[]{4, 2}, "x", "y");
        assertEquals("""
                ┌──────────┐
                │ CPU 1,3  │
                ├──────────┤
                │ CPU 0,2  │
                ├──────────┤
                │ CPU 5,7  │
                ├──────────┤
                │ CPU 4,6  │
                └──────────┘
                """, ShardingVisualizer.visualizeSharding(new int[]{8, 4}, NamedSharding.of(m, P("x", null))));
    }

    // ---- errors ------------------------------------------------------------------------------------------------

    @Test
    void rankThreeIsRejectedWithJaxText() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ShardingVisualizer.visualizeSharding(new int[]{8, 4, 2}, NamedSharding.of(XY, P("x"))));
        assertEquals("`visualize_sharding` only works for shapes with 1 and 2 dimensions.", e.getMessage());
        IllegalArgumentException e0 = assertThrows(IllegalArgumentException.class,
                () -> ShardingVisualizer.visualizeSharding(new int[]{}, NamedSharding.of(XY, P())));
        assertEquals("`visualize_sharding` only works for shapes with 1 and 2 dimensions.", e0.getMessage());
        IllegalArgumentException e3 = assertThrows(IllegalArgumentException.class,
                () -> ShardedArray.devicePut(NDArray.arange(8).reshape(2, 2, 2), XY, P()).visualize());
        assertEquals("`visualize_sharding` only works for shapes with 1 and 2 dimensions.", e3.getMessage());
    }

    @Test
    void indivisibleShapeIsRejected() {
        assertThrows(IndivisibleException.class,
                () -> ShardingVisualizer.visualizeSharding(new int[]{7}, NamedSharding.of(XY, P("x"))));
    }
}
