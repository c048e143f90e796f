package dev.shardlings.spmd;

import dev.shardlings.array.NDArray;
import dev.shardlings.array.ReduceOp;
import dev.shardlings.events.Collective;
import dev.shardlings.events.CollectiveParams;
import dev.shardlings.sharding.Device;
import dev.shardlings.sharding.Mesh;

import java.util.List;

/**
 * One data-movement step of a partitioned program, run by every device on its block: a collective over mesh axes
 * or a local slice. {@link Relayout#plan} composes them to change a value's layout; the partitioner adds the
 * reductions that complete a contraction. Each step calls {@link Collectives}, so it is traced like hand-written
 * code. Immutable.
 */
public sealed interface DataMovement {

    /**
     * A step that is one collective: its shape and bytes are the primitive's rules ({@link Collective#outShape},
     * {@link Collective#bytesPerDevice}) over the groups of its axes.
     */
    sealed interface OneCollective extends DataMovement permits AllGather, AllToAll, AllReduce {
        /** The collective primitive the step binds. */
        Collective primitive();

        /** Its parameters, as the step binds it. */
        CollectiveParams params();

        @Override
        default int[] outShape(int[] in, Mesh mesh) {
            return primitive().outShape(in, parts(axes(), mesh), params());
        }

        @Override
        default long bytesReceived(long inBytes, Mesh mesh) {
            return primitive().bytesPerDevice(parts(axes(), mesh)).of(inBytes);
        }
    }

    /** Runs the step on this device's block (on a device thread, inside a shardMap). */
    NDArray apply(NDArray x, Mesh mesh);

    /** The mesh axes the step communicates over (empty for a local step). */
    List<String> axes();

    /** The block shape after the step, given the block shape before it. */
    int[] outShape(int[] in, Mesh mesh);

    /** Bytes a device receives in this step, for a block of {@code inBytes} bytes (0 for a local step). */
    long bytesReceived(long inBytes, Mesh mesh);

    /**
     * Bytes a device receives in this step, for a block of shape {@code inShape} with elements of
     * {@code itemBytes} bytes; exact where the amount depends on the shape, not only on the block's size.
     */
    default long bytesReceived(int[] inShape, long itemBytes, Mesh mesh) {
        long n = itemBytes;
        for (int d : inShape) {
            n *= d;
        }
        return bytesReceived(n, mesh);
    }

    /** The number of devices in each group of the step's axes. */
    private static int parts(List<String> axes, Mesh mesh) {
        int n = 1;
        for (String a : axes) {
            n *= mesh.axisSize(a);
        }
        return n;
    }

    private static int[] scaled(int[] in, int dim, int mul, int div) {
        int[] out = in.clone();
        out[dim] = out[dim] * mul / div;
        return out;
    }

    /**
     * All-gather over {@code axes} along {@code dim} (tiled): the dimension stops being split over them.
     *
     * @param axes mesh axes, major first
     * @param dim  the dimension gathered
     */
    record AllGather(List<String> axes, int dim) implements OneCollective {
        /** @throws NullPointerException if axes is null */
        public AllGather {
            axes = List.copyOf(axes);
        }

        @Override
        public NDArray apply(NDArray x, Mesh mesh) {
            return Collectives.allGather(x, axes, dim, Tiling.TILED);
        }

        @Override
        public Collective primitive() {
            return Collective.ALL_GATHER;
        }

        @Override
        public CollectiveParams params() {
            return new CollectiveParams.AllGather(dim, true, false);
        }
    }

    /**
     * All-to-all over one axis (tiled): dimension {@code splitDim} becomes split over it (as its minor axis) and
     * dimension {@code concatDim} stops being split over it.
     *
     * @param axis      the mesh axis
     * @param splitDim  the dimension that gains the axis
     * @param concatDim the dimension that loses it
     */
    record AllToAll(String axis, int splitDim, int concatDim) implements OneCollective {
        /** @throws NullPointerException if axis is null */
        public AllToAll {
            java.util.Objects.requireNonNull(axis, "axis");
        }

