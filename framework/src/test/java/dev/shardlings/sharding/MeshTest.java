package dev.shardlings.sharding;

import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Mesh construction, device order, attributes and errors (jax-semantics.md §1). */
class MeshTest {

    static final Mesh XY = Mesh.makeMesh(new int[]{4, 2}, "x", "y");

    // ---- §1.1 device order ----------------------------------------------------------------------------------

    @Test
    void makeMeshNumbersDevicesRowMajor() {
        // device at mesh coordinate (x, y) has id 2x + y
        for (int x = 0; x < 4; x++) {
            for (int y = 0; y < 2; y++) {
                Device d = XY.device(x, y);
                assertEquals(2 * x + y, d.id(), "id at (" + x + ", " + y + ")");
                assertEquals(List.of(x, y), d.coords());
            }
        }
    }

    @Test
    void makeMeshTwoByTwoUsesIdsZeroToThree() {
        // (2,2) on 8 CPUs takes the first 4 devices: [[0,1],[2,3]]
        Mesh m = Mesh.makeMesh(new int[]{2, 2}, "a", "b");
        assertArrayEquals(new int[]{0, 1, 2, 3}, m.deviceIds());
        assertEquals(1, m.device(0, 1).id());
        assertEquals(2, m.device(1, 0).id());
    }

    @Test
    void threeAxisMeshLinearisationIsRowMajorFirstAxisMostSignificant() {
        Mesh m = Mesh.makeMesh(new int[]{2, 3, 2}, "a", "b", "c");
        int p = 0;
        for (int a = 0; a < 2; a++) {
            for (int b = 0; b < 3; b++) {
                for (int c = 0; c < 2; c++) {
                    Device d = m.device(a, b, c);
                    assertEquals(p, d.id());
                    assertEquals(p, m.flatIndex(d));
                    assertEquals(d, m.devices().get(p));
                    p++;
                }
            }
        }
    }

    // ---- §1.2 attributes of make_mesh((4,2), ('x','y')) ----------------------------------------------------

    @Test
    void attributesOfTheFourByTwoMesh() {
        assertEquals(List.of("x", "y"), XY.axisNames());
        assertEquals(List.of(4, 2), XY.axisSizes());
        assertEquals(8, XY.size());
        assertEquals(2, XY.rank());
        LinkedHashMap<String, Integer> shape = XY.shape();
        assertEquals(List.of("x", "y"), List.copyOf(shape.keySet()), "mesh.shape keeps axis order");
        assertEquals(List.of(4, 2), List.copyOf(shape.values()));
        assertEquals(4, XY.axisSize("x"));
        assertEquals(2, XY.axisSize("y"));
        assertEquals(8, XY.axisSize(List.of("x", "y")));
        assertEquals(1, XY.axisSize(List.of()));
        assertEquals(0, XY.axisPosition("x"));
        assertEquals(1, XY.axisPosition("y"));
        assertTrue(XY.hasAxis("x"));
        assertTrue(!XY.hasAxis("z"));
    }

    @Test
    void deviceIdsAreRowMajorZeroToSeven() {
        // mesh.device_ids == [[0,1],[2,3],[4,5],[6,7]]
        assertArrayEquals(new int[]{0, 1, 2, 3, 4, 5, 6, 7}, XY.deviceIds());
        for (int i = 0; i < 8; i++) {
            assertEquals(i, XY.devices().get(i).id());
            assertEquals(i, XY.deviceById(i).id());
            assertEquals(List.of(i / 2, i % 2), XY.deviceById(i).coords());
        }
    }

    @Test
    void devicesAreCpuDevicesWithJaxRepr() {
        Device d = XY.deviceById(3);
        assertEquals("cpu", d.platform());
        assertEquals("CpuDevice(id=3)", d.toString());
        assertEquals("cpu:3", d.label());
        assertEquals("TpuDevice(id=0)", Mesh.makeMesh("TPU", new int[]{2}, "i").deviceById(0).toString());
    }

    @Test
    void toStringIsJaxStrWithoutAxisTypes() {
        assertEquals("Mesh('x': 4, 'y': 2)", XY.toString());
        assertEquals("Mesh('i': 4)", Mesh.makeMesh(new int[]{4}, "i").toString());
    }

