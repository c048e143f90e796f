package dev.shardlings.jit;

import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.sharding.AxisType;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.spmd.ShardedArray;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.shardlings.sharding.PartitionSpec.P;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Part 3.3's transformer block written on whole arrays, {@code gelu(In @ Win) @ Wout} jitted with out sharding
 * P('X', 'Y') on the 2 × 4 mesh (Auto axes): the jit baseline the seed compares the collective version with, and
 * the reference profiles' "transformer-block / jit" row. JAX 0.10.2's lines (docs/src/test/resources/jax-checks/
 * problem3_block_jit.py, B, D, F = 64, 128, 256):
 * <pre>
 * %all-gather = f32[32,128]{0,1} all-gather(%wrapped_copy), … replica_groups=mesh['axis_0'=2,'axis_1'=4] {'axis_1'},
 *     dimensions={1}
 * ROOT %dot.3 = f32[32,64]{1,0} dot(%param_0.1, %param_1.1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
 * ROOT %dot.2 = f32[32,128]{1,0} dot(%param_0, %param_1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
 * %all-reduce = f32[32,128]{1,0} all-reduce(%ynn_fusion), channel_id=2, replica_groups=[2,4]<=[8]
 * </pre>
 * XLA:CPU then keeps each device's D/Y columns of the all-reduce (a dynamic slice), and so does the framework's
 * jit, which compiles XLA:CPU's plans; on TPU XLA writes the pair as one reduce-scatter (docs/problem-3.md).
 */
class TransformerBlockJitTest {

    @Test
    void theBlockCompilesToTheBaselinesPlan() {
        Mesh m = Mesh.makeMesh(new int[] {2, 4}, new String[] {"X", "Y"}, AxisType.AUTO, AxisType.AUTO);
        NDArray x = NDArray.arange(64 * 128).astype(DType.FLOAT32).reshape(64, 128).mul(1e-4f);
        NDArray win = NDArray.arange(128 * 256).astype(DType.FLOAT32).reshape(128, 256).mul(1e-5f);
        NDArray wout = NDArray.arange(256 * 128).astype(DType.FLOAT32).reshape(256, 128).mul(-1e-5f);
        Jitted block = Jit.jitList(v -> List.of(v.get(0).matmul(v.get(1)).gelu().matmul(v.get(2)))).named("block")
                .outShardings(P("X", "Y"));
        List<Object> args = List.of(ShardedArray.devicePut(x, m, P("X", "Y")),
                ShardedArray.devicePut(win, m, P(null, "Y")), ShardedArray.devicePut(wout, m, P("Y", null)));
        String text = block.lower(args.toArray()).asText();
        assertTrue(text.contains("f32[32,128] all-gather(%0), dimensions={1}, replica_groups={{0,1,2,3},{4,5,6,7}}"),
                text);
        assertTrue(text.contains("f32[32,64] dot_general(%3, %1)") && text.contains("f32[32,64] gelu(%4)")
                && text.contains("f32[32,128] dot_general(%5, %2)"), text);
        assertTrue(text.contains("f32[32,128] all-reduce(%6), replica_groups={{0,1,2,3},{4,5,6,7}}, to_apply=add")
                && text.contains("f32[32,32] dynamic-slice(%7), dimension=1, by axis_index[Y]"), text);
        ShardedArray out = block.call(args.toArray()).get(0);
        assertEquals(P("X", "Y"), out.spec());
        float[] expected = x.matmul(win).gelu().matmul(wout).toFloatArray();
        // values up to about 200: the all-reduce sums the four partial products in its own order
        assertArrayEquals(expected, out.gather().toFloatArray(), 2e-3f);
    }

    @Test
    void geluOnAShardedArrayIsElementwise() {
        Mesh m = Mesh.makeMesh(new int[] {2, 4}, "X", "Y");
        NDArray v = NDArray.arange(32).astype(DType.FLOAT32).reshape(4, 8).mul(0.25f).sub(4f);
        ShardedArray g = ShardedArray.devicePut(v, m, P("X", "Y")).gelu();
        assertEquals(P("X", "Y"), g.spec());
        assertEquals(v.gelu(), g.gather());
    }
}
