package dev.shardlings.spmd;

import dev.shardlings.array.NDArray;
import dev.shardlings.primitive.DotGeneral;
import dev.shardlings.primitive.ShardingTypeError;
import dev.shardlings.sharding.AxisType;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.PartitionSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import static dev.shardlings.sharding.PartitionSpec.P;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Seed 001's "When explicit shardings disagree, JAX errors": an eager operation on arrays committed to other devices,
 * or to the same devices in another order, is refused before any typing with JAX's text. Every expectation is the
 * line JAX 0.10.2 printed for {@code src/test/resources/jax-checks/incompatible_devices.py} (8 CPU devices; how to
 * run it is at its top), pasted as it came.
 */
class IncompatibleDevicesTest {

    private static final Mesh LO = Mesh.ofDeviceIds(new int[] {0, 1, 2, 3}, new int[] {4}, "x");
    private static final Mesh HI = Mesh.ofDeviceIds(new int[] {4, 5, 6, 7}, new int[] {4}, "x");
    private static final Mesh FULL = Mesh.ofDeviceIds(new int[] {0, 1, 2, 3, 4, 5, 6, 7}, new int[] {8}, "x");
    private static final Mesh PERMUTED = Mesh.ofDeviceIds(new int[] {0, 1, 2, 3, 6, 7, 4, 5}, new int[] {8}, "x");
    private static final NDArray X = NDArray.arange(24);
    private static final NDArray F = NDArray.arange(24, dev.shardlings.array.DType.FLOAT32).reshape(8, 3);

    private static ShardedArray put(NDArray v, Mesh mesh) {
        return ShardedArray.devicePut(v, mesh, P("x"));
    }

