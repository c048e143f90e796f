package dev.shardlings.array;

import dev.shardlings.sharding.Mesh;
import dev.shardlings.spmd.Collectives;
import dev.shardlings.spmd.ShardMap;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.shardlings.sharding.PartitionSpec.P;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * bool arrays against JAX 0.10.2 / numpy: what comparisons give, how {@code where} picks and promotes, which
 * operations keep bool, how bool prints, and the collectives' dtypes (psum counts in int32, pmax keeps bool).
 */
class NDArrayBoolTest {

    private static NDArray bools(boolean... v) {
        return NDArray.fromBooleans(v, v.length);
    }

    @Test
    void comparisonsGiveBoolWithBroadcastingAndNumpysPromotion() {
        NDArray i = NDArray.arange(6);
        NDArray gt = i.greater(2.5); // jnp: [F F F T T T], compared as float32
        assertEquals(DType.BOOL, gt.dtype());
        assertArrayEquals(new boolean[] {false, false, false, true, true, true}, gt.toBooleanArray());
        assertArrayEquals(new boolean[] {false, false, false, true, false, false}, i.equal(3).toBooleanArray());
        assertArrayEquals(new boolean[] {true, true, true, false, true, true}, i.notEqual(3).toBooleanArray());
        assertArrayEquals(new boolean[] {true, true, false, false, false, false}, i.less(2).toBooleanArray());
        assertArrayEquals(new boolean[] {true, true, true, false, false, false}, i.lessEqual(2).toBooleanArray());
        assertArrayEquals(new boolean[] {false, false, true, true, true, true}, i.greaterEqual(2).toBooleanArray());
        // [2, 1] against [3]: broadcast to [2, 3]
        NDArray col = NDArray.of(new float[][] {{1f}, {4f}});
        NDArray row = NDArray.of(0f, 2f, 5f);
        NDArray m = col.greater(row);
        assertArrayEquals(new int[] {2, 3}, m.shape());
        assertArrayEquals(new boolean[] {true, false, false, true, true, false}, m.toBooleanArray());
        // NaN compares false, except !=
        NDArray nan = NDArray.of(Float.NaN);
        assertArrayEquals(new boolean[] {false}, nan.equal(nan).toBooleanArray());
        assertArrayEquals(new boolean[] {true}, nan.notEqual(nan).toBooleanArray());
        assertArrayEquals(new boolean[] {false}, nan.greater(0).toBooleanArray());
    }

    @Test
    void whereChoosesBroadcastsAndPromotesAsJnpWhere() {
        NDArray x = NDArray.arange(6, DType.FLOAT32).reshape(2, 3);
        NDArray w = NDArray.where(x.greater(2), x, 0);
        assertEquals(DType.FLOAT32, w.dtype());
        assertEquals(NDArray.of(new float[][] {{0, 0, 0}, {3, 4, 5}}), w);
        NDArray ints = NDArray.arange(6);
        assertEquals(DType.INT32, NDArray.where(ints.greater(2), ints, 0).dtype());
        assertEquals(DType.FLOAT32, NDArray.where(ints.greater(2), ints, 2.5).dtype(), "jnp: int32 and 2.5 → f32");
        assertEquals(DType.INT32, NDArray.where(ints.greater(2), 1, ints).dtype());
        // a condition that is not bool counts non-zero as true
        assertEquals(NDArray.of(7, 9, 7), NDArray.where(NDArray.of(1, 0, -3), NDArray.of(7, 8, 7), NDArray.of(9, 9, 9)));
        // a [2, 1] condition picks whole rows
        NDArray rows = NDArray.where(NDArray.fromBooleans(new boolean[] {true, false}, 2, 1), x, x.neg());
        assertEquals(NDArray.of(new float[][] {{0, 1, 2}, {-3, -4, -5}}), rows);
        assertThrows(IllegalArgumentException.class, () -> NDArray.where(x.greater(0), x, NDArray.zeros(DType.FLOAT32, 4)));
        assertThrows(NullPointerException.class, () -> NDArray.where(null, x, x));
    }

