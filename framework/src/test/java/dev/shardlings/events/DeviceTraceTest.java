package dev.shardlings.events;

import dev.shardlings.array.DType;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The autodiff FLOP counts a DeviceTrace carries are parts of its matmuls' FLOPs (reviewer F6): nothing else. */
class DeviceTraceTest {

    private static final List<TraceEvent> ONE_MATMUL =
            List.of(new TraceEvent.MatmulEvent(2, 3, 4, DType.FLOAT32, 48, 1, List.of()));

    @Test
    void pullbackAndRecomputedWithinTheMatmulsAreKept() {
        DeviceTrace d = new DeviceTrace(0, List.of(0), ONE_MATMUL, 0, 0, 0, 0, 24, 24);
        assertEquals(48, d.flops());
        assertEquals(24, d.pullbackFlops());
    }

    @Test
    void negativeCountsAreRefused() {
        var e = assertThrows(IllegalArgumentException.class,
                () -> new DeviceTrace(0, List.of(0), ONE_MATMUL, 0, 0, 0, 0, -1, 0));
        assertTrue(e.getMessage().startsWith("negative FLOPs"), e.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> new DeviceTrace(0, List.of(0), ONE_MATMUL, 0, 0, 0, 0, 0, -1));
    }

    @Test
    void moreThanTheMatmulsDidIsRefused() {
        var e = assertThrows(IllegalArgumentException.class,
                () -> new DeviceTrace(0, List.of(0), ONE_MATMUL, 0, 0, 0, 0, 40, 9));
        assertTrue(e.getMessage().contains("exceed the matmuls' 48"), e.getMessage());
    }

    @Test
    void aSumThatWouldWrapIsRefusedNotWrapped() {
        assertThrows(ArithmeticException.class,
                () -> new DeviceTrace(0, List.of(0), ONE_MATMUL, 0, 0, 0, 0, Long.MAX_VALUE, Long.MAX_VALUE));
    }
}
