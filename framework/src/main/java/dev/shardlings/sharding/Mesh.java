package dev.shardlings.sharding;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * A grid of devices with named axes — the analogue of {@code jax.sharding.Mesh}.
 *
 * <p>Devices are laid out row-major over the coordinates (first axis most significant): coordinate
 * (c0, …, c_{k−1}) is flat position Σ c_j·Π_{l>j} size_l, and {@link #devices()} lists them in that order
 * (JAX's {@code mesh.devices.flat}). {@link #makeMesh(int[], String...)} numbers the devices 0…n−1 in that order,
 * as {@code jax.make_mesh} does on CPU.
 *
 * <p>Every axis has an {@link AxisType}: {@link #makeMesh(int[], String...)} makes them {@code Explicit} (JAX 0.10.2's
 * default for {@code jax.make_mesh}), {@link #ofDeviceIds} makes them {@code Auto} (the default of the
 * {@code Mesh(devices, names)} constructor), and {@link #withAxisTypes} changes them. The types matter only to
 * global-view operations on {@code ShardedArray}s (sharding in types for Explicit axes); shardMap treats every axis
 * it maps as Manual. Meshes with other axis types are not equal, as in JAX. JAX's {@code str(mesh)} also prints
 * {@code axis_types}; ours does not.
 *
 * <p>Immutable and thread-safe.
 */
public final class Mesh {

    /** The largest number of devices a mesh may have. */
    public static final int MAX_DEVICES = 4096;

    private final List<String> axisNames;
    private final List<Integer> axisSizes;
    private final List<AxisType> axisTypes;
    private final List<Device> devices;
    private final Device[] byId;

    private Mesh(String platform, int[] deviceIds, int[] sizes, String[] names, AxisType[] types) {
        Objects.requireNonNull(sizes, "axisSizes");
        Objects.requireNonNull(names, "axisNames");
        Objects.requireNonNull(types, "axisTypes");
        if (sizes.length != names.length) {
            throw new IllegalArgumentException("Mesh requires the ndim of its first argument (`devices`) to equal the"
                    + " length of its second argument (`axis_names`), but got devices.ndim == " + sizes.length
                    + " and len(axis_names) == " + names.length + ".");
        }
        if (sizes.length == 0) {
            throw new IllegalArgumentException("a mesh needs at least one axis, e.g. Mesh.makeMesh(new int[]{4}, \"i\")");
        }
        Set<String> seen = new HashSet<>();
        for (String n : names) {
            if (n == null || n.isEmpty()) {
                throw new IllegalArgumentException("Mesh axis names cannot be None. Got: " + pyTuple(names));
            }
            if (!seen.add(n)) {
                throw new IllegalArgumentException("Mesh axis names must be unique, got " + pyTuple(names)
                        + ": '" + n + "' appears twice.");
            }
        }
        long total = 1;
        for (int i = 0; i < sizes.length; i++) {
            if (sizes[i] < 1) {
                throw new IllegalArgumentException("mesh axis '" + names[i] + "' has size " + sizes[i]
                        + "; every axis needs at least one device.");
            }
            total *= sizes[i];
            if (total > MAX_DEVICES) {
                throw new IllegalArgumentException("a mesh of shape " + Arrays.toString(sizes) + " would have more than "
                        + MAX_DEVICES + " devices; use smaller axis sizes.");
            }
        }
        int n = (int) total;
        if (deviceIds == null) {
            deviceIds = new int[n];
            for (int i = 0; i < n; i++) {
                deviceIds[i] = i;
            }
        } else if (deviceIds.length != n) {
            throw new IllegalArgumentException("a mesh of shape " + Arrays.toString(sizes) + " needs " + n
                    + " device ids, got " + deviceIds.length);
        }
        int maxId = -1;
        Set<Integer> ids = new HashSet<>();
        for (int id : deviceIds) {
            if (id < 0 || id >= MAX_DEVICES || !ids.add(id)) {
                throw new IllegalArgumentException("device ids must be distinct, each in 0.." + (MAX_DEVICES - 1)
                        + ", got " + Arrays.toString(deviceIds));
            }
            maxId = Math.max(maxId, id);
        }
        this.byId = new Device[maxId + 1];
        List<Device> ds = new ArrayList<>(n);
        for (int p = 0; p < n; p++) {
            int id = deviceIds[p];
            List<Integer> coords = new ArrayList<>(sizes.length);
            int rest = p;
            int[] c = new int[sizes.length];
            for (int a = sizes.length - 1; a >= 0; a--) {
                c[a] = rest % sizes[a];
                rest /= sizes[a];
            }
            for (int v : c) {
                coords.add(v);
            }
            Device d = new Device(id, platform, coords);
            byId[id] = d;
            ds.add(d);
        }
        this.axisNames = List.of(names);
        this.axisSizes = Arrays.stream(sizes).boxed().toList();
        this.axisTypes = checkTypes(types, names, "axisTypes");
        this.devices = List.copyOf(ds);
    }

    private Mesh(Mesh m, List<AxisType> types) {
        this.axisNames = m.axisNames;
        this.axisSizes = m.axisSizes;
        this.axisTypes = types;
        this.devices = m.devices;
        this.byId = m.byId;
    }

    private static AxisType[] uniform(AxisType t, String[] names) {
        AxisType[] ts = new AxisType[names == null ? 0 : names.length];
        Arrays.fill(ts, t);
        return ts;
    }

    private static List<AxisType> checkTypes(AxisType[] types, String[] names, String label) {
        if (types.length != names.length) {
            throw new IllegalArgumentException("Number of axis names should match the number of axis_types. Got"
                    + " axis_names=" + pyTuple(names) + " and axis_types=" + typesText(Arrays.asList(types)));
        }
        for (int i = 0; i < types.length; i++) {
            Objects.requireNonNull(types[i], label + "[" + i + "]");
        }
        return List.of(types);
    }

    private static String typesText(List<AxisType> types) {
        return "(" + types.stream().map(t -> t == null ? "None" : t.jaxName()).collect(Collectors.joining(", "))
                + (types.size() == 1 ? ",)" : ")");
    }

    /**
     * {@code jax.make_mesh(axis_sizes, axis_names)} on simulated CPU devices: ids 0…n−1, row-major.
     *
     * @throws NullPointerException     if axisSizes or axisNames is null
     * @throws IllegalArgumentException if the lengths differ, a name is null (JAX's "Mesh axis names cannot be
     *                                  None"), empty or repeated, a size is below 1, there are no axes, or the mesh
     *                                  would exceed {@link #MAX_DEVICES}
     */
    public static Mesh makeMesh(int[] axisSizes, String... axisNames) {
        return new Mesh("cpu", null, axisSizes, axisNames, uniform(AxisType.EXPLICIT, axisNames));
    }

    /**
     * {@code jax.make_mesh(axis_sizes, axis_names, axis_types=axisTypes)}: ids 0…n−1, row-major, one type per axis.
     *
     * @throws NullPointerException     if an argument or a type is null
     * @throws IllegalArgumentException as {@link #makeMesh(int[], String...)}, or when there are not as many types
     *                                  as names (JAX's text)
     */
    public static Mesh makeMesh(int[] axisSizes, String[] axisNames, AxisType... axisTypes) {
        return new Mesh("cpu", null, axisSizes, axisNames, axisTypes);
    }

    /**
     * {@link #makeMesh(int[], String...)} with devices of another platform, e.g. {@code "tpu"} (labels only).
     *
     * @throws NullPointerException     if platform is null
     * @throws IllegalArgumentException as {@link #makeMesh(int[], String...)}
     */
    public static Mesh makeMesh(String platform, int[] axisSizes, String... axisNames) {
        Objects.requireNonNull(platform, "platform");
        return new Mesh(platform.toLowerCase(java.util.Locale.ROOT), null, axisSizes, axisNames,
                uniform(AxisType.EXPLICIT, axisNames));
    }

    /**
     * {@code jax.sharding.Mesh(np.array(ids).reshape(sizes), names)}: an explicit device order, possibly permuted,
     * possibly a subset of the simulated devices ({@code jax.devices()[4:]} gives ids 4…7). Its axes are
     * {@link AxisType#AUTO}, the constructor's default in JAX.
     *
     * @param deviceIdsRowMajor the device id at each flat position: distinct, each in 0 … {@link #MAX_DEVICES}−1
     * @throws NullPointerException     if deviceIdsRowMajor is null
     * @throws IllegalArgumentException as {@link #makeMesh(int[], String...)}, or when an id repeats or is out of
     *                                  range
     */
    public static Mesh ofDeviceIds(int[] deviceIdsRowMajor, int[] axisSizes, String... axisNames) {
        Objects.requireNonNull(deviceIdsRowMajor, "deviceIdsRowMajor");
        return new Mesh("cpu", deviceIdsRowMajor.clone(), axisSizes, axisNames, uniform(AxisType.AUTO, axisNames));
    }

    /**
     * The same devices with other axis types ({@code mesh.update(axis_types=…)}).
     *
     * @throws NullPointerException     if types or a type is null
     * @throws IllegalArgumentException if there is not one type per axis
     */
    public Mesh withAxisTypes(AxisType... types) {
        Objects.requireNonNull(types, "types");
        return new Mesh(this, checkTypes(types.clone(), axisNames.toArray(new String[0]), "types"));
    }

    /** The axis types, in mesh order. */
    public List<AxisType> axisTypes() {
        return axisTypes;
    }

    /**
     * The type of one axis.
     *
     * @throws NullPointerException     if name is null
     * @throws IllegalArgumentException if the mesh has no such axis
     */
    public AxisType axisType(String name) {
        return axisTypes.get(axisPosition(name));
    }

    /** True when at least one axis is {@link AxisType#EXPLICIT} (shardings then appear in array types). */
    public boolean hasExplicitAxes() {
        return axisTypes.contains(AxisType.EXPLICIT);
    }

    /** True when every axis is {@link AxisType#EXPLICIT}. */
    public boolean allAxesExplicit() {
        return axisTypes.stream().allMatch(t -> t == AxisType.EXPLICIT);
    }

    /** The axis names, in mesh order. */
    public List<String> axisNames() {
        return axisNames;
    }

    /** The axis sizes, in mesh order. */
    public List<Integer> axisSizes() {
        return axisSizes;
    }

    /** The number of axes. */
    public int rank() {
        return axisNames.size();
    }

    /** The number of devices. */
    public int size() {
        return devices.size();
    }

    /**
     * True when the mesh has an axis of this name.
     *
     * @throws NullPointerException if name is null
     */
    public boolean hasAxis(String name) {
        Objects.requireNonNull(name, "name");
        return axisNames.contains(name);
    }

    /**
     * The position of an axis in mesh order.
     *
     * @throws NullPointerException     if name is null
     * @throws IllegalArgumentException if the mesh has no such axis
     */
    public int axisPosition(String name) {
        Objects.requireNonNull(name, "name");
        int p = axisNames.indexOf(name);
        if (p < 0) {
            throw new IllegalArgumentException("mesh " + this + " has no axis '" + name + "'; its axes are "
                    + pyTuple(axisNames.toArray(new String[0])));
        }
        return p;
    }

    /**
     * The size of one axis.
     *
     * @throws NullPointerException     if name is null
     * @throws IllegalArgumentException if the mesh has no such axis
     */
    public int axisSize(String name) {
        return axisSizes.get(axisPosition(name));
    }

    /**
     * The product of the sizes of several axes (1 for none).
     *
     * @throws NullPointerException     if names or a name is null (the message names it, e.g. names[1])
     * @throws IllegalArgumentException for an unknown axis
     */
    public int axisSize(List<String> names) {
        Objects.requireNonNull(names, "names");
        int p = 1;
        for (int i = 0; i < names.size(); i++) {
            p *= axisSize(Objects.requireNonNull(names.get(i), "names[" + i + "]"));
        }
        return p;
    }

    /** {@code mesh.shape}: axis name → size, in mesh order (a copy). */
    public LinkedHashMap<String, Integer> shape() {
        LinkedHashMap<String, Integer> m = new LinkedHashMap<>();
        for (int i = 0; i < axisNames.size(); i++) {
            m.put(axisNames.get(i), axisSizes.get(i));
        }
        return m;
    }

    /** The devices in {@code mesh.devices.flat} order (row-major over coordinates). */
    public List<Device> devices() {
        return devices;
    }

    /**
     * The device at these mesh coordinates.
     *
     * @throws NullPointerException     if coords is null
     * @throws IllegalArgumentException for the wrong number of coordinates or one out of range
     */
    public Device device(int... coords) {
        Objects.requireNonNull(coords, "coords");
        if (coords.length != rank()) {
            throw new IllegalArgumentException("mesh " + this + " has " + rank() + " axes, got coordinates "
                    + Arrays.toString(coords));
        }
        int p = 0;
        for (int a = 0; a < coords.length; a++) {
            if (coords[a] < 0 || coords[a] >= axisSizes.get(a)) {
                throw new IllegalArgumentException("coordinate " + coords[a] + " is out of range for mesh axis '"
                        + axisNames.get(a) + "' of size " + axisSizes.get(a));
            }
            p = p * axisSizes.get(a) + coords[a];
        }
        return devices.get(p);
    }

    /** The device with this id. @throws IllegalArgumentException if there is none */
    public Device deviceById(int id) {
        if (id < 0 || id >= byId.length || byId[id] == null) {
            throw new IllegalArgumentException("mesh " + this + " has no device with id " + id + " (its ids are "
                    + Arrays.toString(deviceIds()) + ")");
        }
        return byId[id];
    }

    /** The position of a device in {@link #devices()}. @throws IllegalArgumentException if it is not in the mesh */
    public int flatIndex(Device device) {
        Device d = Objects.requireNonNull(device, "device");
        if (d.id() < 0 || d.id() >= byId.length || !d.equals(byId[d.id()])) {
            throw new IllegalArgumentException(d + " is not a device of " + this);
        }
        int p = 0;
        for (int a = 0; a < rank(); a++) {
            p = p * axisSizes.get(a) + d.coords().get(a);
        }
        return p;
    }

    /** The device ids in flat order. */
    public int[] deviceIds() {
        return devices.stream().mapToInt(Device::id).toArray();
    }

    /** {@code Mesh('x': 4, 'y': 2)}. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("Mesh(");
        for (int i = 0; i < axisNames.size(); i++) {
            if (i > 0) {
                sb.append(", ");
            }
            sb.append('\'').append(axisNames.get(i)).append("': ").append(axisSizes.get(i));
        }
        return sb.append(')').toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Mesh m && axisNames.equals(m.axisNames) && axisSizes.equals(m.axisSizes)
                && devices.equals(m.devices) && axisTypes.equals(m.axisTypes);
    }

    /**
     * True when both meshes have the same devices in the same order under the same axis names and sizes, whatever
     * their axis types (shardMap and device placement care only about this).
     *
     * @throws NullPointerException if other is null
     */
    public boolean sameDevicesAs(Mesh other) {
        Objects.requireNonNull(other, "other");
        return axisNames.equals(other.axisNames) && axisSizes.equals(other.axisSizes)
                && devices.equals(other.devices);
    }

    /**
     * True when both meshes hold the same devices in the same flat (row-major) order, whatever their axis names,
     * sizes and types: JAX's device assignment of a computation, which is all its incompatible-devices check
     * compares (an 8-device mesh and a 4×2 mesh over the same devices in the same order pass it).
     *
     * @throws NullPointerException if other is null
     */
    public boolean sameDeviceAssignment(Mesh other) {
        Objects.requireNonNull(other, "other");
        // a Device carries its mesh coordinates, so compare what identifies it: id and platform
        return Arrays.equals(deviceIds(), other.deviceIds())
                && devices.get(0).platform().equals(other.devices.get(0).platform());
    }

    /**
     * True when every axis of {@code other} is a run of this mesh's axes over the same devices, so that every layout
     * on {@code other} can be written on this mesh ({@link NamedSharding#onMesh}): a 4×2 mesh can name an 8-device
     * mesh over the same devices in the same order, not the other way round.
     *
     * @throws NullPointerException if other is null
     */
    public boolean canName(Mesh other) {
        Objects.requireNonNull(other, "other");
        return sameDeviceAssignment(other)
                && other.axisNames.stream().allMatch(a -> axesCovering(other, List.of(a)) != null);
    }

    /**
     * Of this mesh and {@code other}, the one that can name the other's layouts ({@link #canName}): the mesh an
     * operation on arrays laid out on both runs on. Empty when neither can (a 4×2 and a 2×4 mesh over the same
     * devices) or the device assignments differ.
     *
     * @throws NullPointerException if other is null
     */
    public Optional<Mesh> finer(Mesh other) {
        return canName(other) ? Optional.of(this) : other.canName(this) ? Optional.of(other) : Optional.empty();
    }

    /**
     * The run of this mesh's axes whose devices step as {@code source}'s axes {@code axes} do together: axes
     * consecutive in {@code source}'s order (as {@code ('x', 'y')} of a 4×2 mesh is one axis of 8 devices) are one
     * stride and size, others are taken one by one. Empty for size-1 axes, null when no run does.
     */
    List<String> axesCovering(Mesh source, List<String> axes) {
        if (axes.isEmpty()) {
            return List.of();
        }
        boolean consecutive = true;
        for (int i = 1; i < axes.size(); i++) {
            consecutive &= source.axisPosition(axes.get(i)) == source.axisPosition(axes.get(i - 1)) + 1;
        }
        if (consecutive) {
            int stride = 1;
            for (int i = source.rank() - 1; i > source.axisPosition(axes.get(axes.size() - 1)); i--) {
                stride *= source.axisSizes.get(i);
            }
            return axesCovering(stride, source.axisSize(axes));
        }
        List<String> out = new ArrayList<>();
        for (String a : axes) {
            List<String> run = axesCovering(source, List.of(a));
            if (run == null) {
                return null;
            }
            out.addAll(run);
        }
        return out;
    }

    /** The run of this mesh's axes whose devices step by {@code stride} in the flat order, {@code size} of them. */
    private List<String> axesCovering(int stride, int size) {
        if (size == 1) {
            return List.of();
        }
        int t = 1;
        int last = rank() - 1;
        while (last >= 0 && t < stride) {
            t *= axisSizes.get(last--);
        }
        while (last >= 0 && axisSizes.get(last) == 1) {
            last--;
        }
        if (t != stride || last < 0) {
            return null;
        }
        List<String> run = new ArrayList<>();
        int product = 1;
        int first = last;
        while (first >= 0 && product < size) {
            product *= axisSizes.get(first);
            run.add(0, axisNames.get(first--));
        }
        return product == size ? run : null;
    }

    @Override
    public int hashCode() {
        return Objects.hash(axisNames, axisSizes, devices, axisTypes);
    }

    static String pyTuple(String[] names) {
        String body = Arrays.stream(names).map(n -> n == null ? "None" : "'" + n + "'").collect(Collectors.joining(", "));
        return "(" + body + (names.length == 1 ? ",)" : ")");
    }
}