    private static void refused(String jax, Executable call) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
        assertEquals(jax.substring("ValueError: ".length()), e.getMessage());
    }

    @Test
    void seed001DisjointDevices() {
        // seed disjoint: put(x, lo) + put(x, hi)
        refused("ValueError: Received incompatible devices for jitted computation. Got argument x of add with shape"
                + " int32[24] and with device ids [0, 1, 2, 3] on platform CPU and argument y of add with shape int32[24]"
                + " and with device ids [4, 5, 6, 7] on platform CPU", () -> put(X, LO).add(put(X, HI)));
        // reversed: the first argument's devices come first
        refused("ValueError: Received incompatible devices for jitted computation. Got argument x of add with shape"
                + " int32[24] and with device ids [4, 5, 6, 7] on platform CPU and argument y of add with shape int32[24]"
                + " and with device ids [0, 1, 2, 3] on platform CPU", () -> put(X, HI).add(put(X, LO)));
    }

    @Test
    void seed001SameDevicesInAnotherOrder() {
        // seed permuted: put(x, full) + put(x, permuted)
        refused("ValueError: Received incompatible devices for jitted computation. Got argument x of add with shape"
                + " int32[24] and with device ids [0, 1, 2, 3, 4, 5, 6, 7] on platform CPU and argument y of add with shape"
                + " int32[24] and with device ids [0, 1, 2, 3, 6, 7, 4, 5] on platform CPU",
                () -> put(X, FULL).add(put(X, PERMUTED)));
    }

    @Test
    void underJitTheArgumentsAreNamedByPosition() {
        // jit disjoint / jit permuted, JAX's lines for jax.jit(f_add); a Java lambda has no parameter names at run
        // time, so the framework prints args[k] where JAX prints f_add's parameters a and b (docs/framework.md,
        // "Deliberate differences from JAX")
        String disjoint = "ValueError: Received incompatible devices for jitted computation. Got argument a of f_add with"
                + " shape int32[24] and with device ids [0, 1, 2, 3] on platform CPU and argument b of f_add with shape"
                + " int32[24] and with device ids [4, 5, 6, 7] on platform CPU";
        String permuted = "ValueError: Received incompatible devices for jitted computation. Got argument a of f_add with"
                + " shape int32[24] and with device ids [0, 1, 2, 3, 4, 5, 6, 7] on platform CPU and argument b of f_add"
                + " with shape int32[24] and with device ids [0, 1, 2, 3, 6, 7, 4, 5] on platform CPU";
        dev.shardlings.jit.Jitted fAdd = dev.shardlings.jit.Jit.jit((a, b) -> a.add(b)).named("f_add");
        refused(byPosition(disjoint), () -> fAdd.call(put(X, LO), put(X, HI)));
        refused(byPosition(permuted), () -> fAdd.call(put(X, FULL), put(X, PERMUTED)));
    }

    private static String byPosition(String jax) {
        return jax.replace("argument a of", "argument args[0] of").replace("argument b of", "argument args[1] of");
    }

    @Test
    void explicitAxesPrintTheShardingInTheShape() {
        Mesh lo = LO.withAxisTypes(AxisType.EXPLICIT);
        Mesh hi = HI.withAxisTypes(AxisType.EXPLICIT);
        refused("ValueError: Received incompatible devices for jitted computation. Got argument x of add with shape"
                + " int32[24@x] and with device ids [0, 1, 2, 3] on platform CPU and argument y of add with shape"
                + " int32[24@x] and with device ids [4, 5, 6, 7] on platform CPU", () -> put(X, lo).add(put(X, hi)));
    }

    @Test
    void eachMethodNamesTheFunctionItMirrorsAndItsParameters() {
        refused("ValueError: Received incompatible devices for jitted computation. Got argument x of subtract with"
                + " shape int32[24] and with device ids [0, 1, 2, 3] on platform CPU and argument y of subtract with shape"
                + " int32[24] and with device ids [4, 5, 6, 7] on platform CPU", () -> put(X, LO).sub(put(X, HI)));
        refused("ValueError: Received incompatible devices for jitted computation. Got argument x1 of true_divide with"
                + " shape int32[24] and with device ids [0, 1, 2, 3] on platform CPU and argument x2 of true_divide with"
                + " shape int32[24] and with device ids [4, 5, 6, 7] on platform CPU", () -> put(X, LO).div(put(X, HI)));
        refused("ValueError: Received incompatible devices for jitted computation. Got argument x of greater with shape"
                + " int32[24] and with device ids [0, 1, 2, 3] on platform CPU and argument y of greater with shape"
                + " int32[24] and with device ids [4, 5, 6, 7] on platform CPU", () -> put(X, LO).greater(put(X, HI)));
        refused("ValueError: Received incompatible devices for jitted computation. Got argument condition of _where"
                + " with shape bool[24] and with device ids [0, 1, 2, 3] on platform CPU and argument x of _where with"
                + " shape int32[24] and with device ids [4, 5, 6, 7] on platform CPU",
                () -> ShardedArray.where(put(X, LO).greater(3), put(X, HI), put(X, LO)));
        refused("ValueError: Received incompatible devices for jitted computation. Got argument condition of _where"
                + " with shape bool[24] and with device ids [0, 1, 2, 3] on platform CPU and argument y of _where with"
                + " shape int32[24] and with device ids [4, 5, 6, 7] on platform CPU",
                () -> ShardedArray.where(put(X, LO).greater(3), 0, put(X, HI)));
        refused("ValueError: Received incompatible devices for jitted computation. Got argument args[0] of concatenate"
                + " with shape int32[24] and with device ids [0, 1, 2, 3] on platform CPU and argument args[2] of"
                + " concatenate with shape int32[24] and with device ids [4, 5, 6, 7] on platform CPU",
                () -> ShardedArray.concatenate(0, put(X, LO), put(X, LO), put(X, HI)));
    }

    @Test
    void contractionsNameTheirOperandsAsJaxDoes() {
        ShardedArray f = put(F, LO);
        ShardedArray g = ShardedArray.devicePut(F.transpose(1, 0), HI, P(null, "x"));
        refused("ValueError: Received incompatible devices for jitted computation. Got argument a of matmul with shape"
                + " float32[8,3] and with device ids [0, 1, 2, 3] on platform CPU and argument b of matmul with shape"
                + " float32[3,8] and with device ids [4, 5, 6, 7] on platform CPU", () -> f.matmul(g));
        refused("ValueError: Received incompatible devices for jitted computation. Got argument operands[0] of _einsum"
                + " with shape float32[8,3] and with device ids [0, 1, 2, 3] on platform CPU and argument operands[1] of"
                + " _einsum with shape float32[3,8] and with device ids [4, 5, 6, 7] on platform CPU",
                () -> ShardedArray.einsum("ij,jk->ik", f, g));
        refused("ValueError: Received incompatible devices for jitted computation. Got argument args[0] of dot_general"
                + " with shape float32[8,3] and with device ids [0, 1, 2, 3] on platform CPU and argument args[1] of"
                + " dot_general with shape float32[3,8] and with device ids [4, 5, 6, 7] on platform CPU",
                () -> f.dotGeneral(g, DotGeneral.matmul(null)));
    }

    @Test
    void shapesAreTheArgumentsBeforeBroadcasting() {
        ShardedArray wide = ShardedArray.devicePut(NDArray.arange(48).reshape(2, 24), HI, P());
        refused("ValueError: Received incompatible devices for jitted computation. Got argument x of add with shape"
                + " int32[24] and with device ids [0, 1, 2, 3] on platform CPU and argument y of add with shape"
                + " int32[2,24] and with device ids [4, 5, 6, 7] on platform CPU", () -> put(X, LO).add(wide));
    }

    @Test
    void anUncommittedArrayFollowsTheCommittedOne() {
        // uncommitted OK NamedSharding(mesh=Mesh('x': 4, axis_types=(Auto,)), spec=P('x',), memory_kind=device)
        ShardedArray out = put(X, HI).add(NDArray.ones(dev.shardlings.array.DType.INT32, 24));
        assertEquals(HI, out.mesh());
        assertEquals(PartitionSpec.P("x"), out.spec());
    }

    @Test
    void sameDevicesUnderOtherAxisNamesAreJaxsMeshError() {
        // explicit other names: the devices agree, the abstract meshes do not
        Mesh x = FULL.withAxisTypes(AxisType.EXPLICIT);
        Mesh a = Mesh.ofDeviceIds(new int[] {0, 1, 2, 3, 4, 5, 6, 7}, new int[] {8}, "a")
                .withAxisTypes(AxisType.EXPLICIT);
        ShardingTypeError e = assertThrows(ShardingTypeError.class,
                () -> put(X, x).add(ShardedArray.devicePut(X, a, P("a"))));
        assertEquals("Mesh for all inputs should be equal. Got one mesh: AbstractMesh('x': 8, axis_types=(Explicit,),"
                + " device_kind=cpu, num_cores=None, platform=cpu) and another mesh: AbstractMesh('a': 8,"
                + " axis_types=(Explicit,), device_kind=cpu, num_cores=None, platform=cpu)", e.getMessage());
    }

    private static final Mesh GRID = Mesh.ofDeviceIds(new int[] {0, 1, 2, 3, 4, 5, 6, 7}, new int[] {4, 2}, "x", "y");

    @Test
    void autoMeshesOverTheSameDevicesInTheSameOrderCompute() {
        // eager auto 8 vs 4x2 / 4x2 vs 8, jit auto 8 vs 4x2 / 4x2 vs 8: JAX compares device assignments, and the
        // result lands on the first argument's mesh: NamedSharding(mesh=Mesh('x': 8, ...), spec=P('x',)) and
        // NamedSharding(mesh=Mesh('x': 4, 'y': 2, ...), spec=P(('x', 'y'),)). The specs are the Auto rule's for an
        // add of P(('x','y')) and P('x') on one 4x2 mesh, where XLA keeps the finer layout and the framework's
        // elementwise fallback replicates (the same on a single mesh), so only the meshes and values are pinned here.
        NDArray twice = X.mul(NDArray.full(2, 24));
        ShardedArray eight = put(X, FULL).add(put(X, GRID));
        assertEquals(FULL, eight.mesh());
        assertEquals(twice, eight.gather());
        ShardedArray grid = put(X, GRID).add(put(X, FULL));
        assertEquals(GRID, grid.mesh());
        assertEquals(twice, grid.gather());
        dev.shardlings.jit.Jitted fAdd = dev.shardlings.jit.Jit.jit((a, b) -> a.add(b)).named("f_add");
        ShardedArray jitted = fAdd.call(put(X, FULL), put(X, GRID)).get(0);
        assertEquals(FULL, jitted.mesh());
        assertEquals(twice, jitted.gather());
        ShardedArray jittedGrid = fAdd.call(put(X, GRID), put(X, FULL)).get(0);
        assertEquals(GRID, jittedGrid.mesh());
        assertEquals(twice, jittedGrid.gather());
        // a layout both meshes name comes back as JAX prints it: jit auto 8 vs 4x2 xy gives P('x',) on the 8-mesh
        ShardedArray same = fAdd.call(put(X, FULL), ShardedArray.devicePut(X, GRID, P(PartitionSpec.tuple("x", "y"))))
                .get(0);
        assertEquals(new dev.shardlings.sharding.NamedSharding(FULL, P("x")), same.sharding());
        assertEquals(twice, same.gather());
    }

    @Test
    void anotherFlatOrderIsIncompatibleWhateverTheMeshShape() {
        // jit auto 8 vs transposed 4x2
        Mesh transposed = Mesh.ofDeviceIds(new int[] {0, 4, 1, 5, 2, 6, 3, 7}, new int[] {4, 2}, "x", "y");
        dev.shardlings.jit.Jitted fAdd = dev.shardlings.jit.Jit.jit((a, b) -> a.add(b)).named("f_add");
        refused(byPosition("ValueError: Received incompatible devices for jitted computation. Got argument a of f_add"
                + " with shape int32[24] and with device ids [0, 1, 2, 3, 4, 5, 6, 7] on platform CPU and argument b of"
                + " f_add with shape int32[24] and with device ids [0, 4, 1, 5, 2, 6, 3, 7] on platform CPU"),
                () -> fAdd.call(put(X, FULL), put(X, transposed)));
    }

    @Test
    void underJitExplicitAxesPrintTheShardingInTheShape() {
        // jit explicit disjoint
        dev.shardlings.jit.Jitted fAdd = dev.shardlings.jit.Jit.jit((a, b) -> a.add(b)).named("f_add");
        refused(byPosition("ValueError: Received incompatible devices for jitted computation. Got argument a of f_add"
                + " with shape int32[24@x] and with device ids [0, 1, 2, 3] on platform CPU and argument b of f_add"
                + " with shape int32[24@x] and with device ids [4, 5, 6, 7] on platform CPU"),
                () -> fAdd.call(put(X, LO.withAxisTypes(AxisType.EXPLICIT)),
                        put(X, HI.withAxisTypes(AxisType.EXPLICIT))));
    }

    @Test
    void underJitTheSameDevicesOnExplicitAxesAreJaxsMeshErrorWhereCombined() {
        Mesh full = FULL.withAxisTypes(AxisType.EXPLICIT);
        Mesh grid = GRID.withAxisTypes(AxisType.EXPLICIT, AxisType.EXPLICIT);
        dev.shardlings.jit.Jitted fAdd = dev.shardlings.jit.Jit.jit((a, b) -> a.add(b)).named("f_add");
        // jit explicit 8 vs 4x2
        ShardingTypeError e = assertThrows(ShardingTypeError.class, () -> fAdd.call(put(X, full), put(X, grid)));
        assertEquals("Mesh for all inputs should be equal. Got one mesh: AbstractMesh('x': 8, axis_types=(Explicit,),"
                + " device_kind=cpu, num_cores=None, platform=cpu) and another mesh: AbstractMesh('x': 4, 'y': 2,"
                + " axis_types=(Explicit, Explicit), device_kind=cpu, num_cores=None, platform=cpu)", e.getMessage());
        // jit explicit 8 vs auto 4x2
        ShardingTypeError mixed = assertThrows(ShardingTypeError.class, () -> fAdd.call(put(X, full), put(X, GRID)));
        assertEquals("Mesh for all inputs should be equal. Got one mesh: AbstractMesh('x': 8, axis_types=(Explicit,),"
                + " device_kind=cpu, num_cores=None, platform=cpu) and another mesh: AbstractMesh('x': 4, 'y': 2,"
                + " axis_types=(Auto, Auto), device_kind=cpu, num_cores=None, platform=cpu)", mixed.getMessage());
        // jit explicit pass-through: JAX returns each array on its own mesh; a program here runs on one mesh, so
        // the framework says so (docs/framework.md, "Deliberate differences from JAX")
        IllegalArgumentException pass = assertThrows(IllegalArgumentException.class,
                () -> dev.shardlings.jit.Jit.jitList(args -> args).named("pair").call(put(X, full), put(X, grid)));
        assertEquals("pair: args[1] lives on Mesh('x': 4, 'y': 2) and another argument on Mesh('x': 8), over the same"
                + " devices with Explicit axes; the framework compiles a program on one mesh (JAX would pass the array"
                + " through on its own mesh): jit the arrays of each mesh separately", pass.getMessage());
    }

    @Test
    void meshesNeitherOfWhichNamesTheOtherAreAFrameworkLimitThatSaysSo() {
        // a 4x2 and a 2x4 mesh over the same devices: JAX runs it; the framework's programs hold one mesh
        Mesh wide = Mesh.ofDeviceIds(new int[] {0, 1, 2, 3, 4, 5, 6, 7}, new int[] {2, 4}, "x", "y");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> put(X, GRID).add(put(X, wide)));
        assertEquals("add: operands on Mesh('x': 4, 'y': 2) and Mesh('x': 2, 'y': 4) over the same devices, neither"
                + " of which can name the other's layouts; the framework runs an operation on one mesh (JAX would run"
                + " it): reshard one of them first", e.getMessage());
        IllegalArgumentException jitted = assertThrows(IllegalArgumentException.class,
                () -> dev.shardlings.jit.Jit.jit((a, b) -> a.add(b)).named("f_add").call(put(X, GRID), put(X, wide)));
        assertEquals("f_add: arguments on Mesh('x': 4, 'y': 2) and Mesh('x': 2, 'y': 4) over the same devices, neither"
                + " of which can name the other's layouts; the framework compiles a program on one mesh (JAX would"
                + " compile it): reshard one of them first", jitted.getMessage());
    }
}
