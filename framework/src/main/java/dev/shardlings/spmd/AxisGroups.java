package dev.shardlings.spmd;

import dev.shardlings.sharding.Device;
import dev.shardlings.sharding.Mesh;

import java.util.HashSet;
import java.util.List;

/**
 * The device groups of a collective over a tuple of mesh axes (jax-semantics §6.8): devices that agree on every
 * coordinate outside the tuple form a group, ordered by their linear index over the tuple, first name major.
 * Immutable; computed once per (mesh, axes) and cached by the runtime.
 */
final class AxisGroups {
    final List<String> axes;
    final int groupSize;
    /** For each device (mesh flat order): its linear index ℓ inside its group. */
    final int[] linearIndex;
    /** For each device (mesh flat order): the flat indices of its group's members, ordered by ℓ. */
    final int[][] members;

    private AxisGroups(List<String> axes, int groupSize, int[] linearIndex, int[][] members) {
        this.axes = axes;
        this.groupSize = groupSize;
        this.linearIndex = linearIndex;
        this.members = members;
    }

    /**
     * Validates {@code axes} against the mesh and computes the groups.
     *
     * @param op the collective's JAX name, for messages
     * @throws IllegalArgumentException for an empty tuple, an axis the mesh does not have (JAX's unbound-axis
     *                                  text), or a repeated axis (JAX's "repeated axis in `source` argument")
     */
    static AxisGroups of(Mesh mesh, List<String> axes, String op) {
        if (axes.isEmpty()) {
            // JAX returns the operand unchanged (psum, all_gather, …) or raises (pmax); a collective over no axis is
            // a mistake in a course program, so it is one here, for every collective.
            throw new IllegalArgumentException(op + " needs at least one mesh axis name; got none. Pass an axis"
                    + " of the mesh " + mesh + ", e.g. " + op + "(x, \"" + mesh.axisNames().get(0) + "\").");
        }
        for (String a : axes) {
            if (!mesh.hasAxis(a)) {
                throw new IllegalArgumentException(unbound(op, a));
            }
        }
        if (new HashSet<>(axes).size() != axes.size()) {
            throw new IllegalArgumentException("repeated axis in `source` argument");
        }
        List<Device> devices = mesh.devices();
        int n = devices.size();
        int[] positions = axes.stream().mapToInt(mesh::axisPosition).toArray();
        int[] sizes = axes.stream().mapToInt(mesh::axisSize).toArray();
        int groupSize = 1;
        for (int s : sizes) {
            groupSize *= s;
        }
        boolean[] inTuple = new boolean[mesh.rank()];
        for (int p : positions) {
            inTuple[p] = true;
        }
        int[] linear = new int[n];
        int[] outerKey = new int[n];
        for (int i = 0; i < n; i++) {
            List<Integer> c = devices.get(i).coords();
            int l = 0;
            for (int j = 0; j < positions.length; j++) {
                l = l * sizes[j] + c.get(positions[j]);
            }
            linear[i] = l;
            int key = 0;
            for (int p = 0; p < inTuple.length; p++) {
                if (!inTuple[p]) {
                    key = key * mesh.axisSizes().get(p) + c.get(p);
                }
            }
            outerKey[i] = key;
        }
        int[][] members = new int[n][];
        java.util.Map<Integer, int[]> byKey = new java.util.HashMap<>();
        for (int i = 0; i < n; i++) {
            int[] g = byKey.computeIfAbsent(outerKey[i], k -> new int[0]);
            if (g.length == 0) {
                g = new int[groupSize];
                byKey.put(outerKey[i], g);
            }
            g[linear[i]] = i;
        }
        for (int i = 0; i < n; i++) {
            members[i] = byKey.get(outerKey[i]);
        }
        return new AxisGroups(List.copyOf(axes), groupSize, linear, members);
    }

    /**
     * JAX 0.10.2's text for an axis name no enclosing shard_map binds, which differs by collective (checked with
     * check_vma off; with it on, psum over an unbound name raises a bare AssertionError): the all-reduces name psum,
     * ppermute and axis_index name themselves, and all_gather, psum_scatter, all_to_all and axis_size say only
     * "unbound axis name". JAX's {@code `jax.shard_map`} is this framework's {@code `shardMap`}.
     */
    static String unbound(String op, String axis) {
        String caller = switch (op) {
            case "psum", "pmean", "pmax", "pmin" -> "psum";
            case "ppermute", "axis_index" -> op;
            default -> null;
        };
        return caller == null ? "unbound axis name: " + axis
                : "Found an unbound axis name: " + axis + ". To fix this, please call " + caller + " under `shardMap`.";
    }
}