        @Override
        public List<String> axes() {
            return List.of(axis);
        }

        @Override
        public NDArray apply(NDArray x, Mesh mesh) {
            return Collectives.allToAll(x, axis, splitDim, concatDim, Tiling.TILED);
        }

        @Override
        public Collective primitive() {
            return Collective.ALL_TO_ALL;
        }

        @Override
        public CollectiveParams params() {
            return new CollectiveParams.AllToAll(splitDim, concatDim, true);
        }
    }

    /**
     * A local slice: dimension {@code dim} becomes split over {@code axes} (as its minor axes) by keeping the
     * device's part of its block. Moves nothing.
     *
     * @param axes mesh axes, major first
     * @param dim  the dimension split further
     */
    record SliceLocal(List<String> axes, int dim) implements DataMovement {
        /** @throws NullPointerException if axes is null */
        public SliceLocal {
            axes = List.copyOf(axes);
        }

        @Override
        public NDArray apply(NDArray x, Mesh mesh) {
            int parts = 1;
            for (String a : axes) {
                parts *= mesh.axisSize(a);
            }
            int idx = Collectives.axisIndex(axes.toArray(new String[0])).intAt();
            int size = x.shape(dim) / parts;
            return x.slice(dim, idx * size, (idx + 1) * size);
        }

        @Override
        public int[] outShape(int[] in, Mesh mesh) {
            return scaled(in, dim, 1, parts(axes, mesh));
        }

        @Override
        public long bytesReceived(long inBytes, Mesh mesh) {
            return 0;
        }
    }

    /**
     * A local slice by the major part of the devices' index over {@code axes}: dimension {@code dim} is cut into
     * {@code parts} blocks, and a device keeps block ⌊ℓ / (n / parts)⌋, where ℓ is its index over {@code axes}
     * (row-major, as {@link Collectives#axisIndex(String...)} counts) and n their number of devices. With
     * {@code parts} = n it is {@link SliceLocal}; with fewer parts, devices that differ only in the minor part of
     * ℓ keep the same block (XLA's share of a contraction's result on idle devices, {@link Regroup#share}). Moves
     * nothing.
     *
     * @param axes  mesh axes, in mesh order
     * @param parts the number of blocks (divides the number of devices over axes)
     * @param dim   the dimension sliced
     */
    record SliceMajor(List<String> axes, int parts, int dim) implements DataMovement {
        /**
         * @throws NullPointerException     if axes is null
         * @throws IllegalArgumentException if parts is not positive
         */
        public SliceMajor {
            axes = List.copyOf(axes);
            if (parts < 1) {
                throw new IllegalArgumentException("parts must be positive, got " + parts);
            }
        }

        @Override
        public NDArray apply(NDArray x, Mesh mesh) {
            int per = DataMovement.parts(axes, mesh) / parts;
            int idx = Collectives.axisIndex(axes.toArray(new String[0])).intAt() / per;
            int size = x.shape(dim) / parts;
            return x.slice(dim, idx * size, (idx + 1) * size);
        }

        @Override
        public int[] outShape(int[] in, Mesh mesh) {
            return scaled(in, dim, 1, parts);
        }

        @Override
        public long bytesReceived(long inBytes, Mesh mesh) {
            return 0;
        }
    }

    /**
     * All-reduce over {@code axes} (psum, pmax or pmin): completes partial results.
     *
     * @param axes mesh axes
     * @param op   how partial results combine
     */
    record AllReduce(List<String> axes, ReduceOp op) implements OneCollective {
        /**
         * @throws NullPointerException     if an argument is null
         * @throws IllegalArgumentException if op has no collective ({@link ReduceOp#MEAN})
         */
        public AllReduce {
            axes = List.copyOf(axes);
            java.util.Objects.requireNonNull(op, "op");
            if (!op.combinesAcrossDevices()) {
                throw new IllegalArgumentException("no all-reduce combines partial results by " + op.jaxName());
            }
        }

