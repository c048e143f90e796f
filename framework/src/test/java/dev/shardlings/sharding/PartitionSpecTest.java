package dev.shardlings.sharding;

import dev.shardlings.array.NDArray;
import dev.shardlings.spmd.ShardedArray;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;

import static dev.shardlings.sharding.PartitionSpec.P;
import static dev.shardlings.sharding.PartitionSpec.tuple;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** PartitionSpec canonicalisation, reprs, equality, tuple chunk order and error texts (jax-semantics.md §2). */
class PartitionSpecTest {

    static final Mesh XY = Mesh.makeMesh(new int[]{4, 2}, "x", "y");

    // ---- §2.1 canonicalisation and repr ---------------------------------------------------------------------

    @Test
    void reprsAreJaxs() {
        assertEquals("P('x',)", P("x").toString());
        assertEquals("P('x', None)", P("x", null).toString());
        assertEquals("P(('x', 'y'),)", P(tuple("x", "y")).toString());
        assertEquals("P()", P().toString());
        assertEquals("P(None,)", P((Object) null).toString());
        assertEquals("P('x', 'y')", P("x", "y").toString());
        assertEquals("P(None, 'y')", P(null, "y").toString());
        assertEquals("P(('x', 'y'), None)", P(tuple("x", "y"), null).toString());
        assertEquals("P(None, ('y', 'x'), 'z')", P(null, tuple("y", "x"), "z").toString());
        assertEquals("P()", PartitionSpec.replicated().toString());
        assertEquals("P(None,)", P((Object[]) null).toString());
    }

    @Test
    void lengths() {
        assertEquals(1, P((Object) null).length());
        assertEquals(0, P().length());
        assertEquals(2, P("x", null).length());
        assertEquals(1, P(tuple("x", "y")).length());
    }

    @Test
    void emptyTupleIsNone() {
        // P(()) -> P(None,)
        assertEquals("P(None,)", P(tuple()).toString());
        assertEquals(P((Object) null), P(tuple()));
        assertEquals(List.of(List.of()), P(tuple()).entries());
    }

    @Test
    void emptyStringIsNone() {
        // '' is falsy, so it is stored as None
        assertEquals("P(None,)", P("").toString());
        assertEquals(P((Object) null), P(""));
        assertEquals(P("x", null), P("x", ""));
    }

    @Test
    void oneNameTupleIsTheName() {
        // P(('x',)) == P('x') -> True
        assertEquals(P("x"), P(tuple("x")));
        assertEquals(P("x").hashCode(), P(tuple("x")).hashCode());
        assertEquals("P('x',)", P(tuple("x")).toString());
        assertEquals("P('x', ('x', 'y'))", P(tuple("x"), tuple("x", "y")).toString());
    }

    @Test
    void tupleKeepsWrittenOrder() {
        assertEquals(List.of("y", "x"), tuple("y", "x").names());
        assertEquals("('y', 'x')", tuple("y", "x").toString());
        assertEquals("('x',)", tuple("x").toString());
        assertNotEquals(P(tuple("x", "y")), P(tuple("y", "x")));
    }

    @Test
    void entriesAndAxes() {
        PartitionSpec p = P(null, tuple("y", "x"));
        assertEquals(List.of(List.of(), List.of("y", "x")), p.entries());
        assertEquals(List.of(), p.axesAt(0));
        assertEquals(List.of("y", "x"), p.axesAt(1));
        assertEquals(List.of(), p.axesAt(5), "past the end = not split");
        assertEquals(List.of("y", "x"), List.copyOf(p.mentionedAxes()));
        assertEquals(Set.of(), P().mentionedAxes());
    }

    @Test
    void badEntryTypesAreRejected() {
        assertThrows(IllegalArgumentException.class, () -> P(1));
        assertThrows(IllegalArgumentException.class, () -> P("x", new String[]{"x", "y"}));
        assertThrows(IllegalArgumentException.class, () -> tuple("x", null));
    }

    // ---- §2.2 equality vs equivalence -----------------------------------------------------------------------

    @Test
    void trailingNonesAreEquivalentButNotEqual() {
        assertNotEquals(P("x"), P("x", null));
        assertTrue(P("x").isEquivalentTo(P("x", null)));
        assertTrue(P("x", null).isEquivalentTo(P("x")));
        assertTrue(P().isEquivalentTo(P(null, null)));
        assertFalse(P("x").isEquivalentTo(P(null, "x")));
        assertFalse(P("x").isEquivalentTo(P("y")));
        assertEquals(P("x", null), P("x").padTo(2));
        assertEquals(P(null, null, null), P().padTo(3));
        assertThrows(IllegalArgumentException.class, () -> P("x", "y").padTo(1));
    }

