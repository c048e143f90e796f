package dev.shardlings.primitive;

import dev.shardlings.sharding.AxisType;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.PartitionSpec;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Per-dimension specs (one list of mesh axes per array dimension, empty = replicated) and how JAX prints them
 * inside its error texts. Package-private helpers of the typing rules.
 */
final class Specs {
    private Specs() {
    }

    static final List<String> NONE = List.of();

    /** {@code spec} padded to {@code rank} entries, keeping only the mesh's Explicit axes (Auto ones are untyped). */
    static List<List<String>> typed(PartitionSpec spec, int rank, Mesh mesh) {
        if (spec.length() > rank) {
            throw new IllegalArgumentException("PartitionSpec " + spec + " has " + spec.length()
                    + " entries, more than the rank " + rank + " of the array it shards");
        }
        List<List<String>> out = new ArrayList<>(rank);
        for (int d = 0; d < rank; d++) {
            List<String> axes = spec.axesAt(d);
            if (mesh != null) {
                axes = axes.stream().filter(a -> mesh.axisType(a) == AxisType.EXPLICIT).toList();
            }
            out.add(List.copyOf(axes));
        }
        return List.copyOf(out);
    }

    static List<List<String>> replicated(int rank) {
        List<List<String>> out = new ArrayList<>(rank);
        for (int d = 0; d < rank; d++) {
            out.add(NONE);
        }
        return List.copyOf(out);
    }

    /** The spec as a {@link PartitionSpec} of exactly these entries (None where empty). */
    static PartitionSpec toSpec(List<List<String>> dims) {
        return PartitionSpec.P(dims.stream().map(e -> (Object) (e.isEmpty() ? null : e)).toArray());
    }

    /** The first axis named twice, or null. */
    static String duplicate(List<List<String>> dims) {
        Set<String> seen = new HashSet<>();
        for (List<String> e : dims) {
            for (String a : e) {
                if (!seen.add(a)) {
                    return a;
                }
            }
        }
        return null;
    }

    /** The number of devices the axes split a dimension into. */
    static int parts(Mesh mesh, List<String> axes) {
        int p = 1;
        for (String a : axes) {
            p *= mesh.axisSize(a);
        }
        return p;
    }

    /** One entry as Python prints it: {@code None}, {@code 'X'}, {@code ('X', 'Y')}. */
    static String entry(List<String> e) {
        if (e.isEmpty()) {
            return "None";
        }
        if (e.size() == 1) {
            return "'" + e.get(0) + "'";
        }
        return e.stream().map(a -> "'" + a + "'").collect(Collectors.joining(", ", "(", ")"));
    }

    /** A tuple of entries as Python prints it: {@code ('X', None)}, {@code ('X',)}, {@code ()}. */
    static String tuple(List<List<String>> dims) {
        String body = dims.stream().map(Specs::entry).collect(Collectors.joining(", "));
        return "(" + body + (dims.size() == 1 ? ",)" : ")");
    }

    /** An entry as an f-string prints it bare: {@code X} for one axis, {@code ('X', 'Y')} for a tuple. */
    static String bare(List<String> e) {
        return e.size() == 1 ? e.get(0) : entry(e);
    }

    /**
     * The mesh as JAX prints the abstract mesh of a type:
     * {@code AbstractMesh('X': 4, 'Y': 2, axis_types=(Explicit, Explicit), device_kind=cpu, num_cores=None,
     * platform=cpu)}.
     */
    static String abstractMesh(Mesh mesh) {
        StringBuilder sb = new StringBuilder("AbstractMesh(");
        for (int i = 0; i < mesh.rank(); i++) {
            sb.append('\'').append(mesh.axisNames().get(i)).append("': ").append(mesh.axisSizes().get(i)).append(", ");
        }
        String types = mesh.axisTypes().stream().map(AxisType::jaxName).collect(Collectors.joining(", "));
        String platform = mesh.devices().get(0).platform();
        return sb.append("axis_types=(").append(types).append(mesh.rank() == 1 ? ",)" : ")").append(", device_kind=")
                .append(platform).append(", num_cores=None, platform=").append(platform).append(')').toString();
    }

    /** Python's tuple of ints: {@code (2, 4, 4)}, {@code (32,)}. */
    static String ints(List<Integer> xs) {
        String body = xs.stream().map(String::valueOf).collect(Collectors.joining(", "));
        return "(" + body + (xs.size() == 1 ? ",)" : ")");
    }
}
