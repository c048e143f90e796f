package dev.shardlings.sharding;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The text picture of how an array is laid out on a mesh, as {@code jax.debug.visualize_sharding} prints it
 * without colour (jax-semantics.md §4): one box per distinct shard, labelled with the platform and the ids of the
 * devices holding it, boxes sized in proportion to the shard.
 *
 * <p>The output is byte-identical to JAX's for rank 1 and 2 arrays whose picture fits in {@code maxWidth}
 * columns. Wider pictures are drawn at their natural width; JAX's table library would instead shrink columns and
 * may wrap or drop labels, which we do not imitate.
 */
public final class ShardingVisualizer {

    private ShardingVisualizer() {
    }

    /**
     * The picture with JAX's defaults ({@code scale=1, min_width=9, max_width=80}).
     *
     * @throws IllegalArgumentException if the rank is not 1 or 2, or the sharding does not fit the shape
     */
    public static String visualizeSharding(int[] shape, NamedSharding sharding) {
        return visualizeSharding(shape, sharding, 1.0, 9, 80);
    }

    /**
     * The picture with explicit sizes, as {@code visualize_sharding(shape, sharding, scale=, min_width=,
     * max_width=)}.
     *
     * @param scale    height of a full-height cell is int(10·scale) lines
     * @param minWidth smallest cell width, borders included
     * @param maxWidth largest cell width, borders included
     * @throws IllegalArgumentException if the rank is not 1 or 2, sizes are not positive, or the sharding does not
     *                                  fit the shape
     */
    public static String visualizeSharding(int[] shape, NamedSharding sharding, double scale, int minWidth,
                                           int maxWidth) {
        Objects.requireNonNull(shape, "shape");
        Objects.requireNonNull(sharding, "sharding");
        if (shape.length != 1 && shape.length != 2) {
            throw new IllegalArgumentException("`visualize_sharding` only works for shapes with 1 and 2 dimensions.");
        }
        if (!(scale > 0) || minWidth < 1 || maxWidth < minWidth) {
            throw new IllegalArgumentException("need scale > 0 and 1 <= minWidth <= maxWidth, got scale=" + scale
                    + ", minWidth=" + minWidth + ", maxWidth=" + maxWidth);
        }
        for (int s : shape) {
            if (s <= 0) {
                throw new IllegalArgumentException("cannot draw an array with an empty dimension: shape "
                        + PartitionSpec.ints(shape));
            }
        }
        boolean twoD = shape.length == 2;
        int baseHeight = (int) (10 * scale);
        double aspect = (double) (twoD ? shape[1] : 1) / shape[0];
        int baseWidth = (int) (baseHeight * aspect);
        String prefix = sharding.mesh().devices().get(0).platform().toUpperCase(Locale.ROOT);

        Map<Long, TreeSet<Integer>> ids = new TreeMap<>();
        double wfrac = 0;
        double hfrac = 0;
        int rows = 0;
        int cols = 0;
        for (Map.Entry<Device, NamedSharding.Index> e : sharding.devicesIndicesMap(shape).entrySet()) {
            List<NamedSharding.Slice> sl = e.getValue().slices();
            int r;
            int c;
            if (twoD) {
                r = chunk(sl.get(0));
                c = chunk(sl.get(1));
                hfrac = (double) sl.get(0).length() / shape[0];
                wfrac = (double) sl.get(1).length() / shape[1];
            } else {
                r = 0;
                c = chunk(sl.get(0));
                wfrac = (double) sl.get(0).length() / shape[0];
            }
            rows = Math.max(rows, r + 1);
            cols = Math.max(cols, c + 1);
            ids.computeIfAbsent(((long) r << 32) | c, k -> new TreeSet<>()).add(e.getKey().id());
        }

        String[][] labels = new String[rows][cols];
        int[][] left = new int[rows][cols];
        int[][] right = new int[rows][cols];
        int[] top = new int[rows];
        int[] bottom = new int[rows];
        int width = Math.min(Math.max((int) (wfrac * baseWidth * 2.5), minWidth), maxWidth);
        int height = twoD ? (int) (hfrac * baseHeight) : 1;
        int t = Math.floorDiv(height - 2, 2);
        int b = t + Math.floorMod(height - 2, 2);
        int[] colWidth = new int[cols];
        for (int r = 0; r < rows; r++) {
            top[r] = Math.max(t, 0);
            bottom[r] = Math.max(b, 0);
            for (int c = 0; c < cols; c++) {
                TreeSet<Integer> set = ids.get(((long) r << 32) | c);
                StringBuilder label = new StringBuilder(prefix).append(' ');
                if (set != null) {
                    boolean first = true;
                    for (int id : set) {
                        label.append(first ? "" : ",").append(id);
                        first = false;
                    }
                }
                labels[r][c] = label.toString();
                int room = width - labels[r][c].length() - 2;
                int l = Math.floorDiv(room, 2);
                left[r][c] = Math.max(l, 0);
                right[r][c] = Math.max(l + Math.floorMod(room, 2), 0);
                colWidth[c] = Math.max(colWidth[c], left[r][c] + labels[r][c].length() + right[r][c]);
            }
        }

        StringBuilder out = new StringBuilder();
        out.append(border('┌', '┬', '┐', colWidth));
        for (int r = 0; r < rows; r++) {
            if (r > 0) {
                out.append(border('├', '┼', '┤', colWidth));
            }
            List<String> lines = new ArrayList<>();
            for (int i = 0; i < top[r]; i++) {
                lines.add(null);
            }
            lines.add("label");
            for (int i = 0; i < bottom[r]; i++) {
                lines.add(null);
            }
            for (String kind : lines) {
                out.append('│');
                for (int c = 0; c < cols; c++) {
                    if (kind == null) {
                        out.append(" ".repeat(colWidth[c]));
                    } else {
                        int inner = colWidth[c] - left[r][c] - right[r][c];
                        out.append(" ".repeat(left[r][c])).append(center(labels[r][c], inner))
                                .append(" ".repeat(right[r][c]));
                    }
                    out.append('│');
                }
                out.append('\n');
            }
        }
        out.append(border('└', '┴', '┘', colWidth));
        return out.toString();
    }

    private static int chunk(NamedSharding.Slice s) {
        return s.full() ? 0 : s.start() / (s.stop() - s.start());
    }

    private static String center(String s, int width) {
        int excess = width - s.length();
        if (excess <= 0) {
            return s;
        }
        int l = excess / 2;
        return " ".repeat(l) + s + " ".repeat(excess - l);
    }

    private static String border(char left, char mid, char right, int[] widths) {
        StringBuilder sb = new StringBuilder().append(left);
        for (int c = 0; c < widths.length; c++) {
            if (c > 0) {
                sb.append(mid);
            }
            sb.append("─".repeat(widths[c]));
        }
        return sb.append(right).append('\n').toString();
    }
}
