package dev.shardlings.spmd;

import dev.shardlings.array.DType;
import dev.shardlings.array.NDArray;
import dev.shardlings.sharding.Device;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.NamedSharding;
import dev.shardlings.sharding.PartitionSpec;
import dev.shardlings.sharding.ShardingVisualizer;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * A global array split over the devices of a mesh: the analogue of {@code jax.Array} with a
 * {@link NamedSharding}. Each device holds one block (its {@link Shard}); devices that hold the same slice are
 * replicas of each other.
 *
 * <p>Immutable. Shards are listed in {@code mesh.devices()} order (JAX's {@code addressable_shards} order).
 * Every device keeps its own block: when a {@code shardMap} output promised replication it did not have
 * (possible only with {@code checkVma(false)}), {@link #gather()} reads replica 0 of every slice, as JAX does.
 *
 * <p>Reading the blocks ({@link #gather()}, {@link #blocks()}, {@link #addressableShards()}, {@link #shardOn},
 * {@link #perDeviceText()}) is a host operation. Inside the function passed to {@code shardMap} a device holds only
 * its own blocks, so these methods throw there: a program that read a captured global array inside the body would
 * move data between devices that no collective, and so no trace, accounts for. (JAX would copy a captured array
 * into every device as a constant; the course refuses instead, so the communication stays visible.) Pass the
 * array as an argument of the shardMap with an in spec instead; {@code P()} gives every device the whole array.
 */
public final class ShardedArray {

    /**
     * One device's block.
     *
     * @param device    the device holding it
     * @param index     which slice of the global array it is (JAX's {@code Shard.index})
     * @param replicaId rank among the devices that hold the same slice, in mesh order
     * @param data      the block, of shape {@link NamedSharding#shardShape}
     */
    public record Shard(Device device, NamedSharding.Index index, int replicaId, NDArray data) {
        /** @throws NullPointerException naming the component if device, index or data is null */
        public Shard {
            Objects.requireNonNull(device, "device");
            Objects.requireNonNull(index, "index");
            Objects.requireNonNull(data, "data");
        }

        @Override
        public String toString() {
            return "Shard(device=" + device + ", index=" + index + ", replica_id=" + replicaId + ", data="
                    + data + ")";
        }
    }

    private final int[] shape;
    private final DType dtype;
    private final NamedSharding sharding;
    private final List<Shard> shards;

    private ShardedArray(int[] shape, DType dtype, NamedSharding sharding, List<Shard> shards) {
        this.shape = shape;
        this.dtype = dtype;
        this.sharding = sharding;
        this.shards = List.copyOf(shards);
    }

    /**
     * Places a whole array on the mesh: each device gets the block that {@code sharding} assigns to it
     * (JAX's {@code jax.device_put(x, sharding)}).
     *
     * @throws NullPointerException     if an argument is null
     * @throws IllegalArgumentException if the spec is longer than x's rank, or a sharded dimension is not
     *                                  divisible by its number of parts (JAX's IndivisibleError text)
     */
    public static ShardedArray devicePut(NDArray x, NamedSharding sharding) {
        Objects.requireNonNull(x, "x");
        Objects.requireNonNull(sharding, "sharding");
        int[] shape = x.shape();
        try {
            sharding.shardShape(shape); // validates rank and divisibility with JAX's messages
        } catch (dev.shardlings.sharding.IndivisibleException e) {
            throw e;
        } catch (IllegalArgumentException e) {
            // JAX's device_put wraps the rank error in one more sentence (jax-semantics.md §2.4).
            throw new IllegalArgumentException("One of device_put args is incompatible with its sharding annotation "
                    + sharding + ": " + e.getMessage(), e);
        }
        List<Shard> shards = new ArrayList<>();
        int[] replicaIds = sharding.replicaIds(shape);
        List<Device> devices = sharding.mesh().devices();
        for (int p = 0; p < devices.size(); p++) {
            NamedSharding.Index index = sharding.index(devices.get(p), shape);
            shards.add(new Shard(devices.get(p), index, replicaIds[p], sliceOf(x, index)));
        }
        return new ShardedArray(shape, x.dtype(), sharding, shards);
    }

    /** {@code devicePut(x, new NamedSharding(mesh, spec))}. */
    public static ShardedArray devicePut(NDArray x, Mesh mesh, PartitionSpec spec) {
        return devicePut(x, new NamedSharding(mesh, spec));
    }

    /**
     * Builds an array from one block per device (in {@code mesh.devices()} order), as shardMap does for its
     * outputs. Every block must have the sharding's shard shape for {@code globalShape} and the same dtype.
     *
     * @throws NullPointerException     if an argument or a block is null (the message names it, e.g. blocks[2])
     * @throws IllegalArgumentException if the number of blocks, a block's shape or a dtype does not fit
     */
    public static ShardedArray fromDeviceBlocks(NamedSharding sharding, int[] globalShape, List<NDArray> blocks) {
        Objects.requireNonNull(sharding, "sharding");
        Objects.requireNonNull(globalShape, "globalShape");
        Objects.requireNonNull(blocks, "blocks");
        for (int i = 0; i < blocks.size(); i++) {
            Objects.requireNonNull(blocks.get(i), "blocks[" + i + "]");
        }
        List<Device> devices = sharding.mesh().devices();
        if (blocks.size() != devices.size()) {
            throw new IllegalArgumentException("expected one block per device (" + devices.size()
                    + " devices in the mesh), got " + blocks.size());
        }
        int[] shardShape = sharding.shardShape(globalShape);
        DType dtype = blocks.get(0).dtype();
        List<Shard> shards = new ArrayList<>(devices.size());
        int[] replicaIds = sharding.replicaIds(globalShape);
        List<NamedSharding.Index> indices = sharding.indices(globalShape);
        for (int i = 0; i < devices.size(); i++) {
            NDArray b = blocks.get(i);
            if (!Arrays.equals(b.shape(), shardShape)) {
                throw new IllegalArgumentException("block of device " + devices.get(i).id() + " has shape "
                        + Arrays.toString(b.shape()) + " but " + sharding + " needs shard shape "
                        + Arrays.toString(shardShape) + " for the global shape " + Arrays.toString(globalShape));
            }
            if (b.dtype() != dtype) {
                throw new IllegalArgumentException("blocks have different dtypes: " + dtype.jaxName() + " on device "
                        + devices.get(0).id() + ", " + b.dtype().jaxName() + " on device " + devices.get(i).id());
            }
            shards.add(new Shard(devices.get(i), indices.get(i), replicaIds[i], b.withVaryingAxes(Set.of())));
        }
        return new ShardedArray(globalShape.clone(), dtype, sharding, shards);
    }

    private static NDArray sliceOf(NDArray x, NamedSharding.Index index) {
        NDArray block = x;
        List<NamedSharding.Slice> slices = index.slices();
        for (int dim = 0; dim < slices.size(); dim++) {
            NamedSharding.Slice s = slices.get(dim);
            if (!s.full()) {
                block = block.slice(dim, s.start(), s.stop());
            }
        }
        return block;
    }

    /** The global shape (copy). */
    public int[] shape() {
        return shape.clone();
    }

    /** The global rank. */
    public int rank() {
        return shape.length;
    }

    /** The element type. */
    public DType dtype() {
        return dtype;
    }

    /** How the array is laid out on the mesh. */
    public NamedSharding sharding() {
        return sharding;
    }

    /** The mesh the array lives on. */
    public Mesh mesh() {
        return sharding.mesh();
    }

    /** The partition spec of the sharding. */
    public PartitionSpec spec() {
        return sharding.spec();
    }

    /**
     * Refuses a read of the global array on a device thread (see the class comment).
     *
     * @throws IllegalStateException inside a shardMap function
     */
    private void hostOnly(String method) {
        DeviceContext ctx = DeviceContext.current();
        if (ctx != null) {
            throw new IllegalStateException("ShardedArray." + method + " was called inside the function passed to"
                    + " shardMap, on device " + ctx.device.id() + " at mesh coordinates "
                    + Exchange.coordsText(ctx.mesh, ctx.device) + ". Inside shardMap each device holds only its own"
                    + " blocks; reading a global array captured from outside would move data that no collective"
                    + " accounts for. Pass " + this + " to shardMap as an argument with an in spec (P() gives every"
                    + " device the whole array), or read it on the host before or after the shardMap call.");
        }
    }

    /**
     * One shard per device, in {@code mesh.devices()} order (JAX's {@code addressable_shards}).
     *
     * @throws IllegalStateException inside a shardMap function (a host operation)
     */
    public List<Shard> addressableShards() {
        hostOnly("addressableShards()");
        return shards;
    }

    /**
     * The shard held by {@code device}.
     *
     * @throws IllegalArgumentException if the device is not in the mesh
     * @throws IllegalStateException    inside a shardMap function (a host operation)
     */
    public Shard shardOn(Device device) {
        hostOnly("shardOn(device)");
        for (Shard s : shards) {
            if (s.device().equals(device)) {
                return s;
            }
        }
        throw new IllegalArgumentException(device + " is not a device of " + sharding.mesh());
    }

    /**
     * The block of every device, in mesh order.
     *
     * @throws IllegalStateException inside a shardMap function (a host operation)
     */
    public List<NDArray> blocks() {
        hostOnly("blocks()");
        return shards.stream().map(Shard::data).toList();
    }

    /**
     * Assembles the whole array on the host from replica 0 of every slice (JAX's {@code np.asarray(x)}).
     * Allocates one array of the global shape.
     *
     * @throws IllegalStateException inside a shardMap function (a host operation)
     */
    public NDArray gather() {
        hostOnly("gather()");
        List<Shard> primaries = shards.stream().filter(s -> s.replicaId() == 0).toList();
        return assemble(primaries, 0);
    }

    // Recursively concatenates blocks: along dim, blocks are ordered by their slice start.
    private NDArray assemble(List<Shard> parts, int dim) {
        if (dim == shape.length) {
            return parts.get(0).data();
        }
        java.util.TreeMap<Integer, List<Shard>> byStart = new java.util.TreeMap<>();
        for (Shard s : parts) {
            NamedSharding.Slice sl = s.index().slices().get(dim);
            byStart.computeIfAbsent(sl.full() ? 0 : sl.start(), k -> new ArrayList<>()).add(s);
        }
        if (byStart.size() == 1) {
            return assemble(parts, dim + 1);
        }
        List<NDArray> pieces = new ArrayList<>();
        for (List<Shard> group : byStart.values()) {
            pieces.add(assemble(group, dim + 1));
        }
        return NDArray.concat(dim, pieces);
    }

    /**
     * Every device's block, in mesh order, in the layout JAX uses when a shard_map body prints its argument
     * eagerly (jax-semantics.md §5.4):
     * <pre>
     * On cpu:0 at mesh coordinates (i,) = (0,):
     * [3 1 4 1]
     * </pre>
     * Blocks are separated by a blank line. Useful to see what each device holds.
     *
     * @throws IllegalStateException inside a shardMap function (a host operation)
     */
    public String perDeviceText() {
        hostOnly("perDeviceText()");
        Mesh mesh = sharding.mesh();
        StringBuilder names = new StringBuilder("(");
        for (String a : mesh.axisNames()) {
            names.append(a).append(", ");
        }
        String axes = names.substring(0, names.length() - 1) + ")";
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < shards.size(); i++) {
            Shard s = shards.get(i);
            if (i > 0) {
                sb.append('\n');
            }
            List<Integer> c = s.device().coords();
            StringBuilder coords = new StringBuilder("(");
            for (int k = 0; k < c.size(); k++) {
                coords.append(k > 0 ? ", " : "").append(c.get(k));
            }
            coords.append(c.size() == 1 ? ",)" : ")");
            sb.append("On ").append(s.device().label()).append(" at mesh coordinates ").append(axes).append(" = ")
                    .append(coords).append(":\n").append(s.data()).append('\n');
        }
        return sb.toString();
    }

    /**
     * The text picture of how this array is laid out, as {@code jax.debug.visualize_array_sharding} prints it
     * (monochrome). Only rank 1 and 2 arrays can be drawn.
     *
     * @throws IllegalArgumentException for other ranks
     */
    public String visualize() {
        return ShardingVisualizer.visualizeSharding(shape, sharding);
    }

    /** A short description, e.g. {@code ShardedArray(f32[8, 4], NamedSharding(mesh=..., spec=P('x', 'y')))}. */
    @Override
    public String toString() {
        return "ShardedArray(" + dtype.shortName() + Arrays.toString(shape) + ", " + sharding + ")";
    }
}
