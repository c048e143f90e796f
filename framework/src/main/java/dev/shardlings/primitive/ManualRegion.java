package dev.shardlings.primitive;

import dev.shardlings.array.NDArray;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.PartitionSpec;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * A {@code shardMap} called on traced values inside {@code jit}: a region of Manual axes in a compiled program
 * ({@code jax.shard_map} inside {@code jax.jit}). Its operands are re-laid out to the in specs, every device runs
 * the per-device function on its blocks once — its collectives are the ones written by hand — and each result has
 * its out spec's layout. The function never runs while the program is traced; the results' shapes were found by
 * running it once on zero blocks beforehand (see {@code ShardMap}). A region has one result per out spec; the
 * single-result methods of {@link Primitive} ({@link #abstractEval}, {@link #apply}, …) describe a region of one
 * result, and {@link #resultTypes} gives every result's type.
 *
 * @param label    the shardMap's name, for the compiled text
 * @param inSpecs  one layout per operand
 * @param outSpecs one layout per result
 * @param body     the per-device function: blocks in, one block per result out
 * @param results  each result's dtype and global shape
 */
public record ManualRegion(String label, List<PartitionSpec> inSpecs, List<PartitionSpec> outSpecs,
                           Function<List<NDArray>, List<NDArray>> body, List<Shaped> results) implements Primitive {

    /**
     * @throws NullPointerException     if an argument is null
     * @throws IllegalArgumentException if there is not one result per out spec, or none
     */
    public ManualRegion {
        Objects.requireNonNull(label, "label");
        inSpecs = List.copyOf(inSpecs);
        outSpecs = List.copyOf(outSpecs);
        Objects.requireNonNull(body, "body");
        results = List.copyOf(results);
        if (results.isEmpty() || results.size() != outSpecs.size()) {
            throw new IllegalArgumentException("shard_map " + label + " needs one result per out spec, got "
                    + results.size() + " results for " + outSpecs.size() + " out specs");
        }
    }

    @Override
    public String name() {
        return "shard_map";
    }

    /** The number of results. */
    public int resultCount() {
        return results.size();
    }

    /**
     * Every result's type on the operands' mesh: its dtype, shape and its out spec's layout.
     *
     * @throws IllegalArgumentException if the operands do not match the in specs in number
     */
    public List<ArrayType> resultTypes(List<ArrayType> operands) {
        checkOperands(operands);
        Mesh mesh = Typing.meshOf(this, operands);
        List<ArrayType> out = new ArrayList<>();
        for (int k = 0; k < results.size(); k++) {
            Shaped s = results.get(k);
            out.add(new ArrayType(s.dtype(), s.shape(), resultDims(k), mesh));
        }
        return out;
    }

    /** The layout of result k: its out spec, per dimension. */
    public List<List<String>> resultDims(int k) {
        return dims(outSpecs.get(k), results.get(k).shape().size());
    }

    /** The layout operand k must have: its in spec, per dimension. */
    public List<List<String>> operandDims(int k, int rank) {
        return dims(inSpecs.get(k), rank);
    }

    private void checkOperands(List<ArrayType> operands) {
        if (operands.size() != inSpecs.size()) {
            throw new IllegalArgumentException("shard_map " + label + " has " + inSpecs.size() + " in specs but got "
                    + operands.size() + " operands");
        }
    }

    @Override
    public Shaped abstractEval(List<ArrayType> operands) {
        checkOperands(operands);
        return single();
    }

    private Shaped single() {
        if (results.size() != 1) {
            throw new IllegalStateException("shard_map " + label + " has " + results.size() + " results; use"
                    + " resultTypes and the body's list of blocks");
        }
        return results.get(0);
    }

    @Override
    public List<List<String>> shardingRule(List<ArrayType> operands, Shaped out, Mesh mesh) {
        return dims(outSpecs.get(0), out.shape().size());
    }

    @Override
    public List<List<String>> autoRule(List<ArrayType> operands, Shaped out, Mesh mesh) {
        return dims(outSpecs.get(0), out.shape().size());
    }

    @Override
    public NDArray apply(List<NDArray> operands) {
        single();
        return body.apply(operands).get(0);
    }

    @Override
    public Partitioning partition(List<ArrayType> operands, ArrayType out) {
        List<List<List<String>>> in = new ArrayList<>();
        for (int k = 0; k < operands.size(); k++) {
            in.add(operandDims(k, operands.get(k).rank()));
        }
        return Partitioning.local(in, this, dims(outSpecs.get(0), out.rank()));
    }

    private static List<List<String>> dims(PartitionSpec spec, int rank) {
        return spec.padTo(rank).entries();
    }
}
