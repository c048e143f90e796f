package dev.shardlings.spmd;

import dev.shardlings.TestArrays;
import dev.shardlings.array.NDArray;
import dev.shardlings.primitive.ShardingTypeError;
import dev.shardlings.sharding.AxisType;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.NamedSharding;
import org.junit.jupiter.api.Test;

import static dev.shardlings.sharding.PartitionSpec.P;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code einsum} of two global arrays: subscripts to dot_general and a transpose, typing and values. */
class EinsumTest {

    private static final Mesh MESH = Mesh.makeMesh(new int[] {2, 2}, "X", "Y");

    private static NDArray data(int... shape) {
        return TestArrays.cyclic(7, 9, shape);
    }

    private static ShardedArray put(NDArray x, Object... spec) {
        return ShardedArray.devicePut(x, new NamedSharding(MESH, P(spec)));
    }

    @Test
    void aMatmulIsAContractionOfTheSharedLetter() {
        NDArray a = data(8, 4);
        NDArray w = data(4, 6);
        ShardedArray out = ShardedArray.einsum("bd,df->bf", put(a, "X", null), put(w, null, "Y"));
        assertEquals("float32[8@X,6@Y]", out.type().toString());
        assertTrue(out.gather().allclose(a.matmul(w), 1e-6, 1e-5));
    }

    @Test
    void seed002MatmulSquareNeedsAnOutShardingOnExplicitAxes() {
        NDArray in = data(8, 4);
        NDArray w = data(4, 6);
        ShardingTypeError e = assertThrows(ShardingTypeError.class,
                () -> ShardedArray.einsum("bd,df->bf", put(in, "X", "Y").square(), put(w, "Y", null)));
        assertTrue(e.getMessage().endsWith("Got lhs_contracting_spec=('Y',) and rhs_contracting_spec=('Y',)"));
        ShardedArray out = ShardedArray.einsum("bd,df->bf", put(in, "X", "Y").square(), put(w, "Y", null),
                P("X", null));
        assertEquals("float32[8@X,6]", out.type().toString());
        assertTrue(out.gather().allclose(in.square().matmul(w), 1e-6, 1e-5));
    }

    @Test
    void batchLettersComeFirstAndTheOutputOrderIsHonoured() {
        NDArray a = data(2, 3, 4);
        NDArray b = data(2, 4, 5);
        ShardedArray out = ShardedArray.einsum("bij,bjk->kib", put(a, "X", null, null), put(b, "X", null, null));
        assertEquals("float32[5,3,2@X]", out.type().toString());
        NDArray got = out.gather();
        for (int batch = 0; batch < 2; batch++) {
            NDArray expected = a.index(batch).matmul(b.index(batch));
            for (int i = 0; i < 3; i++) {
                for (int k = 0; k < 5; k++) {
                    assertEquals(expected.floatAt(i, k), got.floatAt(k, i, batch), 1e-5);
                }
            }
        }
    }

    @Test
    void aLetterOnlyOneOperandHasAndTheOutputLacksIsSummed() {
        Mesh auto = MESH.withAxisTypes(AxisType.AUTO, AxisType.AUTO);
        NDArray a = data(4, 3);
        NDArray b = data(5);
        ShardedArray out = ShardedArray.einsum("ij,k->ik", ShardedArray.devicePut(a, new NamedSharding(auto, P("X"))),
                ShardedArray.devicePut(b, new NamedSharding(auto, P())));
        NDArray rows = a.sum(1);
        NDArray got = out.gather();
        for (int i = 0; i < 4; i++) {
            for (int k = 0; k < 5; k++) {
                assertEquals(rows.floatAt(i) * b.floatAt(k), got.floatAt(i, k), 1e-5);
            }
        }
    }

    @Test
    void malformedSubscriptsAreClearErrors() {
        ShardedArray a = put(data(4, 4), null, null);
        assertEquals("einsum subscripts must look like \"ab,bc->ac\" (two operands and an output), got \"ab->b\"",
                assertThrows(IllegalArgumentException.class, () -> ShardedArray.einsum("ab->b", a, a)).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ShardedArray.einsum("abc,bc->a", a, a))
                .getMessage().contains("has rank 2 but subscripts \"abc\""));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ShardedArray.einsum("aa,ab->b", a, a))
                .getMessage().contains("distinct letters"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ShardedArray.einsum("ab,bc->az", a, a))
                .getMessage().contains("'z' appears in no operand"));
    }
}
