package dev.shardlings.spmd;

import dev.shardlings.array.NDArray;
import dev.shardlings.sharding.Mesh;

import java.util.ArrayList;
import java.util.List;

/**
 * Moves one device's block from one layout to another inside a shardMap body — the data movement
 * {@code jax.sharding.reshard} and the partitioner insert. A layout gives, per dimension, the mesh axes splitting
 * it (major first).
 *
 * <p>The plan, in this order: an axis that leaves one dimension and is the next to split another moves with one
 * all-to-all; when no such move is possible, the axes that must leave a dimension are all-gathered (one dimension
 * at a time, then moves are tried again); finally axes that newly split a dimension are taken by slicing the
 * block locally at the device's axis index, which moves nothing. Package-private.
 */
final class Relayout {
    private Relayout() {
    }

    /**
     * This device's block of the same global array under layout {@code to}, given its block under {@code from}.
     * Must run on a device thread; collectives are recorded as usual.
     */
    static NDArray apply(NDArray block, List<List<String>> from, List<List<String>> to, Mesh mesh) {
        if (from.equals(to)) {
            return block;
        }
        List<List<String>> cur = new ArrayList<>();
        from.forEach(e -> cur.add(new ArrayList<>(e)));
        NDArray x = block;
        while (true) {
            boolean moved = false;
            for (int i = 0; i < cur.size() && !moved; i++) {
                List<String> ci = cur.get(i);
                if (ci.isEmpty() || isPrefix(ci, to.get(i)) || !isPrefix(ci.subList(0, ci.size() - 1), to.get(i))) {
                    continue;
                }
                String a = ci.get(ci.size() - 1);
                for (int j = 0; j < cur.size(); j++) {
                    List<String> cj = cur.get(j);
                    List<String> tj = to.get(j);
                    if (j != i && tj.size() > cj.size() && isPrefix(cj, tj) && tj.get(cj.size()).equals(a)) {
                        x = Collectives.allToAll(x, a, j, i, Tiling.TILED);
                        ci.remove(ci.size() - 1);
                        cj.add(a);
                        moved = true;
                        break;
                    }
                }
            }
            if (moved) {
                continue;
            }
            boolean gathered = false;
            for (int i = 0; i < cur.size() && !gathered; i++) {
                List<String> ci = cur.get(i);
                int p = commonPrefix(ci, to.get(i));
                if (p < ci.size()) {
                    x = Collectives.allGather(x, List.copyOf(ci.subList(p, ci.size())), i, Tiling.TILED);
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
                List<String> extra = ti.subList(cur.get(i).size(), ti.size());
                int parts = 1;
                for (String a : extra) {
                    parts *= mesh.axisSize(a);
                }
                int idx = Collectives.axisIndex(extra.toArray(new String[0])).intAt();
                int size = x.shape(i) / parts;
                x = x.slice(i, idx * size, (idx + 1) * size);
            }
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