        @Override
        public NDArray apply(NDArray x, Mesh mesh) {
            return switch (op) {
                case SUM -> Collectives.psum(x, axes);
                case MAX -> Collectives.pmax(x, axes);
                case MIN -> Collectives.pmin(x, axes);
                case MEAN -> throw new AssertionError("refused by the constructor");
            };
        }

        @Override
        public Collective primitive() {
            return switch (op) {
                case SUM -> Collective.PSUM;
                case MAX -> Collective.PMAX;
                case MIN -> Collective.PMIN;
                case MEAN -> throw new AssertionError("refused by the constructor");
            };
        }

        @Override
        public CollectiveParams params() {
            return new CollectiveParams.None();
        }
    }

    /**
     * {@code roll(x, shift, dim)} of a dimension split over {@code axes}, by collective-permutes (XLA's halo
     * exchange): with blocks of b elements along dim and s = shift mod (n·b) = q·b + r, every device sends its last
     * r elements q + 1 devices on and its first b − r elements q devices on, then joins what arrives. Each device
     * receives one block's worth of data at most, never the whole dimension. A permute by a multiple of n moves
     * nothing and is not run.
     *
     * @param axes  the mesh axes splitting dim, major first
     * @param dim   the dimension rolled
     * @param shift the roll's shift, in elements of the whole array (any sign)
     */
    record RollSplit(List<String> axes, int dim, int shift) implements DataMovement {
        /** @throws NullPointerException if axes is null */
        public RollSplit {
            axes = List.copyOf(axes);
        }

        /** How far (in devices) the last r elements and the first b − r elements travel, and r, for blocks of b. */
        int[] plan(int block, Mesh mesh) {
            int n = parts(axes, mesh);
            int s = Math.floorMod(shift, n * block);
            return new int[] {(s / block + 1) % n, (s / block) % n, s % block};
        }

        @Override
        public NDArray apply(NDArray x, Mesh mesh) {
            int b = x.shape(dim);
            int[] p = plan(b, mesh);
            int n = parts(axes, mesh);
            NDArray high = send(x.slice(dim, 0, b - p[2]), p[1], n);
            if (p[2] == 0) {
                return high;
            }
            NDArray low = send(x.slice(dim, b - p[2], b), p[0], n);
            return NDArray.concat(dim, List.of(low, high));
        }

        private NDArray send(NDArray piece, int hops, int n) {
            if (hops == 0) {
                return piece;
            }
            int[][] perm = new int[n][];
            for (int k = 0; k < n; k++) {
                perm[k] = new int[] {k, (k + hops) % n};
            }
            return Collectives.ppermute(piece, axes, perm);
        }

        @Override
        public int[] outShape(int[] in, Mesh mesh) {
            return in.clone();
        }

        @Override
        public long bytesReceived(long inBytes, Mesh mesh) {
            return inBytes; // an upper bound; the shape's version is exact
        }

        @Override
        public long bytesReceived(int[] inShape, long itemBytes, Mesh mesh) {
            int b = inShape[dim];
            int[] p = plan(b, mesh);
            long row = itemBytes;
            for (int d = 0; d < inShape.length; d++) {
                row *= d == dim ? 1 : inShape[d];
            }
            return ((p[0] == 0 ? 0 : p[2]) + (p[1] == 0 ? 0 : b - p[2])) * row;
        }
    }

