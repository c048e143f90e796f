package dev.shardlings.array;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.function.Executable;

/** Assertion helpers shared by the array tests. */
final class TestSupport {
    private TestSupport() {
    }

    /** Asserts that {@code op} throws IllegalArgumentException with exactly {@code message}. */
    static void assertIae(String message, Executable op) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, op);
        assertEquals(message, e.getMessage());
    }

    /** Asserts that {@code op} throws NullPointerException with exactly {@code message} (a null argument, named). */
    static void assertNpe(String message, Executable op) {
        NullPointerException e = assertThrows(NullPointerException.class, op);
        assertEquals(message, e.getMessage());
    }

    /** Asserts that {@code op} throws IllegalArgumentException whose message contains {@code part}. */
    static void assertIaeContains(String part, Executable op) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, op);
        if (!e.getMessage().contains(part)) {
            throw new AssertionError("message <" + e.getMessage() + "> does not contain <" + part + ">");
        }
    }

    /** Asserts dtype, shape and exact data of a float32 result. */
    static void assertF32(NDArray x, int[] shape, float... data) {
        assertEquals(DType.FLOAT32, x.dtype(), () -> "dtype of " + x.describe());
        org.junit.jupiter.api.Assertions.assertArrayEquals(shape, x.shape(), () -> "shape of " + x.describe());
        org.junit.jupiter.api.Assertions.assertArrayEquals(data, x.toFloatArray(), () -> "data of " + x);
    }

    /** Asserts dtype, shape and exact data of an int32 result. */
    static void assertI32(NDArray x, int[] shape, int... data) {
        assertEquals(DType.INT32, x.dtype(), () -> "dtype of " + x.describe());
        org.junit.jupiter.api.Assertions.assertArrayEquals(shape, x.shape(), () -> "shape of " + x.describe());
        org.junit.jupiter.api.Assertions.assertArrayEquals(data, x.toIntArray(), () -> "data of " + x);
    }

    static int[] shape(int... dims) {
        return dims;
    }
}