    @Test
    void oneDimensionalMesh() {
        Mesh m = Mesh.makeMesh(new int[]{4}, "i");
        assertArrayEquals(new int[]{0, 1, 2, 3}, m.deviceIds());
        assertEquals(List.of("i"), m.axisNames());
        assertEquals(4, m.size());
    }

    @Test
    void equalMeshesAreEqual() {
        assertEquals(XY, Mesh.makeMesh(new int[]{4, 2}, "x", "y"));
        assertEquals(XY.hashCode(), Mesh.makeMesh(new int[]{4, 2}, "x", "y").hashCode());
        assertNotEquals(XY, Mesh.makeMesh(new int[]{4, 2}, "x", "z"));
        assertNotEquals(XY, Mesh.makeMesh(new int[]{2, 4}, "x", "y"));
        assertNotEquals(XY, Mesh.ofDeviceIds(new int[]{3, 1, 0, 2, 7, 5, 6, 4}, new int[]{4, 2}, "x", "y"));
    }

    // ---- Mesh(devices, names) with an explicit, permuted order -------------------------------------------

    @Test
    void ofDeviceIdsKeepsThePermutedOrder() {
        int[] ids = {3, 1, 0, 2, 7, 5, 6, 4};
        Mesh m = Mesh.ofDeviceIds(ids, new int[]{4, 2}, "x", "y");
        assertArrayEquals(ids, m.deviceIds());
        assertEquals(3, m.device(0, 0).id());
        assertEquals(1, m.device(0, 1).id());
        assertEquals(0, m.device(1, 0).id());
        assertEquals(4, m.device(3, 1).id());
        assertEquals(List.of(1, 0), m.deviceById(0).coords());
        assertEquals(List.of(3, 1), m.deviceById(4).coords());
        assertEquals(2, m.flatIndex(m.deviceById(0)));
        assertEquals("Mesh('x': 4, 'y': 2)", m.toString());
        ids[0] = 99; // the mesh copied its argument
        assertEquals(3, m.device(0, 0).id());
    }

    @Test
    void ofDeviceIdsRejectsRepeatedOrOutOfRangeIdsAndAcceptsASubset() {
        assertThrows(IllegalArgumentException.class,
                () -> Mesh.ofDeviceIds(new int[]{0, 1, 1, 3}, new int[]{2, 2}, "a", "b"));
        assertThrows(IllegalArgumentException.class,
                () -> Mesh.ofDeviceIds(new int[]{0, 1, 2, -1}, new int[]{2, 2}, "a", "b"));
        assertThrows(IllegalArgumentException.class,
                () -> Mesh.ofDeviceIds(new int[]{0, 1, 2, Mesh.MAX_DEVICES}, new int[]{2, 2}, "a", "b"));
        // jax.devices()[4:] as a 2x2 mesh
        Mesh upper = Mesh.ofDeviceIds(new int[]{4, 5, 6, 7}, new int[]{2, 2}, "a", "b");
        assertEquals(6, upper.device(1, 0).id());
        assertEquals(upper.device(1, 0), upper.deviceById(6));
        assertEquals(2, upper.flatIndex(upper.deviceById(6)));
        assertThrows(IllegalArgumentException.class, () -> upper.deviceById(0));
        assertThrows(IllegalArgumentException.class, () -> upper.flatIndex(Mesh.makeMesh(new int[]{4}, "a").device(0)));
        assertThrows(IllegalArgumentException.class,
                () -> Mesh.ofDeviceIds(new int[]{0, 1, 2}, new int[]{2, 2}, "a", "b"));
    }

    // ---- errors ------------------------------------------------------------------------------------------