    /**
     * One collective-permute that moves every block to the devices of another axis of the same size: the layout
     * {@code to} is {@code from} with axes swapped for unused ones of equal size on the same dimensions (XLA's
     * regrouping of a dot operand, or the result of a group's sum, onto other devices). Device c receives its new
     * block whole from the device whose coordinates are c's with each swapped pair exchanged; a device that holds
     * its new block already keeps it.
     *
     * @param from  the layout before (per dimension, the mesh axes splitting it)
     * @param to    the layout after: the same dimensions split over as many parts
     * @param pairs (source, target) device positions in the mesh, one per device
     */
    record Regroup(List<List<String>> from, List<List<String>> to, List<int[]> pairs) implements DataMovement {
        /** @throws NullPointerException if an argument is null */
        public Regroup {
            from = from.stream().map(List::copyOf).toList();
            to = to.stream().map(List::copyOf).toList();
            pairs = pairs.stream().map(int[]::clone).toList();
        }

        /**
         * The regroup from one layout to another, or null when {@code to} is not {@code from} with pairs of axes
         * of equal size exchanged on the same dimensions (each axis of a pair used by exactly one of the layouts).
         */
        static Regroup of(List<List<String>> from, List<List<String>> to, Mesh mesh) {
            if (from.size() != to.size() || from.equals(to)) {
                return null;
            }
            java.util.Map<String, String> swap = new java.util.HashMap<>();
            java.util.Set<String> fromAxes = new java.util.HashSet<>();
            java.util.Set<String> toAxes = new java.util.HashSet<>();
            from.forEach(fromAxes::addAll);
            to.forEach(toAxes::addAll);
            for (int d = 0; d < from.size(); d++) {
                if (from.get(d).size() != to.get(d).size()) {
                    return null;
                }
                for (int k = 0; k < from.get(d).size(); k++) {
                    String a = from.get(d).get(k);
                    String b = to.get(d).get(k);
                    if (a.equals(b)) {
                        continue;
                    }
                    if (mesh.axisSize(a) != mesh.axisSize(b) || toAxes.contains(a) || fromAxes.contains(b)
                            || swap.containsKey(a) || swap.containsKey(b)) {
                        return null;
                    }
                    swap.put(a, b);
                    swap.put(b, a);
                }
            }
            List<int[]> pairs = new java.util.ArrayList<>();
            List<Device> devices = mesh.devices();
            for (int target = 0; target < devices.size(); target++) {
                List<Integer> c = devices.get(target).coords();
                int source = 0;
                for (int a = 0; a < mesh.rank(); a++) {
                    String name = mesh.axisNames().get(a);
                    int v = swap.containsKey(name) ? c.get(mesh.axisPosition(swap.get(name))) : c.get(a);
                    source = source * mesh.axisSize(name) + v;
                }
                pairs.add(new int[] {source, target});
            }
            pairs.sort(java.util.Comparator.comparingInt(p -> p[0]));
            return new Regroup(from, to, pairs);
        }

