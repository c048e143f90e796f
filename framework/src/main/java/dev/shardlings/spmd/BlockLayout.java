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
    /** Per out spec, its sharding (which caches layouts by shape) and mentioned axes. */
    private final NamedSharding[] outShardings;
    private final List<Set<String>> outMentioned;
    /** Per in spec, the axes its blocks vary over. */
    private final List<Set<String>> inMentioned;

    /**
     * @throws IllegalArgumentException if a spec names an axis the mesh does not have, or an axis twice
     */
    BlockLayout(Mesh mesh, List<PartitionSpec> inSpecs, List<PartitionSpec> outSpecs) {
        for (PartitionSpec s : inSpecs) {
            ShardMapErrors.checkSpecAxes(mesh, s, "in_specs");
        }
        for (PartitionSpec s : outSpecs) {
            ShardMapErrors.checkSpecAxes(mesh, s, "out_specs");
        }
        this.mesh = mesh;
        this.inSpecs = inSpecs;
        this.outSpecs = outSpecs;
        this.outShardings = outSpecs.stream().map(sp -> new NamedSharding(mesh, sp)).toArray(NamedSharding[]::new);
        this.outMentioned = outSpecs.stream().map(sp -> Set.copyOf(sp.mentionedAxes())).toList();
        this.inMentioned = inSpecs.stream().map(sp -> Set.copyOf(sp.mentionedAxes())).toList();
    }

    /**
     * The blocks of argument {@code i}, one per device in mesh order, typed as varying over the axes its spec
     * mentions. An array already laid out by the spec on this mesh is used as is; any other is gathered and laid
     * out by the spec (as JAX reshards over Auto axes).
     *
     * @throws IllegalArgumentException with JAX's text if the spec is longer than the argument's rank or does not
     *                                  divide a dimension
     */
    List<NDArray> argumentBlocks(String name, int i, ShardedArray x) {
        PartitionSpec spec = inSpecs.get(i);
        ShardMapErrors.checkArgument(name, mesh, i, spec, x.dtype(), x.shape());
        boolean laidOut = x.mesh().equals(mesh) && x.spec().isEquivalentTo(spec);
        return blocks(i, laidOut ? x : ShardedArray.devicePut(x.gather(), new NamedSharding(mesh, spec)));
    }

    /**
     * The blocks of argument {@code i} given as a whole array, first laid out by its spec
     * ({@code jax.device_put(x, NamedSharding(mesh, spec))}).
     *
     * @throws IllegalArgumentException as {@link #argumentBlocks(String, int, ShardedArray)}
     */
    List<NDArray> argumentBlocks(String name, int i, NDArray x) {
        PartitionSpec spec = inSpecs.get(i);
        ShardMapErrors.checkArgument(name, mesh, i, spec, x.dtype(), x.shape());
        return blocks(i, ShardedArray.devicePut(x, new NamedSharding(mesh, spec)));
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
     *                                  or dtype than device 0
     * @throws IllegalArgumentException with JAX's text if an out spec is longer than its output's rank, or (when
     *                                  {@code checkVma}) an output varies over an axis its out spec leaves out
     */
    List<ShardedArray> assemble(String name, boolean checkVma, List<List<NDArray>> outputs) {
        int n = outputs.size();
        for (int d = 0; d < n; d++) {
            ShardMapErrors.checkOutputCount(mesh, d, outputs.get(d).size(), outSpecs.size());
        }
        List<ShardedArray> result = new ArrayList<>(outSpecs.size());
        for (int j = 0; j < outSpecs.size(); j++) {
            PartitionSpec spec = outSpecs.get(j);
            NDArray ref = outputs.get(0).get(j);
            DType dtype = ref.dtype();
            int[] local = ref.shape();
            List<NDArray> blocks = new ArrayList<>(n);
            Set<String> varying = new LinkedHashSet<>();
            for (int d = 0; d < n; d++) {
                NDArray b = outputs.get(d).get(j);
                ShardMapErrors.checkSameType(mesh, j, dtype, local, d, b.dtype(), b.shape());
                varying.addAll(b.varyingAxes());
                blocks.add(b);
            }
            ShardMapErrors.checkOutputRank(name, spec, dtype, local);
            if (checkVma && !outMentioned.get(j).containsAll(varying)) {
                ShardMapErrors.checkReplication(name, mesh, spec, varying);
            }
            int[] global = local.clone();
            for (int dim = 0; dim < spec.length(); dim++) {
                List<String> axes = spec.axesAt(dim);
                if (!axes.isEmpty()) {
                    global[dim] = local[dim] * mesh.axisSize(axes);
                }
            }
            result.add(ShardedArray.fromDeviceBlocks(outShardings[j], global, blocks));
        }
        return result;
    }
}
