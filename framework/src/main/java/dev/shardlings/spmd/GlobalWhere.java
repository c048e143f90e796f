package dev.shardlings.spmd;

import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.primitive.ArrayType;
import dev.shardlings.primitive.Binary;
import dev.shardlings.primitive.Select;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.NamedSharding;
import dev.shardlings.sharding.PartitionSpec;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * {@code jnp.where} on global arrays, staged as JAX stages it (see {@link ShardedArray#where(ShardedArray,
 * ShardedArray, ShardedArray)}): one dtype for x and y, a bool condition, numpy rank promotion, and — when the
 * operands do not have one shape — broadcasting and, on Explicit axes, resharding to the sharding the broadcasting
 * rule gives, before one {@code select_n}. Arguments were checked by {@link ShardedArray}.
 */
final class GlobalWhere {

    private GlobalWhere() {
    }

    /**
     * x where the condition holds, else y; x and y are each a {@link ShardedArray} or a {@link Double} (a scalar).
     *
     * @throws IllegalArgumentException if the shapes do not broadcast
     */
    static ShardedArray where(ShardedArray condition, Object x, Object y) {
        condition.hostOnly("where");
        DType dx = x instanceof ShardedArray s ? s.dtype : null;
        DType dy = y instanceof ShardedArray s ? s.dtype : null;
        if (dx == null && dy == null) {
            dx = DType.FLOAT32;
            dy = DType.FLOAT32;
        } else if (dx == null) {
            dx = NDArray.scalarLike(dy, (Double) x).dtype();
        } else if (dy == null) {
            dy = NDArray.scalarLike(dx, (Double) y).dtype();
        }
        DType dtype = dx == dy ? dx : dx.isFloating() || dy.isFloating() ? DType.promoteTypes(dx, dy) : DType.INT32;
        ShardedArray c = condition.dtype == DType.BOOL ? condition : condition.astype(DType.BOOL);
        ShardedArray xs = x instanceof ShardedArray s ? (s.dtype == dtype ? s : s.astype(dtype)) : null;
        ShardedArray ys = y instanceof ShardedArray s ? (s.dtype == dtype ? s : s.astype(dtype)) : null;
        int rank = Math.max(c.rank(), Math.max(xs == null ? 0 : xs.rank(), ys == null ? 0 : ys.rank()));
        // a scalar condition is not broadcast: select_n takes it as it is (jnp.where broadcasts only x and y then)
        boolean scalarCondition = c.rank() == 0;
        c = c.rank() < rank && !scalarCondition ? GlobalElementwise.lift(c, rank) : c;
        xs = xs != null && xs.rank() < rank ? GlobalElementwise.lift(xs, rank) : xs;
        ys = ys != null && ys.rank() < rank ? GlobalElementwise.lift(ys, rank) : ys;
        int[] shape = new int[rank];
        for (ShardedArray a : new ShardedArray[] {scalarCondition ? null : c, xs, ys}) {
            for (int d = 0; a != null && d < rank; d++) {
                int n = a.shape[d];
                if (shape[d] <= 1) {
                    shape[d] = n;
                } else if (n != 1 && n != shape[d]) {
                    throw new IllegalArgumentException("where: shapes " + Arrays.toString(c.shape) + ", "
                            + (xs == null ? "()" : Arrays.toString(xs.shape)) + " and "
                            + (ys == null ? "()" : Arrays.toString(ys.shape)) + " do not broadcast together");
                }
            }
        }
        boolean broadcast = xs == null || ys == null || (!scalarCondition && !Arrays.equals(c.shape, shape))
                || !Arrays.equals(xs.shape, shape) || !Arrays.equals(ys.shape, shape);
        Mesh mesh = condition.mesh();
        PartitionSpec target = PartitionSpec.P();
        if (broadcast && mesh.hasExplicitAxes()) {
            List<ArrayType> types = new ArrayList<>();
            for (ShardedArray a : new ShardedArray[] {c, xs, ys}) {
                if (a == c && scalarCondition) {
                    continue;
                }
                List<List<String>> dims = new ArrayList<>();
                for (int d = 0; d < rank; d++) {
                    dims.add(a == null || a.shape[d] != shape[d] ? List.of() : a.type().dims().get(d));
                }
                types.add(new ArrayType(a == null ? dtype : a.dtype, Arrays.stream(shape).boxed().toList(), dims, mesh));
            }
            target = new ArrayType(dtype, Arrays.stream(shape).boxed().toList(),
                    Binary.broadcastingRule("broadcast_shardings", types), mesh).spec();
        }
        NamedSharding scalarSharding = new NamedSharding(mesh, target);
        ShardedArray[] ops = new ShardedArray[3];
        Object[] given = {c, xs == null ? x : xs, ys == null ? y : ys};
        for (int k = 0; k < 3; k++) {
            if (k == 0 && scalarCondition) {
                ops[0] = c;
                continue;
            }
            ShardedArray a = given[k] instanceof ShardedArray s ? s
                    : ShardedArray.filled(scalarSharding, dtype, (Double) given[k], shape);
            if (broadcast && !Arrays.equals(a.shape, shape)) {
                a = a.broadcastTo(shape);
            }
            if (broadcast && mesh.hasExplicitAxes() && !a.type().spec().equals(target)) {
                a = a.reshard(target);
            }
            ops[k] = a;
        }
        return GlobalOps.run(new Select(), List.of(GlobalOps.of(ops[0]), GlobalOps.of(ops[2]), GlobalOps.of(ops[1])));
    }
}
