package dev.shardlings.events;

import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * The static parameters of one collective, by kind: what JAX's collective functions take besides the operand and
 * the axis names. {@link #text()} gives them in JAX's words for reports ({@code "axis=0, tiled=true"}).
 */
public sealed interface CollectiveParams {

    /** The parameters in JAX's words, e.g. {@code "axis=0, tiled=true"}; empty when there are none. */
    String text();

    /** psum, pmean, pmax, pmin: no static parameter. */
    record None() implements CollectiveParams {
        @Override
        public String text() {
            return "";
        }
    }

    /**
     * all_gather's parameters.
     *
     * @param axis      the dimension gathered along
     * @param tiled     true: concatenated along axis; false: a new dimension stacked at axis
     * @param invariant true for {@code all_gather_invariant} (the result does not vary over the axes)
     */
    record AllGather(int axis, boolean tiled, boolean invariant) implements CollectiveParams {
        @Override
        public String text() {
            return "axis=" + axis + ", tiled=" + tiled + (invariant ? ", to='invarying'" : "");
        }
    }

    /**
     * psum_scatter's parameters.
     *
     * @param scatterDimension the dimension split among the devices
     * @param tiled            true: split into blocks; false: the dimension (of size n) removed
     */
    record ReduceScatter(int scatterDimension, boolean tiled) implements CollectiveParams {
        @Override
        public String text() {
            return "scatter_dimension=" + scatterDimension + ", tiled=" + tiled;
        }
    }

    /**
     * all_to_all's parameters.
     *
     * @param splitAxis  the dimension split and sent out
     * @param concatAxis the dimension the received pieces are joined along
     * @param tiled      as JAX's {@code tiled}
     */
    record AllToAll(int splitAxis, int concatAxis, boolean tiled) implements CollectiveParams {
        @Override
        public String text() {
            return "split_axis=" + splitAxis + ", concat_axis=" + concatAxis + ", tiled=" + tiled;
        }
    }

    /**
     * ppermute's permutation.
     *
     * @param pairs the (source, destination) pairs, as written
     */
    record Permute(List<List<Integer>> pairs) implements CollectiveParams {
        /** @throws NullPointerException naming the component if pairs, a pair or an index is null */
        public Permute {
            Objects.requireNonNull(pairs, "pairs");
            List<List<Integer>> copy = new java.util.ArrayList<>(pairs.size());
            for (int i = 0; i < pairs.size(); i++) {
                copy.add(Lists.copyOfNonNull(pairs.get(i), "pairs[" + i + "]"));
            }
            pairs = List.copyOf(copy);
        }

        @Override
        public String text() {
            return "perm=" + pairsRepr();
        }

        /** The pairs as Python's tuple of tuples, e.g. {@code ((0, 1), (1, 0))}; each pair must hold two ints. */
        public String pairsRepr() {
            return pairs.stream().map(p -> "(" + p.get(0) + ", " + p.get(1) + ")")
                    .collect(Collectors.joining(", ", "(", pairs.size() == 1 ? ",)" : ")"));
        }
    }
}