    @Test
    void dataMovementAndMaxKeepBoolWhileSumsCount() {
        NDArray b = NDArray.fromBooleans(new boolean[] {true, false, false, true, true, true}, 2, 3);
        assertEquals(DType.BOOL, b.transpose().dtype());
        assertEquals(DType.BOOL, b.slice(1, 0, 2).dtype());
        assertEquals(DType.BOOL, b.reshape(6).dtype());
        assertEquals(DType.BOOL, b.roll(1, 1).dtype());
        assertEquals(DType.BOOL, b.take(NDArray.of(1, 0), 0).dtype());
        assertEquals(DType.BOOL, NDArray.concat(0, b, b).dtype());
        assertEquals(DType.BOOL, b.broadcastTo(4, 2, 3).dtype());
        assertEquals(DType.INT32, NDArray.concat(0, b, NDArray.zeros(DType.INT32, 2, 3)).dtype(), "bool + int32 → int32");
        assertEquals(NDArray.scalar(4), b.sum(), "jnp.sum(bool) counts in int32");
        assertEquals(NDArray.of(2, 1, 1), b.sum(0));
        assertEquals(DType.FLOAT32, b.mean().dtype());
        assertEquals(bools(true, true), b.max(1), "jnp.max(bool) keeps bool");
        assertEquals(bools(false, true), b.min(1));
        assertEquals(NDArray.of(0, 0), b.argmax(1));
    }

    @Test
    void arithmeticPromotesBoolOrFollowsJaxsLogicalMeaning() {
        NDArray b = bools(true, false);
        assertEquals(NDArray.of(2, 0), b.mul(2), "bool * 2 → int32");
        assertEquals(NDArray.of(1.5f, 0f), b.mul(1.5f), "bool * 1.5 → float32");
        assertEquals(bools(true, true), b.add(bools(false, true)), "bool + bool is a logical or");
        assertEquals(bools(false, false), b.mul(bools(false, true)), "bool * bool is a logical and");
        assertEquals(NDArray.of(1f, Float.NaN), b.div(bools(true, false)), "true division is float32");
        IllegalArgumentException sub = assertThrows(IllegalArgumentException.class, () -> b.sub(b));
        assertTrue(sub.getMessage().contains("bool"), sub.getMessage());
        assertThrows(IllegalArgumentException.class, b::neg);
        // addN is chained adds, bool included
        assertEquals(NDArray.of(3, 2), NDArray.addN(List.of(NDArray.of(2, 2), b)));
        assertEquals(bools(true, true), NDArray.addN(List.of(b, bools(false, true))));
        // a placed bool array times a whole number is int32 too
        dev.shardlings.spmd.ShardedArray placed = dev.shardlings.spmd.ShardedArray.devicePut(b,
                Mesh.makeMesh(new int[] {2}, "i"), P("i"));
        assertEquals(NDArray.of(2, 0), placed.mul(2.0).gather());
        assertThrows(IllegalArgumentException.class, () -> b.reshape(1, 2).matmul(b.reshape(2, 1)));
    }

    @Test
    void convertsPrintsAndDescribesLikeNumpy() {
        NDArray b = bools(true, false, true);
        assertEquals("[ True False  True]", b.toString());
        assertEquals("[[ True False]\n [False  True]]", NDArray.fromBooleans(new boolean[] {true, false, false, true}, 2, 2)
                .toString());
        assertEquals("True", NDArray.fromBooleans(new boolean[] {true}).toString());
        assertEquals("bool[3]", b.describe());
        assertEquals(NDArray.of(1f, 0f, 1f), b.astype(DType.FLOAT32));
        assertEquals(NDArray.of(1, 0, 1), b.astype(DType.INT32));
        assertEquals(bools(true, false, true), NDArray.of(-2f, 0f, Float.NaN).astype(DType.BOOL));
        assertEquals(bools(false, false), NDArray.zeros(DType.BOOL, 2));
        assertEquals(bools(true, true), NDArray.ones(DType.BOOL, 2));
        assertEquals(3L, b.nbytes(), "one byte per element, as JAX counts");
        assertThrows(IllegalStateException.class, () -> NDArray.of(1, 2).toBooleanArray());
        assertThrows(IllegalArgumentException.class, () -> NDArray.arange(3, DType.BOOL));
    }

    @Test
    void psumCountsInInt32AndPmaxAndAllGatherKeepBool() {
        Mesh mesh = Mesh.makeMesh(new int[] {4}, "i");
        NDArray x = NDArray.arange(8).reshape(4, 2);
        List<NDArray> out = ShardMap.shardMap(blocks -> {
            NDArray b = blocks.get(0).greater(4);
            return List.of(Collectives.psum(b, "i"), Collectives.pmax(b, "i"), Collectives.allGather(b, "i", 0, dev.shardlings.spmd.Tiling.TILED));
        }, mesh, List.of(P("i")), List.of(P(), P(), P())).checkVma(false).callOnWhole(x)
                .stream().map(s -> s.gather()).toList();
        // seed: blocks [[0,1]], [[2,3]], [[4,5]], [[6,7]]; > 4 holds for 5, 6, 7
        assertEquals(NDArray.of(new int[][] {{1, 2}}), out.get(0));
        assertEquals(NDArray.fromBooleans(new boolean[] {true, true}, 1, 2), out.get(1));
        assertEquals(x.greater(4), out.get(2));
    }
}
