package dev.shardlings.spmd;

import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.jit.Jit;
import dev.shardlings.sharding.AxisType;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.NamedSharding;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

import static dev.shardlings.sharding.PartitionSpec.P;
import static dev.shardlings.sharding.PartitionSpec.tuple;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code jax.set_mesh} ({@link MeshContext}) and what a mesh in context enables: creating arrays with an
 * out_sharding spec ({@code jnp.zeros}/{@code jnp.full}) and {@code device_put} with a bare spec, as seed 002
 * writes them. Expected texts and shardings: JAX 0.10.2, printed by src/test/resources/jax-checks/seed_api.py
 * (quoted above each assertion; JAX's reprs also print axis_types and memory_kind, ours do not).
 */
class MeshContextTest {

    private static final Mesh EXPLICIT = Mesh.makeMesh(new int[] {2, 2}, "X", "Y");
    private static final Mesh MIXED = Mesh.makeMesh(new int[] {2, 2}, new String[] {"X", "Y"}, AxisType.EXPLICIT,
            AxisType.AUTO);
    private static final Mesh AUTO = EXPLICIT.withAxisTypes(AxisType.AUTO, AxisType.AUTO);
    private static final Mesh OTHER = Mesh.makeMesh(new int[] {4, 2}, "x", "y");

    @AfterEach
    void noMeshLeftInContext() {
        assertEquals(Optional.empty(), MeshContext.current());
    }

    @Test
    void setMeshIsImmediateAndClosingRestoresTheOuterMesh() {
        assertEquals(Optional.empty(), MeshContext.current());
        try (MeshContext outer = MeshContext.setMesh(EXPLICIT)) {
            assertEquals(Optional.of(EXPLICIT), MeshContext.current());
            // nested: inner wins -> AbstractMesh('x': 4, 'y': 2, ...)
            try (MeshContext inner = MeshContext.setMesh(OTHER)) {
                assertEquals(Optional.of(OTHER), MeshContext.current());
            }
            // after nested: outer again -> AbstractMesh('X': 2, 'Y': 2, ...)
            assertEquals(Optional.of(EXPLICIT), MeshContext.current());
        }
        // after with: none -> AbstractMesh((), axis_types=())
        assertEquals(Optional.empty(), MeshContext.current());
    }

    @Test
    void theContextIsThreadLocal() throws InterruptedException {
        try (MeshContext ctx = MeshContext.setMesh(EXPLICIT)) {
            AtomicReference<Optional<Mesh>> seen = new AtomicReference<>();
            Thread t = new Thread(() -> seen.set(MeshContext.current()));
            t.start();
            t.join();
            assertEquals(Optional.empty(), seen.get());
        }
    }

    @Test
    void setMeshInsideJitIsRefused() {
        ShardedArray x = ShardedArray.devicePut(NDArray.arange(4).astype(DType.FLOAT32), AUTO, P());
        // set_mesh in jit RAISES ValueError : `set_mesh` can only be used outside of `jax.jit`.
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> Jit.jit(a -> {
            MeshContext.setMesh(EXPLICIT);
            return a;
        }).call(x));
        assertEquals("`set_mesh` can only be used outside of `jax.jit`.", e.getMessage());
    }

    @Test
    void aMeshWithManualAxesIsRefused() {
        Mesh manual = EXPLICIT.withAxisTypes(AxisType.MANUAL, AxisType.MANUAL);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> MeshContext.setMesh(manual));
        assertEquals("mesh Mesh('X': 2, 'Y': 2) contains manual axes which is not allowed when using `jax.set_mesh`."
                + " Please use `jax.shard_map` to enter into `Manual` mode instead.", e.getMessage());
    }

    @Test
    void seed002CreatesItsArraysWithOutShardingSpecs() {
        try (MeshContext ctx = MeshContext.setMesh(EXPLICIT)) {
            // In P('X', 'Y') bfloat16[8@X,2048@Y] W P('Y', None) bfloat16[2048@Y,8192]  (no bfloat16 here: float32)
            ShardedArray in = ShardedArray.zeros(P("X", "Y"), DType.FLOAT32, 8, 2048);
            ShardedArray w = ShardedArray.zeros(P("Y", null), DType.FLOAT32, 2048, 8192);
            assertEquals(P("X", "Y"), in.spec());
            assertEquals(EXPLICIT, in.mesh());
            assertEquals("float32[8@X,2048@Y]", in.type().toString());
            assertEquals(P("Y", null), w.spec());
            assertEquals("float32[2048@Y,8192]", w.type().toString());
            assertEquals(0f, in.gather().astype(DType.FLOAT32).max().item());
            // full P -> (P(None, 'Y'), ShapedArray(float32[4,4@Y], weak_type=True))
            ShardedArray f = ShardedArray.full(P(null, "Y"), DType.FLOAT32, 2.5, 4, 4);
            assertEquals("float32[4,4@Y]", f.type().toString());
            assertTrue(f.gather().allclose(NDArray.full(2.5f, 4, 4)));
        }
    }

    @Test
    void creationWithASpecNeedsAMeshInContext() {
        // zeros P, no mesh RAISES ValueError : Using PartitionSpec when you are not under a mesh context is not
        // allowed. Please pass a NamedSharding instance or enter into a mesh context via `jax.set_mesh`.
        // Got P('X', 'Y')
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ShardedArray.zeros(P("X", "Y"), DType.FLOAT32, 8, 4));
        assertEquals("Using PartitionSpec when you are not under a mesh context is not allowed. Please pass a"
                + " NamedSharding instance or enter into a mesh context via `jax.set_mesh`. Got P('X', 'Y')",
                e.getMessage());
        // device_put P, no mesh RAISES ValueError : Please set a mesh via `jax.set_mesh` if a PartitionSpec is
        // passed to device_put
        IllegalArgumentException d = assertThrows(IllegalArgumentException.class,
                () -> ShardedArray.devicePut(NDArray.arange(4), P("X")));
        assertEquals("Please set a mesh via `jax.set_mesh` if a PartitionSpec is passed to device_put",
                d.getMessage());
    }

    @Test
    void aNamedShardingOutShardingAlsoNamesExplicitAxesOnly() {
        // seed_api.py, "creation with a NamedSharding out_sharding": zeros NamedSharding Auto RAISES ValueError :
        // PartitionSpec passed to jnp.zeros cannot contain axis names that are of type Auto or Manual. Got
        // PartitionSpec: P('X',) with axis name: X of type: AxisType.Auto.
        Mesh auto = Mesh.makeMesh(new int[] {2, 2}, new String[] {"X", "Y"}, AxisType.AUTO, AxisType.AUTO);
        IllegalArgumentException z = assertThrows(IllegalArgumentException.class,
                () -> ShardedArray.zeros(new NamedSharding(auto, P("X")), DType.FLOAT32, 8, 4));
        assertEquals("PartitionSpec passed to jnp.zeros cannot contain axis names that are of type Auto or Manual."
                + " Got PartitionSpec: P('X',) with axis name: X of type: AxisType.Auto.", z.getMessage());
        // full NamedSharding mixed RAISES ValueError : PartitionSpec passed to full cannot contain axis names that
        // are of type Auto or Manual. Got PartitionSpec: P('X', 'Y') with axis name: Y of type: AxisType.Auto.
        IllegalArgumentException f = assertThrows(IllegalArgumentException.class,
                () -> ShardedArray.full(new NamedSharding(MIXED, P("X", "Y")), DType.FLOAT32, 1, 4, 4));
        assertEquals("PartitionSpec passed to full cannot contain axis names that are of type Auto or Manual."
                + " Got PartitionSpec: P('X', 'Y') with axis name: Y of type: AxisType.Auto.", f.getMessage());
        // zeros device= Auto -> P('X',): on Auto axes a whole array is placed instead
        assertEquals(P("X"), ShardedArray.devicePut(NDArray.zeros(DType.FLOAT32, 8, 4), new NamedSharding(auto, P("X")))
                .spec());
    }

    @Test
    void aNamedShardingOutShardingNeedsItsMeshInContext() {
        // seed_api.py, "creation with a NamedSharding out_sharding": zeros NamedSharding Explicit RAISES ValueError :
        // Length of device assignment 1 is not equal to the size of the mesh 4 of aval f32[8@X,4]({Explicit: ('X',
        // 'Y')}). Please enter your `jit` into a mesh context via `jax.set_mesh`.
        IllegalArgumentException none = assertThrows(IllegalArgumentException.class,
                () -> ShardedArray.zeros(new NamedSharding(EXPLICIT, P("X")), DType.FLOAT32, 8, 4));
        assertEquals("Length of device assignment 1 is not equal to the size of the mesh 4 of aval"
                + " f32[8@X,4]({Explicit: ('X', 'Y')}). Please enter your `jit` into a mesh context via `jax.set_mesh`.",
                none.getMessage());
        // full NamedSharding Explicit, no mesh RAISES ValueError : … of aval bf16[8,4@X]({Explicit: ('X', 'Y')}) …
        IllegalArgumentException bf = assertThrows(IllegalArgumentException.class,
                () -> ShardedArray.full(new NamedSharding(EXPLICIT, P(null, "X")), DType.BFLOAT16, 1, 8, 4));
        assertTrue(bf.getMessage().contains(" of aval bf16[8,4@X]({Explicit: ('X', 'Y')}). "), bf.getMessage());
        // zeros NamedSharding Explicit, mesh in context -> float32[8@X,4]
        try (MeshContext ctx = MeshContext.setMesh(EXPLICIT)) {
            assertEquals("float32[8@X,4]", ShardedArray.zeros(new NamedSharding(EXPLICIT, P("X")), DType.FLOAT32, 8,
                    4).type().toString());
        }
        // full NamedSharding Explicit, Auto mesh in context RAISES ValueError : Context mesh AbstractMesh('X': 2, 'Y':
        // 2, axis_types=(Auto, Auto), …) should match the mesh of sharding AbstractMesh('X': 2, 'Y': 2,
        // axis_types=(Explicit, Explicit), …) passed to full.
        Mesh auto = Mesh.makeMesh(new int[] {2, 2}, new String[] {"X", "Y"}, AxisType.AUTO, AxisType.AUTO);
        try (MeshContext ctx = MeshContext.setMesh(auto)) {
            IllegalArgumentException other = assertThrows(IllegalArgumentException.class,
                    () -> ShardedArray.full(new NamedSharding(EXPLICIT, P("X")), DType.FLOAT32, 1, 8, 4));
            assertEquals("Context mesh AbstractMesh('X': 2, 'Y': 2, axis_types=(Auto, Auto), device_kind=cpu,"
                    + " num_cores=None, platform=cpu) should match the mesh of sharding AbstractMesh('X': 2, 'Y': 2,"
                    + " axis_types=(Explicit, Explicit), device_kind=cpu, num_cores=None, platform=cpu) passed to full.",
                    other.getMessage());
        }
        // a one-device mesh needs no context: zeros 1-dev mesh OK P('x',) float32[8@x]
        Mesh one = Mesh.makeMesh(new int[] {1}, "x");
        assertEquals("float32[8@x]", ShardedArray.zeros(new NamedSharding(one, P("x")), DType.FLOAT32, 8).type()
                .toString());
    }

    @Test
    void creationSpecsNameExplicitAxesOnly() {
        try (MeshContext ctx = MeshContext.setMesh(MIXED)) {
            // full on an Auto axis RAISES ValueError : PartitionSpec passed to full cannot contain axis names that
            // are of type Auto or Manual. Got PartitionSpec: P('X', 'Y') with axis name: Y of type: AxisType.Auto.
            IllegalArgumentException f = assertThrows(IllegalArgumentException.class,
                    () -> ShardedArray.full(P("X", "Y"), DType.FLOAT32, 1, 4, 4));
            assertEquals("PartitionSpec passed to full cannot contain axis names that are of type Auto or Manual."
                    + " Got PartitionSpec: P('X', 'Y') with axis name: Y of type: AxisType.Auto.", f.getMessage());
            // zeros on an Auto axis RAISES ValueError : PartitionSpec passed to jnp.zeros cannot contain axis names
            // that are of type Auto or Manual. Got PartitionSpec: P(('X', 'Y'),) with axis name: Y of type:
            // AxisType.Auto.
            IllegalArgumentException z = assertThrows(IllegalArgumentException.class,
                    () -> ShardedArray.zeros(P(tuple("X", "Y")), DType.FLOAT32, 4, 4));
            assertEquals("PartitionSpec passed to jnp.zeros cannot contain axis names that are of type Auto or Manual."
                    + " Got PartitionSpec: P(('X', 'Y'),) with axis name: Y of type: AxisType.Auto.", z.getMessage());
        }
        try (MeshContext ctx = MeshContext.setMesh(EXPLICIT)) {
            // zeros unknown axis RAISES ValueError : Resource axis: Z of P('Z',) is not found in mesh: ('X', 'Y').
            IllegalArgumentException u = assertThrows(IllegalArgumentException.class,
                    () -> ShardedArray.zeros(P("Z"), DType.FLOAT32, 8, 4));
            assertEquals("Resource axis: Z of P('Z',) is not found in mesh: ('X', 'Y').", u.getMessage());
        }
    }

    @Test
    void devicePutWithASpecUsesTheMeshInContextOnAnyAxisType() {
        try (MeshContext ctx = MeshContext.setMesh(AUTO)) {
            // device_put P on Auto -> P('X',)
            ShardedArray x = ShardedArray.devicePut(NDArray.arange(16).reshape(4, 4), P("X"));
            assertEquals(P("X"), x.spec());
            assertEquals(AUTO, x.mesh());
            assertEquals(NDArray.arange(16).reshape(4, 4), x.gather());
        }
    }
}
