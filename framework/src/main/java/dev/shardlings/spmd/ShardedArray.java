package dev.shardlings.spmd;

import dev.shardlings.array.BinaryOp;
import dev.shardlings.array.CompareOp;
import dev.shardlings.array.DType;
import dev.shardlings.array.KeepDims;
import dev.shardlings.array.NDArray;
import dev.shardlings.array.ReduceOp;
import dev.shardlings.array.UnaryOp;
import dev.shardlings.primitive.ArrayType;
import dev.shardlings.primitive.Binary;
import dev.shardlings.primitive.Compare;
import dev.shardlings.primitive.ConvertType;
import dev.shardlings.primitive.DotGeneral;
import dev.shardlings.primitive.Full;
import dev.shardlings.primitive.OneHot;
import dev.shardlings.primitive.Primitive;
import dev.shardlings.primitive.Reshape;
import dev.shardlings.primitive.Reshard;
import dev.shardlings.primitive.ShardingConstraint;
import dev.shardlings.primitive.Slice;
import dev.shardlings.primitive.Take;
import dev.shardlings.primitive.Unary;
import dev.shardlings.sharding.AxisType;
import dev.shardlings.sharding.Device;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.NamedSharding;
import dev.shardlings.sharding.PartitionSpec;
import dev.shardlings.sharding.ShardingVisualizer;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
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
 *
 * <h2>Global-view operations</h2>
 * The methods from {@link #sin()} on compute on the whole array the way {@code jax.numpy} does on a
 * {@code jax.Array}: each runs one {@link Primitive} eagerly as a one-operation program over the mesh
 * ("computation follows sharding"), as a shardMap whose collectives are traced like a hand-written one.
 * <ul>
 *   <li>On a mesh whose axes are Explicit ({@link Mesh#makeMesh(int[], String...)}'s default, as in JAX 0.10.2)
 *       the result's sharding is given by the primitive's typing rule ({@link #type()} prints it as
 *       {@code jax.typeof} does, {@code float32[8@X,4@Y]}); where the rule finds the sharding ambiguous or
 *       unsupported the method throws {@link dev.shardlings.primitive.ShardingTypeError} with JAX's text, and the
 *       program must say what it wants ({@code outSharding} arguments, {@link #reshard}).</li>
 *   <li>On Auto axes the result's layout follows the same rules where they answer and otherwise the compiler's
 *       choice ({@link Primitive#autoRule}); nothing is a type error.</li>
 *   <li>A whole {@link NDArray} operand is an uncommitted array: it is placed replicated on the other operand's
 *       mesh.</li>
 *   <li>Two placed operands are committed arrays: they must live on the same devices in the same order (the
 *       mesh's flat order), else {@link IllegalArgumentException} with JAX's "Received incompatible devices for
 *       jitted computation. Got argument x of add with shape int32[24] and with device ids [0, 1, 2, 3] on platform
 *       CPU and argument y of add …", naming the {@code jax.numpy} function the method mirrors and its
 *       parameters (x and y; x1 and x2 for {@code true_divide}; a and b for {@code matmul}; condition, x, y for
 *       {@code _where}; args[k] for {@code concatenate} and {@code dot_general}; operands[k] for
 *       {@code _einsum}).</li>
 * </ul>
 * These methods are host operations: inside a shardMap body work on the blocks instead.
 */
public final class ShardedArray {

    // jnp.where's and jnp.matmul's parameter names, which JAX's incompatible-devices error prints
    private static final String[] WHERE_NAMES = {"condition", "x", "y"};
    private static final String[] MATMUL_NAMES = {"a", "b"};

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

    /** Read (never written) by the op families of this package. */
    final int[] shape;
    final DType dtype;
    private final NamedSharding sharding;
    private final List<Shard> shards;
    /** Non-null for a traced value inside jit (see {@link Staging}): it has a type but no shards. */
    private final Object staged;

    private ShardedArray(int[] shape, DType dtype, NamedSharding sharding, List<Shard> shards) {
        this.shape = shape;
        this.dtype = dtype;
        this.sharding = sharding;
        this.shards = List.copyOf(shards);
        this.staged = null;
    }

    private ShardedArray(ArrayType type, NamedSharding sharding, Object staged) {
        this.shape = type.shapeArray();
        this.dtype = type.dtype();
        this.sharding = sharding;
        this.shards = List.of();
        this.staged = staged;
    }

    static ShardedArray traced(ArrayType type, NamedSharding sharding, Object handle) {
        return new ShardedArray(type, sharding, handle);
    }

    Object stagedHandle() {
        return staged;
    }

    /** True for a traced value inside {@code jit}: it has a type and a sharding, but no data until the program runs. */
    public boolean isTraced() {
        return staged != null;
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
     * {@code jax.device_put(x, spec)} under {@code jax.set_mesh}: {@code spec} on the mesh in context
     * ({@link MeshContext}), on axes of any type.
     *
     * @throws NullPointerException     if an argument is null
     * @throws IllegalArgumentException without a mesh in context (JAX's "Please set a mesh via `jax.set_mesh` if a
     *                                  PartitionSpec is passed to device_put"), or as
     *                                  {@link #devicePut(NDArray, NamedSharding)}
     */
    public static ShardedArray devicePut(NDArray x, PartitionSpec spec) {
        Objects.requireNonNull(x, "x");
        return devicePut(x, MeshContext.resolve(spec,
                "Please set a mesh via `jax.set_mesh` if a PartitionSpec is passed to device_put"));
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

    /**
     * This array written on another mesh over the same devices in the same flat order, its blocks untouched: JAX's
     * Auto axes see device groups, not axis names, so an operation on arrays on an 8-device mesh and on a 4×2 mesh
     * over the same devices runs; this brings them onto one mesh. No data moves.
     *
     * @return the array on {@code target}, or empty when the target cannot name this layout
     *         ({@link NamedSharding#onMesh})
     * @throws NullPointerException  if target is null
     * @throws IllegalStateException inside a shardMap function or a trace (a host operation)
     */
    public Optional<ShardedArray> onMesh(Mesh target) {
        Objects.requireNonNull(target, "target");
        readOnHost("onMesh()");
        if (target.equals(mesh())) {
            return Optional.of(this);
        }
        // the same flat order, so block i stays on device i; only the coordinates a Device carries change
        return sharding.onMesh(target, shape).map(s -> {
            List<Shard> moved = new ArrayList<>(shards.size());
            for (int i = 0; i < shards.size(); i++) {
                Shard b = shards.get(i);
                moved.add(new Shard(target.devices().get(i), b.index(), b.replicaId(), b.data()));
            }
            return new ShardedArray(shape.clone(), dtype, s, moved);
        });
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
    private void readOnHost(String method) {
        if (staged != null) {
            throw new IllegalStateException("ShardedArray." + method + " was called on a traced value inside jit: "
                    + type() + " has a type and a sharding but no data until the compiled program runs (JAX raises a"
                    + " ConcretizationTypeError here). Return the value from the jitted function and read the"
                    + " result, or compute what you need with global-view operations.");
        }
        hostOnly(method);
    }

    /**
     * Refuses a global-view operation on a device thread (see the class comment).
     *
     * @throws IllegalStateException inside a shardMap function
     */
    void hostOnly(String method) {
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
        readOnHost("addressableShards()");
        return shards;
    }

    /**
     * The shard held by {@code device}.
     *
     * @throws NullPointerException     if device is null
     * @throws IllegalArgumentException if the device is not in the mesh
     * @throws IllegalStateException    inside a shardMap function (a host operation)
     */
    public Shard shardOn(Device device) {
        Objects.requireNonNull(device, "device");
        readOnHost("shardOn(device)");
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
        readOnHost("blocks()");
        return shards.stream().map(Shard::data).toList();
    }

    /**
     * Assembles the whole array on the host from replica 0 of every slice (JAX's {@code np.asarray(x)}).
     * Allocates one array of the global shape.
     *
     * @throws IllegalStateException inside a shardMap function (a host operation)
     */
    public NDArray gather() {
        readOnHost("gather()");
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
        readOnHost("perDeviceText()");
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

    // ------------------------------------------------------------------------------------- global-view operations

    /**
     * {@code jax.typeof(x)}: dtype, shape and — for Explicit mesh axes — the sharding, printed
     * {@code float32[8@X,4@Y]} (only Auto axes: {@code float32[8,4]}).
     */
    public ArrayType type() {
        return ArrayType.of(dtype, shape, sharding);
    }

    /** {@code jnp.sin(x)}: A[I_X, J_Y] → float32[I_X, J_Y], each block on its device, no communication. */
    public ShardedArray sin() {
        return GlobalOps.apply(this, new Unary(UnaryOp.SIN));
    }

    /** {@code jnp.cos(x)}; layout kept, no communication. */
    public ShardedArray cos() {
        return GlobalOps.apply(this, new Unary(UnaryOp.COS));
    }

    /** {@code jnp.exp(x)}; layout kept, no communication. */
    public ShardedArray exp() {
        return GlobalOps.apply(this, new Unary(UnaryOp.EXP));
    }

    /** {@code jnp.log(x)}; layout kept, no communication. */
    public ShardedArray log() {
        return GlobalOps.apply(this, new Unary(UnaryOp.LOG));
    }

    /** {@code jnp.tanh(x)}; layout kept, no communication. */
    public ShardedArray tanh() {
        return GlobalOps.apply(this, new Unary(UnaryOp.TANH));
    }

    /** {@code jax.nn.gelu(x)}: its default tanh approximation, elementwise (no communication). */
    public ShardedArray gelu() {
        return GlobalOps.apply(this, new Unary(UnaryOp.GELU));
    }

    /** {@code jnp.sqrt(x)}; layout kept, no communication. */
    public ShardedArray sqrt() {
        return GlobalOps.apply(this, new Unary(UnaryOp.SQRT));
    }

    /** {@code -x}; layout kept, no communication. */
    public ShardedArray neg() {
        return GlobalOps.apply(this, new Unary(UnaryOp.NEG));
    }

    /** {@code jnp.abs(x)}; layout kept, no communication. */
    public ShardedArray abs() {
        return GlobalOps.apply(this, new Unary(UnaryOp.ABS));
    }

    /** {@code jnp.square(x)}; layout kept, no communication. */
    public ShardedArray square() {
        return GlobalOps.apply(this, new Unary(UnaryOp.SQUARE));
    }

    /** {@code jnp.copy(x)}: a new array with the same values and layout, no communication. */
    public ShardedArray copy() {
        return GlobalOps.apply(this, new Unary(UnaryOp.COPY));
    }

    /** {@code x.astype(dtype)}; layout kept, no communication. */
    public ShardedArray astype(DType dtype) {
        return GlobalOps.apply(this, new ConvertType(Objects.requireNonNull(dtype, "dtype")));
    }

    private ShardedArray binary(BinaryOp o, ShardedArray other) {
        Objects.requireNonNull(other, "other");
        DeviceAssignment.elementwise(o, this, other);
        return GlobalElementwise.apply(this, new Binary(o), other);
    }

    private ShardedArray binary(BinaryOp o, NDArray other) {
        Objects.requireNonNull(other, "other");
        return GlobalElementwise.apply(this, new Binary(o), other);
    }

    private ShardedArray binary(BinaryOp o, double scalar) {
        return GlobalElementwise.apply(this, new Binary(o), scalar);
    }

    private ShardedArray compare(CompareOp o, ShardedArray other) {
        Objects.requireNonNull(other, "other");
        DeviceAssignment.comparison(o, this, other);
        return GlobalElementwise.apply(this, new Compare(o), other);
    }

    private ShardedArray compare(CompareOp o, double scalar) {
        return GlobalElementwise.apply(this, new Compare(o), scalar);
    }

    /**
     * {@code x + y} with numpy broadcasting (a lower-rank operand gets leading size-1 dimensions). On Explicit axes
     * the shardings must agree per dimension (a replicated size-1 dimension has no say; one sharded operand wins),
     * else {@link dev.shardlings.primitive.ShardingTypeError}: "add got incompatible shardings for broadcasting:
     * ('X', 'Y'), ('Y', 'X')." No communication.
     */
    public ShardedArray add(ShardedArray other) {
        return binary(BinaryOp.ADD, other);
    }

    /** {@code x + c} with an uncommitted array c (placed replicated on this array's mesh). */
    public ShardedArray add(NDArray other) {
        return binary(BinaryOp.ADD, other);
    }

    /** {@code x + s}: a scalar (int32 arrays stay int32 for a whole number). */
    public ShardedArray add(double s) {
        return binary(BinaryOp.ADD, s);
    }

    /** {@code x - y}; as {@link #add(ShardedArray)}. */
    public ShardedArray sub(ShardedArray other) {
        return binary(BinaryOp.SUB, other);
    }

    /** {@code x - c}; as {@link #add(NDArray)}. */
    public ShardedArray sub(NDArray other) {
        return binary(BinaryOp.SUB, other);
    }

    /** {@code x - s}; as {@link #add(double)}. */
    public ShardedArray sub(double s) {
        return binary(BinaryOp.SUB, s);
    }

    /** {@code x * y}; as {@link #add(ShardedArray)}. */
    public ShardedArray mul(ShardedArray other) {
        return binary(BinaryOp.MUL, other);
    }

    /** {@code x * c}; as {@link #add(NDArray)}. */
    public ShardedArray mul(NDArray other) {
        return binary(BinaryOp.MUL, other);
    }

    /** {@code x * s}; as {@link #add(double)}. */
    public ShardedArray mul(double s) {
        return binary(BinaryOp.MUL, s);
    }

    /** {@code x / y}; as {@link #add(ShardedArray)}. */
    public ShardedArray div(ShardedArray other) {
        return binary(BinaryOp.DIV, other);
    }

    /** {@code x / c}; as {@link #add(NDArray)}. */
    public ShardedArray div(NDArray other) {
        return binary(BinaryOp.DIV, other);
    }

    /** {@code x / s}; as {@link #add(double)}. */
    public ShardedArray div(double s) {
        return binary(BinaryOp.DIV, s);
    }

    /** {@code jnp.maximum(x, y)}; as {@link #add(ShardedArray)}. */
    public ShardedArray maximum(ShardedArray other) {
        return binary(BinaryOp.MAX, other);
    }

    /** {@code jnp.maximum(x, s)}; as {@link #add(double)} ({@code maximum(0)} is a ReLU). */
    public ShardedArray maximum(double s) {
        return binary(BinaryOp.MAX, s);
    }

    /** {@code jnp.minimum(x, y)}; as {@link #add(ShardedArray)}. */
    public ShardedArray minimum(ShardedArray other) {
        return binary(BinaryOp.MIN, other);
    }

    /** {@code jnp.minimum(x, s)}; as {@link #add(double)}. */
    public ShardedArray minimum(double s) {
        return binary(BinaryOp.MIN, s);
    }

    /**
     * {@code x > y} ({@code jnp.greater}, {@code lax.gt}): a bool array, broadcast and typed as
     * {@link #add(ShardedArray)} (on Explicit axes "gt got incompatible shardings for broadcasting: …").
     * No communication.
     */
    public ShardedArray greater(ShardedArray other) {
        return compare(CompareOp.GT, other);
    }

    /** {@code x > s} with a scalar (a whole number compares with an int32 array as an int). */
    public ShardedArray greater(double s) {
        return compare(CompareOp.GT, s);
    }

    /**
     * {@code x >= y} ({@code jnp.greater_equal}, {@code lax.ge}): a bool array, broadcast and typed as
     * {@link #add(ShardedArray)} (on Explicit axes "ge got incompatible shardings for broadcasting: …").
     * No communication.
     */
    public ShardedArray greaterEqual(ShardedArray other) {
        return compare(CompareOp.GE, other);
    }

    /** {@code x >= s} with a scalar (a whole number compares with an int32 array as an int). */
    public ShardedArray greaterEqual(double s) {
        return compare(CompareOp.GE, s);
    }

    /**
     * {@code x < y} ({@code jnp.less}, {@code lax.lt}): a bool array, broadcast and typed as
     * {@link #add(ShardedArray)} (on Explicit axes "lt got incompatible shardings for broadcasting: …").
     * No communication.
     */
    public ShardedArray less(ShardedArray other) {
        return compare(CompareOp.LT, other);
    }

    /** {@code x < s} with a scalar (a whole number compares with an int32 array as an int). */
    public ShardedArray less(double s) {
        return compare(CompareOp.LT, s);
    }

    /**
     * {@code x <= y} ({@code jnp.less_equal}, {@code lax.le}): a bool array, broadcast and typed as
     * {@link #add(ShardedArray)} (on Explicit axes "le got incompatible shardings for broadcasting: …").
     * No communication.
     */
    public ShardedArray lessEqual(ShardedArray other) {
        return compare(CompareOp.LE, other);
    }

    /** {@code x <= s} with a scalar (a whole number compares with an int32 array as an int). */
    public ShardedArray lessEqual(double s) {
        return compare(CompareOp.LE, s);
    }

    /**
     * {@code x == y} ({@code jnp.equal}, {@code lax.eq}): a bool array, broadcast and typed as
     * {@link #add(ShardedArray)} (on Explicit axes "eq got incompatible shardings for broadcasting: …").
     * No communication.
     */
    public ShardedArray equal(ShardedArray other) {
        return compare(CompareOp.EQ, other);
    }

    /** {@code x == s} with a scalar (a whole number compares with an int32 array as an int). */
    public ShardedArray equal(double s) {
        return compare(CompareOp.EQ, s);
    }

    /**
     * {@code x != y} ({@code jnp.not_equal}, {@code lax.ne}): a bool array, broadcast and typed as
     * {@link #add(ShardedArray)} (on Explicit axes "ne got incompatible shardings for broadcasting: …").
     * No communication.
     */
    public ShardedArray notEqual(ShardedArray other) {
        return compare(CompareOp.NE, other);
    }

    /** {@code x != s} with a scalar (a whole number compares with an int32 array as an int). */
    public ShardedArray notEqual(double s) {
        return compare(CompareOp.NE, s);
    }

    /**
     * {@code jnp.where(condition, x, y)}: x where the condition holds, else y, staged as JAX stages it — the
     * operands converted to one dtype (x's and y's when they agree, else float32 if either is, else int32), a
     * condition that is not bool compared with 0, lower ranks given leading size-1 dimensions, and then
     * {@code lax.select_n}. When the three do not have one shape they are broadcast to it first and, on Explicit
     * axes, resharded to the sharding the broadcasting rule gives ({@code ShardingTypeError} "broadcast_shardings got
     * incompatible shardings for broadcasting: …" where it has none); when they have one shape already, Explicit
     * axes need the cases to share one sharding and the condition to have it too (JAX's "select cases must have
     * the same shardings, …" and "select `which` must be scalar or have the same sharding as cases, …"). On Auto
     * axes the compiler lays the operands out. No communication beyond those reshards.
     *
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if the shapes do not broadcast
     */
    public static ShardedArray where(ShardedArray condition, ShardedArray x, ShardedArray y) {
        Objects.requireNonNull(x, "x");
        Objects.requireNonNull(y, "y");
        DeviceAssignment.check("_where", WHERE_NAMES, Objects.requireNonNull(condition, "condition"), x, y);
        return GlobalWhere.where(condition, x, y);
    }

    /** {@link #where(ShardedArray, ShardedArray, ShardedArray)} with a scalar y ({@code jnp.where(c, x, 0.0)}). */
    public static ShardedArray where(ShardedArray condition, ShardedArray x, double y) {
        Objects.requireNonNull(x, "x");
        DeviceAssignment.check("_where", WHERE_NAMES, Objects.requireNonNull(condition, "condition"), x, null);
        return GlobalWhere.where(condition, x, y);
    }

    /** {@link #where(ShardedArray, ShardedArray, ShardedArray)} with a scalar x ({@code jnp.where(c, 1.0, y)}). */
    public static ShardedArray where(ShardedArray condition, double x, ShardedArray y) {
        Objects.requireNonNull(y, "y");
        DeviceAssignment.check("_where", WHERE_NAMES, Objects.requireNonNull(condition, "condition"), null, y);
        return GlobalWhere.where(condition, x, y);
    }

    /**
     * {@link #where(ShardedArray, ShardedArray, ShardedArray)} with two scalars: a float32 array of the condition's
     * shape ({@code jnp.where(c, 1.0, 0.0)}; Java cannot tell JAX's int {@code 1} from {@code 1.0}, so convert with
     * {@link #astype} for int32).
     */
    public static ShardedArray where(ShardedArray condition, double x, double y) {
        return GlobalWhere.where(Objects.requireNonNull(condition, "condition"), x, y);
    }

    /**
     * {@code jnp.matmul(x, y)} of 2-D arrays: A[I, J] · B[J, K] → C[I, K]. On Explicit axes the result takes A's
     * row and B's column shardings; J split on both sides is ambiguous ({@link dev.shardlings.primitive
     * .ShardingTypeError} asking for {@code out_sharding}: use {@link #matmul(ShardedArray, PartitionSpec)}); J
     * split on one side only is contracted with one collective (a psum of the result or an all-gather of the split
     * operand, whichever moves fewer bytes).
     */
    public ShardedArray matmul(ShardedArray other) {
        Objects.requireNonNull(other, "other");
        DeviceAssignment.check("matmul", MATMUL_NAMES, this, other);
        return GlobalOps.apply(this, DotGeneral.matmul(null), GlobalOps.of(other));
    }

    /**
     * {@code jnp.matmul(x, y, out_sharding=outSharding)}: the result laid out by {@code outSharding}. With J split over axes K on both sides: out P() sums the partial products with a psum
     * over K; out P(K, None) reduce-scatters them.
     */
    public ShardedArray matmul(ShardedArray other, PartitionSpec outSharding) {
        Objects.requireNonNull(other, "other");
        Objects.requireNonNull(outSharding, "outSharding");
        DeviceAssignment.check("matmul", MATMUL_NAMES, this, other);
        return GlobalOps.apply(this, DotGeneral.matmul(outSharding), GlobalOps.of(other));
    }

    /**
     * {@code jnp.matmul(x, y, preferred_element_type=preferredElementType)}: A[I, J] · B[J, K] → C[I, K] in
     * {@code preferredElementType}, sharded as {@link #matmul(ShardedArray)}. With {@link DType#FLOAT32} and
     * bfloat16 operands every device accumulates its products in float32 and the result is not rounded to bfloat16;
     * where J is split, the partial sums are all-reduced in float32 (4 bytes an element on the wire). Mirrors
     * {@code lax.dot_general}'s {@code preferred_element_type}.
     *
     * @throws NullPointerException     if an argument is null
     * @throws IllegalArgumentException as {@link #matmul(ShardedArray)}; for an int32 product asked as bool (JAX's
     *                                  text); for a preferred dtype other than the promoted one or float32 from
     *                                  bfloat16
     */
    public ShardedArray matmul(ShardedArray other, DType preferredElementType) {
        Objects.requireNonNull(other, "other");
        Objects.requireNonNull(preferredElementType, "preferredElementType");
        DeviceAssignment.check("matmul", MATMUL_NAMES, this, other);
        return GlobalOps.apply(this, DotGeneral.matmul(null, preferredElementType), GlobalOps.of(other));
    }

    /**
     * {@code jnp.matmul(x, y, out_sharding=outSharding, preferred_element_type=preferredElementType)}: the
     * result of {@link #matmul(ShardedArray, DType)} laid out as {@link #matmul(ShardedArray, PartitionSpec)} lays
     * it out.
     *
     * @throws NullPointerException     if an argument is null
     * @throws IllegalArgumentException as {@link #matmul(ShardedArray, DType)}
     */
    public ShardedArray matmul(ShardedArray other, PartitionSpec outSharding, DType preferredElementType) {
        Objects.requireNonNull(other, "other");
        Objects.requireNonNull(outSharding, "outSharding");
        Objects.requireNonNull(preferredElementType, "preferredElementType");
        DeviceAssignment.check("matmul", MATMUL_NAMES, this, other);
        return GlobalOps.apply(this, DotGeneral.matmul(outSharding, preferredElementType), GlobalOps.of(other));
    }

    /**
     * {@code lax.dot_general(x, y, dimension_numbers, out_sharding)} with the dimensions and out sharding of
     * {@code dims}: batch dimensions first in the result, then x's free dimensions, then y's.
     */
    public ShardedArray dotGeneral(ShardedArray other, DotGeneral dims) {
        Objects.requireNonNull(other, "other");
        Objects.requireNonNull(dims, "dims");
        DeviceAssignment.check("dot_general", DeviceAssignment.indexed("args", 2), this, other);
        return GlobalOps.apply(this, dims, GlobalOps.of(other));
    }

    /**
     * {@code jnp.einsum(subscripts, x, y)} of two arrays, e.g. {@code "bd,df->bf"}: a letter in both operands and
     * the output is a batch dimension, in both operands only a contracted one, in one operand only a free one
     * (summed first if the output lacks it). Runs as one dot_general (then a transpose to the output's order), so
     * its typing and communication are dot_general's.
     *
     * @throws IllegalArgumentException for malformed subscripts (not {@code "ab,bc->ac"} form, a letter repeated in
     *                                  one operand, an output letter no operand has), a subscript count that is not
     *                                  an operand's rank, or sizes that differ for one letter
     */
    public static ShardedArray einsum(String subscripts, ShardedArray x, ShardedArray y) {
        return einsumChecked(subscripts, x, y, null, null);
    }

    /**
     * {@link #einsum(String, ShardedArray, ShardedArray)} with {@code out_sharding}: the result laid out by
     * {@code outSharding} (in the output's dimension order), which settles a contraction sharded on both sides.
     *
     * @throws IllegalArgumentException as {@link #einsum(String, ShardedArray, ShardedArray)}
     */
    public static ShardedArray einsum(String subscripts, ShardedArray x, ShardedArray y, PartitionSpec outSharding) {
        return einsumChecked(subscripts, x, y, Objects.requireNonNull(outSharding, "outSharding"), null);
    }

    /**
     * {@code jnp.einsum(subscripts, x, y, preferred_element_type=preferredElementType)}: e.g. {@code "bd,df->bf"}
     * of X[B, D] in bfloat16 and W[D, F] in bfloat16 gives Y[B, F] in float32, the products accumulated in float32
     * and not rounded (a split D is all-reduced in float32); its dot_general carries the preferred dtype, as
     * {@link #matmul(ShardedArray, DType)}'s does.
     *
     * @throws NullPointerException     if an argument is null
     * @throws IllegalArgumentException as {@link #einsum(String, ShardedArray, ShardedArray)} and
     *                                  {@link #matmul(ShardedArray, DType)}
     */
    public static ShardedArray einsum(String subscripts, ShardedArray x, ShardedArray y, DType preferredElementType) {
        return einsumChecked(subscripts, x, y, null,
                Objects.requireNonNull(preferredElementType, "preferredElementType"));
    }

    /**
     * {@link #einsum(String, ShardedArray, ShardedArray, DType)} with {@code out_sharding}, as
     * {@link #einsum(String, ShardedArray, ShardedArray, PartitionSpec)}.
     *
     * @throws NullPointerException     if an argument is null
     * @throws IllegalArgumentException as {@link #einsum(String, ShardedArray, ShardedArray, DType)}
     */
    public static ShardedArray einsum(String subscripts, ShardedArray x, ShardedArray y, PartitionSpec outSharding,
                                      DType preferredElementType) {
        return einsumChecked(subscripts, x, y, Objects.requireNonNull(outSharding, "outSharding"),
                Objects.requireNonNull(preferredElementType, "preferredElementType"));
    }

    private static ShardedArray einsumChecked(String subscripts, ShardedArray x, ShardedArray y,
                                              PartitionSpec outSharding, DType preferredElementType) {
        Objects.requireNonNull(subscripts, "subscripts");
        Objects.requireNonNull(x, "x");
        Objects.requireNonNull(y, "y");
        DeviceAssignment.check("_einsum", DeviceAssignment.indexed("operands", 2), x, y);
        return Einsum.einsum(subscripts, x, y, outSharding, preferredElementType);
    }

    /**
     * {@code jnp.sum(x, axis=axes)} (no axes: all): A[I_X, J_Y] summed over 0 → B[J_Y]; a reduced dimension split
     * over mesh axes costs one psum over them.
     */
    public ShardedArray sum(int... axes) {
        Objects.requireNonNull(axes, "axes");
        return GlobalReductions.reduce(this, ReduceOp.SUM, axes);
    }

    /** {@code jnp.max(x, axis=axes)} (no axes: all); a split reduced dimension costs one pmax. */
    public ShardedArray max(int... axes) {
        Objects.requireNonNull(axes, "axes");
        return GlobalReductions.reduce(this, ReduceOp.MAX, axes);
    }

    /** {@code jnp.min(x, axis=axes)} (no axes: all); a split reduced dimension costs one pmin. */
    public ShardedArray min(int... axes) {
        Objects.requireNonNull(axes, "axes");
        return GlobalReductions.reduce(this, ReduceOp.MIN, axes);
    }

    /** {@code jnp.mean(x, axis=axes)} (no axes: all): the sum divided by the count, float32. */
    public ShardedArray mean(int... axes) {
        Objects.requireNonNull(axes, "axes");
        return GlobalReductions.mean(this, axes);
    }

    /**
     * {@code jax.nn.softmax(x, axis)} on the global array: exp(x − max) / Σ exp(x − max) along {@code axis}
     * (negative counts from the end), A[S_X, K_Y] → f32[S_X, K_Y]; if the axis is split over mesh axes the max and
     * the sum each cost one all-reduce over them (a pmax and a psum of the per-row [S_X] results), else nothing
     * moves. As in
     * JAX the max is unguarded (a row of −inf gives nan) and held constant ({@code stop_gradient}) for the gradient.
     *
     * @throws IllegalArgumentException if the axis is out of bounds
     */
    public ShardedArray softmax(int axis) {
        return GlobalSoftmax.softmax(this, softmaxAxis(axis));
    }

    /**
     * {@code jax.nn.log_softmax(x, axis)}: (x − max) − log Σ exp(x − max) along {@code axis}; layout and
     * communication as {@link #softmax(int)}.
     *
     * @throws IllegalArgumentException if the axis is out of bounds
     */
    public ShardedArray logSoftmax(int axis) {
        return GlobalSoftmax.logSoftmax(this, softmaxAxis(axis));
    }

    /**
     * {@code jax.scipy.special.logsumexp(x, axis=axes)} (no axes: all): log Σ exp(x − m) + m with m the max where
     * finite, else 0 (an all −inf slice gives −inf), float32, reduced axes dropped; a split reduced dimension costs
     * a pmax and a psum over its mesh axes.
     *
     * @throws IllegalArgumentException if an axis is out of bounds or repeated
     */
    public ShardedArray logsumexp(int... axes) {
        Objects.requireNonNull(axes, "axes");
        return GlobalSoftmax.logsumexp(this, false, GlobalSoftmax.axes(rank(), axes));
    }

    /**
     * {@code jax.scipy.special.logsumexp(x, axis=axes, keepdims=keepdims)}: as {@link #logsumexp(int...)}, with
     * {@link KeepDims#KEEP} the reduced axes kept as size 1.
     *
     * @throws IllegalArgumentException if an axis is out of bounds or repeated
     */
    public ShardedArray logsumexp(KeepDims keepDims, int... axes) {
        Objects.requireNonNull(keepDims, "keepDims");
        Objects.requireNonNull(axes, "axes");
        return GlobalSoftmax.logsumexp(this, keepDims == KeepDims.KEEP, GlobalSoftmax.axes(rank(), axes));
    }

    private int softmaxAxis(int axis) {
        if (axis < -shape.length || axis >= shape.length) {
            throw new IllegalArgumentException("axis " + axis + " is out of bounds for array of dimension "
                    + shape.length);
        }
        return axis < 0 ? axis + shape.length : axis;
    }

    /** {@code jnp.transpose(x, perm)} (no perm: reversed): shardings move with their dimensions, nothing moves. */
    public ShardedArray transpose(int... perm) {
        Objects.requireNonNull(perm, "perm");
        return GlobalShapeOps.transpose(this, perm);
    }

    /** {@code jnp.reshape(x, newSizes)}; see {@link Reshape} for which layouts the typing rule allows. */
    public ShardedArray reshape(int... newSizes) {
        Objects.requireNonNull(newSizes, "newSizes");
        return GlobalOps.apply(this, new Reshape(Arrays.stream(newSizes).boxed().toList(), null));
    }

    /** {@code lax.reshape(x, newSizes, out_sharding=outSharding)}: any result layout, moving data if needed. */
    public ShardedArray reshape(PartitionSpec outSharding, int... newSizes) {
        Objects.requireNonNull(outSharding, "outSharding");
        Objects.requireNonNull(newSizes, "newSizes");
        return GlobalOps.apply(this, new Reshape(Arrays.stream(newSizes).boxed().toList(), outSharding));
    }

    /** {@code jnp.broadcast_to(x, shape)} (numpy rules: x's dimensions align with the trailing ones). */
    public ShardedArray broadcastTo(int... newShape) {
        Objects.requireNonNull(newShape, "newShape");
        return GlobalShapeOps.broadcastTo(this, newShape);
    }

    /**
     * {@code lax.slice_in_dim(x, start, stop, axis=axis)}. On Explicit axes a split dimension must stay divisible
     * by its axes.
     */
    public ShardedArray slice(int axis, int start, int stop) {
        return GlobalOps.apply(this, Slice.inDim(shape, axis < 0 ? axis + rank() : axis, start, stop));
    }

    /**
     * {@code jnp.roll(x, shift, axis)}, built as jnp builds it: two slices joined by a concatenate. On Explicit
     * axes a split dimension can be rolled only by shifts its axes divide (else JAX's slicing error).
     */
    public ShardedArray roll(int shift, int axis) {
        return GlobalShapeOps.roll(this, shift, axis);
    }

    /** {@code jnp.take(x, indices, axis)} with int32 indices of rank 0 or 1 (an uncommitted array). */
    public ShardedArray take(NDArray indices, int axis) {
        Objects.requireNonNull(indices, "indices");
        return GlobalOps.apply(this, new Take(axis < 0 ? axis + rank() : axis), GlobalOps.of(indices));
    }

    /** {@code x[i]}: the slice at index i of dimension 0, that dimension removed (a gather, as in JAX). */
    public ShardedArray index(int i) {
        return take(NDArray.scalar(i), 0);
    }

    /** {@code jax.nn.one_hot(x, numClasses)} of int32 labels: float32 [..., numClasses], the labels' sharding kept. */
    public ShardedArray oneHot(int numClasses) {
        return GlobalOps.apply(this, new OneHot(numClasses));
    }

    /**
     * {@code jnp.concatenate(arrays, axis)}. On Explicit axes all arrays must have the same sharding.
     *
     * @throws IllegalArgumentException if no array is given
     */
    public static ShardedArray concatenate(int axis, ShardedArray... arrays) {
        Objects.requireNonNull(arrays, "arrays");
        if (arrays.length == 0) {
            throw new IllegalArgumentException("Need at least one array to concatenate.");
        }
        for (int k = 0; k < arrays.length; k++) {
            Objects.requireNonNull(arrays[k], "arrays[" + k + "]");
        }
        DeviceAssignment.check("concatenate", DeviceAssignment.indexed("args", arrays.length), arrays);
        return GlobalShapeOps.concatenate(axis, arrays);
    }

    /**
     * {@code jax.sharding.reshard(x, spec)}: the same values laid out by spec — the Explicit-mode way to move data
     * (an all-gather where an axis leaves a dimension, an all-to-all where it moves, local slicing where one is
     * added).
     */
    public ShardedArray reshard(PartitionSpec spec) {
        return GlobalOps.apply(this, new Reshard(Objects.requireNonNull(spec, "spec")));
    }

    /**
     * {@code jax.lax.with_sharding_constraint(x, spec)}: on Auto axes, re-lays the value out to spec; on a mesh
     * whose axes are all Explicit, an assertion that the type already has that sharding.
     *
     * @throws AssertionError with JAX's text when an all-Explicit type has another sharding
     */
    public ShardedArray withShardingConstraint(PartitionSpec spec) {
        return GlobalOps.apply(this, new ShardingConstraint(Objects.requireNonNull(spec, "spec")));
    }

    /**
     * {@code jnp.full(shape, value, dtype, out_sharding=sharding)}: created in place, each device filling its block.
     * As in JAX an out sharding may name Explicit axes only (the type carries them); on Auto axes place a whole
     * array instead, {@code devicePut(NDArray.full(…), sharding)} ({@code jax.device_put}, or {@code jnp.full}'s
     * {@code device=} argument).
     *
     * <p>As in JAX, a sharding on a mesh of several devices with Explicit axes needs its mesh in context
     * ({@link MeshContext#setMesh}); in a context the context's mesh must be the sharding's.
     *
     * @throws NullPointerException     if sharding, dtype or shape is null
     * @throws IllegalArgumentException if a dimension is negative, the sharding does not divide the shape, the
     *                                  spec names an Auto or Manual axis (JAX's "PartitionSpec passed to full cannot
     *                                  contain axis names that are of type Auto or Manual. …"), no mesh is in
     *                                  context (JAX's "Length of device assignment 1 is not equal to the size of the
     *                                  mesh …. Please enter your `jit` into a mesh context via `jax.set_mesh`.") or
     *                                  another mesh is (JAX's "Context mesh … should match the mesh of sharding …")
     */
    public static ShardedArray full(NamedSharding sharding, DType dtype, double value, int... shape) {
        return filled(inContext(explicitOnly(sharding, "full"), dtype, shape, "full"), dtype, value, shape);
    }

    /**
     * {@code jnp.zeros(shape, dtype, out_sharding=sharding)}; see {@link #full}. The Auto-axis text names
     * {@code jnp.zeros}.
     *
     * @throws NullPointerException     if sharding, dtype or shape is null
     * @throws IllegalArgumentException as {@link #full(NamedSharding, DType, double, int...)}
     */
    public static ShardedArray zeros(NamedSharding sharding, DType dtype, int... shape) {
        return filled(inContext(explicitOnly(sharding, "jnp.zeros"), dtype, shape, "jnp.zeros"), dtype, 0, shape);
    }

    /** An array of {@code value} created in place on any axes (the framework's own constants, e.g. where's). */
    static ShardedArray filled(NamedSharding sharding, DType dtype, double value, int... shape) {
        Objects.requireNonNull(sharding, "sharding");
        Objects.requireNonNull(shape, "shape");
        return GlobalOps.run(new Full(Arrays.stream(shape).boxed().toList(), Objects.requireNonNull(dtype, "dtype"),
                value, sharding.mesh(), sharding.spec()), List.of());
    }

    /**
     * {@code jnp.full(shape, value, dtype, out_sharding=spec)} under {@code jax.set_mesh}: created in place with
     * {@code spec} on the mesh in context ({@link MeshContext}). As in JAX a bare spec may name Explicit axes only.
     *
     * @throws NullPointerException     if spec, dtype or shape is null
     * @throws IllegalArgumentException without a mesh in context (JAX's "Using PartitionSpec when you are not under
     *                                  a mesh context is not allowed. …"), for an axis the mesh lacks (JAX's
     *                                  "Resource axis: …"), for an Auto or Manual axis in spec (JAX's
     *                                  "PartitionSpec passed to full cannot contain axis names that are of type
     *                                  Auto or Manual. …"), or as {@link #full(NamedSharding, DType, double, int...)}
     */
    public static ShardedArray full(PartitionSpec spec, DType dtype, double value, int... shape) {
        Objects.requireNonNull(dtype, "dtype");
        Objects.requireNonNull(shape, "shape");
        return filled(explicitOnly(explicitOutSharding(spec), "full"), dtype, value, shape);
    }

    /**
     * {@code jnp.zeros(shape, dtype, out_sharding=spec)} under {@code jax.set_mesh}, as seed 002 creates its
     * arrays: {@code zeros(P("X", "Y"), DType.FLOAT32, 8, 2048)} is {@code float32[8@X,2048@Y]}. See
     * {@link #full(PartitionSpec, DType, double, int...)}; the Auto-axis text names {@code jnp.zeros}.
     *
     * @throws NullPointerException     if spec, dtype or shape is null
     * @throws IllegalArgumentException as {@link #full(PartitionSpec, DType, double, int...)}
     */
    public static ShardedArray zeros(PartitionSpec spec, DType dtype, int... shape) {
        Objects.requireNonNull(dtype, "dtype");
        Objects.requireNonNull(shape, "shape");
        return filled(explicitOnly(explicitOutSharding(spec), "jnp.zeros"), dtype, 0, shape);
    }

    /** A creation's bare out_sharding: on the mesh in context (JAX's canonicalize_sharding). */
    private static NamedSharding explicitOutSharding(PartitionSpec spec) {
        Objects.requireNonNull(spec, "spec");
        return MeshContext.resolve(spec, "Using PartitionSpec when you are not under a mesh context"
                + " is not allowed. Please pass a NamedSharding instance or enter into a mesh context via"
                + " `jax.set_mesh`. Got " + spec);
    }

    /** A NamedSharding out_sharding needs its mesh in context, as in JAX ({@link Full#checkCreationContext}). */
    private static NamedSharding inContext(NamedSharding sharding, DType dtype, int[] shape, String api) {
        Objects.requireNonNull(dtype, "dtype");
        Objects.requireNonNull(shape, "shape");
        Full.checkCreationContext(dtype, shape, sharding, MeshContext.current(), api);
        return sharding;
    }

    /** A creation's out_sharding names Explicit axes only, bare spec or NamedSharding alike (JAX's text). */
    private static NamedSharding explicitOnly(NamedSharding sharding, String api) {
        Objects.requireNonNull(sharding, "sharding");
        PartitionSpec spec = sharding.spec();
        for (String axis : spec.mentionedAxes()) {
            AxisType type = sharding.mesh().axisType(axis);
            if (type != AxisType.EXPLICIT) {
                throw new IllegalArgumentException("PartitionSpec passed to " + api + " cannot contain axis names that"
                        + " are of type Auto or Manual. Got PartitionSpec: " + spec + " with axis name: " + axis
                        + " of type: AxisType." + type.jaxName() + ".");
            }
        }
        return sharding;
    }

    /** A short description, e.g. {@code ShardedArray(f32[8, 4], NamedSharding(mesh=..., spec=P('x', 'y')))}. */
    @Override
    public String toString() {
        return "ShardedArray(" + dtype.shortName() + Arrays.toString(shape) + ", " + sharding + ")";
    }
}
