package dev.shardlings.grader.selftest;

import dev.shardlings.array.DType;
import dev.shardlings.array.LocalOp;
import dev.shardlings.grader.sandbox.Wire;
import dev.shardlings.events.Trace;
import dev.shardlings.events.TraceEvent;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A trace's local operations cross the wire as themselves, and an index no operation has is refused; arrays keep
 * their dtype, bool included; the programs that made the results cross too, and one naming no recorded program is
 * refused.
 */
class WireTraceTest {

    private static Wire.Reply replyWith(LocalOp op) {
        TraceEvent e = new TraceEvent.LocalOpEvent(op, DType.FLOAT32, List.of(2, 3), 6, 48, 7, List.of(1L, 0L));
        return new Wire.Reply(11, null, null, new Trace(List.of(), List.of(e), 24), List.of(), false);
    }

    @Test
    void everyLocalOperationSurvivesTheRoundTrip() throws IOException {
        List<TraceEvent> sent = new ArrayList<>();
        List<TraceEvent> received = new ArrayList<>();
        for (LocalOp op : LocalOp.ALL) {
            Wire.Reply r = replyWith(op);
            sent.addAll(r.trace().hostEvents());
            received.addAll(Wire.decodeReply(Wire.encode(r)).trace().hostEvents());
        }
        assertEquals(sent, received);
    }

    @Test
    void aMatmulKeepsItsOperandsDtype() throws IOException {
        // part 7.5's rule tells a bfloat16 matmul accumulating in float32 from a float32 one by it
        TraceEvent e = new TraceEvent.MatmulEvent(2, 3, 4, DType.FLOAT32, 48, 7, List.of(5L, 6L), DType.BFLOAT16);
        Wire.Reply r = new Wire.Reply(11, null, null, new Trace(List.of(), List.of(e), 24), List.of(), false);
        assertEquals(List.of(e), Wire.decodeReply(Wire.encode(r)).trace().hostEvents());
    }

    @Test
    void aMixedMatmulKeepsEachOperandsDtype() throws IOException {
        // a float32 cotangent times a bfloat16 operand: 7.5's rule accepts it by the bfloat16 one
        TraceEvent e = new TraceEvent.MatmulEvent(2, 3, 4, DType.FLOAT32, 48, 7, List.of(5L, 6L), DType.FLOAT32,
                DType.BFLOAT16);
        Wire.Reply r = new Wire.Reply(11, null, null, new Trace(List.of(), List.of(e), 24), List.of(), false);
        assertEquals(List.of(e), Wire.decodeReply(Wire.encode(r)).trace().hostEvents());
    }

    @Test
    void anOperandDtypeOutOfRangeIsAProtocolError() throws IOException {
        // the two operand dtypes are the matmul's last bytes, before the trace's own fields: find them by a change
        TraceEvent a = new TraceEvent.MatmulEvent(2, 3, 4, DType.FLOAT32, 48, 7, List.of(5L, 6L), DType.FLOAT32,
                DType.FLOAT32);
        for (int which = 0; which < 2; which++) {
            TraceEvent b = new TraceEvent.MatmulEvent(2, 3, 4, DType.FLOAT32, 48, 7, List.of(5L, 6L),
                    which == 0 ? DType.BFLOAT16 : DType.FLOAT32, which == 1 ? DType.BFLOAT16 : DType.FLOAT32);
            byte[] first = Wire.encode(new Wire.Reply(11, null, null, new Trace(List.of(), List.of(a), 24), List.of(),
                    false));
            byte[] second = Wire.encode(new Wire.Reply(11, null, null, new Trace(List.of(), List.of(b), 24),
                    List.of(), false));
            int at = -1;
            for (int k = 0; k < first.length; k++) {
                if (first[k] != second[k]) {
                    assertEquals(-1, at, "the two replies differ only in one operand's dtype");
                    at = k;
                }
            }
            // readUnsignedByte: a negative byte reads as 255, out of range as well
            for (int bad : new int[] {DType.values().length, -1}) {
                byte[] broken = first.clone();
                broken[at] = (byte) bad;
                Wire.ProtocolException e = assertThrows(Wire.ProtocolException.class,
                        () -> Wire.decodeReply(broken));
                assertTrue(e.getMessage().contains("unknown dtype " + (bad & 0xff)), e.getMessage());
            }
        }
    }

    @Test
    void anUnknownOperationIndexIsAProtocolError() throws IOException {
        byte[] first = Wire.encode(replyWith(LocalOp.ALL.get(0)));
        byte[] second = Wire.encode(replyWith(LocalOp.ALL.get(1)));
        int at = -1;
        for (int k = 0; k < first.length; k++) {
            if (first[k] != second[k]) {
                assertEquals(-1, at, "the two replies differ only in the operation's index");
                at = k;
            }
        }
        first[at] = (byte) LocalOp.ALL.size();
        Wire.ProtocolException e = assertThrows(Wire.ProtocolException.class, () -> Wire.decodeReply(first));
        assertTrue(e.getMessage().contains("unknown local operation " + LocalOp.ALL.size()), e.getMessage());
    }

