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
 */
public record Partitioning(List<List<List<String>>> operandDims, Primitive local, List<String> reduceAxes,
                           ReduceOp reduceOp, List<List<String>> resultDims, List<List<List<String>>> operandVia) {

    /** @throws NullPointerException if an argument is null */
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
    }

    /** A partitioning whose operands go straight to {@code operandDims}. */
    public Partitioning(List<List<List<String>>> operandDims, Primitive local, List<String> reduceAxes,
                        ReduceOp reduceOp, List<List<String>> resultDims) {
        this(operandDims, local, reduceAxes, reduceOp, resultDims,
                java.util.Collections.nCopies(operandDims.size(), List.of()));
    }

    /** A partitioning with no reduction. */
    static Partitioning local(List<List<List<String>>> operandDims, Primitive local, List<List<String>> resultDims) {
        return new Partitioning(operandDims, local, List.of(), ReduceOp.SUM, resultDims);
    }
}
