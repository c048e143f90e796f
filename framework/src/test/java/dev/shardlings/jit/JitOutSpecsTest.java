package dev.shardlings.jit;

import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.sharding.AxisType;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.NamedSharding;
import dev.shardlings.sharding.PartitionSpec;
import dev.shardlings.spmd.ShardedArray;
import org.junit.jupiter.api.Test;

import java.util.function.Function;

import static dev.shardlings.sharding.PartitionSpec.P;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The sharding a jit result comes back with when the compiler chose its layout, spelled as JAX 0.10.2 spells it
 * ({@code src/test/resources/jax-checks/jit_out_specs.py}; its printed lines are quoted beside each case): on Auto
 * axes the first committed argument, where it has the result's rank and layout, lends its sharding as given,
 * trailing Nones included, else trailing Nones are dropped; on Explicit axes the type's spec has one entry per dimension.
 */
class JitOutSpecsTest {

    private static final int[] IDS4 = {0, 1, 2, 3};
    private static final Mesh AUTO = Mesh.ofDeviceIds(IDS4, new int[] {2, 2}, "x", "y");
    private static final Mesh EXPLICIT = Mesh.makeMesh(new int[] {2, 2}, new String[] {"x", "y"}, AxisType.EXPLICIT,
            AxisType.EXPLICIT);

    private static ShardedArray put(Mesh mesh, int[] shape, PartitionSpec spec) {
        NDArray whole = NDArray.ones(DType.FLOAT32, shape);
        return ShardedArray.devicePut(whole, new NamedSharding(mesh, spec));
    }

    private static PartitionSpec spec(Function<ShardedArray, ShardedArray> f, ShardedArray a) {
        return Jit.jit((java.util.function.UnaryOperator<ShardedArray>) f::apply).call(a).get(0).spec();
    }

    private static PartitionSpec spec2(java.util.function.BinaryOperator<ShardedArray> f, ShardedArray a,
                                       ShardedArray b) {
        return Jit.jit((java.util.function.BinaryOperator<ShardedArray>) f::apply).call(a, b).get(0).spec();
    }

    @Test
    void onAutoAxesAnArgumentLaidOutAlikeLendsItsSpecAsGiven() {
        int[] s = {4, 4};
        // sin P(x,None) -> P('x', None); sin P(x) -> P('x',); sin P(None,None) -> P(None, None)
        assertEquals(P("x", null), spec(ShardedArray::sin, put(AUTO, s, P("x", null))));
        assertEquals(P("x"), spec(ShardedArray::sin, put(AUTO, s, P("x"))));
        assertEquals(P(null, null), spec(ShardedArray::sin, put(AUTO, s, P(null, null))));
        // replicated P() -> P()
        assertEquals(P(), spec(ShardedArray::sin, put(AUTO, s, P())));
        // add P(x) + P(x,None) -> P('x',); add P(x,None) + P(x) -> P('x', None): the first argument lends it
        assertEquals(P("x"), spec2(ShardedArray::add, put(AUTO, s, P("x")), put(AUTO, s, P("x", null))));
        assertEquals(P("x", null), spec2(ShardedArray::add, put(AUTO, s, P("x", null)), put(AUTO, s, P("x"))));
        // matmul P(x,None) P(None,None) -> P('x', None)
        assertEquals(P("x", null), spec2(ShardedArray::matmul, put(AUTO, s, P("x", null)),
                put(AUTO, s, P(null, null))));
        // int32 argument lends it P('x', None): the dtype does not matter
        ShardedArray ints = ShardedArray.devicePut(NDArray.ones(DType.INT32, 4, 4), new NamedSharding(AUTO,
                P("x", null)));
        assertEquals(P("x", null), spec2((p, q) -> p.astype(DType.FLOAT32).add(q), ints, put(AUTO, s, P("x"))));
        // 2x1 sin P(x,y) -> P('x', 'y'). Deliberate difference (Partitioner.chosenSharding): JAX lends a sharding to
        // a layout that differs only in size-1 axes ("2x1 mm P(x,None), P(None,y) -> P('x', None)"); here the
        // layouts must be equal, so the result keeps y
        Mesh m21 = Mesh.ofDeviceIds(new int[] {0, 1}, new int[] {2, 1}, "x", "y");
        assertEquals(P("x", "y"), spec(ShardedArray::sin, put(m21, s, P("x", "y"))));
        assertEquals(P("x", "y"), spec2(ShardedArray::matmul, put(m21, s, P("x", null)), put(m21, s, P(null, "y"))));
    }

    @Test
    void onAutoAxesOtherLayoutsDropTrailingNones() {
        // a P(None, None) second argument lends nothing: matmul P(x,None) P(None,None) with the replicated one first
        // is P('x',) (seed 001's gradients: W3's P('model', None) gradient prints P('model',) behind W1's P())
        assertEquals(P("x"), spec2((p, q) -> q.matmul(p), put(AUTO, new int[] {4, 4}, P(null, null)),
                put(AUTO, new int[] {4, 4}, P("x", null))));
        // sum0 of P(None,None) (replicated out) -> P(): another rank lends nothing
        assertEquals(P(), spec(a -> a.sum(0), put(AUTO, new int[] {4, 4}, P(null, null))));
        // sum0 of P(None,y) -> P('y',); transpose P(None,x) -> P('x',); reshape [4,4]P(x,None)->[16] -> P('x',)
        assertEquals(P("y"), spec(a -> a.sum(0), put(AUTO, new int[] {4, 4}, P(null, "y"))));
        assertEquals(P("x"), spec(a -> a.transpose(1, 0), put(AUTO, new int[] {4, 4}, P(null, "x"))));
        assertEquals(P("x"), spec(a -> a.reshape(16), put(AUTO, new int[] {4, 4}, P("x", null))));
        // out_shardings as given: P('x',)
        assertEquals(P("x"), Jit.jit((java.util.function.UnaryOperator<ShardedArray>) ShardedArray::sin).outShardings(P("x")).call(put(AUTO, new int[] {4, 4},
                P("x", null))).get(0).spec());
    }

    @Test
    void onExplicitAxesTheTypesSpecHasOneEntryPerDimension() {
        // Explicit sin P(x) P('x', None); Explicit sum0 P(x,y) P('y',); Explicit T P(x,None) P(None, 'x')
        assertEquals(P("x", null), spec(ShardedArray::sin, put(EXPLICIT, new int[] {4, 4}, P("x"))));
        assertEquals(P("y"), spec(a -> a.sum(0), put(EXPLICIT, new int[] {4, 4}, P("x", "y"))));
        assertEquals(P(null, "x"), spec(a -> a.transpose(1, 0), put(EXPLICIT, new int[] {4, 4}, P("x", null))));
        // Explicit sum0 P(batch) P(None,); replicated results too: explicit sin P() P(None, None)
        Mesh m8 = Mesh.makeMesh(new int[] {8}, "batch");
        assertEquals(P((Object) null), spec(a -> a.sum(0), put(m8, new int[] {16, 4}, P("batch"))));
        assertEquals(P(null, null), spec(ShardedArray::sin, put(m8, new int[] {4, 3}, P())));
    }
}
