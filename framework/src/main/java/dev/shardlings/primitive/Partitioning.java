package dev.shardlings.primitive;

import dev.shardlings.array.ReduceOp;

import java.util.List;
import java.util.Objects;

/**
 * How one primitive runs per device: every device re-lays out each operand block to {@code operandDims[k]}
 * (slicing locally where an axis is added, collectives where data must move) — first to {@code operandVia[k]} where
 * that is not empty, as XLA moves an operand onto the devices of a group before it gathers or slices it there —,
 * runs {@code local} on its blocks,
 * completes the result by all-reducing over {@code reduceAxes} (a psum, pmax or pmin; XLA:CPU creates no
 * reduce-scatters: a result split over those axes is sliced afterwards, or computed in a {@link Share}), and so
 * holds a block of layout {@code resultDims} before the final re-layout to the chosen output layout.
 *
 * @param operandDims the layout each operand must have for the local operation (per dimension, its mesh axes)
 * @param local       the operation on blocks (parameters in local sizes)
 * @param reduceAxes  mesh axes over which the local results are partial (empty: none)
 * @param reduceOp    how partial results combine
 * @param resultDims  the layout of the block after the reduction, before it is re-laid out to the output's
 * @param operandVia  per operand, a layout to re-lay it out to before {@code operandDims[k]}, or an empty list for
 *                    none
 * @param reduceSteps {@code reduceAxes} grouped into the all-reduces that complete the result, in order (XLA
 *                    completes a reduction over several split dimensions with one all-reduce per dimension)
 * @param share       where the result's partial sums are computed in shares on idle devices and moved into the
 *                    result's layout after the all-reduce (XLA's plan for a contraction whose result must come out
 *                    split over the contracted axes), or null for none
 */
public record Partitioning(List<List<List<String>>> operandDims, Primitive local, List<String> reduceAxes,
                           ReduceOp reduceOp, List<List<String>> resultDims, List<List<List<String>>> operandVia,
                           List<List<String>> reduceSteps, Share share) {

    /**
     * A share of the result per device: dimension {@code resultDim} of the local result is cut into {@code parts}
     * blocks by the major part of the devices' index over the idle axes {@code over} (each operand holding that
     * dimension is sliced so before the local operation), so the all-reduce over the reduce axes carries 1/parts of
     * the block, and one collective-permute then moves each block to the devices the result's layout gives it.
     *
     * @param resultDim  the result dimension cut
     * @param operandDim per operand, the dimension of it that is cut with it, or −1 for none
     * @param over       the idle mesh axes, in mesh order
     * @param parts      how many blocks (the number of devices over the reduce axes)
     */
    public record Share(int resultDim, List<Integer> operandDim, List<String> over, int parts) {
        /**
         * @throws NullPointerException     if a list is null
         * @throws IllegalArgumentException if parts is below 2
         */
        public Share {
            operandDim = List.copyOf(operandDim);
            over = List.copyOf(over);
            if (parts < 2) {
                throw new IllegalArgumentException("a share needs at least 2 parts, got " + parts);
            }
        }
    }

    /**
     * @throws NullPointerException     if an argument is null
     * @throws IllegalArgumentException if reduceSteps do not name exactly reduceAxes, in order
     */
    public Partitioning {
        operandDims = operandDims.stream().map(d -> d.stream().map(List::copyOf).toList()).toList();
        operandVia = operandVia.stream().map(d -> d.stream().map(List::copyOf).toList()).toList();
        if (operandVia.size() != operandDims.size()) {
            throw new IllegalArgumentException("one via layout per operand: " + operandVia.size() + " for "
                    + operandDims.size() + " operands");
        }
        Objects.requireNonNull(local, "local");
        reduceAxes = List.copyOf(reduceAxes);
        Objects.requireNonNull(reduceOp, "reduceOp");
        resultDims = resultDims.stream().map(List::copyOf).toList();
        reduceSteps = reduceSteps.stream().map(List::copyOf).filter(g -> !g.isEmpty()).toList();
        if (!reduceSteps.stream().flatMap(List::stream).toList().equals(reduceAxes)) {
            throw new IllegalArgumentException("reduce steps " + reduceSteps + " must group the reduce axes "
                    + reduceAxes + " in order");
        }
        if (share != null && share.operandDim().size() != operandDims.size()) {
            throw new IllegalArgumentException("a share names one dimension per operand: " + share.operandDim().size()
                    + " for " + operandDims.size() + " operands");
        }
    }

    /** A partitioning whose operands go straight to {@code operandDims} and whose partial results are completed
     * by one all-reduce over all of {@code reduceAxes}. */
    public Partitioning(List<List<List<String>>> operandDims, Primitive local, List<String> reduceAxes,
                        ReduceOp reduceOp, List<List<String>> resultDims) {
        this(operandDims, local, reduceAxes, reduceOp, resultDims, noVia(operandDims.size()), List.of(reduceAxes),
                null);
    }

    /**
     * A partitioning whose operands pass through {@code operandVia} first (one all-reduce completes it), its
     * result computed in shares where {@code share} is not null.
     */
    static Partitioning withVia(List<List<List<String>>> operandDims, Primitive local, List<String> reduceAxes,
                                ReduceOp reduceOp, List<List<String>> resultDims,
                                List<List<List<String>>> operandVia, Share share) {
        return new Partitioning(operandDims, local, reduceAxes, reduceOp, resultDims, operandVia,
                List.of(reduceAxes), share);
    }

    /** A partitioning completed by one all-reduce per group of {@code reduceSteps}, in order. */
    static Partitioning withReduceSteps(List<List<List<String>>> operandDims, Primitive local,
                                        List<String> reduceAxes, ReduceOp reduceOp, List<List<String>> resultDims,
                                        List<List<String>> reduceSteps) {
        return new Partitioning(operandDims, local, reduceAxes, reduceOp, resultDims, noVia(operandDims.size()),
                reduceSteps, null);
    }

    private static List<List<List<String>>> noVia(int operands) {
        return java.util.Collections.nCopies(operands, List.of());
    }

    /** A partitioning with no reduction. */
    static Partitioning local(List<List<List<String>>> operandDims, Primitive local, List<List<String>> resultDims) {
        return new Partitioning(operandDims, local, List.of(), ReduceOp.SUM, resultDims);
    }
}
