package dev.shardlings.spmd;

import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.NamedSharding;
import dev.shardlings.sharding.PartitionSpec;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * How a shardMap's arguments become device blocks and its device blocks become global outputs (jax-semantics.md
 * §5.1, §5.2). Depends on the mesh and the specs only, so one layout serves every copy of a shardMap (checkVma,
 * named, collectiveTimeout) and caches what repeats: each out spec's sharding and the axes every spec mentions.
 * Immutable.
 */
final class BlockLayout {

    final Mesh mesh;
    final List<PartitionSpec> inSpecs;
    final List<PartitionSpec> outSpecs;
    /** Whether the specs were given as lists (JAX: tuples, whose entries messages name as in_specs[i]). */
    private final boolean inAsList;
    private final boolean outAsList;
    /** Per out spec, its sharding (which caches layouts by shape) and mentioned axes. */
    private final NamedSharding[] outShardings;
    private final List<Set<String>> outMentioned;
    /** Per in spec, the axes its blocks vary over. */
    private final List<Set<String>> inMentioned;

    /**
     * @throws IllegalArgumentException if a spec names an axis the mesh does not have, or an axis twice
     */
    BlockLayout(Mesh mesh, List<PartitionSpec> inSpecs, boolean inAsList, List<PartitionSpec> outSpecs,
                boolean outAsList) {
        for (PartitionSpec s : inSpecs) {
            ShardMapErrors.checkSpecAxes(mesh, s, "in_specs");
        }
        for (PartitionSpec s : outSpecs) {
            ShardMapErrors.checkSpecAxes(mesh, s, "out_specs");
        }
        this.mesh = mesh;
        this.inSpecs = inSpecs;
        this.outSpecs = outSpecs;
        this.inAsList = inAsList;
        this.outAsList = outAsList;
        this.outShardings = outSpecs.stream().map(sp -> new NamedSharding(mesh, sp)).toArray(NamedSharding[]::new);
        this.outMentioned = outSpecs.stream().map(sp -> Set.copyOf(sp.mentionedAxes())).toList();
        this.inMentioned = inSpecs.stream().map(sp -> Set.copyOf(sp.mentionedAxes())).toList();
    }

    /**
     * The blocks of every argument: per argument, one block per device in mesh order, typed as varying over the
     * axes its spec mentions. An array already laid out by its spec on this mesh is used as is; any other is
     * gathered and laid out by the spec (as JAX reshards over Auto axes).
     *
     * @param args one per in spec (the caller has checked the count and nulls)
     * @throws IllegalArgumentException with JAX's text if a spec is longer than its argument's rank or does not
     *                                  divide a dimension
     */
    List<List<NDArray>> argumentBlocks(String name, List<ShardedArray> args) {
        ShardMapErrors.checkArguments(name, mesh, inSpecs, inAsList, args.stream().map(ShardedArray::dtype).toList(),
                args.stream().map(ShardedArray::shape).toList());
        List<List<NDArray>> out = new ArrayList<>(args.size());
        for (int i = 0; i < args.size(); i++) {
            ShardedArray x = args.get(i);
            PartitionSpec spec = inSpecs.get(i);
            boolean laidOut = x.mesh().sameDevicesAs(mesh) && x.spec().isEquivalentTo(spec);
            out.add(blocks(i, laidOut ? x : ShardedArray.devicePut(x.gather(), new NamedSharding(mesh, spec))));
        }
        return out;
    }

    /**
     * The blocks of every argument given as a whole array, first laid out by its spec
     * ({@code jax.device_put(x, NamedSharding(mesh, spec))}).
     *
     * @throws IllegalArgumentException as {@link #argumentBlocks(String, List)}
     */
    List<List<NDArray>> wholeArgumentBlocks(String name, List<NDArray> args) {
        ShardMapErrors.checkArguments(name, mesh, inSpecs, inAsList, args.stream().map(NDArray::dtype).toList(),
                args.stream().map(NDArray::shape).toList());
        List<List<NDArray>> out = new ArrayList<>(args.size());
        for (int i = 0; i < args.size(); i++) {
            out.add(blocks(i, ShardedArray.devicePut(args.get(i), new NamedSharding(mesh, inSpecs.get(i)))));
        }
        return out;
    }

    private List<NDArray> blocks(int i, ShardedArray placed) {
        Set<String> varying = inMentioned.get(i);
        List<ShardedArray.Shard> shards = placed.addressableShards();
        List<NDArray> out = new ArrayList<>(shards.size());
        for (ShardedArray.Shard sh : shards) {
            out.add(sh.data().withVaryingAxes(varying));
        }
        return out;
    }

    /**
     * The global outputs from every device's output blocks: output j's global shape is the block shape times the
     * number of parts of each dimension of out spec j.
     *
     * @param outputs per device (mesh order), its output blocks
     * @throws IllegalStateException    if a device returned another number of outputs, or blocks of another shape
     *                                  or dtype, than device 0
     * @throws IllegalArgumentException with JAX's texts if device 0 returned another number of outputs than there
     *                                  are out specs, an out spec is longer than its output's rank, or (when
     *                                  {@code checkVma}) an output varies over an axis its out spec leaves out
     */
    List<ShardedArray> assemble(String name, boolean checkVma, List<List<NDArray>> outputs) {
        int n = outputs.size();
        ShardMapErrors.checkOutputCount(mesh, outputs, outSpecs.size());
        int m = outSpecs.size();
        List<DType> dtypes = new ArrayList<>(m);
        List<int[]> shapes = new ArrayList<>(m);
        List<Set<String>> varying = new ArrayList<>(m);
        boolean replicationToCheck = false;
        for (int j = 0; j < m; j++) {
            NDArray ref = outputs.get(0).get(j);
            int[] shape0 = ref.shape();
            Set<String> vma = new LinkedHashSet<>();
            for (int d = 0; d < n; d++) {
                NDArray b = outputs.get(d).get(j);
                ShardMapErrors.checkSameType(mesh, j, ref.dtype(), shape0, d, b.dtype(), b.shape());
                vma.addAll(b.varyingAxes());
            }
            dtypes.add(ref.dtype());
            shapes.add(shape0);
            varying.add(vma);
            replicationToCheck |= !outMentioned.get(j).containsAll(vma);
        }
        ShardMapErrors.checkOutputRanks(name, mesh, outSpecs, outAsList, checkVma, dtypes, shapes, varying);
        if (checkVma && replicationToCheck) {
            ShardMapErrors.checkReplication(name, mesh, outSpecs, outAsList, varying);
        }
        List<ShardedArray> result = new ArrayList<>(m);
        for (int j = 0; j < m; j++) {
            PartitionSpec spec = outSpecs.get(j);
            int[] global = shapes.get(j).clone();
            for (int dim = 0; dim < spec.length(); dim++) {
                List<String> axes = spec.axesAt(dim);
                if (!axes.isEmpty()) {
                    global[dim] *= mesh.axisSize(axes);
                }
            }
            List<NDArray> blocks = new ArrayList<>(n);
            for (int d = 0; d < n; d++) {
                blocks.add(outputs.get(d).get(j));
            }
            result.add(ShardedArray.fromDeviceBlocks(outShardings[j], global, blocks));
        }
        return result;
    }
}
