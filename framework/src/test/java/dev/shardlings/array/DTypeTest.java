package dev.shardlings.array;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class DTypeTest {
    @Test
    void namesAndSizesFollowJax() {
        assertEquals("float32", DType.FLOAT32.jaxName());
        assertEquals("f32", DType.FLOAT32.shortName());
        assertEquals(4, DType.FLOAT32.byteSize());
        assertTrue(DType.FLOAT32.isFloating());
        assertEquals("int32", DType.INT32.jaxName());
        assertEquals("i32", DType.INT32.shortName());
        assertEquals(4, DType.INT32.byteSize());
        assertFalse(DType.INT32.isFloating());
    }
}
