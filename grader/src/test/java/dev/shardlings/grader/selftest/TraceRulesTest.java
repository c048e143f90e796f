package dev.shardlings.grader.selftest;

import dev.shardlings.grader.checks.TraceRules;
import dev.shardlings.grader.checks.TraceRules.Direction;
import dev.shardlings.events.Collective;
import dev.shardlings.events.DeviceTrace;
import dev.shardlings.events.TraceEvent;
import dev.shardlings.events.TraceEvent.CollectiveEvent;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** How the ring rules read a ppermute: its direction, and the bytes a device sends each way. */
class TraceRulesTest {

    private static CollectiveEvent permute(int n, long sent, int[]... pairs) {
        List<List<Integer>> p = java.util.Arrays.stream(pairs).map(q -> List.of(q[0], q[1])).toList();
        return new CollectiveEvent(Collective.PPERMUTE, List.of("Y"), n, dev.shardlings.array.DType.FLOAT32, List.of(2),
                List.of(2), sent, sent, new dev.shardlings.events.CollectiveParams.Permute(p), 1, 0);
    }

    @Test
    void fullAndPartialShiftsHaveADirection() {
        assertEquals(Direction.UP, TraceRules.direction(permute(4, 8, new int[]{0, 1}, new int[]{1, 2},
                new int[]{2, 3}, new int[]{3, 0})));
        assertEquals(Direction.DOWN, TraceRules.direction(permute(4, 8, new int[]{0, 3}, new int[]{2, 1})));
        assertEquals(Direction.UP, TraceRules.direction(permute(2, 8, new int[]{0, 1}, new int[]{1, 0})),
                "on a ring of 2 up and down coincide and count as up");
    }

    @Test
    void longerOrMixedShiftsAndNoMovementHaveNone() {
        assertNull(TraceRules.direction(permute(4, 8, new int[]{0, 2}, new int[]{1, 3})), "two steps");
        assertNull(TraceRules.direction(permute(4, 8, new int[]{0, 1}, new int[]{2, 1})), "one up, one down");
        assertNull(TraceRules.direction(permute(1, 0, new int[]{0, 0})), "a ring of one moves nothing");
        assertNull(TraceRules.direction(permute(3, 0)), "an empty perm moves nothing");
    }

    @Test
    void bytesAreCountedPerDirection() {
        DeviceTrace d = new DeviceTrace(0, List.of(0), List.<TraceEvent>of(
                permute(3, 8, new int[]{0, 1}, new int[]{1, 2}, new int[]{2, 0}),
                permute(3, 4, new int[]{0, 2}, new int[]{1, 0}, new int[]{2, 1}),
                permute(3, 8, new int[]{0, 1}, new int[]{1, 2}, new int[]{2, 0})), 0, 0, 0);
        assertArrayEquals(new long[]{16, 4}, TraceRules.bytesByDirection(d));
        assertNull(TraceRules.bothDirections(3).violation(d));
        assertTrue(TraceRules.bytesPerDirectionAtMost(8, "why").violation(d).contains("16 bytes up"));
    }
}
