package dev.shardlings.sharding;

import org.junit.jupiter.api.Test;

import java.util.Optional;

import static dev.shardlings.sharding.PartitionSpec.P;
import static dev.shardlings.sharding.PartitionSpec.tuple;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A layout written on another mesh over the same devices (what jit and the eager ops do with arguments on an
 * 8-device mesh and a 4×2 one on Auto axes, as JAX compiles them): {@link NamedSharding#onMesh},
 * {@link Mesh#canName}, {@link Mesh#finer}.
 */
class SameDevicesOtherMeshTest {
    private static final int[] IDS = {0, 1, 2, 3, 4, 5, 6, 7};
    private static final Mesh EIGHT = Mesh.ofDeviceIds(IDS, new int[] {8}, "x");
    private static final Mesh GRID = Mesh.ofDeviceIds(IDS, new int[] {4, 2}, "x", "y");
    private static final Mesh WIDE = Mesh.ofDeviceIds(IDS, new int[] {2, 4}, "a", "b");
    private static final Mesh CUBE = Mesh.ofDeviceIds(IDS, new int[] {2, 2, 2}, "p", "q", "r");

    @Test
    void theSameDeviceAssignmentIsTheFlatOrderWhateverTheShape() {
        assertTrue(EIGHT.sameDeviceAssignment(GRID));
        assertTrue(GRID.sameDeviceAssignment(Mesh.makeMesh(new int[] {4, 2}, "x", "y")), "axis types do not count");
        assertFalse(GRID.sameDeviceAssignment(Mesh.ofDeviceIds(new int[] {0, 4, 1, 5, 2, 6, 3, 7}, new int[] {4, 2},
                "x", "y")));
        assertFalse(EIGHT.sameDevicesAs(GRID), "sameDevicesAs also compares names and sizes");
    }

    @Test
    void aFinerMeshNamesEveryLayoutOfACoarserOne() {
        assertTrue(GRID.canName(EIGHT));
        assertFalse(EIGHT.canName(GRID));
        assertTrue(CUBE.canName(GRID) && CUBE.canName(WIDE));
        assertFalse(GRID.canName(WIDE) || WIDE.canName(GRID));
        assertEquals(Optional.of(GRID), EIGHT.finer(GRID));
        assertEquals(Optional.of(GRID), GRID.finer(EIGHT));
        assertEquals(Optional.empty(), GRID.finer(WIDE));
        assertEquals(Optional.empty(), GRID.finer(Mesh.ofDeviceIds(new int[] {0, 1, 2, 3}, new int[] {4}, "x")));
    }

    @Test
    void eachAxisBecomesTheRunOfAxesOverTheSameDevices() {
        assertEquals(Optional.of(new NamedSharding(GRID, P(tuple("x", "y")))),
                new NamedSharding(EIGHT, P("x")).onMesh(GRID, 24));
        assertEquals(Optional.of(new NamedSharding(EIGHT, P("x"))),
                new NamedSharding(GRID, P(tuple("x", "y"))).onMesh(EIGHT, 24));
        assertEquals(Optional.of(new NamedSharding(CUBE, P(tuple("p", "q"), "r"))),
                new NamedSharding(GRID, P("x", "y")).onMesh(CUBE, 8, 4));
        assertEquals(Optional.of(new NamedSharding(CUBE, P(null, "p"))),
                new NamedSharding(WIDE, P(null, "a")).onMesh(CUBE, 8, 4));
        assertEquals(Optional.of(new NamedSharding(CUBE, P(tuple("q", "r")))),
                new NamedSharding(WIDE, P("b")).onMesh(CUBE, 8));
        assertEquals(Optional.of(new NamedSharding(EIGHT, P())), new NamedSharding(GRID, P()).onMesh(EIGHT, 24));
    }

    @Test
    void aLayoutTheTargetCannotNameIsEmpty() {
        // a 4x2 mesh's 'x' (pairs of neighbours) and 'y' (every other device) are no axis of an 8-device mesh
        assertEquals(Optional.empty(), new NamedSharding(GRID, P("x")).onMesh(EIGHT, 24));
        assertEquals(Optional.empty(), new NamedSharding(GRID, P("y")).onMesh(EIGHT, 24));
        // ('y', 'x') steps the other way round
        assertEquals(Optional.empty(), new NamedSharding(GRID, P(tuple("y", "x"))).onMesh(EIGHT, 24));
        assertEquals(Optional.empty(), new NamedSharding(EIGHT, P("x")).onMesh(
                Mesh.ofDeviceIds(new int[] {0, 4, 1, 5, 2, 6, 3, 7}, new int[] {4, 2}, "x", "y"), 24));
    }
}
