package dev.shardlings.array;

import java.util.Arrays;
import java.util.Set;
import java.util.function.IntUnaryOperator;

/**
 * The {@link DataOp#CREATE} operations behind {@link NDArray}'s factories: a new buffer filled from nothing or
 * from the caller's data, reported once as {@code create}. Shapes arrive validated; row data is checked here.
 */
final class Creation {

    private Creation() {
    }

    /** A new array on a freshly allocated buffer of either type, made from nothing: reports the allocation. */
    static NDArray fresh(Object data, int[] shape) {
        return NDArray.made(data, shape, Set.of(), DataOp.CREATE);
    }

    static NDArray zeros(DType dtype, int[] shape) {
        return NDArray.made(dtype, Buffers.of(dtype, shape, "zeros"), shape, Set.of(), DataOp.CREATE);
    }

    static NDArray ones(DType dtype, int[] shape) {
        if (dtype.isFloating()) {
            float[] d = Buffers.floats(dtype, shape, "ones");
            Arrays.fill(d, 1f);
            return NDArray.made(dtype, d, shape, Set.of(), DataOp.CREATE);
        }
        int[] d = Buffers.ints(dtype, shape, "ones");
        Arrays.fill(d, 1);
        return NDArray.made(dtype, d, shape, Set.of(), DataOp.CREATE);
    }

    /** A bool array holding {@code data} (true as 1) with the given shape. */
    static NDArray copyOf(String method, boolean[] data, int[] shape) {
        checkDataLength(method, data.length, shape);
        int[] d = new int[data.length];
        for (int k = 0; k < d.length; k++) {
            d[k] = data[k] ? 1 : 0;
        }
        return NDArray.made(DType.BOOL, d, shape, Set.of(), DataOp.CREATE);
    }

    static NDArray full(float value, int[] shape) {
        float[] d = Buffers.floats(DType.FLOAT32, shape, "full");
        Arrays.fill(d, value);
        return fresh(d, shape);
    }

    static NDArray full(int value, int[] shape) {
        int[] d = Buffers.ints(DType.INT32, shape, "full");
        Arrays.fill(d, value);
        return fresh(d, shape);
    }

    /** [0, n) of shape (n,); n already checked to be in [0, MAX_SIZE]. */
    static NDArray arange(int n, DType dtype) {
        if (dtype == DType.BOOL) {
            throw new IllegalArgumentException("arange of dtype bool is not supported; use int32 or float32");
        }
        int[] shape = {n};
        return dtype.isFloating()
                ? NDArray.made(dtype, DataKernels.iota(Buffers.floats(dtype, shape, "arange")), shape, Set.of(),
                        DataOp.CREATE)
                : fresh(DataKernels.iota(Buffers.ints(dtype, shape, "arange")), shape);
    }

    /**
     * A copy of {@code data} with the given shape.
     *
     * @throws IllegalArgumentException if the shape's product differs from the data's length
     */
    static NDArray copyOf(String method, float[] data, int[] shape) {
        checkDataLength(method, data.length, shape);
        return fresh(data.clone(), shape);
    }

    /**
     * A copy of {@code data} with the given shape.
     *
     * @throws IllegalArgumentException if the shape's product differs from the data's length
     */
    static NDArray copyOf(String method, int[] data, int[] shape) {
        checkDataLength(method, data.length, shape);
        return fresh(data.clone(), shape);
    }

    /**
     * A 2-D array of the rows.
     *
     * @throws NullPointerException     if a row is null (the message names it)
     * @throws IllegalArgumentException if the rows are ragged
     */
    static NDArray rows(float[][] rows) {
        int cols = checkRows(rows, rows.length == 0 ? 0 : lengthOfRow(rows[0], 0), k -> lengthOfRow(rows[k], k));
        int[] shape = {rows.length, cols};
        return fresh(DataKernels.rows(rows, cols, Shapes.checkedSize(shape)), shape);
    }

    /**
     * A 2-D array of the rows.
     *
     * @throws NullPointerException     if a row is null (the message names it)
     * @throws IllegalArgumentException if the rows are ragged
     */
    static NDArray rows(int[][] rows) {
        int cols = checkRows(rows, rows.length == 0 ? 0 : lengthOfRow(rows[0], 0), k -> lengthOfRow(rows[k], k));
        int[] shape = {rows.length, cols};
        return fresh(DataKernels.rows(rows, cols, Shapes.checkedSize(shape)), shape);
    }

    private static int lengthOfRow(Object row, int k) {
        if (row == null) {
            throw new NullPointerException("of(rows): row " + k + " is null; every row must be an array");
        }
        return row instanceof float[] ? ((float[]) row).length : ((int[]) row).length;
    }

    private static int checkRows(Object[] rows, int cols, IntUnaryOperator lengthOf) {
        for (int r = 0; r < rows.length; r++) {
            int len = lengthOf.applyAsInt(r);
            if (len != cols) {
                throw new IllegalArgumentException("of(rows): ragged rows: row 0 has " + cols + " elements but row "
                        + r + " has " + len + " (numpy: the requested array has an inhomogeneous shape after 1 "
                        + "dimensions); give every row the same length");
            }
        }
        return cols;
    }

    private static void checkDataLength(String method, int length, int[] shape) {
        int size = Shapes.size(shape);
        if (size != length) {
            throw new IllegalArgumentException(method + ": shape " + Shapes.str(shape) + " needs " + size
                    + " elements but data.length is " + length + "; pass a shape whose product is " + length);
        }
    }
}
