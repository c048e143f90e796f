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
 * the per-device function on its blocks — its collectives are the ones written by hand — and its result has the
 * out spec's layout. The function never runs while the program is traced; the result's shape was found by
 * running it once on zero blocks beforehand (see {@code ShardMap}).
 *
 * @param label   the shardMap's name, for the compiled text
 * @param inSpecs one layout per operand
 * @param outSpec the layout of the result
 * @param body    the per-device function, blocks in, block out
 * @param result  the result's dtype and global shape
 */
public record ManualRegion(String label, List<PartitionSpec> inSpecs, PartitionSpec outSpec,
                           Function<List<NDArray>, NDArray> body, Shaped result) implements Primitive {

    /** @throws NullPointerException if an argument is null */
    public ManualRegion {
        Objects.requireNonNull(label, "label");
        inSpecs = List.copyOf(inSpecs);
        Objects.requireNonNull(outSpec, "outSpec");
        Objects.requireNonNull(body, "body");
        Objects.requireNonNull(result, "result");
    }

    @Override
    public String name() {
        return "shard_map";
    }

    @Override
    public Shaped abstractEval(List<ArrayType> operands) {
        if (operands.size() != inSpecs.size()) {
            throw new IllegalArgumentException("shard_map " + label + " has " + inSpecs.size() + " in specs but got "
                    + operands.size() + " operands");
        }
        return result;
    }

    @Override
    public List<List<String>> shardingRule(List<ArrayType> operands, Shaped out, Mesh mesh) {
        return dims(outSpec, out.shape().size());
    }

    @Override
    public List<List<String>> autoRule(List<ArrayType> operands, Shaped out, Mesh mesh) {
        return dims(outSpec, out.shape().size());
    }

    @Override
    public NDArray apply(List<NDArray> operands) {
        return body.apply(operands);
    }

    @Override
    public Partitioning partition(List<ArrayType> operands, ArrayType out) {
        List<List<List<String>>> in = new ArrayList<>();
        for (int k = 0; k < operands.size(); k++) {
            in.add(dims(inSpecs.get(k), operands.get(k).rank()));
        }
        return Partitioning.local(in, this, dims(outSpec, out.rank()));
    }

    private static List<List<String>> dims(PartitionSpec spec, int rank) {
        return spec.padTo(rank).entries();
    }
}