    @Test
    void namedShardingsWithEquivalentSpecsAreNotEqual() {
        // NamedSharding(m, P('x')) == NamedSharding(m, P('x', None)) -> False
        assertNotEquals(NamedSharding.of(XY, P("x")), NamedSharding.of(XY, P("x", null)));
        assertEquals(NamedSharding.of(XY, P("x")), new NamedSharding(Mesh.makeMesh(new int[]{4, 2}, "x", "y"), P("x")));
        // but they place shards identically
        NamedSharding a = NamedSharding.of(XY, P("x"));
        NamedSharding b = NamedSharding.of(XY, P("x", null));
        assertEquals(a.devicesIndicesMap(8, 4), b.devicesIndicesMap(8, 4));
    }

    // ---- §2.2 tuple entries: first-named axis is major --------------------------------------------------------

    @Test
    void tupleChunkIsFirstNameMajor() {
        NamedSharding xy = NamedSharding.of(XY, P(tuple("x", "y")));
        NamedSharding yx = NamedSharding.of(XY, P(tuple("y", "x")));
        for (Device d : XY.devices()) {
            int x = d.coords().get(0);
            int y = d.coords().get(1);
            assertEquals(2 * x + y, xy.chunkIndex(d, 0), "P(('x','y')) chunk of " + d);
            assertEquals(4 * y + x, yx.chunkIndex(d, 0), "P(('y','x')) chunk of " + d);
            assertEquals(0, xy.chunkIndex(d, 1), "an unsplit dim has chunk 0");
        }
    }

    @Test
    void tupleChunkOnThreeAxesIsIndependentOfMeshOrder() {
        Mesh m = Mesh.makeMesh(new int[]{2, 3, 2}, "a", "b", "c");
        NamedSharding s = NamedSharding.of(m, P(tuple("c", "a", "b")));
        for (Device d : m.devices()) {
            int a = d.coords().get(0);
            int b = d.coords().get(1);
            int c = d.coords().get(2);
            assertEquals(c * 6 + a * 3 + b, s.chunkIndex(d, 0));
            assertEquals("" + (c * 6 + a * 3 + b) + ":" + (c * 6 + a * 3 + b + 1),
                    s.index(d, 12).compact());
        }
    }

    // ---- §2.4 errors ------------------------------------------------------------------------------------------

    static final String DUP = "A single NamedSharding spec specification can map every mesh axis to at most one"
            + " positional dimension, but ";

    @Test
    void duplicateAxisTwice() {
        DuplicateSpecException e = assertThrows(DuplicateSpecException.class, () -> NamedSharding.of(XY, P("x", "x")));
        assertEquals(DUP + "P('x', 'x') has duplicate entries for `x`", e.getMessage());
    }

    @Test
    void duplicateAxisInTupleAndName() {
        DuplicateSpecException e = assertThrows(DuplicateSpecException.class,
                () -> NamedSharding.of(XY, P(tuple("x", "y"), "x")));
        assertEquals(DUP + "P(('x', 'y'), 'x') has duplicate entries for `x`", e.getMessage());
    }

    @Test
    void duplicateAxesAreListedSorted() {
        DuplicateSpecException e = assertThrows(DuplicateSpecException.class,
                () -> NamedSharding.of(XY, P("y", tuple("y", "x"), "x")));
        assertEquals(DUP + "P('y', ('y', 'x'), 'x') has duplicate entries for `x`, `y`", e.getMessage());
        DuplicateSpecException e2 = assertThrows(DuplicateSpecException.class,
                () -> NamedSharding.of(XY, P(tuple("x", "x"))));
        assertEquals(DUP + "P(('x', 'x'),) has duplicate entries for `x`", e2.getMessage());
    }

    @Test
    void duplicateAxesAreSortedWithTheirBackticks() {
        // JAX sorts the strings "`x`" and "`x1`"; '`' (0x60) sorts after '1', so `x1` comes first
        Mesh m = Mesh.makeMesh(new int[]{2, 2}, "x", "x1");
        DuplicateSpecException e = assertThrows(DuplicateSpecException.class,
                () -> NamedSharding.of(m, P("x", "x1", tuple("x", "x1"))));
        assertEquals(DUP + "P('x', 'x1', ('x', 'x1')) has duplicate entries for `x1`, `x`", e.getMessage());
    }

    @Test
    void duplicatesAreCheckedBeforeUnknownAxes() {
        // check_pspec runs _check_unique_resources before _check_mesh_resource_axis
        DuplicateSpecException e = assertThrows(DuplicateSpecException.class, () -> NamedSharding.of(XY, P("z", "z")));
        assertEquals(DUP + "P('z', 'z') has duplicate entries for `z`", e.getMessage());
    }

    @Test
    void duplicateSpecExceptionIsAnIllegalArgument() {
        assertTrue(IllegalArgumentException.class.isAssignableFrom(DuplicateSpecException.class));
    }

