package dev.shardlings.jit;

import dev.shardlings.array.NDArray;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.NamedSharding;
import dev.shardlings.sharding.PartitionSpec;
import dev.shardlings.spmd.DeviceProgram;
import dev.shardlings.spmd.ShardedArray;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A jitted function compiled for one signature (argument shapes, dtypes and shardings): the traced program, the
 * layout chosen for every value, and the per-device program that runs it — the analogue of
 * {@code jit(f).lower(*args).compile()}. Immutable; {@link #call} may run from several threads at once.
 */
public final class Compiled {
    private final String name;
    private final Jaxpr jaxpr;
    private final Mesh mesh;
    private final DeviceProgram program;
    private final List<PartitionSpec> inSpecs;
    private final List<Object> constants;
    private final List<Integer> outputs;
    private final List<NamedSharding> outShardings;
    private final String text;
    private final CostAnalysis cost;

    Compiled(String name, Jaxpr jaxpr, Mesh mesh, DeviceProgram program, List<PartitionSpec> inSpecs,
             List<Object> constants, List<Integer> outputs, List<NamedSharding> outShardings, String text,
             CostAnalysis cost) {
        this.name = name;
        this.jaxpr = jaxpr;
        this.mesh = mesh;
        this.program = program;
        this.inSpecs = List.copyOf(inSpecs);
        this.constants = List.copyOf(constants);
        this.outputs = List.copyOf(outputs);
        this.outShardings = List.copyOf(outShardings);
        this.text = text;
        this.cost = cost;
    }

    /** The traced program (JAX's {@code jax.make_jaxpr}). */
    public Jaxpr jaxpr() {
        return jaxpr;
    }

    /** The per-device program as text, the way {@code compile().as_text()} shows the partitioned module. */
    public String asText() {
        return text;
    }

    /** {@code compiled.output_shardings}: the layout of each result. */
    public List<NamedSharding> outputShardings() {
        return outShardings;
    }

    /** {@code compiled.cost_analysis()}: FLOPs and bytes per device. */
    public CostAnalysis costAnalysis() {
        return cost;
    }

    /** The per-device program. */
    public DeviceProgram program() {
        return program;
    }

    /**
     * Runs the program on arguments of the signature it was compiled for.
     *
     * @throws NullPointerException     if args or an argument is null
     * @throws IllegalArgumentException if the number of arguments differs
     */
    public List<ShardedArray> call(List<ShardedArray> args) {
        Objects.requireNonNull(args, "args");
        if (args.size() + constants.size() != inSpecs.size()) {
            throw new IllegalArgumentException(name + " was compiled for " + (inSpecs.size() - constants.size())
                    + " arguments, got " + args.size());
        }
        List<ShardedArray> all = new ArrayList<>(args);
        for (int k = 0; k < all.size(); k++) {
            Objects.requireNonNull(all.get(k), "args[" + k + "]");
        }
        for (int k = 0; k < constants.size(); k++) {
            Object c = constants.get(k);
            all.add(c instanceof ShardedArray s ? s
                    : ShardedArray.devicePut((NDArray) c, mesh, inSpecs.get(args.size() + k)));
        }
        return program.run(mesh, all, inSpecs, outputs,
                outShardings.stream().map(NamedSharding::spec).toList(), "jit_" + name, origin());
    }

    /** The name given with {@link Jitted#named}. */
    String name() {
        return name;
    }

    /** The mesh the program runs on. */
    Mesh mesh() {
        return mesh;
    }

    /** The layout of every argument register: the parameters, then the constants. */
    List<PartitionSpec> inSpecs() {
        return inSpecs;
    }

    /** The registers the program returns. */
    List<Integer> outputRegisters() {
        return outputs;
    }

    /** The block shape of every argument register on a device. */
    List<int[]> argumentShapes() {
        return ProgramTrace.argumentShapes(mesh, jaxpr, constants, inSpecs);
    }

    /** The dtype of every argument register. */
    List<dev.shardlings.array.DType> argumentDtypes() {
        return ProgramTrace.argumentDtypes(jaxpr, constants);
    }

    /** JIT, or JIT_WITH_SHARD_MAP when the program contains a shardMap region. */
    private dev.shardlings.events.Origin origin() {
        boolean manual = program.instructions().stream().anyMatch(i -> i instanceof DeviceProgram.Region);
        return manual ? dev.shardlings.events.Origin.JIT_WITH_SHARD_MAP : dev.shardlings.events.Origin.JIT;
    }
}
