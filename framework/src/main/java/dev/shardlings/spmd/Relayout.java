package dev.shardlings.spmd;

import dev.shardlings.array.NDArray;
import dev.shardlings.sharding.Mesh;

import java.util.ArrayList;
import java.util.List;

/**
 * The steps that move a value from one layout to another — the data movement {@code jax.sharding.reshard} and the
 * partitioner insert. A layout gives, per dimension, the mesh axes splitting it (major first).
 *
 * <p>The plan, in this order: the axes that leave the layout altogether are all-gathered first, with what is left
 * of their dimension when that would not keep its place (P(None, (x, y)) → P(x, None) gathers the dimension over
 * (x, y) at once, as XLA does); then an axis that leaves one dimension and is the next to split another moves with
 * one all-to-all (f32[8,64,32] from P(X, None, Y) to P(None, X): an all-gather over Y, then an all-to-all over X),
 * unless that other dimension takes axes from two or more dimensions (P(None, x, y) → P((x, y)): XLA gathers both,
 * then slices), and after slicing locally the axes it takes first that no dimension holds (P(None, y) → P((x, y))
 * slices x, then moves y); when no such move is possible, the axes that must leave a dimension are all-gathered (one dimension
 * at a time, the last dimension first, then moves are tried again); finally axes that newly split a dimension are taken by slicing the
 * block locally at the device's axis index, which moves nothing. When that plan would gather although the new
 * layout splits over every axis the old one did (a transposed layout, P(X, Y) → P(Y, X)), the data only changes
 * places: then one {@link DataMovement.Redistribute} sends each device the pieces of its new block by collective-permutes,
 * as XLA does.
 *
 * <p>That order is XLA's where an axis that stays keeps its place or moves to a dimension it can join at the minor
 * end (4×2 f32[8,8] P(x, y) → P(None, x): an all-gather over y, then an all-to-all over x, as XLA:CPU compiles it).
 * XLA plans other moves differently, with the same values: P(x, y) → P(y, None) is, in XLA:CPU, a
 * collective-permute that regroups the devices and two all-gathers (128 bytes per device), where this plan
 * all-gathers x and moves y by one all-to-all (160 bytes). {@code RelayoutOrderTest} pins both.
 */
public final class Relayout {
    private Relayout() {
    }

