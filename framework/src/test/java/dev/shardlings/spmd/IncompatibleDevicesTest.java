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
}
