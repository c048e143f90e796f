package dev.shardlings.sharding;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A PartitionSpec bound to a mesh: where every piece of an array lives — the analogue of
 * {@code jax.sharding.NamedSharding}.
 *
 * <p>For dimension k of size n_k split over axes A_k: parts_k = Π_{a∈A_k}|a| must divide n_k; the shard has
 * n_k / parts_k elements along k; a device's chunk index is its linear index over A_k, first axis major; its slice
 * is [chunk·shard, (chunk+1)·shard). A dimension with parts_k = 1 is reported as the full slice
 * {@code slice(None, None, None)} (jax-semantics.md §2.3). Devices that hold the same slices are replicas; their
 * replica id counts them in mesh order.
 *
 * <p>Immutable and thread-safe.
 */
public final class NamedSharding {

    /**
     * One dimension's slice of a shard.
     *
     * @param start first index (0 for a full slice)
     * @param stop  one past the last index (the dimension size for a full slice)
     * @param full  true when the dimension is not split (JAX reports {@code slice(None, None, None)})
     */
    public record Slice(int start, int stop, boolean full) {
        /** Python's repr: {@code slice(0, 2, None)} or {@code slice(None, None, None)}. */
        @Override
        public String toString() {
            return full ? "slice(None, None, None)" : "slice(" + start + ", " + stop + ", None)";
        }

        /** Compact form: {@code 0:2}, or {@code :} for a full slice. */
        public String compact() {
            return full ? ":" : start + ":" + stop;
        }

        /** Number of elements. */
        public int length() {
            return stop - start;
        }
    }

    /**
     * The slices of a shard, one per dimension (JAX's {@code Shard.index}).
     *
     * @param slices one slice per dimension of the array
     */
    public record Index(List<Slice> slices) {
        /** @throws NullPointerException if slices or a slice is null */
        public Index {
            slices = Lists.copyOfNonNull(slices, "slices");
        }

        /** Python's repr of a tuple of slices, e.g. {@code (slice(0, 2, None), slice(None, None, None))}. */
        @Override
        public String toString() {
            StringBuilder sb = new StringBuilder("(");
            for (int i = 0; i < slices.size(); i++) {
                if (i > 0) {
                    sb.append(", ");
                }
                sb.append(slices.get(i));
            }
            return sb.append(slices.size() == 1 ? ",)" : ")").toString();
        }

