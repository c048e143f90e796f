package dev.shardlings.jit;

import dev.shardlings.array.NDArray;
import dev.shardlings.primitive.ArrayType;
import dev.shardlings.primitive.Primitive;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.NamedSharding;
import dev.shardlings.sharding.PartitionSpec;
import dev.shardlings.spmd.ShardedArray;
import dev.shardlings.spmd.Staging;

import java.util.ArrayList;
import java.util.List;

/**
 * Records a function's global-view operations as equations (JAX's tracing to a jaxpr). Each operation is typed as
 * it is recorded, so an Explicit-axes type error is raised at the line that caused it, as in JAX. Not thread-safe:
 * one tracer per trace, on the tracing thread.
 */
final class Tracer implements Staging.Binder {
    private final List<Var> inputs = new ArrayList<>();
    private final List<Equation> equations = new ArrayList<>();
    private final java.util.Set<Var> defined = new java.util.HashSet<>();
    private int next;

    /** A traced argument of this type; {@code layout} is what {@code x.sharding()} reports while tracing. */
    ShardedArray argument(ArrayType type, NamedSharding layout) {
        Var v = new Var(next++, type);
        inputs.add(v);
        defined.add(v);
        return Staging.tracer(type, layout, v);
    }

    @Override
    public ShardedArray bind(Primitive p, List<Object> operands) {
        List<Atom> atoms = new ArrayList<>(operands.size());
        for (Object o : operands) {
            atoms.add(atom(o));
        }
        ArrayType type = p.typeOf(atoms.stream().map(Atom::type).toList());
        Var out = new Var(next++, type);
        equations.add(new Equation(p, atoms, out));
        defined.add(out);
        Mesh mesh = type.mesh();
        NamedSharding layout = mesh == null ? null : new NamedSharding(mesh, trimmed(type.spec()));
        if (layout == null) {
            throw new IllegalArgumentException(p.name() + ": no operand is on a mesh; pass placed arrays to the"
                    + " jitted function");
        }
        return Staging.tracer(type, layout, out);
    }

    @Override
    public List<ShardedArray> bindRegion(dev.shardlings.primitive.ManualRegion region, List<Object> operands) {
        List<Atom> atoms = new ArrayList<>(operands.size());
        for (Object o : operands) {
            atoms.add(atom(o));
        }
        List<ArrayType> types = region.resultTypes(atoms.stream().map(Atom::type).toList());
        List<Var> outs = new ArrayList<>();
        List<ShardedArray> traced = new ArrayList<>();
        for (ArrayType t : types) {
            Var v = new Var(next++, t);
            outs.add(v);
            defined.add(v);
            traced.add(Staging.tracer(t, new NamedSharding(t.mesh(), trimmed(t.spec())), v));
        }
        equations.add(new Equation(region, atoms, outs));
        return traced;
    }

    static PartitionSpec trimmed(PartitionSpec spec) {
        List<List<String>> e = new ArrayList<>(spec.entries());
        while (!e.isEmpty() && e.get(e.size() - 1).isEmpty()) {
            e.remove(e.size() - 1);
        }
        return PartitionSpec.P(e.stream().map(x -> (Object) (x.isEmpty() ? null : x)).toArray());
    }

    /** The atom of an operand: its variable if traced here, else a constant. */
    Atom atom(Object o) {
        if (o instanceof ShardedArray s) {
            Object h = Staging.handle(s);
            if (h instanceof Var v) {
                if (!defined.contains(v)) {
                    throw new IllegalStateException("a traced value of another jit trace was used here: " + v
                            + ". Values traced inside one jitted function cannot leak into another trace; return them"
                            + " and pass them as arguments.");
                }
                return v;
            }
            if (h != null) {
                throw new IllegalStateException("a traced value of another trace was used inside jit");
            }
            return new Literal(s, s.type());
        }
        NDArray a = (NDArray) o;
        return new Literal(a, ArrayType.unsharded(a.dtype(), a.shape()));
    }

    /** The program traced so far, returning {@code outputs}. */
    Jaxpr jaxpr(List<ShardedArray> outputs) {
        List<Atom> outs = new ArrayList<>();
        for (int k = 0; k < outputs.size(); k++) {
            ShardedArray o = outputs.get(k);
            if (o == null) {
                throw new IllegalArgumentException("the jitted function returned null as output " + k);
            }
            outs.add(atom(o));
        }
        return new Jaxpr(inputs, equations, outs);
    }
}
