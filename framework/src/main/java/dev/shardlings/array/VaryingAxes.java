package dev.shardlings.array;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** The varying axes an {@link NDArray} carries (JAX's vma): unmodifiable sets of mesh axis names in insertion order. */
final class VaryingAxes {

    /**
     * Axis sets by their names in order: equal sets made from the same names are one object, so {@link #union}
     * of two blocks of one shardMap argument is an identity check (it runs in every binary op).
     */
    private static final ConcurrentHashMap<List<String>, Set<String>> AXIS_SETS = new ConcurrentHashMap<>();

    private VaryingAxes() {
    }

    /**
     * The set of {@code axes}, in their order.
     *
     * @throws NullPointerException     if a name is null
     * @throws IllegalArgumentException if a name is empty
     */
    static Set<String> of(Collection<String> axes) {
        if (axes.isEmpty()) {
            return Set.of();
        }
        List<String> key = new ArrayList<>(axes.size());
        for (String a : axes) {
            key.add(a);
        }
        Set<String> known = AXIS_SETS.get(key);
        if (known != null) {
            return known;
        }
        LinkedHashSet<String> s = new LinkedHashSet<>();
        for (String a : axes) {
            if (a == null) {
                throw new NullPointerException("axes: mesh axis names must be non-empty strings, got null in " + axes);
            }
            if (a.isEmpty()) {
                throw new IllegalArgumentException("axes: mesh axis names must be non-empty strings, got \"\" in "
                        + axes);
            }
            s.add(a);
        }
        Set<String> made = Collections.unmodifiableSet(s);
        if (AXIS_SETS.size() < 4096) { // mesh axis names are few; the bound only guards against a name generator
            Set<String> raced = AXIS_SETS.putIfAbsent(List.copyOf(key), made);
            return raced != null ? raced : made;
        }
        return made;
    }

    /** a ∪ b, a's axes first; one of the operands itself when it already holds the other. */
    static Set<String> union(Set<String> a, Set<String> b) {
        if (a == b || b.isEmpty() || a.containsAll(b)) {
            return a;
        }
        if (a.isEmpty()) {
            return b;
        }
        LinkedHashSet<String> s = new LinkedHashSet<>(a);
        s.addAll(b);
        return Collections.unmodifiableSet(s);
    }

    /** The union of the arrays' varying axes, in order. */
    static Set<String> unionAll(List<NDArray> arrays) {
        Set<String> s = Set.of();
        for (NDArray a : arrays) {
            s = union(s, a.vma);
        }
        return s;
    }
}
