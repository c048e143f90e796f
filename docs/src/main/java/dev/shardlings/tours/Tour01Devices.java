package dev.shardlings.tours;

import dev.shardlings.array.NDArray;
import dev.shardlings.sharding.Device;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.spmd.ProcessView;
import dev.shardlings.spmd.ShardedArray;

import java.util.List;

import static dev.shardlings.sharding.PartitionSpec.P;

/**
 * Tour 1 (docs/chapter-0.md, "Meshes and layouts"): the simulated devices and a first mesh; then seed 003's
 * process view: the sharding of a fresh array, tanh on an array laid out over 8 devices, and what each process of a
 * simulated 2-process run (4 devices each) sees and addresses. The ids, slices and values are those two real JAX
 * 0.10.2 CPU processes print (framework/src/test/resources/jax-checks/process_view.py), except four of the tanh
 * values: XLA's CPU tanh is an approximation 1 ulp off at 3, 4, 5 and 6 (0.9950547, 0.9993292, 0.99990916,
 * 0.9999876), where the framework's is correctly rounded (0.9950548, 0.9993293, 0.9999092, 0.9999877).
 * Run: {@code mvn -q -pl docs exec:exec -Dtour=Tour01Devices} (after {@code mvn -q install -DskipTests}).
 */
public final class Tour01Devices {

    private Tour01Devices() {
    }

    /** Prints the devices of an 8-device mesh and the device order of a 2 × 2 mesh. */
    public static void main(String[] args) {
        Mesh eight = Mesh.makeMesh(new int[]{8}, "i");
        List<Device> devices = eight.devices();
        System.out.println("Simulated devices: " + devices);
        System.out.println("How many: " + devices.size());

        Mesh mesh2d = Mesh.makeMesh(new int[]{2, 2}, "x", "y");
        System.out.println("A 2 x 2 mesh: " + mesh2d);
        System.out.println("Its device ids in mesh order: " + devices(mesh2d));
        for (Device d : mesh2d.devices()) {
            System.out.println("  " + d + " sits at mesh coordinates (x, y) = " + d.coords());
        }
        System.out.println();
        processView();
    }

    /** Seed 003: one process holds everything; then the same array seen from each of two processes. */
    private static void processView() {
        ProcessView single = ProcessView.of(1, 8, 0);
        NDArray a = NDArray.arange(8);
        System.out.println("Seed 003, one process: process_count " + single.processCount() + ", local devices "
                + single.localDevices().size() + " of " + single.devices().size());
        System.out.println("A fresh array " + a + " has sharding " + single.defaultSharding());
        Mesh mesh = single.makeMesh(new int[]{8}, "i");
        ShardedArray aSharded = ShardedArray.devicePut(a, mesh, P("i"));
        System.out.println("Laid out " + aSharded.sharding() + ":");
        System.out.print(aSharded.visualize());
        ShardedArray out = aSharded.tanh();
        System.out.println("tanh of it, computed where each block lives: " + out.gather());
        System.out.print(out.visualize());
        System.out.println();
        for (int p = 0; p < 2; p++) {
            ProcessView view = ProcessView.of(2, 4, p);
            System.out.println("Process " + view.processIndex() + " of " + view.processCount() + ": devices "
                    + view.devices());
            System.out.println("  local devices " + view.localDevices() + ", fresh arrays land on "
                    + view.defaultSharding());
            System.out.println("  device process_index " + view.devices().stream().map(view::processIndexOf)
                    .toList());
            Mesh all = view.makeMesh(new int[]{8}, "i");
            ShardedArray x = ShardedArray.devicePut(a, all, P("i"));
            ShardedArray y = x.tanh();
            List<ShardedArray.Shard> mine = view.addressableShards(x);
            List<ShardedArray.Shard> tanhMine = view.addressableShards(y);
            for (int k = 0; k < mine.size(); k++) {
                ShardedArray.Shard s = mine.get(k);
                System.out.println("  addressable shard on " + s.device().label() + " " + s.index() + " " + s.data()
                        + ", tanh " + tanhMine.get(k).data());
            }
        }
    }

    private static List<Integer> devices(Mesh m) {
        return m.devices().stream().map(Device::id).toList();
    }
}