    @Test
    void boolArraysCrossTheWireAsBool() throws IOException {
        dev.shardlings.array.NDArray mask = dev.shardlings.array.NDArray.fromBooleans(
                new boolean[] {true, false, false, true}, 2, 2);
        dev.shardlings.sharding.Mesh mesh = dev.shardlings.sharding.Mesh.makeMesh(new int[] {2}, "i");
        dev.shardlings.spmd.ShardedArray placed = dev.shardlings.spmd.ShardedArray.devicePut(mask, mesh,
                dev.shardlings.sharding.PartitionSpec.P("i"));
        for (Object value : List.of(mask, placed)) {
            Wire.Reply r = new Wire.Reply(3, value, null, new Trace(List.of(), List.of(), 0), List.of(), false);
            Object back = Wire.decodeReply(Wire.encode(r)).value();
            dev.shardlings.array.NDArray got = back instanceof dev.shardlings.spmd.ShardedArray s ? s.gather()
                    : (dev.shardlings.array.NDArray) back;
            assertEquals(mask, got, "dtype and values");
        }
    }

    @Test
    void bfloat16ArraysCrossTheWireAsBFloat16() throws IOException {
        dev.shardlings.array.NDArray x = dev.shardlings.array.NDArray.of(new float[] {0.1f, -3f, Float.NaN, 1e-40f})
                .astype(DType.BFLOAT16);
        dev.shardlings.sharding.Mesh mesh = dev.shardlings.sharding.Mesh.makeMesh(new int[] {2}, "i");
        dev.shardlings.spmd.ShardedArray placed = dev.shardlings.spmd.ShardedArray.devicePut(x, mesh,
                dev.shardlings.sharding.PartitionSpec.P("i"));
        for (Object value : List.of(x, placed)) {
            Wire.Reply r = new Wire.Reply(3, value, null, new Trace(List.of(), List.of(), 0), List.of(), false);
            Object back = Wire.decodeReply(Wire.encode(r)).value();
            dev.shardlings.array.NDArray got = back instanceof dev.shardlings.spmd.ShardedArray s ? s.gather()
                    : (dev.shardlings.array.NDArray) back;
            assertEquals(DType.BFLOAT16, got.dtype());
            assertArrayEquals(x.toFloatArray(), got.toFloatArray(), 0f, "bits");
        }
    }

    @Test
    void resultProgramsCrossTheWireAndAForgedOneIsAProtocolError() throws IOException {
        dev.shardlings.sharding.Mesh mesh = dev.shardlings.sharding.Mesh.makeMesh(new int[] {2}, "i");
        dev.shardlings.events.ShardMapTrace program = new dev.shardlings.events.ShardMapTrace("step", mesh,
                List.of(), List.of(), List.of(), dev.shardlings.events.Origin.JIT);
        Trace sent = new Trace(List.of(program), List.of(), 0, List.of(0, Trace.NO_PROGRAM));
        Wire.Reply r = new Wire.Reply(5, null, null, sent, List.of(), false);
        assertEquals(List.of(0, Trace.NO_PROGRAM), Wire.decodeReply(Wire.encode(r)).trace().resultPrograms());
        // the last int of the trace is the second result program, just before the left threads and the flag
        byte[] bytes = Wire.encode(r);
        int at = bytes.length - 4 - 1 - 4;
        assertEquals(-1, java.nio.ByteBuffer.wrap(bytes, at, 4).getInt(), "the layout this test assumes");
        java.nio.ByteBuffer.wrap(bytes, at, 4).putInt(1);
        Wire.ProtocolException e = assertThrows(Wire.ProtocolException.class, () -> Wire.decodeReply(bytes));
        assertTrue(e.getMessage().contains("result program 1 is not one of the 1 recorded programs"), e.getMessage());
    }

    /** The figures the grader's memory and autodiff rules read (7.6) cross the wire with the device's events. */
    @Test
    void aDevicesResidualsAndAutodiffFlopsCrossTheWire() throws IOException {
        dev.shardlings.sharding.Mesh mesh = dev.shardlings.sharding.Mesh.makeMesh(new int[] {1}, "i");
        // a matmul of 512 FLOPs: the vjp rules' and the recomputation's shares (360 + 120) are parts of it
        dev.shardlings.events.TraceEvent matmul = new dev.shardlings.events.TraceEvent.MatmulEvent(4, 8, 8,
                dev.shardlings.array.DType.FLOAT32, 512, 1, List.of());
        dev.shardlings.events.DeviceTrace device = new dev.shardlings.events.DeviceTrace(0, List.of(0),
                List.of(matmul), 64, 128, 32, 96, 360, 120);
        dev.shardlings.events.ShardMapTrace call = new dev.shardlings.events.ShardMapTrace("step", mesh,
                List.of(), List.of(), List.of(device), dev.shardlings.events.Origin.SHARD_MAP);
        Wire.Reply r = new Wire.Reply(5, null, null, new Trace(List.of(call), List.of(), 0), List.of(), false);
        assertEquals(device, Wire.decodeReply(Wire.encode(r)).trace().shardMaps().get(0).devices().get(0));
    }
}