    /**
     * The steps from layout {@code from} to layout {@code to} (empty when they are equal).
     *
     * @throws NullPointerException if an argument is null
     */
    public static List<DataMovement> plan(List<List<String>> from, List<List<String>> to, Mesh mesh) {
        java.util.Objects.requireNonNull(mesh, "mesh");
        // An axis of size 1 splits nothing: it never needs to move (XLA drops such single-device collectives).
        from = withoutTrivialAxes(from, mesh);
        to = withoutTrivialAxes(to, mesh);
        if (from.equals(to)) {
            return List.of();
        }
        List<DataMovement> steps = new ArrayList<>();
        List<List<String>> cur = new ArrayList<>();
        from.forEach(e -> cur.add(new ArrayList<>(e)));
        // XLA's order: the axes that leave the layout altogether are all-gathered first (minor dimensions first);
        // only then do the axes that change dimension move, by all-to-all on the gathered blocks
        java.util.Set<String> kept = axesOf(to);
        for (int i = cur.size() - 1; i >= 0; i--) {
            List<String> ci = cur.get(i);
            int p = ci.size();
            while (p > 0 && !kept.contains(ci.get(p - 1))) {
                p--;
            }
            if (p < ci.size()) {
                // what stays of a dimension that loses axes must keep its place, else it is gathered with them
                p = commonPrefix(ci.subList(0, p), to.get(i));
                steps.add(new DataMovement.AllGather(List.copyOf(ci.subList(p, ci.size())), i));
                cur.set(i, new ArrayList<>(ci.subList(0, p)));
            }
        }
        // a dimension that takes axes from two or more others is filled by gathering them, not by all-to-alls
        java.util.Set<Integer> gatherInto = new java.util.HashSet<>();
        for (int j = 0; j < to.size(); j++) {
            java.util.Set<Integer> sources = new java.util.HashSet<>();
            for (String a : to.get(j).subList(commonPrefix(from.get(j), to.get(j)), to.get(j).size())) {
                for (int i = 0; i < from.size(); i++) {
                    if (i != j && from.get(i).contains(a)) {
                        sources.add(i);
                    }
                }
            }
            if (sources.size() > 1) {
                gatherInto.add(j);
            }
        }
        while (true) {
            boolean moved = false;
            for (int i = 0; i < cur.size() && !moved; i++) {
                List<String> ci = cur.get(i);
                if (ci.isEmpty() || isPrefix(ci, to.get(i)) || !isPrefix(ci.subList(0, ci.size() - 1), to.get(i))) {
                    continue;
                }
                String a = ci.get(ci.size() - 1);
                java.util.Set<String> held = new java.util.HashSet<>();
                cur.forEach(held::addAll);
                for (int j = 0; j < cur.size(); j++) {
                    List<String> cj = cur.get(j);
                    List<String> tj = to.get(j);
                    int at = tj.indexOf(a);
                    if (j == i || gatherInto.contains(j) || at < cj.size() || !isPrefix(cj, tj)) {
                        continue;
                    }
                    // axes the target takes before a that no dimension holds are sliced locally first, so the
                    // all-to-all brings a in at the minor end (XLA: P((x,y)) from P(None, y) slices x, then moves y)
                    List<String> before = tj.subList(cj.size(), at);
                    if (before.stream().anyMatch(held::contains)) {
                        continue;
                    }
                    if (!before.isEmpty()) {
                        steps.add(new DataMovement.SliceLocal(List.copyOf(before), j));
                        cj.addAll(before);
                    }
                    steps.add(new DataMovement.AllToAll(a, j, i));
                    ci.remove(ci.size() - 1);
                    cj.add(a);
                    moved = true;
                    break;
                }
            }
            if (moved) {
                continue;
            }
            boolean gathered = false;
            for (int i = cur.size() - 1; i >= 0 && !gathered; i--) { // minor dimensions first, as XLA orders them
                List<String> ci = cur.get(i);
                int p = commonPrefix(ci, to.get(i));
                if (p < ci.size()) {
                    steps.add(new DataMovement.AllGather(List.copyOf(ci.subList(p, ci.size())), i));
                    cur.set(i, new ArrayList<>(ci.subList(0, p)));
                    gathered = true;
                }
            }
            if (!gathered) {
                break;
            }
        }
        for (int i = 0; i < cur.size(); i++) {
            List<String> ti = to.get(i);
            if (ti.size() > cur.get(i).size()) {
                steps.add(new DataMovement.SliceLocal(List.copyOf(ti.subList(cur.get(i).size(), ti.size())), i));
            }
        }
        // Gathering to split again over the same axes moves whole dimensions where the data only changes places:
        // then send each device just the pieces of its new block.
        if (steps.stream().anyMatch(s -> s instanceof DataMovement.AllGather) && axesOf(to).containsAll(axesOf(from))) {
            return List.of(new DataMovement.Redistribute(from, to));
        }
        return List.copyOf(steps);
    }

    private static java.util.Set<String> axesOf(List<List<String>> dims) {
        java.util.Set<String> all = new java.util.HashSet<>();
        dims.forEach(all::addAll);
        return all;
    }

    /** The layout without the mesh axes of size 1. */
    static List<List<String>> withoutTrivialAxes(List<List<String>> dims, Mesh mesh) {
        List<List<String>> out = new ArrayList<>(dims.size());
        for (List<String> e : dims) {
            out.add(e.stream().filter(a -> mesh.axisSize(a) > 1).toList());
        }
        return out;
    }

    /** Runs steps on this device's block (inside a shardMap body). */
    static NDArray apply(List<DataMovement> steps, NDArray block, Mesh mesh) {
        NDArray x = block;
        for (DataMovement s : steps) {
            x = s.apply(x, mesh);
        }
        return x;
    }

    private static boolean isPrefix(List<String> p, List<String> of) {
        return p.size() <= of.size() && of.subList(0, p.size()).equals(p);
    }

    private static int commonPrefix(List<String> a, List<String> b) {
        int p = 0;
        while (p < a.size() && p < b.size() && a.get(p).equals(b.get(p))) {
            p++;
        }
        return p;
    }
}
