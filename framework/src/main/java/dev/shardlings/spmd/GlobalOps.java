package dev.shardlings.spmd;

import dev.shardlings.array.NDArray;
import dev.shardlings.primitive.ArrayType;
import dev.shardlings.primitive.Full;
import dev.shardlings.primitive.Primitive;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.NamedSharding;
import dev.shardlings.sharding.PartitionSpec;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Runs one {@link Primitive} on global arrays, eagerly, as a one-operation program on the mesh ("computation
 * follows sharding"): the result's layout comes from the typing rule on Explicit axes (or the Auto rule), the
 * primitive's {@link Partitioning} says what each device computes, and the work runs as one shardMap over the
 * mesh, so its collectives are traced and costed like a hand-written program's. Package-private: the public API
 * is {@link ShardedArray}'s global-view methods.
 */
final class GlobalOps {
    private GlobalOps() {
    }

    /** An operand: a placed array, or a whole array on no mesh (uncommitted, e.g. a constant). */
    sealed interface Operand permits Placed, Unplaced {
    }

    record Placed(ShardedArray array) implements Operand {
    }

    record Unplaced(NDArray array) implements Operand {
    }

    static Operand of(ShardedArray a) {
        return new Placed(a);
    }

    static Operand of(NDArray a) {
        return new Unplaced(a);
    }

    /**
     * Runs {@code p} with {@code x} as its first operand (then {@code more}), as a host operation.
     *
     * @throws IllegalStateException inside a shardMap function
     */
    static ShardedArray apply(ShardedArray x, Primitive p, Operand... more) {
        x.hostOnly(p.name());
        List<Operand> operands = new ArrayList<>();
        operands.add(of(x));
        operands.addAll(Arrays.asList(more));
        return run(p, operands);
    }

    /**
     * The result type of {@code p} on these operands (JAX's abstract evaluation, sharding in types).
     *
     * @throws dev.shardlings.primitive.ShardingTypeError as the primitive's typing rule says
     */
    static ArrayType typeOf(Primitive p, List<Operand> operands) {
        return p.typeOf(operands.stream().map(GlobalOps::type).toList());
    }

    private static ArrayType type(Operand o) {
        if (o instanceof Placed p) {
            return p.array().type();
        }
        NDArray u = ((Unplaced) o).array();
        return ArrayType.unsharded(u.dtype(), u.shape());
    }

    /** The operand's layout: its sharding with every mesh axis, Auto ones included. */
    private static ArrayType layout(Operand o, Mesh mesh) {
        if (o instanceof Placed p) {
            return ArrayType.layoutOf(p.array().dtype(), p.array().shape(), p.array().sharding());
        }
        NDArray u = ((Unplaced) o).array();
        return ArrayType.layoutOf(u.dtype(), u.shape(), new NamedSharding(mesh, PartitionSpec.P()));
    }

    /**
     * Runs {@code p}: types it, chooses the result's layout, and runs its partitioning on every device.
     *
     * @throws dev.shardlings.primitive.ShardingTypeError when the typing rule refuses (Explicit axes)
     * @throws IllegalArgumentException when no operand is on a mesh and the primitive names none, or the shapes do
     *                                  not fit the primitive
     */
    static ShardedArray run(Primitive p, List<Operand> given) {
        Staging.Binder binder = Staging.current();
        if (binder != null) {
            return binder.bind(p, given.stream()
                    .map(o -> o instanceof Placed pl ? (Object) pl.array() : ((Unplaced) o).array()).toList());
        }
        DeviceAssignment.OneMesh oneMesh = DeviceAssignment.onOneMesh(p.name(), given);
        List<Operand> operands = oneMesh.operands();
        ArrayType type = typeOf(p, operands);
        Mesh mesh = type.mesh();
        if (mesh == null) {
            throw new IllegalArgumentException(p.name() + ": no operand is on a mesh; compute with NDArray, or place an"
                    + " operand first with ShardedArray.devicePut");
        }
        List<ArrayType> layouts = operands.stream().map(o -> layout(o, mesh)).toList();
        List<List<String>> outDims = mesh.allAxesExplicit() ? type.dims()
                : p.autoRule(layouts, new Primitive.Shaped(type.dtype(), type.shape()), mesh);
        ArrayType out = new ArrayType(type.dtype(), type.shape(), outDims, mesh);
        // JAX prints result shardings without trailing Nones (P('X',) for f32[8@X,8]).
        List<List<String>> trimmed = new ArrayList<>(outDims);
        while (!trimmed.isEmpty() && trimmed.get(trimmed.size() - 1).isEmpty()) {
            trimmed.remove(trimmed.size() - 1);
        }
        // A creation's out_sharding is kept as written (jnp.zeros(…, out_sharding=P('Y', None)) prints P('Y', None)).
        PartitionSpec outSpec = p instanceof Full f ? f.outSharding()
                : PartitionSpec.P(trimmed.stream().map(e -> (Object) (e.isEmpty() ? null : e)).toArray());
        NamedSharding outSharding = new NamedSharding(mesh, outSpec);
        outSharding.shardShape(out.shapeArray()); // an indivisible layout fails here, with JAX's text
        DeviceProgram.Builder b = new DeviceProgram.Builder(mesh, operands.size());
        List<Integer> inputs = new ArrayList<>();
        List<ShardedArray> args = new ArrayList<>();
        List<PartitionSpec> inSpecs = new ArrayList<>();
        for (int k = 0; k < operands.size(); k++) {
            inputs.add(k);
            ShardedArray a = operands.get(k) instanceof Placed pl ? pl.array()
                    : ShardedArray.devicePut(((Unplaced) operands.get(k)).array(), mesh, PartitionSpec.P());
            args.add(a);
            inSpecs.add(layouts.get(k).spec());
        }
        int result = b.equation(p, inputs, layouts, out);
        return oneMesh.resultOn(b.build().run(mesh, args, inSpecs, List.of(result), List.of(outSpec), p.name(),
                dev.shardlings.events.Origin.GLOBAL_OP).get(0));
    }
}
