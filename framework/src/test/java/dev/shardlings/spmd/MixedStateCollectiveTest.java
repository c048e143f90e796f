package dev.shardlings.spmd;

import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.PartitionSpec;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.function.UnaryOperator;

import static dev.shardlings.spmd.Tiling.TILED;
import static dev.shardlings.spmd.Tiling.UNTILED;
import static dev.shardlings.sharding.PartitionSpec.P;
import static dev.shardlings.sharding.PartitionSpec.tuple;
import static dev.shardlings.spmd.Collectives.allGather;
import static dev.shardlings.spmd.Collectives.allToAll;
import static dev.shardlings.spmd.Collectives.pmax;
import static dev.shardlings.spmd.Collectives.pmean;
import static dev.shardlings.spmd.Collectives.pmin;
import static dev.shardlings.spmd.Collectives.ppermute;
import static dev.shardlings.spmd.Collectives.psum;
import static dev.shardlings.spmd.Collectives.psumScatter;
import static dev.shardlings.spmd.ShardMap.shardMap;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * psum, pmean and psum_scatter over a tuple of axes the operand varies over only some of: JAX refuses them under
 * check_vma (lax/parallel.py {@code _get_from}); pmax, pmin, all_gather, all_to_all and ppermute accept them. Every
 * text and value here was printed by JAX 0.10.2 ({@code jax.jit(jax.shard_map(...))}, 8 CPU devices,
 * {@code PYTHONHASHSEED=0}, which fixes the order in which JAX prints the set of states).
 */
class MixedStateCollectiveTest {

    static final Mesh XY = Mesh.makeMesh(new int[]{4, 2}, "x", "y");
    static final Mesh YXZ = Mesh.makeMesh(new int[]{2, 2, 2}, "y", "x", "z");
    static final Mesh XYO = Mesh.makeMesh(new int[]{4, 2, 1}, "x", "y", "o");
    static final NDArray X = NDArray.arange(32).reshape(8, 4);
    static final NDArray XF = NDArray.arange(32, DType.FLOAT32).reshape(8, 4);

    static final String PSUM = "jax.lax.psum can only accept axis_name which corresponds to one of varying, unreduced,"
            + " reduced or invarying state of the input. Got input type: ";
    static final String PSUM_SCATTER = "jax.lax.psum_scatter can only accept axis_name which corresponds to one of"
            + " varying, unreduced, reduced or invarying state of the input. Got input type: ";

    /** The message of the exception a device threw (every device throws it; the first in mesh order is reported). */
    static String refused(UnaryOperator<NDArray> f, Mesh mesh, PartitionSpec in, PartitionSpec out, NDArray x) {
        DeviceFailureException e = assertThrows(DeviceFailureException.class,
                () -> shardMap(f, mesh, in, out).apply(x));
        assertEquals(0, e.device().id());
        return assertInstanceOf(IllegalArgumentException.class, e.getCause()).getMessage();
    }

    static NDArray run(UnaryOperator<NDArray> f, Mesh mesh, PartitionSpec in, PartitionSpec out, NDArray x) {
        return shardMap(f, mesh, in, out).apply(x).gather();
    }

    @Test
    void psumAndPmeanOverAMixOfVaryingAndInvaryingAxesAreRefused() {
        assertEquals(PSUM + "int32[2,4]{V:x}, axes: ('x', 'y') and input state: {'varying', 'invarying'}",
                refused(b -> psum(b, "x", "y"), XY, P("x"), P(), X));
        assertEquals(PSUM + "int32[2,4]{V:x}, axes: ('y', 'x') and input state: {'invarying', 'varying'}",
                refused(b -> psum(b, List.of("y", "x")), XY, P("x"), P(), X));
        // pmean is psum followed by a division, and JAX's text names psum.
        assertEquals(PSUM + "int32[2,4]{V:x}, axes: ('x', 'y') and input state: {'varying', 'invarying'}",
                refused(b -> pmean(b, "x", "y"), XY, P("x"), P(), X));
        assertEquals(PSUM + "int32[]{V:x}, axes: ('x', 'y') and input state: {'varying', 'invarying'}",
                refused(b -> psum(b.sum(), "x", "y"), XY, P("x"), P(), X));
        // Three axes; the varying axes of the type are printed in mesh order.
        assertEquals(PSUM + "float32[4,2]{V:(y,x)}, axes: ('x', 'y', 'z') and input state: {'varying', 'invarying'}",
                refused(b -> psum(b, "x", "y", "z"), YXZ, P("x", "y"), P(), XF));
        assertEquals(PSUM + "float32[4,2]{V:(y,x)}, axes: ('z', 'x', 'y') and input state: {'invarying', 'varying'}",
                refused(b -> pmean(b, "z", "x", "y"), YXZ, P("x", "y"), P(), XF));
        // An axis of size 1 the value does not vary over counts as invarying.
        assertEquals(PSUM + "int32[2,4]{V:x}, axes: ('x', 'o') and input state: {'varying', 'invarying'}",
                refused(b -> psum(b, "x", "o"), XYO, P("x"), P(), X));
    }

