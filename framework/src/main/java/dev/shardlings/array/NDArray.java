package dev.shardlings.array;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * A dense, row-major (C order), immutable local array of {@code float32}, {@code int32}, {@code bool} or
 * {@code bfloat16} (held as float32 values, each rounded to bfloat16 once per operation): the value type of the
 * course, mirroring a {@code jax.Array} on one device with {@code jax.numpy} semantics (shapes, dtype
 * promotion with {@code jax_enable_x64 = False}, broadcasting, error texts).
 *
 * <p>Shapes use the book notation A[B, D]: an array of shape (B, D) has B rows of D elements. Rank 0 is a
 * scalar with one element. Every array also carries its <em>varying axes</em> (JAX's "vma" inside
 * {@code shard_map}): the mesh axes the value varies over; empty outside {@code shard_map}. Every operation
 * returns arrays whose varying axes are the union of its operands' (JAX inserts implicit {@code pvary}).
 *
 * <p>Immutability: the data buffer is never written after construction and never handed out (accessors copy),
 * so views (reshape, squeeze, expandDims, withVaryingAxes, pvary) may share it safely across threads.
 *
 * <p>Allocation accounting: every operation that creates a new data buffer reports it exactly once to the
 * thread's {@link OpObserver} (see {@link OpObservers}); views report nothing.
 *
 * <p>Differentiation: while a {@link GradRecorder} is installed on the thread ({@link GradRecorders}), every
 * method that computes an array from arrays (views, scalar operands and conversions included) is recorded as the
 * operations it is made of, each exactly once, with the very objects read and returned; comparisons, argmax and
 * argsort are not recorded, nor is {@link #withVaryingAxes}, the runtime's retyping of collective results.
 *
 * <p>Argument checking: invalid arguments throw {@link IllegalArgumentException} with numpy's text where numpy
 * has one, e.g. {@code axis 2 is out of bounds for array of dimension 2}; a {@code null} throws
 * {@link NullPointerException}, as everywhere in the framework, with a message that names the argument
 * ({@code dtype must not be null}, {@code concatenate: arrays[1] is null}). A result of
 * more than {@link #MAX_SIZE} elements, whether made (zeros, arange, …) or computed (broadcasting, matmul, take,
 * concatenation), is refused the same way before anything is allocated, with a message naming the shape and the
 * limit. An array made from nothing (zeros, ones, full, arange) that the heap cannot hold is refused with a
 * {@link ResourceExhaustedException} naming the shape, dtype, bytes needed and the heap's limit, as JAX answers
 * {@code RESOURCE_EXHAUSTED}, never with a bare {@code OutOfMemoryError}. The checks are made once per call, at this
 * boundary; the kernels do not repeat them.
 */
public final class NDArray {

    /** The most elements one array can hold: {@code Integer.MAX_VALUE - 8}, the largest Java array. */
    public static final int MAX_SIZE = Integer.MAX_VALUE - 8;

    // The value. The operation families of this package (Creation, Elementwise, Reductions, ShapeOps, Indexing,
    // Contraction) read it directly and never write it; this class checks arguments and delegates to them.
    final DType dtype;
    final float[] f;  // non-null iff dtype is float32 or bfloat16 (then every element is a bfloat16 value)
    final int[] i;    // non-null iff dtype is int32 or bool
    final int[] shape;
    final Set<String> vma;
    /** Id of the traced operation that produced the buffer (see {@link OpObserver#op}); 0 when untraced. */
    final long origin;

    /** Wraps buffers without copying or reporting: callers own the buffer and decide about reporting. */
    NDArray(DType dtype, float[] f, int[] i, int[] shape, Set<String> vma, long origin) {
        this.dtype = dtype;
        this.f = f;
        this.i = i;
        this.shape = shape;
        this.vma = vma;
        this.origin = origin;
    }

    /**
     * A new array made by operation {@code op} from {@code in}: reports the allocation and the operation. Its dtype
     * follows the buffer (float[] is float32, or bfloat16 when a bfloat16 operand meets no float32 one — the
     * buffer is then rounded; int[] is int32, or bool when the operation moves or picks values of bool operands
     * only — a slice, a concatenation, a max of bools stays bool).
     */
    static NDArray made(Object data, int[] shape, Set<String> vma, LocalOp op, NDArray... in) {
        return made(data instanceof float[] ? floatResult(in) : keepsBool(op, in) ? DType.BOOL : DType.INT32, data,
                shape, vma, op, in);
    }

    /** The float dtype computed from these operands: JAX's promotion restricted to the floats. */
    private static DType floatResult(NDArray... in) {
        DType out = DType.FLOAT32;
        for (NDArray x : in) {
            if (x.dtype == DType.FLOAT32) {
                return DType.FLOAT32;
            }
            if (x.dtype == DType.BFLOAT16) {
                out = DType.BFLOAT16;
            }
        }
        return out;
    }

    private static boolean keepsBool(LocalOp op, NDArray... in) {
        boolean moves = op instanceof DataOp d && (d.kind() == OpKind.INDEXING || d.kind() == OpKind.COPY)
                || op == UnaryOp.COPY || op == ReduceOp.MAX || op == ReduceOp.MIN;
        if (!moves || in.length == 0) {
            return false;
        }
        // the data operand decides (a gather's second operand is its int32 indices); a concatenation needs all
        int data = op == DataOp.CONCATENATE || op instanceof ReduceOp ? in.length : 1;
        for (int k = 0; k < data; k++) {
            if (in[k].dtype != DType.BOOL) {
                return false;
            }
        }
        return true;
    }

    /**
     * {@link #made(Object, int[], Set, LocalOp, NDArray...)} with the dtype given (int[] data for int32 or bool;
     * float[] data for bfloat16 is rounded in place: XLA:CPU computes in float32 and rounds once per operation).
     */
    static NDArray made(DType dtype, Object data, int[] shape, Set<String> vma, LocalOp op, NDArray... in) {
        if (dtype == DType.BFLOAT16) {
            BFloat16.roundInPlace((float[]) data);
        }
        OpObservers.allocated(dtype, shape);
        long origin = 0;
        if (OpObservers.observer() != null) {
            long outBytes = (long) Shapes.size(shape) * dtype.byteSize();
            long inBytes = 0;
            long inElements = 0;
            long[] inputs = new long[in.length];
            for (int k = 0; k < in.length; k++) {
                inBytes += in[k].nbytes();
                inElements += in[k].size();
                inputs[k] = in[k].origin;
            }
            long flops;
            long bytes;
            switch (op.kind()) {
                case CREATE: flops = 0; bytes = outBytes; break;
                case ELEMENTWISE: flops = Shapes.size(shape); bytes = inBytes + outBytes; break;
                case REDUCTION: flops = inElements; bytes = inBytes + outBytes; break;
                case INDEXING: case COPY: flops = 0; bytes = 2 * outBytes; break;
                case ADD_N: flops = inElements - Shapes.size(shape); bytes = inBytes + outBytes; break;
                default: // a matmul [m, k]·[k, n] (an operand may be given transposed): 2·m·n·k
                    flops = shape[0] == 0 ? 0 : 2L * Shapes.size(shape) * (in[0].size() / shape[0]);
                    bytes = inBytes + outBytes;
            }
            origin = OpObservers.op(op, dtype, shape, inputs, flops, bytes);
        }
        return dtype.isFloating() ? new NDArray(dtype, (float[]) data, null, shape, vma, origin)
                : new NDArray(dtype, null, (int[]) data, shape, vma, origin);
    }

    /** A view sharing this buffer with another shape and/or vma: no allocation, nothing reported. */
    NDArray view(int[] newShape, Set<String> newVma) {
        return new NDArray(dtype, f, i, newShape, newVma, origin);
    }

    /** The id of the traced operation that produced this array's buffer; 0 when it was made untraced. */
    long origin() {
        return origin;
    }

    /** The data buffer, a float[] or an int[] (read only!). */
    Object buffer() {
        return f != null ? f : i;
    }

    // ------------------------------------------------------------------------------------------------ creation

    /**
     * An array of zeros ({@code jnp.zeros(shape, dtype)}).
     *
     * @param dtype element type
     * @param shape dimensions, each >= 0; none for a scalar
     * @throws NullPointerException     if dtype or shape is null (the message names it)
     * @throws IllegalArgumentException if a dimension is negative, or the shape has more than {@link #MAX_SIZE}
     *                                  elements
     * @throws ResourceExhaustedException if the array needs more bytes than the heap allows (4 per element),
     *                                    before anything is allocated (JAX: {@code RESOURCE_EXHAUSTED})
     */
    public static NDArray zeros(DType dtype, int... shape) {
        requireNonNull(dtype, "dtype");
        return Creation.zeros(dtype, checkedShape(shape));
    }

    /**
     * An array of ones ({@code jnp.ones(shape, dtype)}).
     *
     * @throws NullPointerException     if dtype or shape is null (the message names it)
     * @throws IllegalArgumentException if a dimension is negative, or the shape has more than {@link #MAX_SIZE}
     *                                  elements
     * @throws ResourceExhaustedException if the array needs more bytes than the heap allows (4 per element),
     *                                    before anything is allocated (JAX: {@code RESOURCE_EXHAUSTED})
     */
    public static NDArray ones(DType dtype, int... shape) {
        requireNonNull(dtype, "dtype");
        return Creation.ones(dtype, checkedShape(shape));
    }

    /**
     * A float32 array filled with {@code value} ({@code jnp.full(shape, value, jnp.float32)}).
     *
     * @throws NullPointerException     if shape is null
     * @throws IllegalArgumentException if a dimension is negative, or the shape has more than {@link #MAX_SIZE}
     *                                  elements
     * @throws ResourceExhaustedException if the array needs more bytes than the heap allows (4 per element),
     *                                    before anything is allocated (JAX: {@code RESOURCE_EXHAUSTED})
     */
    public static NDArray full(float value, int... shape) {
        return Creation.full(value, checkedShape(shape));
    }

    /**
     * An int32 array filled with {@code value} ({@code jnp.full(shape, value, jnp.int32)}).
     *
     * @throws NullPointerException     if shape is null
     * @throws IllegalArgumentException if a dimension is negative, or the shape has more than {@link #MAX_SIZE}
     *                                  elements
     * @throws ResourceExhaustedException if the array needs more bytes than the heap allows (4 per element),
     *                                    before anything is allocated (JAX: {@code RESOURCE_EXHAUSTED})
     */
    public static NDArray full(int value, int... shape) {
        return Creation.full(value, checkedShape(shape));
    }

    /**
     * int32 [0, 1, ..., n-1] of shape (n,) ({@code jnp.arange(n)}).
     *
     * @throws IllegalArgumentException if n is negative or more than {@link #MAX_SIZE}
     * @throws ResourceExhaustedException if the array needs more bytes than the heap allows (4 per element),
     *                                    before anything is allocated (JAX: {@code RESOURCE_EXHAUSTED})
     */
    public static NDArray arange(int n) {
        return arange(n, DType.INT32);
    }

    /**
     * [0, 1, ..., n-1] of shape (n,) and the given dtype ({@code jnp.arange(n, dtype=dtype)}).
     *
     * @throws NullPointerException     if dtype is null
     * @throws IllegalArgumentException if n is negative or more than {@link #MAX_SIZE}
     * @throws ResourceExhaustedException if the array needs more bytes than the heap allows (4 per element),
     *                                    before anything is allocated (JAX: {@code RESOURCE_EXHAUSTED})
     */
    public static NDArray arange(int n, DType dtype) {
        requireNonNull(dtype, "dtype");
        if (n < 0) {
            throw new IllegalArgumentException("arange(" + n + "): n must be >= 0 (the result has n elements)");
        }
        Shapes.checkedSize(new int[] {n});
        return Creation.arange(n, dtype);
    }

    /**
     * A float32 array with a copy of {@code data} in row-major order and the given shape.
     *
     * @throws NullPointerException     if data or shape is null (the message names it)
     * @throws IllegalArgumentException if a dimension is negative, or the shape's product differs from
     *                                  {@code data.length}
     */
    public static NDArray fromFloats(float[] data, int... shape) {
        requireNonNull(data, "data");
        return Creation.copyOf("fromFloats", data, checkedShape(shape));
    }

    /**
     * An int32 array with a copy of {@code data} in row-major order and the given shape.
     *
     * @throws NullPointerException     if data or shape is null (the message names it)
     * @throws IllegalArgumentException if a dimension is negative, or the shape's product differs from
     *                                  {@code data.length}
     */
    public static NDArray fromInts(int[] data, int... shape) {
        requireNonNull(data, "data");
        return Creation.copyOf("fromInts", data, checkedShape(shape));
    }

    /**
     * A bool array with {@code data} in row-major order and the given shape ({@code jnp.array([...], bool)}).
     *
     * @throws NullPointerException     if data or shape is null (the message names it)
     * @throws IllegalArgumentException if a dimension is negative, or the shape's product differs from
     *                                  {@code data.length}
     */
    public static NDArray fromBooleans(boolean[] data, int... shape) {
        requireNonNull(data, "data");
        return Creation.copyOf("fromBooleans", data, checkedShape(shape));
    }

    /**
     * A 1-D float32 array f32[n] of the values ({@code jnp.array([...], jnp.float32)}).
     *
     * @throws NullPointerException     if values is null
     */
    public static NDArray of(float... values) {
        requireNonNull(values, "values");
        return Creation.fresh(values.clone(), new int[] {values.length});
    }

    /**
     * A 1-D int32 array i32[n] of the values ({@code jnp.array([...])}).
     *
     * @throws NullPointerException     if values is null
     */
    public static NDArray of(int... values) {
        requireNonNull(values, "values");
        return Creation.fresh(values.clone(), new int[] {values.length});
    }

    /**
     * A 2-D float32 array f32[rows, cols] ({@code jnp.array([[...], ...], jnp.float32)}). Zero rows give shape
     * (0,0).
     *
     * @throws NullPointerException     if rows or a row is null (the message names the row)
     * @throws IllegalArgumentException if the rows have different lengths (ragged)
     */
    public static NDArray of(float[][] rows) {
        requireNonNull(rows, "rows");
        return Creation.rows(rows);
    }

    /**
     * A 2-D int32 array i32[rows, cols] ({@code jnp.array([[...], ...])}). Zero rows give shape (0,0).
     *
     * @throws NullPointerException     if rows or a row is null (the message names the row)
     * @throws IllegalArgumentException if the rows have different lengths (ragged)
     */
    public static NDArray of(int[][] rows) {
        requireNonNull(rows, "rows");
        return Creation.rows(rows);
    }

    /** A rank-0 float32 array f32[] ({@code jnp.float32(value)}). */
    public static NDArray scalar(float value) {
        return Creation.fresh(new float[] {value}, new int[0]);
    }

    /** A rank-0 int32 array i32[] ({@code jnp.int32(value)}). */
    public static NDArray scalar(int value) {
        return Creation.fresh(new int[] {value}, new int[0]);
    }

    private static int[] checkedShape(int[] shape) {
        Shapes.checkedSize(shape);
        return shape.clone();
    }

    private static void requireNonNull(Object o, String name) {
        if (o == null) {
            throw new NullPointerException(name + " must not be null");
        }
    }

    // ----------------------------------------------------------------------------------------------- accessors

    /** The element type. */
    public DType dtype() {
        return dtype;
    }

    /** The shape (a copy; rank-0 arrays return an empty array). */
    public int[] shape() {
        return shape.clone();
    }

    /**
     * The size of one dimension ({@code x.shape[axis]}); negative axes count from the end.
     *
     * @throws IllegalArgumentException if the axis is out of bounds
     */
    public int shape(int axis) {
        return shape[Shapes.axis(axis, shape.length)];
    }

    /** Number of dimensions ({@code x.ndim}); 0 for a scalar. */
    public int rank() {
        return shape.length;
    }

    /** Number of elements ({@code x.size}); 1 for a scalar. */
    public int size() {
        return Shapes.size(shape);
    }

    /** Bytes of data ({@code x.nbytes} = size · dtype.byteSize()). */
    public long nbytes() {
        return (long) size() * dtype.byteSize();
    }

    /**
     * The element at {@code index} (one index per axis, negative counts from the end, like {@code x[i, j]}),
     * as a float; int32 elements are converted.
     *
     * @throws IllegalArgumentException if the number of indices differs from the rank or one is out of bounds
     */
    public float floatAt(int... index) {
        int off = offsetOf("floatAt", index);
        return f != null ? f[off] : (float) i[off];
    }

    /**
     * The element at {@code index} as an int. On float32 arrays this returns {@code (int) value}: truncation
     * toward zero, saturating at the int range, NaN → 0 (Java's cast).
     *
     * @throws IllegalArgumentException if the number of indices differs from the rank or one is out of bounds
     */
    public int intAt(int... index) {
        int off = offsetOf("intAt", index);
        return i != null ? i[off] : (int) f[off];
    }

    private int offsetOf(String method, int[] index) {
        requireNonNull(index, "index");
        if (index.length != shape.length) {
            throw new IllegalArgumentException(method + " needs " + shape.length + " indices for an array of shape "
                    + Shapes.str(shape) + ", got " + index.length);
        }
        int[] strides = Shapes.strides(shape);
        int off = 0;
        for (int d = 0; d < index.length; d++) {
            off += normIndex(index[d], d) * strides[d];
        }
        return off;
    }

    private int normIndex(int idx, int axis) {
        int dim = shape[axis];
        if (idx < -dim || idx >= dim) {
            throw new IllegalArgumentException("index " + idx + " is out of bounds for axis " + axis + " with size "
                    + dim);
        }
        return idx < 0 ? idx + dim : idx;
    }

    /** A row-major copy of the data as floats (int32 elements converted). */
    public float[] toFloatArray() {
        return f != null ? f.clone() : DataKernels.toFloats(i);
    }

    /**
     * A row-major copy of the data of a bool array.
     *
     * @throws IllegalStateException on a float32 or int32 array
     */
    public boolean[] toBooleanArray() {
        if (dtype != DType.BOOL) {
            throw new IllegalStateException("toBooleanArray() needs a bool array but this is " + describe()
                    + ": compare it first, e.g. x.greater(0)");
        }
        boolean[] out = new boolean[i.length];
        for (int k = 0; k < out.length; k++) {
            out[k] = i[k] != 0;
        }
        return out;
    }

    /**
     * A row-major copy of the data of an int32 array (0 and 1 for a bool array).
     *
     * @throws IllegalStateException on a float32 array
     */
    public int[] toIntArray() {
        if (i == null) {
            throw new IllegalStateException("toIntArray() needs an int32 array but this is " + describe()
                    + ": use toFloatArray(), or astype(DType.INT32) first to truncate toward zero");
        }
        return i.clone();
    }

    /**
     * The only element of a size-1 array as a float ({@code x.item()}); int32 converted.
     *
     * @throws IllegalArgumentException if size() != 1
     */
    public float item() {
        if (size() != 1) {
            throw new IllegalArgumentException("item() needs an array of size 1 but shape " + Shapes.str(shape)
                    + " has " + size() + " elements (numpy: can only convert an array of size 1 to a Python "
                    + "scalar); index or reduce first");
        }
        return f != null ? f[0] : (float) i[0];
    }

    /** The mesh axes this value varies over inside shard_map (JAX's vma); unmodifiable, in insertion order. */
    public Set<String> varyingAxes() {
        return vma;
    }

    /**
     * The same data with exactly the given varying axes (not a union). Shares the buffer: no allocation is
     * reported. Used by the SPMD runtime to type values inside shard_map.
     *
     * @throws NullPointerException     if axes is null or contains a null name
     * @throws IllegalArgumentException if a name is empty
     */
    public NDArray withVaryingAxes(Set<String> axes) {
        requireNonNull(axes, "axes");
        return view(shape, VaryingAxes.of(axes));
    }

    /**
     * {@code jax.lax.pvary(x, axes)}: marks the value as varying over the given axes too (union with the current
     * varying axes). No data change, no allocation reported.
     *
     * @throws NullPointerException     if axes is null or contains a null name
     * @throws IllegalArgumentException if a name is empty
     */
    public NDArray pvary(String... axes) {
        requireNonNull(axes, "axes");
        NDArray out = view(shape, VaryingAxes.union(vma, VaryingAxes.of(Arrays.asList(axes))));
        GradRecorder r = GradRecorders.current();
        if (r != null) {
            r.pvary(this, out);
        }
        return out;
    }

    // ---------------------------------------------------------------------------------------------- shape ops

    /**
     * {@code x.reshape(newShape)}: the same elements in row-major order with a new shape; at most one dimension
     * may be -1 (inferred). A view: shares the buffer, reports no allocation.
     *
     * @throws IllegalArgumentException if the element count differs ("cannot reshape array of size 6 into
     *                                  shape (4,2)"), more than one -1 is given, or a dimension is below -1
     */
    public NDArray reshape(int... newShape) {
        requireNonNull(newShape, "newShape");
        return ShapeOps.reshape(this, newShape);
    }

    /**
     * {@code jnp.transpose(x, perm)}: result axis d is input axis perm[d] (negative entries allowed).
     *
     * @throws IllegalArgumentException if perm is not a permutation of the axes
     */
    public NDArray transpose(int... perm) {
        requireNonNull(perm, "perm");
        return ShapeOps.transpose(this, perm);
    }

    /** {@code x.T}: reverses the axes (identity on rank 0 and 1). */
    public NDArray transpose() {
        int[] p = new int[shape.length];
        for (int d = 0; d < p.length; d++) {
            p[d] = p.length - 1 - d;
        }
        return transpose(p);
    }

    /**
     * {@code jnp.swapaxes(x, a, b)}.
     *
     * @throws IllegalArgumentException if an axis is out of bounds
     */
    public NDArray swapAxes(int a, int b) {
        int na = Shapes.axis(a, shape.length);
        int nb = Shapes.axis(b, shape.length);
        int[] p = new int[shape.length];
        for (int d = 0; d < p.length; d++) {
            p[d] = d;
        }
        p[na] = nb;
        p[nb] = na;
        return transpose(p);
    }

    /**
     * {@code x[..., start:stop, ...]} along {@code axis} (half-open). Unlike numpy, which silently clips
     * out-of-range bounds, the bounds are checked strictly so that student indexing mistakes are visible.
     *
     * @throws IllegalArgumentException unless {@code 0 <= start <= stop <= shape(axis)}, or if the axis is out
     *                                  of bounds
     */
    public NDArray slice(int axis, int start, int stop) {
        int ax = Shapes.axis(axis, shape.length);
        int dim = shape[ax];
        if (start < 0 || start > stop || stop > dim) {
            throw new IllegalArgumentException("slice(axis=" + axis + ", start=" + start + ", stop=" + stop
                    + ") is out of bounds for axis " + ax + " of size " + dim + ": need 0 <= start <= stop <= " + dim
                    + " (bounds are checked strictly, not clipped as in numpy)");
        }
        return Indexing.slice(this, ax, start, stop - start);
    }

    /**
     * {@code jax.lax.dynamic_slice_in_dim(x, start, size, axis)}: {@code size} elements along {@code axis}
     * from {@code start}. As in JAX (allow_negative_indices=True), a negative start counts from the end, and
     * then the start is CLAMPED to [0, dim - size] so that the slice always fits: it never fails for a bad
     * start, e.g. start 4, size 3 on 5 elements reads elements 2..4.
     *
     * @throws IllegalArgumentException if size is negative or larger than the dimension, or the axis is out of
     *                                  bounds
     */
    public NDArray dynamicSlice(int axis, int start, int size) {
        int ax = Shapes.axis(axis, shape.length);
        int dim = shape[ax];
        if (size < 0 || size > dim) {
            throw new IllegalArgumentException("dynamicSlice size " + size + " does not fit axis " + ax + " of size "
                    + dim + ": need 0 <= size <= " + dim + " (the start is clamped, the size is not)");
        }
        long s = start < 0 ? (long) start + dim : start;
        int clamped = (int) Math.min(Math.max(s, 0), dim - size);
        return Indexing.slice(this, ax, clamped, size);
    }

    /**
     * {@code x[i]}: the sub-array at index i of axis 0, dropping that axis; negative i counts from the end.
     *
     * @throws IllegalArgumentException on a rank-0 array or if i is out of bounds
     */
    public NDArray index(int idx) {
        if (shape.length == 0) {
            throw new IllegalArgumentException("too many indices for array: array is 0-dimensional, but 1 were "
                    + "indexed");
        }
        return take(0, idx);
    }

    /**
     * {@code jnp.take(x, i, axis)} with a scalar index: selects index i along axis, dropping that axis; negative
     * i counts from the end.
     *
     * @throws IllegalArgumentException if the axis or index is out of bounds
     */
    public NDArray take(int axis, int idx) {
        int ax = Shapes.axis(axis, shape.length);
        return Indexing.take(this, ax, normIndex(idx, ax));
    }

    /**
     * {@code jnp.take(x, indices, axis)}: gathers along {@code axis} by an int32 array of indices of any shape. The
     * result has shape x.shape[:axis] + indices.shape + x.shape[axis+1:] and x's dtype; negative indices count from
     * the end. Example: rows {@code [2, 0, 2]} of a [3, 4] array is {@code x.take(NDArray.of(2, 0, 2), 0)}, a
     * [3, 4] array.
     *
     * <p>Where JAX is loose: an index outside [−n, n) is an error here; JAX's default {@code mode="fill"} would
     * return NaN (float) or the most negative int for it, which hides the bug.
     *
     * @throws NullPointerException     if indices is null
     * @throws IllegalArgumentException if indices is not int32, the axis is out of bounds, or an index is out of
     *                                  range (the message names the first such index and the range)
     */
    public NDArray take(NDArray indices, int axis) {
        requireNonNull(indices, "indices");
        if (indices.dtype != DType.INT32) {
            throw new IllegalArgumentException("take: indices must be int32, got " + indices.dtype.jaxName()
                    + "; convert them with astype(DType.INT32)");
        }
        return Indexing.gather(this, indices, Shapes.axis(axis, shape.length));
    }

    /**
     * {@code jnp.argsort(x, stable=True)} of a rank-1 array: the int32 indices that sort it ascending; equal
     * elements keep their order, and NaNs go last, as in numpy.
     *
     * @throws IllegalArgumentException if the array is not rank 1
     */
    public NDArray argsort() {
        if (shape.length != 1) {
            throw new IllegalArgumentException("argsort here sorts rank-1 arrays; got shape " + Shapes.str(shape)
                    + ". Reshape to one dimension first, or sort each row separately");
        }
        return Indexing.argsort(this);
    }

    /**
     * {@code jnp.expand_dims(x, axis)}: inserts a size-1 axis at position {@code axis} in [-(r+1), r]. A view.
     *
     * @throws IllegalArgumentException if the axis is out of bounds for the result rank r+1
     */
    public NDArray expandDims(int axis) {
        return ShapeOps.expandDims(this, Shapes.axis(axis, shape.length + 1));
    }

    /**
     * {@code jnp.squeeze(x, axis)}: removes a size-1 axis. A view.
     *
     * @throws IllegalArgumentException if the axis is out of bounds or its size is not 1
     */
    public NDArray squeeze(int axis) {
        return ShapeOps.squeeze(this, Shapes.axis(axis, shape.length));
    }

    /** {@code jnp.squeeze(x)}: removes every size-1 axis. A view. */
    public NDArray squeeze() {
        return ShapeOps.squeeze(this);
    }

    /**
     * {@code jnp.concatenate(arrays, axis)}: joins arrays of equal rank along an existing axis. Mixed dtypes
     * promote like JAX (int32 with float32 gives float32).
     *
     * @throws NullPointerException     if arrays or one of them is null (the message gives its index)
     * @throws IllegalArgumentException if there are no arrays, one is rank 0, the ranks differ, the axis is out
     *                                  of bounds, or a dimension other than {@code axis} differs
     */
    public static NDArray concat(int axis, NDArray... arrays) {
        requireNonNull(arrays, "arrays");
        return concat(axis, Arrays.asList(arrays));
    }

    /**
     * List form of {@link #concat(int, NDArray...)}.
     *
     * @throws IllegalArgumentException as {@link #concat(int, NDArray...)}
     */
    public static NDArray concat(int axis, List<NDArray> arrays) {
        return Indexing.concat(axis, checkedList(arrays, "concatenate"));
    }

    /**
     * {@code jnp.stack(arrays, axis)}: joins same-shape arrays along a new axis at position {@code axis} in
     * [-(r+1), r]. Mixed dtypes promote like {@link #concat(int, NDArray...)}.
     *
     * @throws NullPointerException     if arrays or one of them is null (the message gives its index)
     * @throws IllegalArgumentException if there are no arrays, the shapes differ, or the axis is out of bounds
     */
    public static NDArray stack(int axis, NDArray... arrays) {
        requireNonNull(arrays, "arrays");
        return stack(axis, Arrays.asList(arrays));
    }

    /**
     * List form of {@link #stack(int, NDArray...)}.
     *
     * @throws IllegalArgumentException as {@link #stack(int, NDArray...)}
     */
    public static NDArray stack(int axis, List<NDArray> arrays) {
        return Indexing.stack(axis, checkedList(arrays, "stack"));
    }

    private static List<NDArray> checkedList(List<NDArray> arrays, String op) {
        requireNonNull(arrays, "arrays");
        if (arrays.isEmpty()) {
            throw new IllegalArgumentException("need at least one array to " + op);
        }
        List<NDArray> xs = new ArrayList<>(arrays.size());
        for (int k = 0; k < arrays.size(); k++) {
            NDArray x = arrays.get(k);
            if (x == null) {
                throw new NullPointerException(op + ": arrays[" + k + "] is null");
            }
            xs.add(x);
        }
        return xs;
    }

    /**
     * {@code jnp.split(x, sections, axis)}: {@code sections} equal pieces along {@code axis}, in order.
     *
     * @throws IllegalArgumentException if {@code sections <= 0}, the axis is out of bounds, or the dimension is not
     *                                  divisible ("array split does not result in an equal division: dimension
     *                                  7 into 2 sections")
     */
    public List<NDArray> split(int axis, int sections) {
        int ax = Shapes.axis(axis, shape.length);
        if (sections <= 0) {
            throw new IllegalArgumentException("number sections must be larger than 0, got " + sections);
        }
        int dim = shape[ax];
        if (dim % sections != 0) {
            throw new IllegalArgumentException("array split does not result in an equal division: dimension " + dim
                    + " into " + sections + " sections");
        }
        return Indexing.split(this, ax, sections);
    }

    /**
     * {@code jnp.roll(x, shift, axis)}: elements move {@code shift} places along {@code axis}, wrapping around;
     * any shift works (taken modulo the dimension), negative shifts move toward index 0.
     *
     * @throws IllegalArgumentException if the axis is out of bounds
     */
    public NDArray roll(int shift, int axis) {
        return Indexing.roll(this, shift, Shapes.axis(axis, shape.length));
    }

    /** {@code jnp.roll(x, shift)} without axis: rolls the flattened array; the shape is kept. */
    public NDArray roll(int shift) {
        return Indexing.roll(this, shift);
    }

    /**
     * {@code x.astype(dtype)}. float32 → int32 truncates toward zero like numpy; out-of-range values saturate
     * and NaN becomes 0 (numpy leaves these undefined; this is XLA's conversion). Converting to the same dtype
     * returns a view (JAX's astype does not copy an immutable array).
     *
     * @throws NullPointerException     if dtype is null
     */
    public NDArray astype(DType dtype) {
        requireNonNull(dtype, "dtype");
        if (dtype == this.dtype) {
            NDArray out = view(shape, vma);
            GradRecorder r = GradRecorders.current();
            if (r != null) {
                r.convert(this, out); // the identity conversion: the caller goes on with out, the tape must know it
            }
            return out;
        }
        return Elementwise.convert(this, dtype); // records itself
    }

    /**
     * {@code jnp.broadcast_to(x, shape)} with numpy's rules: trailing dimensions must be equal or 1 in x.
     * Broadcasting to the array's own shape returns a view.
     *
     * @throws IllegalArgumentException if shape is invalid or x cannot be broadcast to it
     */
    public NDArray broadcastTo(int... shape) {
        return ShapeOps.broadcastTo(this, checkedShape(shape));
    }

    // ---------------------------------------------------------------------------------------------- elementwise

    private NDArray binary(BinaryOp op, NDArray other) {
        requireNonNull(other, "other");
        return Elementwise.binary(this, op, other);
    }

    /**
     * {@code x > y} ({@code jnp.greater}) with numpy broadcasting: a bool array. int32 and bool operands compare
     * as integers; with a float32 operand, as float32 (NaN compares false).
     *
     * @throws NullPointerException     if other is null
     * @throws IllegalArgumentException if the shapes do not broadcast
     */
    public NDArray greater(NDArray other) {
        return compare(CompareOp.GT, other);
    }

    /** {@code x > s}: a whole number compares with an int32 array as an int, anything else as float32. */
    public NDArray greater(double s) {
        return compare(CompareOp.GT, s);
    }

    /**
     * {@code x >= y} ({@code jnp.greater_equal}) with numpy broadcasting: a bool array. int32 and bool operands compare
     * as integers; with a float32 operand, as float32 (NaN compares false).
     *
     * @throws NullPointerException     if other is null
     * @throws IllegalArgumentException if the shapes do not broadcast
     */
    public NDArray greaterEqual(NDArray other) {
        return compare(CompareOp.GE, other);
    }

    /** {@code x >= s}: a whole number compares with an int32 array as an int, anything else as float32. */
    public NDArray greaterEqual(double s) {
        return compare(CompareOp.GE, s);
    }

    /**
     * {@code x < y} ({@code jnp.less}) with numpy broadcasting: a bool array. int32 and bool operands compare
     * as integers; with a float32 operand, as float32 (NaN compares false).
     *
     * @throws NullPointerException     if other is null
     * @throws IllegalArgumentException if the shapes do not broadcast
     */
    public NDArray less(NDArray other) {
        return compare(CompareOp.LT, other);
    }

    /** {@code x < s}: a whole number compares with an int32 array as an int, anything else as float32. */
    public NDArray less(double s) {
        return compare(CompareOp.LT, s);
    }

    /**
     * {@code x <= y} ({@code jnp.less_equal}) with numpy broadcasting: a bool array. int32 and bool operands compare
     * as integers; with a float32 operand, as float32 (NaN compares false).
     *
     * @throws NullPointerException     if other is null
     * @throws IllegalArgumentException if the shapes do not broadcast
     */
    public NDArray lessEqual(NDArray other) {
        return compare(CompareOp.LE, other);
    }

    /** {@code x <= s}: a whole number compares with an int32 array as an int, anything else as float32. */
    public NDArray lessEqual(double s) {
        return compare(CompareOp.LE, s);
    }

    /**
     * {@code x == y} ({@code jnp.equal}) with numpy broadcasting: a bool array. int32 and bool operands compare
     * as integers; with a float32 operand, as float32 (NaN compares false).
     *
     * @throws NullPointerException     if other is null
     * @throws IllegalArgumentException if the shapes do not broadcast
     */
    public NDArray equal(NDArray other) {
        return compare(CompareOp.EQ, other);
    }

    /** {@code x == s}: a whole number compares with an int32 array as an int, anything else as float32. */
    public NDArray equal(double s) {
        return compare(CompareOp.EQ, s);
    }

    /**
     * {@code x != y} ({@code jnp.not_equal}) with numpy broadcasting: a bool array. int32 and bool operands compare
     * as integers; with a float32 operand, as float32 (NaN compares true).
     *
     * @throws NullPointerException     if other is null
     * @throws IllegalArgumentException if the shapes do not broadcast
     */
    public NDArray notEqual(NDArray other) {
        return compare(CompareOp.NE, other);
    }

    /** {@code x != s}: a whole number compares with an int32 array as an int, anything else as float32. */
    public NDArray notEqual(double s) {
        return compare(CompareOp.NE, s);
    }

    private NDArray compare(CompareOp op, NDArray other) {
        requireNonNull(other, "other");
        return Elementwise.compare(this, op, other);
    }

    private NDArray compare(CompareOp op, double s) {
        return Elementwise.compare(this, op, scalarLike(dtype, s));
    }

    /**
     * A Python-style (weakly typed) scalar operand beside an array of {@code dtype}: a whole number is an int32
     * scalar beside int32 or bool arrays, anything else a float32 scalar — so {@code x > 2} compares integers and
     * {@code x > 2.5} floats, as in JAX. Not reported as an allocation.
     *
     * @throws NullPointerException     if dtype is null
     */
    public static NDArray scalarLike(DType dtype, double s) {
        requireNonNull(dtype, "dtype");
        return Elementwise.weak(s, !dtype.isFloating() && s == Math.rint(s) && Math.abs(s) <= Integer.MAX_VALUE,
                dtype);
    }

    /** A weakly typed int beside this array (bfloat16 beside a bfloat16 array, as JAX's weak types give). */
    private NDArray weak(int s) {
        return Elementwise.weak(s, true, dtype);
    }

    /** A weakly typed float beside this array (bfloat16 beside a bfloat16 array, as JAX's weak types give). */
    private NDArray weak(float s) {
        return Elementwise.weak(s, false, dtype);
    }

    /**
     * {@code jnp.where(condition, x, y)}: x where the condition holds, else y, the three broadcast together
     * (numpy's rules). A condition that is not bool counts non-zero as true, as JAX converts it. The dtype is x's
     * and y's when they agree, else float32 if either is float32, else int32.
     *
     * @throws NullPointerException     if an argument is null (the message names it)
     * @throws IllegalArgumentException if the shapes do not broadcast
     */
    public static NDArray where(NDArray condition, NDArray x, NDArray y) {
        requireNonNull(condition, "condition");
        requireNonNull(x, "x");
        requireNonNull(y, "y");
        return Elementwise.select(condition, x, y);
    }

    /** {@code jnp.where(condition, x, s)} with a Python-style scalar for y (whole numbers stay int beside ints). */
    public static NDArray where(NDArray condition, NDArray x, double y) {
        requireNonNull(x, "x");
        return where(condition, x, scalarLike(x.dtype, y));
    }

    /** {@code jnp.where(condition, 1.0, 0.0)}: two scalars give a float32 array of the condition's shape. */
    public static NDArray where(NDArray condition, double x, double y) {
        return where(condition, Elementwise.weak((float) x), Elementwise.weak((float) y));
    }

    /** {@code jnp.where(condition, s, y)} with a Python-style scalar for x (whole numbers stay int beside ints). */
    public static NDArray where(NDArray condition, double x, NDArray y) {
        requireNonNull(y, "y");
        return where(condition, scalarLike(y.dtype, x), y);
    }

    /** The data as floats: the buffer itself for float32 (read only!), a converted copy for int32. */
    float[] floatData() {
        return f != null ? f : DataKernels.toFloats(i);
    }

    /**
     * {@code x + y} ({@code jnp.add}) with numpy broadcasting. i32+i32 → i32 (wraps on overflow); any float32
     * operand → f32.
     *
     * @throws NullPointerException     if other is null
     * @throws IllegalArgumentException if the shapes do not broadcast ("operands could not be broadcast together
     *                                  with shapes (2,3) (4,)")
     */
    public NDArray add(NDArray other) {
        return binary(BinaryOp.ADD, other);
    }

    /**
     * {@code x0 + x1 + … + x(n-1)} added left to right ({@code functools.reduce(jnp.add, xs)}): the same values,
     * bit for bit, as chained {@link #add(NDArray)} calls, in one pass and one new buffer. The order psum uses.
     * Operands of one shape; int32 only when all are int32 (wrapping), float32 otherwise. Varying axes: the union.
     * Reports one allocation and one operation of (n−1)·size FLOPs.
     *
     * @throws NullPointerException     if arrays is null or holds a null (the message gives its index)
     * @throws IllegalArgumentException if arrays is empty or the shapes differ (broadcasting is not applied; chain
     *                                  {@link #add(NDArray)} for that)
     */
    public static NDArray addN(List<NDArray> arrays) {
        return Elementwise.addN(checkedList(arrays, "addN"));
    }

    /** {@code x + s} with a weakly typed int: keeps int32 (wrapping), float32 or bfloat16. */
    public NDArray add(int s) {
        return binary(BinaryOp.ADD, weak(s));
    }

    /** {@code x + s} with a weakly typed float: float32, or bfloat16 beside bfloat16. */
    public NDArray add(float s) {
        return binary(BinaryOp.ADD, weak(s));
    }

    /** {@code x + s} with a weakly typed Python float, rounded to float32 first: the result is float32. */
    public NDArray add(double s) {
        return add((float) s);
    }

    /**
     * {@code x - y} ({@code jnp.subtract}) with broadcasting; dtypes as {@link #add(NDArray)}.
     *
     * @throws NullPointerException     if other is null
     * @throws IllegalArgumentException if the shapes do not broadcast
     */
    public NDArray sub(NDArray other) {
        return binary(BinaryOp.SUB, other);
    }

    /** {@code x - s} with a weakly typed int: keeps int32 (wrapping), float32 or bfloat16. */
    public NDArray sub(int s) {
        return binary(BinaryOp.SUB, weak(s));
    }

    /** {@code x - s} with a weakly typed float: float32, or bfloat16 beside bfloat16. */
    public NDArray sub(float s) {
        return binary(BinaryOp.SUB, weak(s));
    }

    /** {@code x - s} with a weakly typed Python float, rounded to float32 first: the result is float32. */
    public NDArray sub(double s) {
        return sub((float) s);
    }

    /**
     * {@code x * y} ({@code jnp.multiply}) with broadcasting; dtypes as {@link #add(NDArray)}.
     *
     * @throws NullPointerException     if other is null
     * @throws IllegalArgumentException if the shapes do not broadcast
     */
    public NDArray mul(NDArray other) {
        return binary(BinaryOp.MUL, other);
    }

    /** {@code x * s} with a weakly typed int: keeps int32 (wrapping), float32 or bfloat16. */
    public NDArray mul(int s) {
        return binary(BinaryOp.MUL, weak(s));
    }

    /** {@code x * s} with a weakly typed float: float32 ({@code int32 * 2.5} too), or bfloat16 beside bfloat16. */
    public NDArray mul(float s) {
        return binary(BinaryOp.MUL, weak(s));
    }

    /** {@code x * s} with a weakly typed Python float, rounded to float32 first: the result is float32. */
    public NDArray mul(double s) {
        return mul((float) s);
    }

    /**
     * {@code x / y} ({@code jnp.true_divide}) with broadcasting: always float32, also for int32 operands
     * ({@code 3 / 2 = 1.5}); division by zero gives ±inf or nan as in IEEE 754.
     *
     * @throws NullPointerException     if other is null
     * @throws IllegalArgumentException if the shapes do not broadcast
     */
    public NDArray div(NDArray other) {
        return binary(BinaryOp.DIV, other);
    }

    /** {@code x / s}: always float32. */
    public NDArray div(int s) {
        return binary(BinaryOp.DIV, weak(s));
    }

    /** {@code x / s}: always float32. */
    public NDArray div(float s) {
        return binary(BinaryOp.DIV, weak(s));
    }

    /** {@code x / s} with s rounded to float32 first: always float32. */
    public NDArray div(double s) {
        return div((float) s);
    }

    /**
     * {@code x // y} ({@code jnp.floor_divide}) with broadcasting: i32∘i32 → i32 rounded toward negative
     * infinity ({@code -3 // 2 = -2}); with a float32 operand → f32, computed like JAX's float floor_divide.
     *
     * @throws NullPointerException     if other is null
     * @throws IllegalArgumentException if the shapes do not broadcast
     * @throws ArithmeticException      on integer division by zero
     */
    public NDArray floorDiv(NDArray other) {
        return binary(BinaryOp.FLOOR_DIV, other);
    }

    /**
     * {@code x // s} with a weakly typed int: keeps int32, float32 or bfloat16.
     *
     * @throws ArithmeticException on integer division by zero
     */
    public NDArray floorDiv(int s) {
        return binary(BinaryOp.FLOOR_DIV, weak(s));
    }

    /** {@code x // s} with a weakly typed float: float32, or bfloat16 beside bfloat16. */
    public NDArray floorDiv(float s) {
        return binary(BinaryOp.FLOOR_DIV, weak(s));
    }

    /** {@code x // s} with s rounded to float32 first: the result is float32. */
    public NDArray floorDiv(double s) {
        return floorDiv((float) s);
    }

    /**
     * {@code jnp.maximum(x, y)} with broadcasting; NaN propagates; dtypes as {@link #add(NDArray)}.
     *
     * @throws NullPointerException     if other is null
     * @throws IllegalArgumentException if the shapes do not broadcast
     */
    public NDArray maximum(NDArray other) {
        return binary(BinaryOp.MAX, other);
    }

    /** {@code jnp.maximum(x, s)} with a weakly typed int: keeps int32, float32 or bfloat16. */
    public NDArray maximum(int s) {
        return binary(BinaryOp.MAX, weak(s));
    }

    /** {@code jnp.maximum(x, s)} with a weakly typed float: float32, or bfloat16 beside bfloat16. */
    public NDArray maximum(float s) {
        return binary(BinaryOp.MAX, weak(s));
    }

    /** {@code jnp.maximum(x, s)} with s rounded to float32 first: the result is float32. */
    public NDArray maximum(double s) {
        return maximum((float) s);
    }

    /**
     * {@code jnp.minimum(x, y)} with broadcasting; NaN propagates; dtypes as {@link #add(NDArray)}.
     *
     * @throws NullPointerException     if other is null
     * @throws IllegalArgumentException if the shapes do not broadcast
     */
    public NDArray minimum(NDArray other) {
        return binary(BinaryOp.MIN, other);
    }

    /** {@code jnp.minimum(x, s)} with a weakly typed int: keeps int32, float32 or bfloat16. */
    public NDArray minimum(int s) {
        return binary(BinaryOp.MIN, weak(s));
    }

    /** {@code jnp.minimum(x, s)} with a weakly typed float: float32, or bfloat16 beside bfloat16. */
    public NDArray minimum(float s) {
        return binary(BinaryOp.MIN, weak(s));
    }

    /** {@code jnp.minimum(x, s)} with s rounded to float32 first: the result is float32. */
    public NDArray minimum(double s) {
        return minimum((float) s);
    }

    /** {@code -x} ({@code jnp.negative}); keeps the dtype (int32 wraps: -MIN_VALUE = MIN_VALUE). */
    public NDArray neg() {
        return Elementwise.unary(this, UnaryOp.NEG);
    }

    /** {@code jnp.abs(x)}; keeps the dtype (int32: abs(MIN_VALUE) = MIN_VALUE, as numpy). */
    public NDArray abs() {
        return Elementwise.unary(this, UnaryOp.ABS);
    }

    /** {@code jnp.exp(x)}; int32 input gives float32. */
    public NDArray exp() {
        return Elementwise.unary(this, UnaryOp.EXP);
    }

    /** {@code jnp.log(x)} (natural log; log 0 = -inf, negative → nan); int32 input gives float32. */
    public NDArray log() {
        return Elementwise.unary(this, UnaryOp.LOG);
    }

    /** {@code jnp.sqrt(x)} (negative → nan); int32 input gives float32. */
    public NDArray sqrt() {
        return Elementwise.unary(this, UnaryOp.SQRT);
    }

    /** {@code jnp.sin(x)} (radians); int32 input gives float32. */
    public NDArray sin() {
        return Elementwise.unary(this, UnaryOp.SIN);
    }

    /** {@code jnp.cos(x)} (radians); int32 input gives float32. */
    public NDArray cos() {
        return Elementwise.unary(this, UnaryOp.COS);
    }

    /**
     * {@code jax.nn.gelu(x)} with its default {@code approximate=True}:
     * 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))), evaluated in double and rounded; int32 input gives float32.
     */
    public NDArray gelu() {
        return Elementwise.unary(this, UnaryOp.GELU);
    }

    /** {@code jnp.tanh(x)}; int32 input gives float32. */
    public NDArray tanh() {
        return Elementwise.unary(this, UnaryOp.TANH);
    }

    /** {@code jax.nn.relu(x)} = maximum(x, 0); keeps the dtype; NaN propagates. */
    public NDArray relu() {
        return Elementwise.unary(this, UnaryOp.RELU);
    }

    /** {@code jnp.square(x)} = x·x; keeps the dtype (int32 wraps). */
    public NDArray square() {
        return Elementwise.unary(this, UnaryOp.SQUARE);
    }

    // ---------------------------------------------------------------------------------------------- reductions

    /** {@code jnp.sum(x)}: the sum of all elements, rank 0. int32 wraps; float32 accumulates in double. */
    public NDArray sum() {
        return reduce(ReduceOp.SUM, false, new int[0]);
    }

    /**
     * {@code jnp.sum(x, axis=axes)}; no axes = all axes. int32 → int32 (wraps), float32 → float32 accumulated in
     * double in a fixed order, then rounded once. An empty reduction gives 0.
     *
     * @throws IllegalArgumentException if an axis is out of bounds or repeated
     */
    public NDArray sum(int... axes) {
        return reduce(ReduceOp.SUM, false, axes);
    }

    /**
     * {@code jnp.sum(x, axis=axes, keepdims=keepdims)}: with keepdims the reduced axes stay as size 1.
     *
     * @throws IllegalArgumentException if an axis is out of bounds or repeated
     */
    public NDArray sum(KeepDims keepDims, int... axes) {
        return reduce(ReduceOp.SUM, Objects.requireNonNull(keepDims, "keepDims").keep(), axes);
    }

    /** {@code jnp.mean(x)} over all elements: always float32 (int32 input too); empty → nan. */
    public NDArray mean() {
        return reduce(ReduceOp.MEAN, false, new int[0]);
    }

    /**
     * {@code jnp.mean(x, axis=axes)}; no axes = all axes. Always float32: mean of int32 [1, 2] is 1.5. The sum
     * is accumulated in double and divided once, then rounded to float32.
     *
     * @throws IllegalArgumentException if an axis is out of bounds or repeated
     */
    public NDArray mean(int... axes) {
        return reduce(ReduceOp.MEAN, false, axes);
    }

    /**
     * {@code jnp.mean(x, axis=axes, keepdims=keepdims)}.
     *
     * @throws IllegalArgumentException if an axis is out of bounds or repeated
     */
    public NDArray mean(KeepDims keepDims, int... axes) {
        return reduce(ReduceOp.MEAN, Objects.requireNonNull(keepDims, "keepDims").keep(), axes);
    }

    /**
     * {@code jnp.max(x)} over all elements; NaN propagates.
     *
     * @throws IllegalArgumentException if the array is empty
     */
    public NDArray max() {
        return reduce(ReduceOp.MAX, false, new int[0]);
    }

    /**
     * {@code jnp.max(x, axis=axes)}; no axes = all axes; keeps the dtype; NaN propagates.
     *
     * @throws IllegalArgumentException if an axis is out of bounds or repeated, or a reduced axis is empty
     *                                  ("zero-size array to reduction operation maximum which has no identity")
     */
    public NDArray max(int... axes) {
        return reduce(ReduceOp.MAX, false, axes);
    }

    /**
     * {@code jnp.max(x, axis=axes, keepdims=keepdims)}.
     *
     * @throws IllegalArgumentException as {@link #max(int...)}
     */
    public NDArray max(KeepDims keepDims, int... axes) {
        return reduce(ReduceOp.MAX, Objects.requireNonNull(keepDims, "keepDims").keep(), axes);
    }

    /**
     * {@code jnp.min(x)} over all elements; NaN propagates.
     *
     * @throws IllegalArgumentException if the array is empty
     */
    public NDArray min() {
        return reduce(ReduceOp.MIN, false, new int[0]);
    }

    /**
     * {@code jnp.min(x, axis=axes)}; no axes = all axes; keeps the dtype; NaN propagates.
     *
     * @throws IllegalArgumentException if an axis is out of bounds or repeated, or a reduced axis is empty
     */
    public NDArray min(int... axes) {
        return reduce(ReduceOp.MIN, false, axes);
    }

    /**
     * {@code jnp.min(x, axis=axes, keepdims=keepdims)}.
     *
     * @throws IllegalArgumentException as {@link #min(int...)}
     */
    public NDArray min(KeepDims keepDims, int... axes) {
        return reduce(ReduceOp.MIN, Objects.requireNonNull(keepDims, "keepDims").keep(), axes);
    }

    /**
     * {@code jnp.argmax(x, axis)}: int32 indices of the first maximum along {@code axis}, which is dropped. A NaN
     * counts as the maximum (the first NaN wins), as in numpy.
     *
     * @throws IllegalArgumentException if the axis is out of bounds or empty
     */
    public NDArray argmax(int axis) {
        return Reductions.argmax(this, Shapes.axis(axis, shape.length));
    }

    // ------------------------------------------------------------------------------------------ attention helpers

    /**
     * {@code jax.nn.softmax(x, axis)}: exp(x − max) / Σ exp(x − max) along {@code axis} (negative counts from the
     * end); same shape, float32 (int32 input too). As in JAX the max is subtracted without a finiteness guard: a
     * slice of only −inf, or one holding +inf, gives nan. For attention scores S[Q, K] use axis −1. The cotangent it
     * passes back is y·(ȳ − Σ y·ȳ): the max is held constant ({@code lax.stop_gradient}).
     *
     * @throws IllegalArgumentException if the axis is out of bounds or empty, or the array is bool
     */
    public NDArray softmax(int axis) {
        return Softmax.softmax(this, Shapes.axis(axis, shape.length));
    }

    /**
     * {@code jax.nn.log_softmax(x, axis)}: (x − max) − log Σ exp(x − max) along {@code axis}; same shape, float32.
     * A slice of only −inf gives nan, a −inf element beside finite ones −inf, as in JAX.
     *
     * @throws IllegalArgumentException as {@link #softmax(int)}
     */
    public NDArray logSoftmax(int axis) {
        return Softmax.logSoftmax(this, Shapes.axis(axis, shape.length));
    }

    /**
     * {@code jax.scipy.special.logsumexp(x, axis=axes)} (also {@code jax.nn.logsumexp}): log Σ exp(x) over the
     * axes (none: all), computed as log Σ exp(x − m) + m with m the max where finite, else 0 — so an all −inf slice
     * gives −inf and a +inf gives +inf. Float32 (int32 promoted); the reduced axes are dropped. The gradient is
     * softmax(x) times the cotangent (m held constant).
     *
     * @throws IllegalArgumentException if an axis is out of bounds, repeated or empty, or the array is bool
     */
    public NDArray logsumexp(int... axes) {
        requireNonNull(axes, "axes");
        return Softmax.logsumexp(this, false, axes);
    }

    /**
     * {@code jax.scipy.special.logsumexp(x, axis=axes, keepdims=keepdims)}: as {@link #logsumexp(int...)}, the
     * reduced axes kept as size 1 with {@link KeepDims#KEEP} (ready to subtract from x: x − logsumexp = log_softmax).
     *
     * @throws IllegalArgumentException as {@link #logsumexp(int...)}
     */
    public NDArray logsumexp(KeepDims keepDims, int... axes) {
        requireNonNull(keepDims, "keepDims");
        requireNonNull(axes, "axes");
        return Softmax.logsumexp(this, keepDims.keep(), axes);
    }

    /**
     * {@code jnp.tril(x, k)}: x[.., N, M] with the elements above the k-th diagonal set to zero (kept where
     * j − i ≤ k; k = 0 the main diagonal, k &lt; 0 below it); same shape and dtype. A causal mask for scores
     * S[Q, K] is {@code tril} of ones, or {@code where} with the comparison this builds.
     *
     * @throws IllegalArgumentException if the array has fewer than 2 axes ("Argument to jax.numpy.tril must be at
     *                                  least 2D", JAX's ValueError)
     */
    public NDArray tril(int k) {
        return Softmax.triangle(this, k, true);
    }

    /** {@code jnp.tril(x)}: {@link #tril(int)} with k = 0. */
    public NDArray tril() {
        return tril(0);
    }

    /**
     * {@code jnp.triu(x, k)}: x[.., N, M] with the elements below the k-th diagonal set to zero (kept where
     * j − i ≥ k); same shape and dtype.
     *
     * @throws IllegalArgumentException if the array has fewer than 2 axes ("Argument to jax.numpy.triu must be at
     *                                  least 2D")
     */
    public NDArray triu(int k) {
        return Softmax.triangle(this, k, false);
    }

    /** {@code jnp.triu(x)}: {@link #triu(int)} with k = 0. */
    public NDArray triu() {
        return triu(0);
    }

    private NDArray reduce(ReduceOp op, boolean keepdims, int[] axes) {
        requireNonNull(axes, "axes");
        return Reductions.reduce(this, op, keepdims, axes);
    }

    // ------------------------------------------------------------------------------------------ linear algebra

    /**
     * {@code jnp.matmul(x, y)} for 2-D operands: [m,k]·[k,n] → [m,n]. f32·f32 → f32, i32·i32 → i32 (wraps),
     * mixed → f32. Float results accumulate in float32 with fused multiply-adds in order k = 0..k-1 (see
     * {@link Kernels}), so they are bit-identical on every run. Reports {@code matmul(m, k, n, dtype)} and the
     * result allocation to the {@link OpObserver}.
     *
     * @throws NullPointerException     if other is null
     * @throws IllegalArgumentException if an operand is not 2-D ("matmul requires 2-D operands, got shapes (3,)
     *                                  and (3,4)") or the contracting dimensions differ
     *                                  ("matmul: contracting dimensions differ: (2,3) · (4,5) (3 != 4)")
     */
    public NDArray matmul(NDArray other) {
        requireNonNull(other, "other");
        checkMatmulShapes(other);
        return Contraction.matmul(this, other);
    }

    private void checkMatmulShapes(NDArray other) {
        if (rank() != 2 || other.rank() != 2) {
            throw new IllegalArgumentException("matmul requires 2-D operands, got shapes " + Shapes.str(shape)
                    + " and " + Shapes.str(other.shape));
        }
        if (other.shape[0] != shape[1]) {
            throw new IllegalArgumentException("matmul: contracting dimensions differ: " + Shapes.str(shape) + " · "
                    + Shapes.str(other.shape) + " (" + shape[1] + " != " + other.shape[0] + ")");
        }
    }

    /**
     * {@code jnp.matmul(x, y, preferred_element_type=preferredElementType)} for 2-D operands: [m,k]·[k,n] → [m,n]
     * in {@code preferredElementType}. With {@link DType#FLOAT32} and bfloat16 operands the products accumulate in
     * float32 and the sum is not rounded to bfloat16 (what mixed-precision training asks of a dot); with the dtype
     * {@link #matmul(NDArray)} would give anyway it is that method.
     *
     * @throws NullPointerException     if other or preferredElementType is null
     * @throws IllegalArgumentException as {@link #matmul(NDArray)}, or if preferredElementType is neither the
     *                                  operands' promoted dtype nor float32 for floating operands
     */
    public NDArray matmul(NDArray other, DType preferredElementType) {
        requireNonNull(other, "other");
        requireNonNull(preferredElementType, "preferredElementType");
        DType natural = DType.promoteTypes(dtype, other.dtype);
        if (preferredElementType == natural) {
            return matmul(other);
        }
        if (preferredElementType != DType.FLOAT32 || !natural.isFloating()) {
            throw new IllegalArgumentException("matmul: preferred_element_type " + preferredElementType.jaxName()
                    + " is not supported for operands " + describe() + " and " + other.describe()
                    + "; use float32 with bfloat16 operands, or leave it out");
        }
        checkMatmulShapes(other);
        return Contraction.matmulFloat32(this, other);
    }

    /**
     * {@code (this or thisᵀ) @ (other or otherᵀ)} for 2-D operands, BLAS's transA / transB: the same bits as
     * {@code transpose()} then {@link #matmul}, without making the transposed copy in float32 (the kernel reads
     * the operand transposed). While a gradient is being recorded, or for int32 operands, the transposes are made
     * and recorded as such.
     *
     * @throws IllegalArgumentException if an operand is not 2-D or the contracting dimensions differ
     */
    public NDArray matmul(boolean transposeThis, NDArray other, boolean transposeOther) {
        requireNonNull(other, "other");
        if (rank() != 2 || other.rank() != 2) {
            throw new IllegalArgumentException("matmul requires 2-D operands, got shapes " + Shapes.str(shape)
                    + " and " + Shapes.str(other.shape));
        }
        int k = shape[transposeThis ? 0 : 1];
        int k2 = other.shape[transposeOther ? 1 : 0];
        if (k != k2) {
            throw new IllegalArgumentException("matmul: contracting dimensions differ: " + Shapes.str(shape)
                    + (transposeThis ? "ᵀ" : "") + " · " + Shapes.str(other.shape) + (transposeOther ? "ᵀ" : "")
                    + " (" + k + " != " + k2 + ")");
        }
        return Contraction.matmul(this, transposeThis, other, transposeOther);
    }

    // ---------------------------------------------------------------------------------------------- comparison

    /**
     * {@code np.allclose(x, y, rtol, atol)}: true iff the shapes are equal and every pair satisfies
     * |a − b| ≤ atol + rtol·|b| (equal infinities are close; NaN is never close). Dtypes may differ.
     *
     * @throws NullPointerException     if other is null
     * @throws IllegalArgumentException if a tolerance is negative or NaN
     */
    public boolean allclose(NDArray other, double rtol, double atol) {
        requireNonNull(other, "other");
        if (!(rtol >= 0) || !(atol >= 0)) {
            throw new IllegalArgumentException("allclose tolerances must be >= 0, got rtol=" + rtol + ", atol="
                    + atol);
        }
        if (!Arrays.equals(shape, other.shape)) {
            return false;
        }
        int n = size();
        for (int k = 0; k < n; k++) {
            double a = f != null ? f[k] : i[k];
            double b = other.f != null ? other.f[k] : other.i[k];
            if (a == b) {
                continue; // also equal infinities
            }
            if (!Double.isFinite(a) || !Double.isFinite(b) || !(Math.abs(a - b) <= atol + rtol * Math.abs(b))) {
                return false;
            }
        }
        return true;
    }

    /**
     * {@code np.allclose(x, y)} with numpy's defaults rtol=1e-5, atol=1e-8.
     *
     * @throws NullPointerException     if other is null
     */
    public boolean allclose(NDArray other) {
        return allclose(other, 1e-5, 1e-8);
    }

    /**
     * Same dtype, same shape and exactly equal data (floats compared by {@link Float#floatToIntBits}, so NaN
     * equals NaN and 0.0 differs from -0.0). Varying axes are not part of equality.
     */
    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof NDArray)) {
            return false;
        }
        NDArray x = (NDArray) o;
        if (dtype != x.dtype || !Arrays.equals(shape, x.shape)) {
            return false;
        }
        if (f != null) {
            for (int k = 0; k < f.length; k++) {
                if (Float.floatToIntBits(f[k]) != Float.floatToIntBits(x.f[k])) {
                    return false;
                }
            }
            return true;
        }
        return Arrays.equals(i, x.i);
    }

    /** Consistent with {@link #equals(Object)}. */
    @Override
    public int hashCode() {
        int h = dtype.hashCode() * 31 + Arrays.hashCode(shape);
        if (f != null) {
            for (float v : f) {
                h = h * 31 + Float.floatToIntBits(v);
            }
            return h;
        }
        return h * 31 + Arrays.hashCode(i);
    }

    // ------------------------------------------------------------------------------------------------ printing

    /**
     * numpy's {@code str(x)} with default print options: {@code [3 1 4 1]}, {@code [[0 1]\n [4 5]]},
     * {@code [5.5  5.   3.   4.25]}, scalars {@code 5.5} / {@code 22}; arrays over 1000 elements are summarised
     * with {@code ...} (3 items at each edge), long lines wrap at 75 characters. Floats print their shortest
     * round-tripping digits (capped at 8 fractional digits); as in numpy 2.4 a float32 array switches to
     * scientific notation ({@code 1.e-05}) when a nonzero finite |v| is {@code >= 1e6} or {@code < 1e-4} or
     * {@code max/min > 1000}, and a float32 scalar prints {@code 5.0} for {@code 1e-4 <= |v| < 1e6}, else
     * {@code 1e-05}. A port of numpy's {@code arrayprint}, checked against numpy 2.4 on random arrays; rare
     * shortest-digit choices right above a power of two may differ (best effort).
     */
    @Override
    public String toString() {
        return dtype == DType.BFLOAT16 ? ArrayPrinter.formatBFloat16(shape, f)
                : ArrayPrinter.format(shape, f, i, dtype == DType.BOOL);
    }

    /**
     * JAX's short type string: {@code f32[8,4]}, {@code i32[]}, and with varying axes {@code f32[8,4]{V:x,y}}
     * (axes in the set's order).
     */
    public String describe() {
        StringBuilder sb = new StringBuilder(dtype.shortName()).append('[');
        for (int d = 0; d < shape.length; d++) {
            sb.append(d > 0 ? "," : "").append(shape[d]);
        }
        sb.append(']');
        if (!vma.isEmpty()) {
            sb.append("{V:").append(String.join(",", vma)).append('}');
        }
        return sb.toString();
    }
}
