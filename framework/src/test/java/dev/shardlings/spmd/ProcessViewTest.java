package dev.shardlings.spmd;

import dev.shardlings.array.NDArray;
import dev.shardlings.sharding.AxisType;
import dev.shardlings.sharding.Device;
import dev.shardlings.sharding.Mesh;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.shardlings.sharding.PartitionSpec.P;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Seed 003's process view ({@link ProcessView}) against two real JAX 0.10.2 processes on CPU, 4 devices each
 * (src/test/resources/jax-checks/process_view.py; its lines quoted above the assertions, "[p]" = process p), and
 * against a single-process run with 8 devices.
 */
class ProcessViewTest {

    private static String ids(List<Device> devices) {
        return devices.toString();
    }

    @Test
    void eachProcessSeesEveryDeviceButAddressesOnlyItsOwn() {
        ProcessView p0 = ProcessView.of(2, 4, 0);
        ProcessView p1 = ProcessView.of(2, 4, 1);
        // [1] process_count 2 process_index 1
        assertEquals(2, p1.processCount());
        assertEquals(1, p1.processIndex());
        assertEquals(0, p0.processIndex());
        // [0] devices [CpuDevice(id=0), CpuDevice(id=1), CpuDevice(id=2), CpuDevice(id=3), CpuDevice(id=2048),
        //     CpuDevice(id=2049), CpuDevice(id=2050), CpuDevice(id=2051)]   (the same in [1])
        String all = "[CpuDevice(id=0), CpuDevice(id=1), CpuDevice(id=2), CpuDevice(id=3), CpuDevice(id=2048),"
                + " CpuDevice(id=2049), CpuDevice(id=2050), CpuDevice(id=2051)]";
        assertEquals(all, ids(p0.devices()));
        assertEquals(all, ids(p1.devices()));
        // [0] local_devices [CpuDevice(id=0), CpuDevice(id=1), CpuDevice(id=2), CpuDevice(id=3)]
        // [1] local_devices [CpuDevice(id=2048), CpuDevice(id=2049), CpuDevice(id=2050), CpuDevice(id=2051)]
        assertEquals("[CpuDevice(id=0), CpuDevice(id=1), CpuDevice(id=2), CpuDevice(id=3)]", ids(p0.localDevices()));
        assertEquals("[CpuDevice(id=2048), CpuDevice(id=2049), CpuDevice(id=2050), CpuDevice(id=2051)]",
                ids(p1.localDevices()));
        // [0] device process_index [0, 0, 0, 0, 1, 1, 1, 1]
        assertEquals(List.of(0, 0, 0, 0, 1, 1, 1, 1), p0.devices().stream().map(p0::processIndexOf).toList());
        // [1] fresh SingleDeviceSharding(device=CpuDevice(id=2048), memory_kind=device)
        assertEquals("SingleDeviceSharding(device=CpuDevice(id=0))", p0.defaultSharding().toString());
        assertEquals("SingleDeviceSharding(device=CpuDevice(id=2048))", p1.defaultSharding().toString());
    }

    @Test
    void addressableShardsAndTanhPerProcess() {
        ProcessView p0 = ProcessView.of(2, 4, 0);
        ProcessView p1 = ProcessView.of(2, 4, 1);
        // [0] mesh Mesh('i': 8, axis_types=(Explicit,)) [CpuDevice(id=0) ... CpuDevice(id=2051)]
        Mesh mesh = p1.makeMesh(new int[] {8}, "i");
        assertEquals(List.of(AxisType.EXPLICIT), mesh.axisTypes());
        assertEquals(p1.devices().stream().map(Device::id).toList(), mesh.devices().stream().map(Device::id).toList());
        ShardedArray x = ShardedArray.devicePut(NDArray.arange(8), mesh, P("i"));
        // [1] shard cpu:2048 (slice(4, 5, None),) [4] ... [1] shard cpu:2051 (slice(7, 8, None),) [7]
        List<ShardedArray.Shard> s1 = p1.addressableShards(x);
        assertEquals(List.of("cpu:2048", "cpu:2049", "cpu:2050", "cpu:2051"),
                s1.stream().map(s -> s.device().label()).toList());
        assertEquals("(slice(4, 5, None),)", s1.get(0).index().toString());
        assertEquals("[4]", s1.get(0).data().toString());
        assertEquals("[0]", p0.addressableShards(x).get(0).data().toString());
        assertEquals(4, p0.addressableShards(x).size());
        // [0] tanh shard cpu:1 [0.7615942]   [1] tanh shard cpu:2049 [0.99990916]
        ShardedArray y = x.tanh();
        assertEquals("[0.7615942]", p0.addressableShards(y).get(1).data().toString());
        // XLA's CPU tanh is its own approximation; the framework's (StrictMath, rounded to float32) is 1 ulp off
        // at 5 (0.9999092 here): equal within 1 ulp.
        float jax5 = 0.99990916f;
        assertEquals(jax5, p1.addressableShards(y).get(1).data().item(), Math.ulp(jax5));
        // [0] mesh 4x2 [[CpuDevice(id=0), CpuDevice(id=1)], [CpuDevice(id=2), CpuDevice(id=3)],
        //     [CpuDevice(id=2048), CpuDevice(id=2049)], [CpuDevice(id=2050), CpuDevice(id=2051)]]
        Mesh m2 = p0.makeMesh(new int[] {4, 2}, "i", "j");
        assertEquals(2049, m2.device(2, 1).id());
    }

    @Test
    void aSingleProcessAddressesEverything() {
        // [None] process_count 1 process_index 0; local_devices = devices = CpuDevice(id=0) ... (id=7);
        // fresh SingleDeviceSharding(device=CpuDevice(id=0), memory_kind=device)
        ProcessView only = ProcessView.of(1, 8, 0);
        assertEquals(1, only.processCount());
        assertEquals(only.devices(), only.localDevices());
        Mesh mesh = only.makeMesh(new int[] {8}, "i");
        assertEquals(Mesh.makeMesh(new int[] {8}, "i"), mesh);
        assertEquals(8, only.addressableShards(ShardedArray.devicePut(NDArray.arange(8), mesh, P("i"))).size());
        assertEquals("SingleDeviceSharding(device=CpuDevice(id=0))", only.defaultSharding().toString());
    }

    @Test
    void misuseIsNamed() {
        assertThrows(IllegalArgumentException.class, () -> ProcessView.of(2, 4, 2));
        assertThrows(IllegalArgumentException.class, () -> ProcessView.of(0, 4, 0));
        IllegalArgumentException three = assertThrows(IllegalArgumentException.class, () -> ProcessView.of(3, 4, 0));
        assertEquals("3 processes of 4 devices need device ids up to 4099 (process p's device i is p*2048 + i, as JAX"
                + " numbers CPU devices), but meshes take ids below 4096: simulate at most 2 processes",
                three.getMessage());
        ProcessView p0 = ProcessView.of(2, 4, 0);
        ShardedArray elsewhere = ShardedArray.devicePut(NDArray.arange(8), Mesh.makeMesh(new int[] {8}, "i"), P("i"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> p0.addressableShards(elsewhere));
        assertEquals("CpuDevice(id=4) is not a device of this run; its devices are [CpuDevice(id=0), CpuDevice(id=1),"
                + " CpuDevice(id=2), CpuDevice(id=3), CpuDevice(id=2048), CpuDevice(id=2049), CpuDevice(id=2050),"
                + " CpuDevice(id=2051)]", e.getMessage());
    }
}