        /** Compact form, e.g. {@code 0:2, :}. */
        public String compact() {
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < slices.size(); i++) {
                if (i > 0) {
                    sb.append(", ");
                }
                sb.append(slices.get(i).compact());
            }
            return sb.toString();
        }
    }

    private final Mesh mesh;
    private final PartitionSpec spec;
    /**
     * Every device's index and replica id, by global shape: shardMap lays out the same shapes call after call,
     * and computing them costs more than a small call's work. Bounded; cleared when full.
     */
    private final Map<List<Integer>, Layout> layouts = new ConcurrentHashMap<>();

    private record Layout(Index[] indices, List<Index> indexList, int[] replicaIds) {
    }

    /**
     * @throws NullPointerException      if mesh or spec is null
     * @throws IllegalArgumentException  if the spec names an axis the mesh does not have
     * @throws DuplicateSpecException    if the spec names an axis twice
     */
    public NamedSharding(Mesh mesh, PartitionSpec spec) {
        this.mesh = Objects.requireNonNull(mesh, "mesh");
        this.spec = Objects.requireNonNull(spec, "spec");
        spec.validate(mesh);
    }

    /** {@code new NamedSharding(mesh, spec)}. */
    public static NamedSharding of(Mesh mesh, PartitionSpec spec) {
        return new NamedSharding(mesh, spec);
    }

    /** The mesh. */
    public Mesh mesh() {
        return mesh;
    }

    /** The spec. */
    public PartitionSpec spec() {
        return spec;
    }

    /**
     * The shape of every shard of an array of {@code globalShape} ({@code sharding.shard_shape}).
     *
     * @throws IllegalArgumentException if the spec is longer than the rank (JAX's text)
     * @throws IndivisibleException     if a dimension does not divide into its parts (JAX's text)
     */
    public int[] shardShape(int... globalShape) {
        Objects.requireNonNull(globalShape, "globalShape");
        checkRank(globalShape);
        int[] out = globalShape.clone();
        for (int d = 0; d < globalShape.length; d++) {
            if (globalShape[d] < 0) {
                throw new IllegalArgumentException("array dimensions must be >= 0, got shape "
                        + PartitionSpec.ints(globalShape));
            }
            int parts = parts(d);
            if (globalShape[d] % parts != 0) {
                int[] factors = new int[globalShape.length];
                for (int k = 0; k < factors.length; k++) {
                    factors[k] = parts(k);
                }
                throw new IndivisibleException("Sharding " + this + " implies that array axis " + d
                        + " is partitioned " + parts + " times, but the dimension size is " + globalShape[d]
                        + " (full shape: " + PartitionSpec.ints(globalShape) + ", per-dimension tiling factors: "
                        + Arrays.toString(factors) + " should evenly divide the shape)");
            }
            out[d] = globalShape[d] / parts;
        }
        return out;
    }

    private void checkRank(int[] shape) {
        if (spec.length() > shape.length) {
            String scalar = shape.length == 0 ? " For scalars the PartitionSpec should be P()" : "";
            throw new IllegalArgumentException("Sharding " + this + " is only valid for values of rank at least "
                    + spec.length() + ", but was applied to a value of rank " + shape.length + "." + scalar);
        }
    }

    /** Number of parts dimension d is split into. */
    private int parts(int d) {
        return mesh.axisSize(spec.axesAt(d));
    }

    /**
     * The chunk index of a device along dimension {@code dim}: its linear index over the dimension's axes, first
     * named axis major (0 when the dimension is not split).
     *
     * @throws NullPointerException     if device is null
     * @throws IllegalArgumentException if the device is not in the mesh, or dim is negative
     */
    public int chunkIndex(Device device, int dim) {
        int flat = mesh.flatIndex(device);
        List<Integer> c = mesh.devices().get(flat).coords();
        int idx = 0;
        for (String a : spec.axesAt(dim)) {
            idx = idx * mesh.axisSize(a) + c.get(mesh.axisPosition(a));
        }
        return idx;
    }

    /**
     * The slices a device holds of an array of {@code globalShape}.
     *
     * @throws NullPointerException     if device or globalShape is null
     * @throws IllegalArgumentException as {@link #shardShape(int...)}, or if the device is not in the mesh
     */
    public Index index(Device device, int... globalShape) {
        Objects.requireNonNull(device, "device");
        return layout(globalShape).indices[mesh.flatIndex(device)];
    }

    private Layout layout(int[] globalShape) {
        Objects.requireNonNull(globalShape, "globalShape");
        List<Integer> key = new ArrayList<>(globalShape.length);
        for (int g : globalShape) {
            key.add(g);
        }
        Layout known = layouts.get(key);
        if (known != null) {
            return known;
        }
        int[] shard = shardShape(globalShape); // validates, with JAX's messages
        List<Device> ds = mesh.devices();
        Index[] indices = new Index[ds.size()];
        Map<Index, Integer> counts = new HashMap<>();
        int[] replicaIds = new int[ds.size()];
        for (int p = 0; p < ds.size(); p++) {
            List<Slice> slices = new ArrayList<>(globalShape.length);
            for (int dim = 0; dim < globalShape.length; dim++) {
                if (parts(dim) == 1) {
                    slices.add(new Slice(0, globalShape[dim], true));
                } else {
                    int c = chunkIndex(ds.get(p), dim);
                    slices.add(new Slice(c * shard[dim], (c + 1) * shard[dim], false));
                }
            }
            indices[p] = new Index(slices);
            replicaIds[p] = counts.merge(indices[p], 1, Integer::sum) - 1;
        }
        Layout made = new Layout(indices, List.of(indices), replicaIds);
        if (layouts.size() >= 64) {
            layouts.clear();
        }
        layouts.put(List.copyOf(key), made);
        return made;
    }

    /** Every device's slices, in {@code mesh.devices()} order (not sorted by id, as in JAX). */
    public LinkedHashMap<Device, Index> devicesIndicesMap(int... globalShape) {
        LinkedHashMap<Device, Index> m = new LinkedHashMap<>();
        Index[] indices = layout(globalShape).indices;
        List<Device> ds = mesh.devices();
        for (int p = 0; p < ds.size(); p++) {
            m.put(ds.get(p), indices[p]);
        }
        return m;
    }

    /**
     * Every device's slices as a list in {@code mesh.devices()} order: {@link #devicesIndicesMap}'s values,
     * without building a map (computed once per global shape).
     *
     * @throws IllegalArgumentException as {@link #shardShape(int...)}
     */
    public List<Index> indices(int... globalShape) {
        return layout(globalShape).indexList;
    }

    /**
     * The rank of a device among the devices holding the same slices, counted in mesh order.
     *
     * @throws NullPointerException     if device or globalShape is null
     * @throws IllegalArgumentException as {@link #index(Device, int...)}
     */
    public int replicaId(Device device, int... globalShape) {
        Objects.requireNonNull(device, "device");
        return replicaIds(globalShape)[mesh.flatIndex(device)];
    }

    /** {@link #replicaId} of every device, indexed by position in {@code mesh.devices()}. */
    public int[] replicaIds(int... globalShape) {
        return layout(globalShape).replicaIds.clone();
    }

    /**
     * The groups of devices holding identical slices, each in mesh order, groups in order of their first device.
     * Singleton groups (unreplicated shards) are included.
     */
    public List<List<Device>> replicaGroups(int... globalShape) {
        Map<Index, List<Device>> groups = new LinkedHashMap<>();
        for (Device d : mesh.devices()) {
            groups.computeIfAbsent(index(d, globalShape), k -> new ArrayList<>()).add(d);
        }
        List<List<Device>> out = new ArrayList<>();
        for (List<Device> g : groups.values()) {
            out.add(List.copyOf(g));
        }
        return out;
    }

    /** True when every device holds the whole array (the spec splits nothing, or only over size-1 axes). */
    public boolean isFullyReplicated() {
        for (int d = 0; d < spec.length(); d++) {
            if (parts(d) > 1) {
                return false;
            }
        }
        return true;
    }

    /**
     * This layout written on another mesh over the same devices in the same flat order, when that mesh can name it:
     * each axis of this mesh becomes the run of the target's axes that covers the same devices (axis {@code 'x'}
     * of an 8-device mesh is {@code ('x', 'y')} of a 4×2 mesh), and the result puts every block of an array of
     * {@code globalShape} on the device that holds it here. JAX's Auto axes compare shardings by devices (XLA's
     * device groups), so an operation on arrays laid out on two such meshes runs; this is how the framework brings
     * them onto one mesh.
     *
     * @param target      a mesh with this mesh's device assignment ({@link Mesh#sameDeviceAssignment})
     * @param globalShape the array's shape
     * @return the layout on {@code target}, or empty when the target has no axes that group the devices this way
     *         (a 4×2 mesh's {@code 'y'} on an 8-device mesh) or the device assignments differ
     * @throws NullPointerException     if an argument is null
     * @throws IllegalArgumentException if the spec is longer than the rank
     */
    public Optional<NamedSharding> onMesh(Mesh target, int... globalShape) {
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(globalShape, "globalShape");
        checkRank(globalShape);
        if (!mesh.sameDeviceAssignment(target)) {
            return Optional.empty();
        }
        Object[] entries = new Object[spec.length()];
        for (int d = 0; d < spec.length(); d++) {
            List<String> axes = target.axesCovering(mesh, spec.axesAt(d));
            if (axes == null) {
                return Optional.empty();
            }
            entries[d] = axes.isEmpty() ? null : axes.size() == 1 ? axes.get(0)
                    : PartitionSpec.tuple(axes.toArray(String[]::new));
        }
        NamedSharding out = new NamedSharding(target, PartitionSpec.P(entries));
        // the strides find the candidate; the blocks themselves decide (and catch any case they miss)
        return out.indices(globalShape).equals(indices(globalShape)) ? Optional.of(out)
                : Optional.empty();
    }

    /** {@code NamedSharding(mesh=Mesh('x': 4, 'y': 2), spec=P('x',))}. */
    @Override
    public String toString() {
        return "NamedSharding(mesh=" + mesh + ", spec=" + spec + ")";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof NamedSharding n && mesh.equals(n.mesh) && spec.equals(n.spec);
    }

    @Override
    public int hashCode() {
        return Objects.hash(mesh, spec);
    }

}