        /**
         * XLA's move of a contraction's result computed on idle devices into its layout: dimension {@code dim} of
         * the result was cut into {@code parts} blocks by the major part of the devices' index over {@code over}
         * ({@link SliceMajor}) and completed by an all-reduce; {@code to} splits it over other axes into as many
         * parts. XLA pairs the devices of the two shardings by position: the block, then the device's index among
         * those holding that block, counted row-major over the remaining mesh coordinates in mesh order (an axis
         * of {@code over} cut by the major part counts with its minor part) — checked against JAX 0.10.2 on 2 × 2,
         * 2 × 4, 2 × 6, 3 × 3, 4 × 2, 4 × 4 and 2 × 2 × 2 meshes ({@code jax-checks/seed000_matmul_plans.py}).
         *
         * @param to    the result's layout after the move; its other dimensions are the same before it
         * @param dim   the dimension that moves
         * @param over  the idle mesh axes whose major part split {@code dim}, in mesh order
         * @param parts how many blocks
         * @return the move, or null when {@code parts} does not cut {@code over} at an axis boundary or within one
         *         axis (then XLA's rule is not known here)
         */
        static Regroup share(List<List<String>> to, int dim, List<String> over, int parts, Mesh mesh) {
            // per axis of over: how many parts its major side takes (the rest of the axis is its minor part)
            java.util.Map<String, Integer> major = new java.util.HashMap<>();
            int left = parts;
            for (String a : over) {
                int s = mesh.axisSize(a);
                int take = left % s == 0 ? s : s % left == 0 ? left : -1;
                if (take < 0) {
                    return null;
                }
                major.put(a, take);
                left /= take;
            }
            if (left != 1) {
                return null;
            }
            java.util.Set<String> tiles = new java.util.HashSet<>();
            for (int d = 0; d < to.size(); d++) {
                if (d != dim) {
                    tiles.addAll(to.get(d));
                }
            }
            List<String> onto = to.get(dim);
            java.util.Map<List<Integer>, Integer> targets = new java.util.HashMap<>();
            List<Device> devices = mesh.devices();
            for (int t = 0; t < devices.size(); t++) {
                List<Integer> c = devices.get(t).coords();
                List<Integer> key = new java.util.ArrayList<>();
                tiles.stream().sorted().forEach(a -> key.add(c.get(mesh.axisPosition(a))));
                int block = 0;
                for (String a : onto) {
                    block = block * mesh.axisSize(a) + c.get(mesh.axisPosition(a));
                }
                int replica = 0;
                for (String a : mesh.axisNames()) {
                    if (!tiles.contains(a) && !onto.contains(a)) {
                        replica = replica * mesh.axisSize(a) + c.get(mesh.axisPosition(a));
                    }
                }
                key.add(block);
                key.add(replica);
                targets.put(key, t);
            }
            List<int[]> pairs = new java.util.ArrayList<>();
            for (int s = 0; s < devices.size(); s++) {
                List<Integer> c = devices.get(s).coords();
                List<Integer> key = new java.util.ArrayList<>();
                tiles.stream().sorted().forEach(a -> key.add(c.get(mesh.axisPosition(a))));
                int block = 0;
                int replica = 0;
                for (String a : mesh.axisNames()) {
                    int v = c.get(mesh.axisPosition(a));
                    if (major.containsKey(a)) {
                        int minor = mesh.axisSize(a) / major.get(a);
                        block = block * major.get(a) + v / minor;
                        replica = replica * minor + v % minor;
                    } else if (!tiles.contains(a)) {
                        replica = replica * mesh.axisSize(a) + v;
                    }
                }
                key.add(block);
                key.add(replica);
                pairs.add(new int[] {s, targets.get(key)});
            }
            List<List<String>> from = new java.util.ArrayList<>(to);
            from.set(dim, over);
            return new Regroup(from, to, pairs);
        }

        @Override
        public List<String> axes() {
            return List.copyOf(new java.util.LinkedHashSet<>(mesh(from, to)));
        }

        private static List<String> mesh(List<List<String>> from, List<List<String>> to) {
            List<String> all = new java.util.ArrayList<>();
            from.forEach(all::addAll);
            to.forEach(all::addAll);
            return all;
        }

        @Override
        public NDArray apply(NDArray x, Mesh mesh) {
            String[] all = mesh.axisNames().toArray(new String[0]);
            int me = Collectives.axisIndex(all).intAt();
            int[][] moving = pairs.stream().filter(p -> p[0] != p[1]).toArray(int[][]::new);
            NDArray got = Collectives.ppermute(x, List.of(all), moving);
            boolean keeps = pairs.stream().anyMatch(p -> p[1] == me && p[0] == me);
            return keeps ? x : got;
        }

        @Override
        public int[] outShape(int[] in, Mesh mesh) {
            return in.clone();
        }

        @Override
        public long bytesReceived(long inBytes, Mesh mesh) {
            return pairs.stream().anyMatch(p -> p[0] != p[1]) ? inBytes : 0;
        }
    }

