package dev.shardlings.sharding;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * How each dimension of an array is split over mesh axes — the analogue of {@code jax.sharding.PartitionSpec}
 * (written {@code P} in JAX and here).
 *
 * <p>Entry k says how dimension k is split: {@code null} = not split; an axis name = split over that axis; a
 * {@link #tuple(String...)} of names = split over all of them, the first name major (device chunk index
 * idx_a·|b|·… + idx_b·… + …). Mesh axes the spec does not mention replicate the array. A spec shorter than the
 * array's rank is padded with {@code null}s; a longer one is an error where it is applied.
 *
 * <p>Canonicalisation (jax-semantics.md §2.1): an empty tuple and the empty name {@code ""} become {@code null}, a
 * one-name tuple becomes the name. Equality is exact, as in JAX: {@code P("x")} and {@code P("x", null)} lay out
 * identically ({@link #isEquivalentTo}) but are not {@code equals}. A {@code List} entry is a tuple, like a Python
 * list; a list inside it is JAX's nested-tuple error.
 *
 * <p>Immutable and thread-safe.
 */
public final class PartitionSpec {

    /** A tuple of mesh axis names for one PartitionSpec entry, e.g. {@code tuple("x", "y")}. */
    public static final class AxisTuple {
        private final List<String> names;

        private AxisTuple(List<String> names) {
            this.names = names;
        }

        /** The names, in the order written. */
        public List<String> names() {
            return names;
        }

        @Override
        public String toString() {
            return pyTuple(names);
        }
    }

    private static final PartitionSpec EMPTY = new PartitionSpec(List.of());

    private final List<List<String>> entries;

    private PartitionSpec(List<List<String>> entries) {
        this.entries = entries;
    }

    /**
     * Builds a spec: {@code P("x", null)}, {@code P(tuple("x", "y"))}, {@code P()}.
     *
     * @param entries each {@code null} (or {@code ""}, which means the same, as in JAX), a {@code String} axis
     *                name, an {@link AxisTuple}, or a {@code List} of names (a tuple, as a Python list is; empty →
     *                null, one name → that name)
     * @throws IllegalArgumentException for any other entry type (e.g. a {@code String[]}, which Java would
     *                                  otherwise spread into separate entries — write {@code tuple(...)}), or a
     *                                  list inside a list (JAX's nested-tuple error)
     */
    public static PartitionSpec P(Object... entries) {
        if (entries == null) {
            // P((Object[]) null) — treat like P(None): one unsplit dimension, as Python's P(None).
            return new PartitionSpec(List.of(List.of()));
        }
        if (entries.length == 0) {
            return EMPTY;
        }
        List<List<String>> out = new ArrayList<>(entries.length);
        for (Object e : entries) {
            if (e == null || "".equals(e)) {
                out.add(List.of()); // None and '' (any falsy entry) are stored as None
            } else if (e instanceof String s) {
                checkName(s);
                out.add(List.of(s));
            } else if (e instanceof AxisTuple t) {
                out.add(t.names);
            } else if (e instanceof List<?> l) {
                out.add(fromList(l));
            } else {
                throw new IllegalArgumentException("a PartitionSpec entry must be null, an axis name (String) or"
                        + " tuple(\"x\", \"y\") for several axes; got a " + e.getClass().getSimpleName()
                        + (e instanceof Object[] ? " — write PartitionSpec.tuple(...) for a tuple of axes" : ""));
            }
        }
        return new PartitionSpec(List.copyOf(out));
    }

    /** A list entry is a tuple, as in Python; a list or tuple inside it is JAX's nested-tuple error. */
    private static List<String> fromList(List<?> l) {
        List<String> names = new ArrayList<>();
        for (Object o : l) {
            if (o instanceof String s) {
                checkName(s);
                names.add(s);
            } else if (o instanceof List<?> || o instanceof AxisTuple) {
                throw new IllegalArgumentException("A tuple inside PartitionSpec cannot contain a nested tuple. Got"
                        + " partition: " + reprOf(l) + " and the nested tuple: " + reprOf(o));
            } else {
                throw new IllegalArgumentException("a tuple of axes in a PartitionSpec can only hold axis names"
                        + " (Strings), got " + o);
            }
        }
        return List.copyOf(names);
    }

    private static String reprOf(Object o) {
        if (o instanceof AxisTuple t) {
            return pyTuple(t.names);
        }
        if (o instanceof List<?> l) {
            StringBuilder sb = new StringBuilder("(");
            for (int i = 0; i < l.size(); i++) {
                sb.append(i > 0 ? ", " : "").append(reprOf(l.get(i)));
            }
            return sb.append(l.size() == 1 ? ",)" : ")").toString();
        }
        return o instanceof String s ? "'" + s + "'" : String.valueOf(o);
    }

    /** The fully replicated spec {@code P()}. */
    public static PartitionSpec replicated() {
        return EMPTY;
    }

    /**
     * A tuple of axes for one entry; the first name is the major one.
     *
     * @throws IllegalArgumentException if a name is null or empty
     */
    public static AxisTuple tuple(String... axes) {
        Objects.requireNonNull(axes, "axes");
        for (int i = 0; i < axes.length; i++) {
            if (axes[i] == null || axes[i].isEmpty()) {
                throw new IllegalArgumentException("axes[" + i + "] is " + (axes[i] == null ? "null" : "\"\"")
                        + ": a mesh axis name in a PartitionSpec cannot be null or empty");
            }
        }
        return new AxisTuple(List.of(axes));
    }

    private static void checkName(String s) {
        if (s == null || s.isEmpty()) {
            throw new IllegalArgumentException("a mesh axis name in a PartitionSpec cannot be null or empty");
        }
    }

    /** Number of entries ({@code len(P(...))}). */
    public int length() {
        return entries.size();
    }

    /** The axes splitting dimension {@code dim}: empty when the entry is null or dim is past the end. */
    public List<String> axesAt(int dim) {
        if (dim < 0) {
            throw new IllegalArgumentException("dimension must be >= 0, got " + dim);
        }
        return dim < entries.size() ? entries.get(dim) : List.of();
    }

    /** All entries, each as a list of axis names (empty for null). */
    public List<List<String>> entries() {
        return entries;
    }

    /** Every axis the spec mentions, in the order written. */
    public Set<String> mentionedAxes() {
        Set<String> s = new LinkedHashSet<>();
        entries.forEach(s::addAll);
        return Collections.unmodifiableSet(s);
    }

    /**
     * The spec padded with trailing nulls to {@code rank} entries.
     *
     * @throws IllegalArgumentException if the spec is already longer than rank
     */
    public PartitionSpec padTo(int rank) {
        if (rank < entries.size()) {
            throw new IllegalArgumentException(this + " has " + entries.size() + " entries, more than rank " + rank);
        }
        List<List<String>> out = new ArrayList<>(entries);
        while (out.size() < rank) {
            out.add(List.of());
        }
        return new PartitionSpec(List.copyOf(out));
    }

    /** True when both specs place shards identically: equal after padding to the same length. */
    public boolean isEquivalentTo(PartitionSpec other) {
        Objects.requireNonNull(other, "other");
        if (this == other || entries.equals(other.entries)) {
            return true;
        }
        int n = Math.max(length(), other.length());
        return padTo(n).entries.equals(other.padTo(n).entries);
    }

    /**
     * Checks the spec against a mesh.
     *
     * @throws IllegalArgumentException  {@code Resource axis: z of P('z',) is not found in mesh: ('x', 'y').}
     * @throws DuplicateSpecException    when an axis appears twice (JAX's DuplicateSpecError text)
     */
    public void validate(Mesh mesh) {
        Objects.requireNonNull(mesh, "mesh");
        // Same order as JAX's check_pspec: duplicates first, then unknown axes.
        Set<String> seen = new LinkedHashSet<>();
        Set<String> dups = new TreeSet<>();
        for (List<String> e : entries) {
            for (String a : e) {
                if (!seen.add(a)) {
                    dups.add("`" + a + "`"); // JAX sorts the back-ticked names
                }
            }
        }
        if (!dups.isEmpty()) {
            throw new DuplicateSpecException("A single NamedSharding spec specification can map every mesh axis to at"
                    + " most one positional dimension, but " + this + " has duplicate entries for "
                    + String.join(", ", dups));
        }
        for (List<String> e : entries) {
            for (String a : e) {
                if (!mesh.hasAxis(a)) {
                    throw new IllegalArgumentException("Resource axis: " + a + " of " + this + " is not found in mesh: "
                            + pyTuple(mesh.axisNames()) + ".");
                }
            }
        }
    }

    /** JAX's repr: {@code P('x',)}, {@code P('x', None)}, {@code P(('x', 'y'),)}, {@code P()}. */
    @Override
    public String toString() {
        if (entries.isEmpty()) {
            return "P()";
        }
        StringBuilder sb = new StringBuilder("P(");
        for (int i = 0; i < entries.size(); i++) {
            if (i > 0) {
                sb.append(", ");
            }
            List<String> e = entries.get(i);
            if (e.isEmpty()) {
                sb.append("None");
            } else if (e.size() == 1) {
                sb.append('\'').append(e.get(0)).append('\'');
            } else {
                sb.append(pyTuple(e));
            }
        }
        if (entries.size() == 1) {
            sb.append(',');
        }
        return sb.append(')').toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PartitionSpec p && entries.equals(p.entries);
    }

    @Override
    public int hashCode() {
        return entries.hashCode();
    }

    static String pyTuple(List<String> names) {
        return Mesh.pyTuple(names.toArray(new String[0]));
    }

    static String ints(int[] xs) {
        return "(" + Arrays.stream(xs).mapToObj(Integer::toString).collect(Collectors.joining(", "))
                + (xs.length == 1 ? ",)" : ")");
    }
}
