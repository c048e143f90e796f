package dev.shardlings.spmd;

import dev.shardlings.array.NDArray;
import dev.shardlings.primitive.Reduce;
import dev.shardlings.sharding.Mesh;

import java.util.List;

/**
 * One data-movement step of a partitioned program, run by every device on its block: a collective over mesh axes
 * or a local slice. {@link Relayout#plan} composes them to change a value's layout; the partitioner adds the
 * reductions that complete a contraction. Each step calls {@link Collectives}, so it is traced like hand-written
 * code. Immutable.
 */
public sealed interface Step {

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
    record AllGather(List<String> axes, int dim) implements Step {
        /** @throws NullPointerException if axes is null */
        public AllGather {
            axes = List.copyOf(axes);
        }

        @Override
        public NDArray apply(NDArray x, Mesh mesh) {
            return Collectives.allGather(x, axes, dim, Tiling.TILED);
        }

        @Override
        public int[] outShape(int[] in, Mesh mesh) {
            return scaled(in, dim, parts(axes, mesh), 1);
        }

        @Override
        public long bytesReceived(long inBytes, Mesh mesh) {
            return (parts(axes, mesh) - 1) * inBytes;
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
    record AllToAll(String axis, int splitDim, int concatDim) implements Step {
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
        public int[] outShape(int[] in, Mesh mesh) {
            int n = mesh.axisSize(axis);
            return scaled(scaled(in, splitDim, 1, n), concatDim, n, 1);
        }

        @Override
        public long bytesReceived(long inBytes, Mesh mesh) {
            int n = mesh.axisSize(axis);
            return (n - 1) * inBytes / n;
        }
    }

    /**
     * A local slice: dimension {@code dim} becomes split over {@code axes} (as its minor axes) by keeping the
     * device's part of its block. Moves nothing.
     *
     * @param axes mesh axes, major first
     * @param dim  the dimension split further
     */
    record SliceLocal(List<String> axes, int dim) implements Step {
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
     * All-reduce over {@code axes} (psum, pmax or pmin): completes partial results.
     *
     * @param axes mesh axes
     * @param op   how partial results combine
     */
    record AllReduce(List<String> axes, Reduce.Op op) implements Step {
        /** @throws NullPointerException if an argument is null */
        public AllReduce {
            axes = List.copyOf(axes);
            java.util.Objects.requireNonNull(op, "op");
        }

        @Override
        public NDArray apply(NDArray x, Mesh mesh) {
            return switch (op) {
                case SUM -> Collectives.psum(x, axes);
                case MAX -> Collectives.pmax(x, axes);
                case MIN -> Collectives.pmin(x, axes);
            };
        }

        @Override
        public int[] outShape(int[] in, Mesh mesh) {
            return in.clone();
        }

        @Override
        public long bytesReceived(long inBytes, Mesh mesh) {
            int n = parts(axes, mesh);
            return 2 * (n - 1) * inBytes / n;
        }
    }

    /**
     * Reduce-scatter over {@code axes} along {@code dim} (tiled): completes partial sums and splits the result.
     *
     * @param axes mesh axes, major first
     * @param dim  the dimension that becomes split over them
     */
    record ReduceScatter(List<String> axes, int dim) implements Step {
        /** @throws NullPointerException if axes is null */
        public ReduceScatter {
            axes = List.copyOf(axes);
        }

        @Override
        public NDArray apply(NDArray x, Mesh mesh) {
            return Collectives.psumScatter(x, axes, dim, Tiling.TILED);
        }

        @Override
        public int[] outShape(int[] in, Mesh mesh) {
            return scaled(in, dim, 1, parts(axes, mesh));
        }

        @Override
        public long bytesReceived(long inBytes, Mesh mesh) {
            int n = parts(axes, mesh);
            return (n - 1) * inBytes / n;
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
    record RollSplit(List<String> axes, int dim, int shift) implements Step {
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
}
