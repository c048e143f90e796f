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
}