    @Test
    void ndimMismatchHasJaxText() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Mesh.makeMesh(new int[]{4, 2}, "x"));
        assertEquals("Mesh requires the ndim of its first argument (`devices`) to equal the length of its second"
                + " argument (`axis_names`), but got devices.ndim == 2 and len(axis_names) == 1.", e.getMessage());
        IllegalArgumentException e2 = assertThrows(IllegalArgumentException.class,
                () -> Mesh.ofDeviceIds(new int[]{0, 1, 2, 3}, new int[]{4}, "x", "y"));
        assertEquals("Mesh requires the ndim of its first argument (`devices`) to equal the length of its second"
                + " argument (`axis_names`), but got devices.ndim == 1 and len(axis_names) == 2.", e2.getMessage());
    }

    @Test
    void noneAxisNameHasJaxText() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Mesh.makeMesh(new int[]{4, 2}, "x", null));
        assertEquals("Mesh axis names cannot be None. Got: ('x', None)", e.getMessage());
        IllegalArgumentException e1 = assertThrows(IllegalArgumentException.class,
                () -> Mesh.makeMesh(new int[]{4}, (String) null));
        assertEquals("Mesh axis names cannot be None. Got: (None,)", e1.getMessage());
    }

    @Test
    void duplicateAxisNamesAreRejected() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Mesh.makeMesh(new int[]{4, 2}, "x", "x"));
        assertTrue(e.getMessage().contains("'x'"), e.getMessage());
    }

    @Test
    void axisSizeBelowOneIsRejected() {
        IllegalArgumentException e0 = assertThrows(IllegalArgumentException.class,
                () -> Mesh.makeMesh(new int[]{4, 0}, "x", "y"));
        assertTrue(e0.getMessage().contains("'y'"), e0.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Mesh.makeMesh(new int[]{-2}, "x"));
    }

    @Test
    void noAxesIsRejected() {
        assertThrows(IllegalArgumentException.class, () -> Mesh.makeMesh(new int[]{}));
    }

    @Test
    void tooManyDevicesIsRejected() {
        assertEquals(Mesh.MAX_DEVICES, Mesh.makeMesh(new int[]{Mesh.MAX_DEVICES}, "i").size());
        assertThrows(IllegalArgumentException.class, () -> Mesh.makeMesh(new int[]{Mesh.MAX_DEVICES + 1}, "i"));
        // the product overflows int long before the check could be fooled
        assertThrows(IllegalArgumentException.class,
                () -> Mesh.makeMesh(new int[]{65536, 65536, 65536}, "a", "b", "c"));
    }

    @Test
    void lookupErrors() {
        assertThrows(IllegalArgumentException.class, () -> XY.axisSize("z"));
        assertThrows(IllegalArgumentException.class, () -> XY.device(4, 0));
        assertThrows(IllegalArgumentException.class, () -> XY.device(0));
        assertThrows(IllegalArgumentException.class, () -> XY.deviceById(8));
        Device foreign = Mesh.makeMesh(new int[]{8}, "i").deviceById(0);
        assertThrows(IllegalArgumentException.class, () -> XY.flatIndex(foreign));
    }
    @org.junit.jupiter.api.Test
    void axisTypesFollowJaxDefaults() {
        Mesh made = Mesh.makeMesh(new int[] {4, 2}, "X", "Y");
        org.junit.jupiter.api.Assertions.assertEquals(java.util.List.of(AxisType.EXPLICIT, AxisType.EXPLICIT),
                made.axisTypes());
        Mesh constructed = Mesh.ofDeviceIds(new int[] {0, 1, 2, 3, 4, 5, 6, 7}, new int[] {4, 2}, "X", "Y");
        org.junit.jupiter.api.Assertions.assertEquals(AxisType.AUTO, constructed.axisType("Y"));
        // the same devices under other axis types: not equal (as in JAX), but the same devices
        org.junit.jupiter.api.Assertions.assertNotEquals(made, constructed);
        org.junit.jupiter.api.Assertions.assertTrue(made.sameDevicesAs(constructed));
        org.junit.jupiter.api.Assertions.assertEquals(made, constructed.withAxisTypes(AxisType.EXPLICIT,
                AxisType.EXPLICIT));
        Mesh mixed = Mesh.makeMesh(new int[] {4, 2}, new String[] {"X", "Y"}, AxisType.EXPLICIT, AxisType.AUTO);
        org.junit.jupiter.api.Assertions.assertTrue(mixed.hasExplicitAxes());
        org.junit.jupiter.api.Assertions.assertFalse(mixed.allAxesExplicit());
    }

    @org.junit.jupiter.api.Test
    void oneAxisTypePerAxisOrJaxsError() {
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> Mesh.makeMesh(new int[] {4, 2}, new String[] {"X", "Y"}, AxisType.EXPLICIT));
        org.junit.jupiter.api.Assertions.assertEquals("Number of axis names should match the number of axis_types."
                + " Got axis_names=('X', 'Y') and axis_types=(Explicit,)", e.getMessage());
    }
}
