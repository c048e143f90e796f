package dev.shardlings.tours;

import dev.shardlings.sharding.Device;
import dev.shardlings.sharding.Mesh;

import java.util.List;

/**
 * Tour 1 (docs/chapter-0.md, "Meshes and layouts"): the simulated devices and a first mesh.
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
    }

    private static List<Integer> devices(Mesh m) {
        return m.devices().stream().map(Device::id).toList();
    }
}
