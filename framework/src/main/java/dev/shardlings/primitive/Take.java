package dev.shardlings.primitive;

import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.sharding.Mesh;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code jnp.take(x, indices, axis)} — a gather of whole slices along one dimension: x[I, J] with int32 indices
 * [K] along axis 0 → [K, J]; a rank-0 index removes the dimension ({@code x[i]}).
 *
 * <p>Typing (JAX's {@code _gather_sharding_rule}): the gathered dimension of x and the indices must be replicated;
 * the result keeps x's other shardings (replicated in the index dimensions). A sharded gathered dimension is a
 * {@link ShardingTypeError} asking for {@code .at[...].get(out_sharding=)} — the indices could point anywhere, so the
 * compiler cannot tell which device holds the rows. Partitioning: local on every device.
 *
 * @param axis the dimension of x indexed
 */
public record Take(int axis) implements Primitive {

    @Override
    public String name() {
        return "gather";
    }

    @Override
    public Shaped abstractEval(List<ArrayType> operands) {
        Typing.arity(this, operands, 2);
        ArrayType x = operands.get(0);
        ArrayType idx = operands.get(1);
        if (axis < 0 || axis >= x.rank()) {
            throw new IllegalArgumentException("axis " + axis + " is out of bounds for array of dimension " + x.rank());
        }
        if (idx.dtype() != DType.INT32 || idx.rank() > 1) {
            throw new IllegalArgumentException("take: indices must be an int32 scalar or vector, got " + idx);
        }
        List<Integer> shape = new ArrayList<>(x.shape().subList(0, axis));
        shape.addAll(idx.shape());
        shape.addAll(x.shape().subList(axis + 1, x.rank()));
        return new Shaped(x.dtype(), shape);
    }

    @Override
    public List<List<String>> shardingRule(List<ArrayType> operands, Shaped out, Mesh mesh) {
        ArrayType x = operands.get(0);
        ArrayType idx = operands.get(1);
        if (x.isReplicated() && idx.isReplicated()) {
            return Specs.replicated(out.shape().size());
        }
        if (!x.dims().get(axis).isEmpty() && x.shape().get(axis) != 1 || !idx.isReplicated()) {
            List<Integer> ishape = new ArrayList<>(idx.shape());
            ishape.add(1);
            List<List<String>> idims = new ArrayList<>(idx.dims());
            idims.add(Specs.NONE);
            ArrayType gatherIndices = new ArrayType(idx.dtype(), ishape, idims, idx.mesh());
            throw new ShardingTypeError("Use `.at[...].get(out_sharding=)` to provide output PartitionSpec for the"
                    + " gather indexing as out sharding could not be resolved unambiguously (or would require"
                    + " collectives on inputs). Got operand=" + x.shapedArrayString() + ", indices="
                    + gatherIndices.shapedArrayString());
        }
        return dims(x.dims(), idx.rank());
    }

    private List<List<String>> dims(List<List<String>> x, int indexRank) {
        List<List<String>> out = new ArrayList<>(x.subList(0, axis));
        for (int k = 0; k < indexRank; k++) {
            out.add(Specs.NONE);
        }
        out.addAll(x.subList(axis + 1, x.size()));
        return out;
    }

    /**
     * The operand's cotangent is the cotangent scattered back and added at the taken positions — here a
     * contraction with the indices' one-hot matrix (XLA uses a scatter-add; the values are the same, the FLOPs
     * are those of the contraction). The indices get none.
     */
    @Override
    public <T> List<T> vjp(Vjp<T> v) {
        List<T> out = Vjp.cotangents(2);
        ArrayType x = v.operandType(0);
        if (!v.needs(0) || !x.dtype().isFloating()) {
            return out;
        }
        int r = v.operandType(1).rank();
        int n = x.shape().get(axis);
        // a negative index counts from the end (as take reads it); one_hot would give it a zero row
        Object idx = v.operand(1);
        T wrapped = v.bind(new Select(), v.bind(new Compare(dev.shardlings.array.CompareOp.LT), idx,
                NDArray.scalar(0)), idx, v.bind(new Binary(dev.shardlings.array.BinaryOp.ADD), idx, NDArray.scalar(n)));
        T hot = v.bind(new OneHot(n), wrapped);
        List<Integer> gContract = new ArrayList<>();
        List<Integer> hContract = new ArrayList<>();
        for (int k = 0; k < r; k++) {
            gContract.add(axis + k);
            hContract.add(k);
        }
        T summed = v.bind(new DotGeneral(gContract, hContract, List.of(), List.of(), null), v.ct(), hot);
        // summed is [x dims but axis..., n]: move n back to axis
        List<Integer> perm = new ArrayList<>();
        for (int d = 0; d < x.rank(); d++) {
            perm.add(d < axis ? d : d == axis ? x.rank() - 1 : d - 1);
        }
        boolean identity = axis == x.rank() - 1;
        out.set(0, identity ? summed : v.bind(new Transpose(perm), summed));
        return out;
    }

    @Override
    public NDArray apply(List<NDArray> operands) {
        NDArray x = operands.get(0);
        NDArray idx = operands.get(1);
        if (idx.rank() == 0) {
            return x.take(idx.reshape(1), axis).squeeze(axis);
        }
        return x.take(idx, axis);
    }

    @Override
    public Partitioning partition(List<ArrayType> operands, ArrayType out) {
        ArrayType x = operands.get(0);
        ArrayType idx = operands.get(1);
        List<List<String>> need = new ArrayList<>(x.dims());
        need.set(axis, Specs.NONE);
        return Partitioning.local(List.of(need, Specs.replicated(idx.rank())), this, dims(need, idx.rank()));
    }
}
