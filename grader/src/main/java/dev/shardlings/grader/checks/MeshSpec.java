package dev.shardlings.grader.checks;

import dev.shardlings.sharding.Mesh;

import java.util.List;

/**
 * A mesh to grade on, as plain data (so a shrunk case prints readably): axis names and sizes in mesh order.
 *
 * @param names axis names
 * @param sizes axis sizes
 */
public record MeshSpec(List<String> names, List<Integer> sizes) {
    public MeshSpec {
        names = List.copyOf(names);
        sizes = List.copyOf(sizes);
    }

    /** A mesh spec from alternating name and size: {@code of("X", 2, "Y", 4)}. */
    public static MeshSpec of(Object... nameSize) {
        java.util.List<String> n = new java.util.ArrayList<>();
        java.util.List<Integer> s = new java.util.ArrayList<>();
        for (int i = 0; i < nameSize.length; i += 2) {
            n.add((String) nameSize[i]);
            s.add((Integer) nameSize[i + 1]);
        }
        return new MeshSpec(n, s);
    }

    /** The mesh. */
    public Mesh mesh() {
        return Mesh.makeMesh(sizes.stream().mapToInt(Integer::intValue).toArray(), names.toArray(new String[0]));
    }

    /** The size of an axis. */
    public int size(String axis) {
        return sizes.get(names.indexOf(axis));
    }

    /** Number of devices. */
    public int devices() {
        return sizes.stream().reduce(1, (a, b) -> a * b);
    }

    /** {@code (X=2, Z=1) = 2 device(s)}. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("(");
        for (int i = 0; i < names.size(); i++) {
            sb.append(i > 0 ? ", " : "").append(names.get(i)).append('=').append(sizes.get(i));
        }
        return sb.append(") = ").append(devices()).append(" device(s)").toString();
    }
}
