package dev.shardlings.jit;

import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.primitive.ShardingConstraint;
import dev.shardlings.sharding.AxisType;
import dev.shardlings.sharding.IndivisibleException;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.NamedSharding;
import dev.shardlings.spmd.MeshContext;
import dev.shardlings.spmd.ShardedArray;
import org.junit.jupiter.api.Test;

import static dev.shardlings.sharding.PartitionSpec.P;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code jax.jit(f, in_shardings=…)} ({@link Jitted#inShardings}): uncommitted arguments placed with their in
 * sharding, committed ones checked, bare specs on the mesh in context, and JAX's texts for each misuse.
 * Expected values: JAX 0.10.2, printed by src/test/resources/jax-checks/seed_api.py (quoted above each assertion;
 * JAX's reprs also print axis_types and memory_kind, ours do not).
 */
class InShardingsTest {

    private static final Mesh EXPLICIT = Mesh.makeMesh(new int[] {2, 2}, "X", "Y");
    private static final Mesh AUTO = EXPLICIT.withAxisTypes(AxisType.AUTO, AxisType.AUTO);
    private static final Mesh OTHER = Mesh.makeMesh(new int[] {4, 2}, "x", "y");
    private static final NDArray X = NDArray.arange(16).reshape(4, 4).astype(DType.FLOAT32);

    private static Jitted add() {
        return Jit.jit((a, b) -> a.add(b)).inShardings(P("X", null), P(null, "Y"));
    }

    @Test
    void uncommittedArgumentsArePlacedWithTheirInShardings() {
        try (MeshContext ctx = MeshContext.setMesh(AUTO)) {
            // uncommitted args placed -> P('X', 'Y')
            ShardedArray out = add().call(X, X).get(0);
            assertEquals(P("X", "Y"), out.spec());
            assertEquals(X.add(X), out.gather());
            // committed equivalent spec -> P('X', 'Y')  (P('X') and P('X', None) lay out alike)
            ShardedArray committed = ShardedArray.devicePut(X, P("X"));
            assertEquals(P("X", "Y"), add().call(committed, X).get(0).spec());
        }
    }

    @Test
    void theInShardingsShapeTheCompiledProgram() {
        try (MeshContext ctx = MeshContext.setMesh(AUTO)) {
            String text = add().lower(X, X).asText();
            assertTrue(text.contains("%0 = f32[2,4] parameter(0), sharding=P('X', None)"), text);
            assertTrue(text.contains("%1 = f32[4,2] parameter(1), sharding=P(None, 'Y')"), text);
        }
    }

    @Test
    void oneShardingForEveryArgument() {
        // seed_api.py, "one sharding for every argument": one NamedSharding -> P('X',)
        ShardedArray out = Jit.jit((a, b) -> a.add(b)).inShardingsForAll(new NamedSharding(AUTO, P("X"))).call(X, X)
                .get(0);
        assertEquals(P("X"), out.spec());
        assertEquals(X.add(X), out.gather());
        // a tuple of length 1 is not the single-sharding form: count 1 for 2 still fails
        assertThrows(IllegalArgumentException.class,
                () -> Jit.jit((a, b) -> a.add(b)).inShardings(new NamedSharding(AUTO, P("X"))).call(X, X));
        // one NamedSharding, rank RAISES ValueError : One of pjit arguments with pytree key path a is incompatible
        // with its sharding annotation NamedSharding(mesh=Mesh('X': 2, 'Y': 2, axis_types=(Auto, Auto)), spec=P('X',
        // 'Y', None), memory_kind=device): Sharding … is only valid for values of rank at least 3, but was applied to
        // a value of rank 2.  (the argument by position, as everywhere in jit's texts)
        IllegalArgumentException rank = assertThrows(IllegalArgumentException.class, () -> Jit.jit((a, b) -> a.add(b))
                .inShardingsForAll(new NamedSharding(AUTO, P("X", "Y", null))).call(X, X));
        assertTrue(rank.getMessage().startsWith("One of pjit arguments with pytree key path args[0] is incompatible"
                + " with its sharding annotation NamedSharding(mesh=Mesh('X': 2, 'Y': 2), spec=P('X', 'Y', None))"),
                rank.getMessage());
        // one P, no mesh RAISES RuntimeError : jit requires a non-empty mesh in context if you are passing …
        IllegalStateException noMesh = assertThrows(IllegalStateException.class,
                () -> Jit.jit((a, b) -> a.add(b)).inShardingsForAll(P("X")).call(X, X));
        assertTrue(noMesh.getMessage().startsWith("jit requires a non-empty mesh in context"), noMesh.getMessage());
        try (MeshContext ctx = MeshContext.setMesh(AUTO)) {
            // one P -> P(None, 'Y'); the same spec serves a call with three arguments
            assertEquals(P(null, "Y"), Jit.jit((a, b) -> a.add(b)).inShardingsForAll(P(null, "Y")).call(X, X).get(0)
                    .spec());
            Jitted three = Jit.jitList(a -> java.util.List.of(a.get(0).add(a.get(1)).add(a.get(2))))
                    .inShardingsForAll(P(null, "Y"));
            assertEquals(X.add(X).add(X), three.call(X, X, X).get(0).gather());
        }
    }

    @Test
    void oneInShardingPerArgument() {
        try (MeshContext ctx = MeshContext.setMesh(AUTO)) {
            // count 1 for 2 RAISES ValueError : pjit in_shardings specification must be a tree prefix of the
            // positional arguments tuple. ... got a tuple or list of length 1 for an args tuple of length 2.
            IllegalArgumentException one = assertThrows(IllegalArgumentException.class,
                    () -> Jit.jit((a, b) -> a.add(b)).inShardings(P("X", null)).call(X, X));
            assertEquals("pjit in_shardings specification must be a tree prefix of the positional arguments tuple. In"
                    + " particular, pjit in_shardings must either be a Sharding, a PartitionSpec, or a tuple of length"
                    + " equal to the number of positional arguments. But pjit in_shardings is the wrong length: got a"
                    + " tuple or list of length 1 for an args tuple of length 2.", one.getMessage());
            // count 3 for 2 RAISES ValueError : ... got a tuple or list of length 3 for an args tuple of length 2.
            IllegalArgumentException three = assertThrows(IllegalArgumentException.class,
                    () -> Jit.jit((a, b) -> a.add(b)).inShardings(P("X"), P(), P()).lower(X, X));
            assertEquals(one.getMessage().replace("length 1 for", "length 3 for"), three.getMessage());
        }
    }

    @Test
    void bareSpecsNeedAMeshInContextButShardingsDoNot() {
        // P, no mesh RAISES RuntimeError : jit requires a non-empty mesh in context if you are passing
        // `PartitionSpec`s to in_shardings. You can define a context mesh via `jax.set_mesh(mesh)`. Alternatively,
        // provide `Sharding`s to in_shardings and then the mesh context manager is not required.
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> add().call(X, X));
        assertEquals("jit requires a non-empty mesh in context if you are passing `PartitionSpec`s to in_shardings."
                + " You can define a context mesh via `jax.set_mesh(mesh)`. Alternatively, provide `Sharding`s to"
                + " in_shardings and then the mesh context manager is not required.", e.getMessage());
        // NamedSharding, no mesh -> P('X',)
        ShardedArray out = Jit.jit(a -> a.mul(2)).inShardings(new NamedSharding(AUTO, P("X"))).call(X).get(0);
        assertEquals(P("X"), out.spec());
        assertEquals(X.mul(2), out.gather());
    }

    @Test
    void aCommittedArgumentOfAnotherShardingIsRefused() {
        try (MeshContext ctx = MeshContext.setMesh(AUTO)) {
            // committed other spec RAISES ValueError : Sharding passed to jit does not match the sharding on the
            // respective arg. Got jit sharding: NamedSharding(mesh=Mesh('X': 2, 'Y': 2, ...), spec=P('X', None), ...),
            // arg sharding: NamedSharding(mesh=Mesh('X': 2, 'Y': 2, ...), spec=P('Y', None), ...)
            // for arg type: float32[4,4]
            ShardedArray rows = ShardedArray.devicePut(X, P("Y", null));
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> add().call(rows, X));
            assertEquals("Sharding passed to jit does not match the sharding on the respective arg. Got jit sharding:"
                    + " NamedSharding(mesh=Mesh('X': 2, 'Y': 2), spec=P('X', None)),\narg sharding:"
                    + " NamedSharding(mesh=Mesh('X': 2, 'Y': 2), spec=P('Y', None)) for arg type: float32[4,4]",
                    e.getMessage());
        }
        try (MeshContext ctx = MeshContext.setMesh(EXPLICIT)) {
            // committed other spec, Explicit RAISES ... Got jit sharding: NamedSharding(..., spec=P('X',), ...),
            // arg sharding: NamedSharding(..., spec=P('Y', None), ...) for arg type: float32[4@Y,4]
            ShardedArray rows = ShardedArray.devicePut(X, P("Y", null));
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> Jit.jit(a -> a.mul(2)).inShardings(P("X")).call(rows));
            assertEquals("Sharding passed to jit does not match the sharding on the respective arg. Got jit sharding:"
                    + " NamedSharding(mesh=Mesh('X': 2, 'Y': 2), spec=P('X',)),\narg sharding:"
                    + " NamedSharding(mesh=Mesh('X': 2, 'Y': 2), spec=P('Y', None)) for arg type: float32[4@Y,4]",
                    e.getMessage());
        }
        // NamedSharding, arg on another mesh RAISES ... Got jit sharding: NamedSharding(mesh=Mesh('X': 2, 'Y': 2, ...),
        // spec=P('X',), ...),\narg sharding: NamedSharding(mesh=Mesh('x': 4, 'y': 2, ...), spec=P('y', None), ...)
        // for arg type: float32[4@y,4]
        ShardedArray elsewhere = ShardedArray.devicePut(X, OTHER, P("y", null));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Jit.jit(a -> a.mul(2)).inShardings(new NamedSharding(AUTO, P("X"))).call(elsewhere));
        assertEquals("Sharding passed to jit does not match the sharding on the respective arg. Got jit sharding:"
                + " NamedSharding(mesh=Mesh('X': 2, 'Y': 2), spec=P('X',)),\narg sharding:"
                + " NamedSharding(mesh=Mesh('x': 4, 'y': 2), spec=P('y', None)) for arg type: float32[4@y,4]",
                e.getMessage());
    }

    @Test
    void anInShardingMustFitItsArgument() {
        try (MeshContext ctx = MeshContext.setMesh(AUTO)) {
            // rank RAISES ValueError : One of pjit arguments with pytree key path a is incompatible with its sharding
            // annotation NamedSharding(..., spec=P('X', None, None), ...): Sharding NamedSharding(...) is only valid
            // for values of rank at least 3, but was applied to a value of rank 2.  (Ours names the argument args[0].)
            IllegalArgumentException r = assertThrows(IllegalArgumentException.class,
                    () -> Jit.jit(a -> a.mul(2)).inShardings(P("X", null, null)).call(X));
            String s = "NamedSharding(mesh=Mesh('X': 2, 'Y': 2), spec=P('X', None, None))";
            assertEquals("One of pjit arguments with pytree key path args[0] is incompatible with its sharding"
                    + " annotation " + s + ": Sharding " + s + " is only valid for values of rank at least 3, but was"
                    + " applied to a value of rank 2.", r.getMessage());
            // indivisible RAISES IndivisibleError : Sharding NamedSharding(..., spec=P('X',), ...) implies that array
            // axis 0 is partitioned 2 times, but the dimension size is 3 (full shape: (3,), per-dimension tiling
            // factors: [2] should evenly divide the shape)
            IndivisibleException i = assertThrows(IndivisibleException.class,
                    () -> Jit.jit(a -> a.mul(2)).inShardings(P("X")).call(NDArray.arange(3).astype(DType.FLOAT32)));
            assertEquals("Sharding NamedSharding(mesh=Mesh('X': 2, 'Y': 2), spec=P('X',)) implies that array axis 0"
                    + " is partitioned 2 times, but the dimension size is 3 (full shape: (3,), per-dimension tiling"
                    + " factors: [2] should evenly divide the shape)", i.getMessage());
        }
    }

    @Test
    void insideAnOuterJitAnInShardingIsAConstraint() {
        try (MeshContext ctx = MeshContext.setMesh(AUTO)) {
            Jitted inner = Jit.jit(a -> a.mul(2)).inShardings(P("X", null));
            ShardedArray x = ShardedArray.devicePut(X, P());
            Compiled outer = Jit.jit(a -> inner.call(a).get(0)).lower(x);
            assertEquals(1, outer.jaxpr().equations().stream()
                    .filter(q -> q.primitive() instanceof ShardingConstraint c && c.spec().equals(P("X", null)))
                    .count());
            assertEquals(X.mul(2), Jit.jit(a -> inner.call(a).get(0)).call(x).get(0).gather());
        }
    }

    @Test
    void onExplicitAxesAnUncommittedArgumentIsTypedUnshardedAndGathered() {
        try (MeshContext ctx = MeshContext.setMesh(EXPLICIT)) {
            // JAX: jit(lambda a: a * 2, in_shardings=(P('X', None),)).trace(x).jaxpr is
            //   { lambda ; a:f32[4,4]. let b:f32[4,4] = mul a 2.0:f32[] in (b,) }
            // and the compiled program: %param = f32[2,4] parameter(0) ... %all-gather = f32[4,4] all-gather(%param),
            // dimensions={0}; output_shardings P(None, None)
            Jitted twice = Jit.jit(a -> a.mul(2)).inShardings(P("X", null));
            Compiled c = twice.lower(X);
            assertEquals("float32[4,4]", c.jaxpr().inputs().get(0).type().toString());
            String text = c.asText();
            assertTrue(text.contains("%0 = f32[2,4] parameter(0), sharding=P('X', None)"), text);
            assertTrue(text.contains("all-gather"), text);
            ShardedArray out = twice.call(X).get(0);
            assertEquals(P(null, null), out.spec().padTo(2));
            assertEquals(X.mul(2), out.gather());
            // A committed argument keeps its typed sharding: float32[4@X,4], output P('X', None).
            ShardedArray committed = ShardedArray.devicePut(X, P("X", null));
            assertEquals("float32[4@X,4]", twice.lower(committed).jaxpr().inputs().get(0).type().toString());
            assertEquals(P("X", null), twice.call(committed).get(0).spec().padTo(2));
        }
    }
}
