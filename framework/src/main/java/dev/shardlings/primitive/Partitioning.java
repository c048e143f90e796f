package dev.shardlings.primitive;

import dev.shardlings.array.ReduceOp;

import java.util.List;
import java.util.Objects;

/**
 * How one primitive runs per device: every device re-lays out each operand block to {@code operandDims[k]}
 * (slicing locally where an axis is added, collectives where data must move) — first to {@code operandVia[k]} where
 * that is not empty, as XLA moves an operand onto the devices of a group before it gathers or slices it there —,
 * runs {@code local} on its blocks,
 * completes the result by reducing over {@code reduceAxes} (a psum, pmax or pmin — or a reduce-scatter when the
 * result's layout splits a dimension over exactly those axes), and so holds a block of layout {@code resultDims}
 * before the final re-layout to the chosen output layout.
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
 */
public record Partitioning(List<List<List<String>>> operandDims, Primitive local, List<String> reduceAxes,
                           ReduceOp reduceOp, List<List<String>> resultDims, List<List<List<String>>> operandVia,
                           List<List<String>> reduceSteps) {

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
    }

    /** A partitioning whose operands go straight to {@code operandDims} and whose partial results are completed
     * by one all-reduce over all of {@code reduceAxes}. */
    public Partitioning(List<List<List<String>>> operandDims, Primitive local, List<String> reduceAxes,
                        ReduceOp reduceOp, List<List<String>> resultDims) {
        this(operandDims, local, reduceAxes, reduceOp, resultDims, noVia(operandDims.size()), List.of(reduceAxes));
    }

    /** A partitioning whose operands pass through {@code operandVia} first (one all-reduce completes it). */
    static Partitioning withVia(List<List<List<String>>> operandDims, Primitive local, List<String> reduceAxes,
                                ReduceOp reduceOp, List<List<String>> resultDims,
                                List<List<List<String>>> operandVia) {
        return new Partitioning(operandDims, local, reduceAxes, reduceOp, resultDims, operandVia,
                List.of(reduceAxes));
    }

    /** A partitioning completed by one all-reduce per group of {@code reduceSteps}, in order. */
    static Partitioning withReduceSteps(List<List<List<String>>> operandDims, Primitive local,
                                        List<String> reduceAxes, ReduceOp reduceOp, List<List<String>> resultDims,
                                        List<List<String>> reduceSteps) {
        return new Partitioning(operandDims, local, reduceAxes, reduceOp, resultDims, noVia(operandDims.size()),
                reduceSteps);
    }

    private static List<List<List<String>>> noVia(int operands) {
        return java.util.Collections.nCopies(operands, List.of());
    }

    /** A partitioning with no reduction. */
    static Partitioning local(List<List<List<String>>> operandDims, Primitive local, List<List<String>> resultDims) {
        return new Partitioning(operandDims, local, List.of(), ReduceOp.SUM, resultDims);
    }
}
