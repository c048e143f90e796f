package dev.shardlings.array;

import dev.shardlings.random.PRNG;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * An array of more than {@link NDArray#MAX_SIZE} elements cannot exist in Java: asking for one is an
 * IllegalArgumentException that names the shape and the limit, before anything is allocated (not an
 * OutOfMemoryError, nor a negative size from an int overflow).
 */
class ArraySizeLimitTest {

    static final String LIMIT = "has more elements than one array can hold: at most 2147483639 (Integer.MAX_VALUE"
            + " - 8, the largest Java array)";

    @Test
    void theLimitIsTheLargestJavaArray() {
        assertEquals(Integer.MAX_VALUE - 8, NDArray.MAX_SIZE);
    }

    @Test
    void creationChecksTheSize() {
        assertEquals("shape (2147483647,) " + LIMIT,
                assertThrows(IllegalArgumentException.class, () -> NDArray.arange(Integer.MAX_VALUE)).getMessage());
        assertEquals("shape (2147483640,) " + LIMIT, assertThrows(IllegalArgumentException.class,
                () -> NDArray.arange(Integer.MAX_VALUE - 7, DType.FLOAT32)).getMessage());
        // A product that overflows an int.
        assertEquals("shape (65536,65536) " + LIMIT, assertThrows(IllegalArgumentException.class,
                () -> NDArray.zeros(DType.FLOAT32, 65536, 65536)).getMessage());
        assertEquals("shape (65536,65536) " + LIMIT, assertThrows(IllegalArgumentException.class,
                () -> NDArray.ones(DType.INT32, 65536, 65536)).getMessage());
        assertEquals("shape (65536,65536) " + LIMIT, assertThrows(IllegalArgumentException.class,
                () -> NDArray.full(1f, 65536, 65536)).getMessage());
        assertEquals("shape (65536,65536) " + LIMIT, assertThrows(IllegalArgumentException.class,
                () -> NDArray.full(1, 65536, 65536)).getMessage());
        assertEquals("shape [65536, 65536] " + LIMIT, assertThrows(IllegalArgumentException.class,
                () -> PRNG.uniform(PRNG.key(0), 65536, 65536)).getMessage());
    }

    @Test
    void resultsLargerThanTheirOperandsAreChecked() {
        NDArray column = NDArray.zeros(DType.FLOAT32, 65536, 1);
        NDArray row = NDArray.zeros(DType.FLOAT32, 1, 65536);
        assertEquals("shape (65536,65536) " + LIMIT,
                assertThrows(IllegalArgumentException.class, () -> column.add(row)).getMessage());
        assertEquals("shape (65536,65536) " + LIMIT,
                assertThrows(IllegalArgumentException.class, () -> column.broadcastTo(65536, 65536)).getMessage());
        assertEquals("shape (65536,65536) " + LIMIT,
                assertThrows(IllegalArgumentException.class, () -> column.matmul(row)).getMessage());
    }

    @Test
    void aNegativeLengthIsNamed() {
        assertEquals("arange(-1): n must be >= 0 (the result has n elements)",
                assertThrows(IllegalArgumentException.class, () -> NDArray.arange(-1)).getMessage());
        assertEquals("negative dimensions are not allowed: shape (2,-1)",
                assertThrows(IllegalArgumentException.class, () -> NDArray.zeros(DType.INT32, 2, -1)).getMessage());
    }
}