    @Test
    void theStateCheckComesBeforeTheAxisAndShapeChecks() {
        // 'q' is no mesh axis: JAX reports the states first (an unknown axis is invarying).
        assertEquals(PSUM + "int32[2,4]{V:x}, axes: ('x', 'q') and input state: {'varying', 'invarying'}",
                refused(b -> psum(b, "x", "q"), XY, P("x"), P(), X));
        // 12 columns do not divide by 8, but the states are reported first.
        assertEquals(PSUM_SCATTER + "int32[2,12]{V:x}, axes: ('x', 'y') and input state: {'varying', 'invarying'}",
                refused(b -> psumScatter(b, List.of("x", "y"), 1, TILED), XY, P("x"), P(null, tuple("x", "y")),
                        NDArray.arange(96).reshape(8, 12)));
    }

    @Test
    void psumScatterOverAMixIsRefused() {
        assertEquals(PSUM_SCATTER + "int32[2,32]{V:x}, axes: ('x', 'y') and input state: {'varying', 'invarying'}",
                refused(b -> psumScatter(b, List.of("x", "y"), 1, TILED), XY, P("x"), P(null, tuple("x", "y")),
                        NDArray.arange(256).reshape(8, 32)));
        assertEquals(PSUM_SCATTER + "int32[8,1]{V:x}, axes: ('x', 'y') and input state: {'varying', 'invarying'}",
                refused(b -> psumScatter(b, List.of("x", "y"), 0, UNTILED), XY, P(null, "x"), P(tuple("x", "y")), X));
        assertEquals(PSUM_SCATTER + "float32[8,2]{V:x}, axes: ('z', 'x') and input state: {'invarying', 'varying'}",
                refused(b -> psumScatter(b, List.of("z", "x"), 0, TILED), YXZ, P(null, "x"), P(tuple("z", "x")), XF));
    }

    @Test
    void theOtherCollectivesAcceptAMix() {
        assertArrayEquals(new int[]{24, 25, 26, 27, 28, 29, 30, 31},
                run(b -> pmax(b, "x", "y"), XY, P("x"), P(), X).toIntArray());
        assertArrayEquals(new int[]{0, 1, 2, 3, 4, 5, 6, 7},
                run(b -> pmin(b, "x", "y"), XY, P("x"), P(), X).toIntArray());
        int[] gathered = run(b -> allGather(b, List.of("x", "y"), 0, TILED), XY, P("x"), P(tuple("x", "y")),
                NDArray.arange(8)).toIntArray();
        assertEquals(128, gathered.length);
        for (int d = 0; d < 8; d++) {
            assertArrayEquals(new int[]{0, 1, 0, 1, 2, 3, 2, 3, 4, 5, 4, 5, 6, 7, 6, 7},
                    java.util.Arrays.copyOfRange(gathered, 16 * d, 16 * d + 16));
        }
        assertArrayEquals(new int[]{0, 0, 8, 8, 16, 16, 24, 24, 1, 1, 9, 9, 17, 17, 25, 25, 2, 2, 10, 10, 18, 18, 26,
                26, 3, 3, 11, 11, 19, 19, 27, 27, 4, 4, 12, 12, 20, 20, 28, 28, 5, 5, 13, 13, 21, 21, 29, 29, 6, 6, 14,
                14, 22, 22, 30, 30, 7, 7, 15, 15, 23, 23, 31, 31},
                run(b -> allToAll(b, List.of("x", "y"), 0, 0, TILED), XY, P("x"), P(tuple("x", "y")),
                        NDArray.arange(32)).toIntArray());
        int[][] shift = new int[8][];
        for (int i = 0; i < 8; i++) {
            shift[i] = new int[]{i, (i + 1) % 8};
        }
        assertArrayEquals(new int[]{6, 7, 0, 1, 0, 1, 2, 3, 2, 3, 4, 5, 4, 5, 6, 7},
                run(b -> ppermute(b, List.of("x", "y"), shift), XY, P("x"), P(tuple("x", "y")),
                        NDArray.arange(8)).toIntArray());
        // A value that varies over both axes after an all_gather over y may be summed over both.
        assertArrayEquals(new int[]{96, 104, 128, 136, 112, 120, 144, 152},
                run(b -> psum(allGather(b, "y", 0, TILED), "x", "y"), XY, P("x", "y"), P(), X).toIntArray());
    }

    @Test
    void withoutCheckVmaAMixIsSummedAsJaxDoes() {
        int[] row = {96, 104, 112, 120, 128, 136, 144, 152};
        int[] sums = shardMap(b -> psum(b, "x", "y"), XY, P("x"), P("x")).checkVma(false).apply(X).gather()
                .toIntArray();
        float[] means = shardMap(b -> pmean(b, "x", "y"), XY, P("x"), P("x")).checkVma(false).apply(X).gather()
                .toFloatArray();
        for (int r = 0; r < 4; r++) {
            for (int j = 0; j < 8; j++) {
                assertEquals(row[j], sums[8 * r + j]);
                assertEquals(row[j] / 8f, means[8 * r + j]);
            }
        }
        assertArrayEquals(new int[]{192, 256, 208, 272, 224, 288, 240, 304},
                shardMap(b -> psumScatter(b, List.of("x", "y"), 1, TILED), XY, P("x"), P("x")).checkVma(false)
                        .apply(NDArray.arange(64).reshape(8, 8)).gather().toIntArray());
    }
}
