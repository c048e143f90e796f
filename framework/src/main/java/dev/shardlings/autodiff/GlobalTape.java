package dev.shardlings.autodiff;

import dev.shardlings.array.NDArray;
import dev.shardlings.primitive.ArrayType;
import dev.shardlings.primitive.Binary;
import dev.shardlings.primitive.Full;
import dev.shardlings.primitive.ManualRegion;
import dev.shardlings.primitive.Primitive;
import dev.shardlings.primitive.Reshard;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.PartitionSpec;
import dev.shardlings.spmd.ShardedArray;
import dev.shardlings.spmd.Staging;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The reverse-mode engine on global arrays inside a trace: a {@link Staging.Binder} placed in front of the trace's
 * own binder (jit's), which passes every operation on and records those on live values. The backward pass binds
 * each primitive's {@link Primitive#vjp} rule into the same trace, so forward and backward are one program that jit
 * types, partitions and costs as a whole (the gradient of a batch-sharded loss gets its all-reduce from the
 * partitioner, as XLA inserts it). A shardMap region's pullback is a region too: every device runs the local engine
 * ({@link LocalTape}) on its blocks — recomputing the region's forward, where JAX would keep residuals.
 */
final class GlobalTape extends Tape<ShardedArray> implements Staging.Binder {
    private final Staging.Binder outer;

    /** @throws IllegalStateException if no trace is active (eager calls are traced by {@link Autodiff} first) */
    GlobalTape() {
        this.outer = Staging.current();
        if (outer == null) {
            throw new IllegalStateException("the global reverse-mode engine runs inside a trace");
        }
    }

    /** A fresh value standing for {@code x}, watched as a differentiated input. */
    ShardedArray input(ShardedArray x) {
        ShardedArray fresh = Staging.tracer(x.type(), x.sharding(), Objects.requireNonNull(Staging.handle(x),
                "a traced value"));
        watch(fresh);
        return fresh;
    }

    /** Runs {@code body} on the enclosing binder: bound into the trace, not recorded (a checkpointed block). */
    <R> R unrecorded(java.util.function.Supplier<R> body) {
        return Staging.run(outer, body);
    }

    /** Runs {@code body} with this tape recording. */
    <R> R recording(java.util.function.Supplier<R> body) {
        return Staging.run(this, body);
    }

    // ------------------------------------------------------------------------------------------ recording

    /**
     * A step of a vjp rule, bound into the outer trace; a step on constants only (take's one-hot of constant
     * indices) is folded, and the constant placed on the mesh beside the cotangent it meets.
     */
    @Override
    ShardedArray bindRule(Primitive q, List<Object> operands, ShardedArray out) {
        if (!operands.isEmpty() && operands.stream().allMatch(o -> o instanceof NDArray)) {
            List<NDArray> xs = new ArrayList<>();
            for (Object o : operands) {
                xs.add((NDArray) o);
            }
            return ShardedArray.devicePut(q.apply(xs), out.mesh(), PartitionSpec.P());
        }
        return outer.bind(q, operands);
    }

    @Override
    ArrayType typeOf(Object x) {
        return type(x);
    }

    private static ArrayType type(Object x) {
        if (x instanceof ShardedArray s) {
            return s.type();
        }
        NDArray a = (NDArray) x;
        return ArrayType.unsharded(a.dtype(), a.shape());
    }

    /** A shardMap region: its pullback is the region of the local engine's pullback on every device. */
    private record RegionNode(Staging.Binder outer, ManualRegion region, List<Object> inputs,
                              List<ShardedArray> outputs) implements Node<ShardedArray> {
        RegionNode {
            inputs = List.copyOf(inputs);
            outputs = List.copyOf(outputs);
        }

        @Override
        public List<ShardedArray> pullback(List<ShardedArray> outCts, boolean[] needs) {
            int n = inputs.size();
            List<Object> operands = new ArrayList<>(inputs);
            List<PartitionSpec> inSpecs = new ArrayList<>(region.inSpecs());
            List<Integer> seeded = new ArrayList<>();
            for (int k = 0; k < outCts.size(); k++) {
                if (outCts.get(k) != null) {
                    operands.add(outCts.get(k));
                    inSpecs.add(region.outSpecs().get(k));
                    seeded.add(k);
                }
            }
            List<PartitionSpec> outSpecs = new ArrayList<>();
            List<Primitive.Shaped> shapes = new ArrayList<>();
            List<Integer> wanted = new ArrayList<>();
            for (int k = 0; k < n; k++) {
                if (needs[k]) {
                    ArrayType t = type(inputs.get(k));
                    outSpecs.add(region.inSpecs().get(k));
                    shapes.add(new Primitive.Shaped(t.dtype(), t.shape()));
                    wanted.add(k);
                }
            }
            ManualRegion transposed = new ManualRegion("transpose(" + region.label() + ")", inSpecs, outSpecs,
                    blocks -> LocalTape.regionPullback(region.body(), blocks.subList(0, n), wanted,
                            seeded, blocks.subList(n, blocks.size()), region.resultCount()),
                    shapes);
            List<ShardedArray> cts = outer.bindRegion(transposed, operands);
            List<ShardedArray> result = new ArrayList<>();
            for (int k = 0; k < n; k++) {
                result.add(null);
            }
            for (int j = 0; j < wanted.size(); j++) {
                result.set(wanted.get(j), cts.get(j));
            }
            return result;
        }
    }

    @Override
    public ShardedArray bind(Primitive p, List<Object> operands) {
        ShardedArray out = outer.bind(p, operands);
        if (anyLive(operands)) {
            record(new PrimitiveNode(p, operands, List.of(out)));
        }
        return out;
    }

    @Override
    public List<ShardedArray> bindRegion(ManualRegion region, List<Object> operands) {
        List<ShardedArray> outs = outer.bindRegion(region, operands);
        if (anyLive(operands)) {
            record(new RegionNode(outer, region, operands, outs));
        }
        return outs;
    }

    // ------------------------------------------------------------------------------------------ the pass

    @Override
    ShardedArray add(ShardedArray a, ShardedArray b) {
        return outer.bind(new Binary(dev.shardlings.array.BinaryOp.ADD), List.of(a, b));
    }

    /** On Explicit axes a cotangent takes its primal's sharding (JAX types cotangents like their primals). */
    @Override
    ShardedArray fit(ShardedArray ct, Object primal) {
        ArrayType p = type(primal);
        ArrayType c = ct.type();
        Mesh mesh = p.mesh();
        if (mesh != null && mesh.hasExplicitAxes() && !c.dims().equals(p.dims())) {
            return outer.bind(new Reshard(p.spec()), List.of(ct));
        }
        return ct;
    }

    @Override
    ShardedArray zerosLike(ShardedArray primal) {
        ArrayType t = primal.type();
        Mesh mesh = primal.mesh();
        PartitionSpec spec = mesh.hasExplicitAxes() ? t.spec() : primal.sharding().spec();
        return outer.bind(new Full(t.shape(), t.dtype(), 0, mesh, spec), List.of());
    }

    @Override
    boolean differentiable(Object value) {
        return type(value).dtype().isFloating();
    }
}