    /**
     * Any layout to another that splits over the same or more axes, by collective-permutes (how XLA moves a
     * transposed layout): every device sends each other device the part of its block that device's new block
     * needs — one ppermute per distance k round the devices (mesh order) and piece shape — keeps what it needs of
     * its own block, and joins the pieces into its new block. Each device receives at most one new block, where
     * gathering first would receive whole dimensions.
     *
     * @param from the layout before (per dimension, the mesh axes splitting it)
     * @param to   the layout after
     */
    record Redistribute(List<List<String>> from, List<List<String>> to) implements DataMovement {
        /** @throws NullPointerException if an argument is null */
        public Redistribute {
            from = from.stream().map(List::copyOf).toList();
            to = to.stream().map(List::copyOf).toList();
        }

        @Override
        public List<String> axes() {
            java.util.LinkedHashSet<String> all = new java.util.LinkedHashSet<>();
            from.forEach(all::addAll);
            to.forEach(all::addAll);
            return List.copyOf(all);
        }

        /** The mesh coordinates of the device with this row-major index. */
        private static int[] coords(int linear, Mesh mesh) {
            int[] c = new int[mesh.rank()];
            for (int a = mesh.rank() - 1; a >= 0; a--) {
                int size = mesh.axisSize(mesh.axisNames().get(a));
                c[a] = linear % size;
                linear /= size;
            }
            return c;
        }

        /** [start, end) per dimension of the block a device holds under {@code dims}, for a global shape. */
        private static int[][] box(List<List<String>> dims, int[] global, int[] coords, Mesh mesh) {
            int[][] b = new int[global.length][];
            for (int d = 0; d < global.length; d++) {
                int index = 0;
                int parts = 1;
                for (String a : dims.get(d)) {
                    int size = mesh.axisSize(a);
                    index = index * size + coords[mesh.axisPosition(a)];
                    parts *= size;
                }
                int len = global[d] / parts;
                b[d] = new int[] {index * len, (index + 1) * len};
            }
            return b;
        }

        private static int[][] intersect(int[][] a, int[][] b) {
            int[][] r = new int[a.length][];
            for (int d = 0; d < a.length; d++) {
                int lo = Math.max(a[d][0], b[d][0]);
                int hi = Math.min(a[d][1], b[d][1]);
                if (lo >= hi) {
                    return null;
                }
                r[d] = new int[] {lo, hi};
            }
            return r;
        }

        private int[] global(int[] block, Mesh mesh) {
            int[] g = block.clone();
            for (int d = 0; d < g.length; d++) {
                for (String a : from.get(d)) {
                    g[d] *= mesh.axisSize(a);
                }
            }
            return g;
        }

        /** The piece {@code part} (global coordinates) of a block whose box is {@code owner}. */
        private static NDArray cut(NDArray block, int[][] owner, int[][] part) {
            NDArray x = block;
            for (int d = 0; d < part.length; d++) {
                if (part[d][1] - part[d][0] != x.shape(d)) {
                    x = x.slice(d, part[d][0] - owner[d][0], part[d][1] - owner[d][0]);
                }
            }
            return x;
        }