    @Test
    void unknownAxis() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> NamedSharding.of(XY, P("z")));
        assertEquals("Resource axis: z of P('z',) is not found in mesh: ('x', 'y').", e.getMessage());
        assertFalse(e instanceof DuplicateSpecException);
        IllegalArgumentException e2 = assertThrows(IllegalArgumentException.class,
                () -> NamedSharding.of(XY, P(null, tuple("x", "w"))));
        assertEquals("Resource axis: w of P(None, ('x', 'w')) is not found in mesh: ('x', 'y').", e2.getMessage());
        IllegalArgumentException e3 = assertThrows(IllegalArgumentException.class,
                () -> NamedSharding.of(Mesh.makeMesh(new int[]{4}, "i"), P("x")));
        assertEquals("Resource axis: x of P('x',) is not found in mesh: ('i',).", e3.getMessage());
    }

    static final String SH_X = "Sharding NamedSharding(mesh=Mesh('x': 4, 'y': 2), spec=P('x',))";

    @Test
    void indivisibleOneDim() {
        NamedSharding s = NamedSharding.of(XY, P("x"));
        IndivisibleException e = assertThrows(IndivisibleException.class, () -> s.shardShape(7));
        assertEquals(SH_X + " implies that array axis 0 is partitioned 4 times, but the dimension size is 7"
                + " (full shape: (7,), per-dimension tiling factors: [4] should evenly divide the shape)",
                e.getMessage());
        assertTrue(e instanceof IllegalArgumentException, "IndivisibleError is a ValueError");
    }

    @Test
    void indivisibleTwoDimTuple() {
        NamedSharding s = NamedSharding.of(XY, P(null, tuple("x", "y")));
        IndivisibleException e = assertThrows(IndivisibleException.class, () -> s.shardShape(8, 4));
        assertEquals("Sharding NamedSharding(mesh=Mesh('x': 4, 'y': 2), spec=P(None, ('x', 'y'))) implies that array"
                + " axis 1 is partitioned 8 times, but the dimension size is 4 (full shape: (8, 4), per-dimension"
                + " tiling factors: [1, 8] should evenly divide the shape)", e.getMessage());
        assertThrows(IndivisibleException.class, () -> s.index(XY.deviceById(0), 8, 4));
        assertThrows(IndivisibleException.class, () -> s.devicesIndicesMap(8, 4));
    }

    @Test
    void indivisibleThroughDevicePut() {
        IndivisibleException e = assertThrows(IndivisibleException.class,
                () -> ShardedArray.devicePut(NDArray.arange(7), XY, P("x")));
        assertEquals(SH_X + " implies that array axis 0 is partitioned 4 times, but the dimension size is 7"
                + " (full shape: (7,), per-dimension tiling factors: [4] should evenly divide the shape)",
                e.getMessage());
        IndivisibleException e2 = assertThrows(IndivisibleException.class,
                () -> ShardedArray.devicePut(NDArray.arange(32).reshape(8, 4), XY, P(null, tuple("x", "y"))));
        assertTrue(e2.getMessage().endsWith(" implies that array axis 1 is partitioned 8 times, but the dimension"
                + " size is 4 (full shape: (8, 4), per-dimension tiling factors: [1, 8] should evenly divide the"
                + " shape)"), e2.getMessage());
    }

    @Test
    void firstIndivisibleDimIsReported() {
        NamedSharding s = NamedSharding.of(XY, P("y", "x"));
        IndivisibleException e = assertThrows(IndivisibleException.class, () -> s.shardShape(3, 6));
        assertTrue(e.getMessage().contains("array axis 0 is partitioned 2 times, but the dimension size is 3"
                + " (full shape: (3, 6), per-dimension tiling factors: [2, 4] should"), e.getMessage());
    }

    @Test
    void specLongerThanRank() {
        NamedSharding s = NamedSharding.of(XY, P("x", "y"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> s.shardShape(8));
        assertEquals("Sharding NamedSharding(mesh=Mesh('x': 4, 'y': 2), spec=P('x', 'y')) is only valid for values"
                + " of rank at least 2, but was applied to a value of rank 1.", e.getMessage());
        assertFalse(e instanceof IndivisibleException);
        IllegalArgumentException e0 = assertThrows(IllegalArgumentException.class,
                () -> NamedSharding.of(XY, P("x")).shardShape());
        assertEquals(SH_X + " is only valid for values of rank at least 1, but was applied to a value of rank 0."
                + " For scalars the PartitionSpec should be P()", e0.getMessage());
        // P(None,) is also too long for a scalar
        assertThrows(IllegalArgumentException.class, () -> NamedSharding.of(XY, P((Object) null)).shardShape());
        // the rank check comes before divisibility
        IllegalArgumentException e3 = assertThrows(IllegalArgumentException.class, () -> s.shardShape(7));
        assertFalse(e3 instanceof IndivisibleException);
    }

    @Test
    void specLongerThanRankThroughDevicePut() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ShardedArray.devicePut(NDArray.arange(8), XY, P("x", "y")));
        assertEquals("One of device_put args is incompatible with its sharding annotation NamedSharding(mesh=Mesh('x':"
                + " 4, 'y': 2), spec=P('x', 'y')): Sharding NamedSharding(mesh=Mesh('x': 4, 'y': 2), spec=P('x', 'y'))"
                + " is only valid for values of rank at least 2, but was applied to a value of rank 1.", e.getMessage());
    }

    @Test
    void scalarWithEmptySpecIsFine() {
        assertEquals(0, NamedSharding.of(XY, P()).shardShape().length);
    }
}
