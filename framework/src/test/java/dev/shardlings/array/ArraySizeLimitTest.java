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

    /**
     * An array under the element limit but larger than the heap (the API fuzz's 284 bare OutOfMemoryErrors, from
     * {@code full} and {@code arange}): refused before allocating, with what was asked for and what the heap allows.
     */
    @Test
    void anArrayLargerThanTheHeapIsRefusedWithItsBytes() {
        long heap = Runtime.getRuntime().maxMemory();
        long n = heap / 4 + 1;
        org.junit.jupiter.api.Assumptions.assumeTrue(n <= NDArray.MAX_SIZE, "a heap of " + heap + " bytes holds the"
                + " largest array: nothing under the element limit is too large for it");
        int k = (int) n;
        String bytes = Long.toString(4L * k);
        for (org.junit.jupiter.api.function.Executable make : java.util.List.<org.junit.jupiter.api.function.Executable>of(
                () -> NDArray.zeros(DType.FLOAT32, k), () -> NDArray.ones(DType.INT32, k), () -> NDArray.full(1f, k),
                () -> NDArray.full(1, k), () -> NDArray.arange(k), () -> NDArray.arange(k, DType.FLOAT32),
                () -> NDArray.zeros(DType.BFLOAT16, 1, k))) {
            ResourceExhaustedException e = assertThrows(ResourceExhaustedException.class, make);
            org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().startsWith(
                    "RESOURCE_EXHAUSTED: Out of memory while trying to allocate " + bytes + " bytes for "), e.getMessage());
            org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().contains("[" + k + "]") || e.getMessage()
                    .contains("[1," + k + "]"), e.getMessage());
            org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().contains("whose limit is " + heap + " bytes"),
                    e.getMessage());
            assertEquals(4L * k, e.bytes());
            assertEquals(heap, e.heapBytes());
        }
        assertEquals("RESOURCE_EXHAUSTED: Out of memory while trying to allocate " + bytes + " bytes for full of f32["
                + k + "] (4 bytes per element on the heap): that is more than the whole heap, whose limit is " + heap
                + " bytes (-Xmx). Make the array smaller, or shard it so that each device holds a part.",
                assertThrows(ResourceExhaustedException.class, () -> NDArray.full(1f, k)).getMessage());
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