        @Override
        public NDArray apply(NDArray x, Mesh mesh) {
            int n = mesh.size();
            String[] all = mesh.axisNames().toArray(new String[0]);
            int me = Collectives.axisIndex(all).intAt();
            int[] global = global(x.shape(), mesh);
            int[][][] src = new int[n][][];
            int[][][] dst = new int[n][][];
            for (int d = 0; d < n; d++) {
                int[] c = coords(d, mesh);
                src[d] = box(from, global, c, mesh);
                dst[d] = box(to, global, c, mesh);
            }
            java.util.Map<java.util.List<Integer>, NDArray> pieces = new java.util.HashMap<>();
            int[][] mine = intersect(src[me], dst[me]);
            if (mine != null) {
                pieces.put(starts(mine), cut(x, src[me], mine));
            }
            for (int k = 1; k < n; k++) {
                // one ppermute per piece shape among the pairs (d, d + k): every device passes a piece of that shape
                java.util.Map<java.util.List<Integer>, List<int[]>> byShape = new java.util.LinkedHashMap<>();
                for (int d = 0; d < n; d++) {
                    int[][] part = intersect(src[d], dst[(d + k) % n]);
                    if (part != null) {
                        byShape.computeIfAbsent(sizes(part), s -> new java.util.ArrayList<>()).add(new int[] {d, (d + k) % n});
                    }
                }
                for (java.util.Map.Entry<java.util.List<Integer>, List<int[]>> e : byShape.entrySet()) {
                    int[][] perm = e.getValue().toArray(new int[0][]);
                    int[][] out = intersect(src[me], dst[(me + k) % n]);
                    NDArray send = out != null && sizes(out).equals(e.getKey()) ? cut(x, src[me], out)
                            : NDArray.zeros(x.dtype(), e.getKey().stream().mapToInt(Integer::intValue).toArray());
                    NDArray got = Collectives.ppermute(send, List.of(all), perm);
                    int source = Math.floorMod(me - k, n);
                    int[][] in = intersect(src[source], dst[me]);
                    if (in != null && sizes(in).equals(e.getKey())) {
                        pieces.put(starts(in), got);
                    }
                }
            }
            return join(pieces, x.shape().length);
        }

        private static java.util.List<Integer> starts(int[][] box) {
            return java.util.Arrays.stream(box).map(r -> r[0]).toList();
        }

        private static java.util.List<Integer> sizes(int[][] box) {
            return java.util.Arrays.stream(box).map(r -> r[1] - r[0]).toList();
        }

        /** Joins pieces that tile a block (keyed by their global start) by concatenating dimension by dimension. */
        private static NDArray join(java.util.Map<java.util.List<Integer>, NDArray> pieces, int rank) {
            return join(pieces, rank, 0, new java.util.ArrayList<>());
        }

        private static NDArray join(java.util.Map<java.util.List<Integer>, NDArray> pieces, int rank, int dim,
                                    java.util.List<Integer> prefix) {
            if (dim == rank) {
                return pieces.get(prefix);
            }
            java.util.TreeSet<Integer> starts = new java.util.TreeSet<>();
            for (java.util.List<Integer> k : pieces.keySet()) {
                if (k.subList(0, dim).equals(prefix)) {
                    starts.add(k.get(dim));
                }
            }
            List<NDArray> parts = new java.util.ArrayList<>();
            for (int s : starts) {
                java.util.List<Integer> p = new java.util.ArrayList<>(prefix);
                p.add(s);
                parts.add(join(pieces, rank, dim + 1, p));
            }
            return parts.size() == 1 ? parts.get(0) : NDArray.concat(dim, parts);
        }

        @Override
        public int[] outShape(int[] in, Mesh mesh) {
            int[] g = global(in, mesh);
            for (int d = 0; d < g.length; d++) {
                for (String a : to.get(d)) {
                    g[d] /= mesh.axisSize(a);
                }
            }
            return g;
        }

        @Override
        public long bytesReceived(long inBytes, Mesh mesh) {
            return inBytes; // at most one new block, which has as many elements as the old one
        }

        @Override
        public long bytesReceived(int[] inShape, long itemBytes, Mesh mesh) {
            int n = mesh.size();
            int[] global = global(inShape, mesh);
            long most = 0;
            for (int me = 0; me < n; me++) {
                int[] c = coords(me, mesh);
                int[][] dst = box(to, global, c, mesh);
                long got = 0;
                for (int d = 0; d < n; d++) {
                    int[][] part = d == me ? null : intersect(box(from, global, coords(d, mesh), mesh), dst);
                    if (part != null) {
                        long e = itemBytes;
                        for (int[] r : part) {
                            e *= r[1] - r[0];
                        }
                        got += e;
                    }
                }
                most = Math.max(most, got);
            }
            return most;
        }
    }
}
