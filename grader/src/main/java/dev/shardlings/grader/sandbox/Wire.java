package dev.shardlings.grader.sandbox;

import dev.shardlings.array.DType;
import dev.shardlings.array.LocalOp;
import dev.shardlings.array.NDArray;
import dev.shardlings.sharding.Device;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.sharding.NamedSharding;
import dev.shardlings.sharding.PartitionSpec;
import dev.shardlings.spmd.ShardedArray;
import dev.shardlings.events.Collective;
import dev.shardlings.events.CollectiveParams;
import dev.shardlings.events.DeviceTrace;
import dev.shardlings.events.ShardMapTrace;
import dev.shardlings.events.Trace;
import dev.shardlings.events.TraceEvent;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The binary protocol between the judge and the sandbox JVM that runs student code: framed messages, and the
 * values that cross (ints, NDArrays, Meshes, ShardedArrays, Traces, descriptions of exceptions).
 *
 * <p>A frame is {@code MAGIC (4 bytes) | length (4 bytes) | payload}. Requests go judge → sandbox on the sandbox's
 * standard input, replies sandbox → judge on its standard output; student prints are sent to standard error.
 *
 * <p>The judge decodes what an untrusted process wrote, so every read is bounded: frame length, string length,
 * list length, rank, element counts and nesting depth, and a value's parts must agree (a shape's element count
 * with its data, a block's shape with its sharding). Anything else is a {@link ProtocolException}, never another
 * exception type, an unbounded allocation or a hang. No class is ever named by the sender: the tags are a closed
 * set, so decoding cannot load or instantiate anything but the framework's value types.
 */
public final class Wire {

    /** The first four bytes of every frame ("SHLD"). */
    public static final int MAGIC = 0x53484C44;
    /** The largest frame either side accepts, in bytes (the course's largest message is ~40 MB). */
    public static final int MAX_FRAME = 128 << 20;
    /** The longest string accepted, in UTF-8 bytes. */
    public static final int MAX_STRING = 1 << 20;
    /** The longest list accepted. */
    public static final int MAX_LIST = 1 << 20;
    /** The most arrays a trace's result programs may name (a course method returns a handful). */
    static final int MAX_RESULTS = 4096;
    /** The deepest nesting of values accepted. */
    public static final int MAX_DEPTH = 8;
    /** The highest rank accepted. */
    public static final int MAX_RANK = 16;

    /**
     * What decoding one message may build, in units: a mesh device costs {@value #DEVICE_COST}, a trace event or
     * a list element 4. Bytes on the wire bound arrays and strings; this bounds the objects a few bytes can ask
     * for (a mesh of 4096 devices is 16 KB on the wire and a few hundred KB decoded).
     */
    public static final long MAX_UNITS = 1L << 21;
    private static final int DEVICE_COST = 16;

    /** A message's input with its decoding budget and the meshes already decoded (the same bytes, one mesh). */
    private static final class In extends DataInputStream {
        long left = MAX_UNITS;
        final java.util.Map<String, Mesh> meshes = new java.util.HashMap<>();

        In(byte[] payload) {
            super(new Bytes(payload));
        }
    }

    /**
     * A byte array as a stream, unsynchronised: {@link DataInputStream} reads an int as four one-byte reads, and
     * {@link ByteArrayInputStream}'s are synchronised (a trace of thousands of events paid a lock a byte).
     */
    private static final class Bytes extends InputStream {
        private final byte[] buf;
        private int pos;

        Bytes(byte[] buf) {
            this.buf = buf;
        }

        @Override
        public int read() {
            return pos < buf.length ? buf[pos++] & 0xFF : -1;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            java.util.Objects.checkFromIndexSize(off, len, b.length);
            if (len == 0) {
                return 0;
            }
            int n = Math.min(len, buf.length - pos);
            if (n <= 0) {
                return -1;
            }
            System.arraycopy(buf, pos, b, off, n);
            pos += n;
            return n;
        }

        @Override
        public long skip(long n) {
            long k = Math.max(0, Math.min(n, buf.length - pos));
            pos += (int) k;
            return k;
        }

        @Override
        public int available() {
            return buf.length - pos;
        }
    }

    /**
     * The stream a message is encoded into: buffered, so that {@link DataOutputStream}'s one-byte writes do not each
     * take {@link ByteArrayOutputStream}'s lock; {@link #bytes} flushes.
     */
    private static final class Out extends DataOutputStream {
        private final ByteArrayOutputStream bytes;

        Out(ByteArrayOutputStream bytes) {
            super(new java.io.BufferedOutputStream(bytes, 1 << 16));
            this.bytes = bytes;
        }

        static Out create() {
            return new Out(new ByteArrayOutputStream());
        }

        byte[] bytes() throws IOException {
            flush();
            return bytes.toByteArray();
        }
    }

    private static void charge(DataInputStream in, long units) throws ProtocolException {
        if (in instanceof In b) {
            b.left -= units;
            if (b.left < 0) {
                throw new ProtocolException("a message that would build more than " + MAX_UNITS
                        + " units of objects (meshes, events, list elements)");
            }
        }
    }

    private static final byte NULL = 0, INT = 1, NDARRAY = 2, MESH = 3, SHARDED = 4, LIST = 5, STRING = 6,
            FLOAT = 7;
    private static final byte EV_COLLECTIVE = 1, EV_MATMUL = 2, EV_LOCAL = 3;

    private Wire() {
    }

    /** A message that breaks the protocol: wrong magic, too long, truncated, or a value that does not hold. */
    public static final class ProtocolException extends IOException {
        private static final long serialVersionUID = 1L;
        private final byte[] read;

        /** @param message what was wrong */
        public ProtocolException(String message) {
            this(message, new byte[0]);
        }

        ProtocolException(String message, byte[] read) {
            super(message);
            this.read = read.clone();
        }

        /** The bytes of a broken frame's start that were read (empty when the frame was cut short). */
        public byte[] read() {
            return read.clone();
        }
    }

    // ------------------------------------------------------------------------------------------------ frames

    /** Writes one frame and flushes. @throws IOException if the stream fails */
    public static void writeFrame(OutputStream out, byte[] payload) throws IOException {
        if (payload.length > MAX_FRAME) {
            throw new ProtocolException("message of " + payload.length + " bytes is over the limit of " + MAX_FRAME);
        }
        byte[] header = ByteBuffer.allocate(8).putInt(MAGIC).putInt(payload.length).array();
        out.write(header);
        out.write(payload);
        out.flush();
    }

    /**
     * Reads one frame.
     *
     * @return the payload, or null at a clean end of stream (before the first byte of a frame)
     * @throws ProtocolException on a wrong magic, a bad length or a frame cut short
     * @throws IOException       if the stream fails
     */
    public static byte[] readFrame(InputStream in) throws IOException {
        int first = in.read();
        if (first < 0) {
            return null;
        }
        DataInputStream d = new DataInputStream(in);
        try {
            int magic = (first << 24) | (d.readUnsignedByte() << 16) | (d.readUnsignedByte() << 8)
                    | d.readUnsignedByte();
            if (magic != MAGIC) {
                byte[] got = ByteBuffer.allocate(4).putInt(magic).array();
                String text = new String(got, StandardCharsets.ISO_8859_1).replaceAll("[^\\x20-\\x7e]", "?");
                throw new ProtocolException(String.format("a message must start with %08x, got %08x (\"%s\")", MAGIC,
                        magic, text), got);
            }
            int length = d.readInt();
            if (length < 0 || length > MAX_FRAME) {
                throw new ProtocolException("message length " + length + " outside [0, " + MAX_FRAME + "]");
            }
            // Read as it comes, not allocated up front: a length with no bytes behind it costs nothing.
            byte[] payload = in.readNBytes(length);
            if (payload.length < length) {
                throw new ProtocolException("the stream ended inside a message");
            }
            return payload;
        } catch (EOFException e) {
            throw new ProtocolException("the stream ended inside a message");
        }
    }

    // -------------------------------------------------------------------------------------------- messages

    /**
     * A call the judge asks for.
     *
     * @param id         a random number the reply must repeat
     * @param className  simple name of a course class, e.g. {@code Problem1}
     * @param method     the static method's name
     * @param paramTypes simple names of the parameter types (ShardedArray, NDArray, Mesh, int)
     * @param args       the arguments
     */
    public record Request(long id, String className, String method, List<String> paramTypes, List<Object> args) {
    }

    /** What went wrong in student code, as text the judge turns into a report. */
    public enum ThrownKind {
        /** The stub is not written yet ({@code ExerciseNotDone}). */
        NOT_DONE,
        /** A device's program failed inside shardMap ({@code DeviceFailureException}). */
        DEVICE_FAILURE,
        /** Devices called different collectives ({@code CollectiveMismatchException}). */
        COLLECTIVE_MISMATCH,
        /** Any other exception or error. */
        OTHER,
        /** The course class or method was not found with the expected signature. */
        NO_SUCH_METHOD,
        /** The call started threads of its own (the message says how many): work the trace cannot see. */
        OWN_THREADS,
        /** The call returned an array that no operation of the call made (the message says which). */
        UNTRACED_RESULT
    }

    /**
     * An exception thrown by student code, described.
     *
     * @param kind        which kind
     * @param className   the thrown exception's class name
     * @param message     its message (may be empty)
     * @param rootClass   the class name of the root cause (the device's own exception for a device failure)
     * @param rootMessage the root cause's message
     * @param stack       the root cause's stack trace as printed
     */
    public record Thrown(ThrownKind kind, String className, String message, String rootClass, String rootMessage,
                         String stack) {
    }

    /**
     * The sandbox's answer to one request.
     *
     * @param id          the request's id
     * @param value       what the call returned (null when it threw)
     * @param thrown      what it threw (null when it returned)
     * @param trace       what it did (empty when it threw)
     * @param leftThreads names of threads the call started that were still alive after it
     * @param stillRunning true when some thread was still running course code after the call
     */
    public record Reply(long id, Object value, Thrown thrown, Trace trace, List<String> leftThreads,
                        boolean stillRunning) {
    }

    /** Encodes a request. @throws IOException if a value cannot be encoded */
    public static byte[] encode(Request r) throws IOException {
        Out out = Out.create();
        out.writeLong(r.id());
        writeString(out, r.className());
        writeString(out, r.method());
        out.writeInt(r.paramTypes().size());
        for (String t : r.paramTypes()) {
            writeString(out, t);
        }
        out.writeInt(r.args().size());
        for (Object a : r.args()) {
            writeValue(out, a);
        }
        return out.bytes();
    }

    /** Decodes a request. @throws ProtocolException if it does not hold */
    public static Request decodeRequest(byte[] payload) throws ProtocolException {
        DataInputStream in = new In(payload);
        try {
            long id = in.readLong();
            String cls = readString(in);
            String method = readString(in);
            int nt = readCount(in, 64);
            List<String> types = new ArrayList<>();
            for (int i = 0; i < nt; i++) {
                types.add(readString(in));
            }
            int na = readCount(in, 64);
            List<Object> args = new ArrayList<>();
            for (int i = 0; i < na; i++) {
                args.add(readValue(in, 0));
            }
            end(in);
            return new Request(id, cls, method, types, args);
        } catch (ProtocolException e) {
            throw e;
        } catch (IOException | RuntimeException e) {
            throw new ProtocolException("malformed request: " + e);
        }
    }

    /** Encodes a reply. @throws IOException if a value cannot be encoded */
    public static byte[] encode(Reply r) throws IOException {
        Out out = Out.create();
        out.writeLong(r.id());
        out.writeBoolean(r.thrown() != null);
        if (r.thrown() != null) {
            Thrown t = r.thrown();
            out.writeByte(t.kind().ordinal());
            writeString(out, t.className());
            writeString(out, t.message());
            writeString(out, t.rootClass());
            writeString(out, t.rootMessage());
            writeString(out, t.stack());
        } else {
            writeValue(out, r.value());
            writeTrace(out, r.trace());
        }
        out.writeInt(r.leftThreads().size());
        for (String s : r.leftThreads()) {
            writeString(out, s);
        }
        out.writeBoolean(r.stillRunning());
        return out.bytes();
    }

    /**
     * Decodes a reply written by an untrusted process.
     *
     * @throws ProtocolException if it does not hold, in any way
     */
    public static Reply decodeReply(byte[] payload) throws ProtocolException {
        DataInputStream in = new In(payload);
        try {
            long id = in.readLong();
            boolean threw = in.readBoolean();
            Object value = null;
            Thrown thrown = null;
            Trace trace = new Trace(List.of(), List.of(), 0);
            if (threw) {
                int k = in.readUnsignedByte();
                if (k >= ThrownKind.values().length) {
                    throw new ProtocolException("unknown exception kind " + k);
                }
                thrown = new Thrown(ThrownKind.values()[k], readString(in), readString(in), readString(in),
                        readString(in), readString(in));
            } else {
                value = readValue(in, 0);
                trace = readTrace(in);
            }
            int n = readCount(in, 4096);
            List<String> left = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                left.add(readString(in));
            }
            boolean running = in.readBoolean();
            end(in);
            return new Reply(id, value, thrown, trace, List.copyOf(left), running);
        } catch (ProtocolException e) {
            throw e;
        } catch (IOException | RuntimeException e) {
            throw new ProtocolException("malformed reply: " + e);
        }
    }

    private static void end(DataInputStream in) throws IOException {
        if (in.read() >= 0) {
            throw new ProtocolException("bytes left over after the message");
        }
    }

    // ---------------------------------------------------------------------------------------------- values

    /** Writes a value of the closed set: null, Integer, Float, String, NDArray, Mesh, ShardedArray, List. */
    static void writeValue(DataOutputStream out, Object v) throws IOException {
        if (v == null) {
            out.writeByte(NULL);
        } else if (v instanceof Integer i) {
            out.writeByte(INT);
            out.writeInt(i);
        } else if (v instanceof Float f) {
            out.writeByte(FLOAT);
            out.writeFloat(f);
        } else if (v instanceof String s) {
            out.writeByte(STRING);
            writeString(out, s);
        } else if (v instanceof NDArray a) {
            out.writeByte(NDARRAY);
            writeArray(out, a);
        } else if (v instanceof Mesh m) {
            out.writeByte(MESH);
            writeMesh(out, m);
        } else if (v instanceof ShardedArray s) {
            out.writeByte(SHARDED);
            writeMesh(out, s.mesh());
            writeSpec(out, s.spec());
            writeInts(out, s.shape());
            List<ShardedArray.Shard> shards = s.addressableShards();
            out.writeInt(shards.size());
            // A replica equal, bit for bit, to an earlier shard is sent as that shard's position: a weight
            // replicated over 8 devices crosses once. Replicas that differ are all sent (the judge checks them).
            List<int[]> bits = new ArrayList<>();
            for (int i = 0; i < shards.size(); i++) {
                int[] b = bitsOf(shards.get(i).data());
                bits.add(b);
                int same = -1;
                for (int j = 0; j < i && same < 0; j++) {
                    if (shards.get(j).index().equals(shards.get(i).index())
                            && shards.get(j).data().dtype() == shards.get(i).data().dtype()
                            && java.util.Arrays.equals(bits.get(j), b)) {
                        same = j;
                    }
                }
                out.writeInt(same);
                if (same < 0) {
                    writeArray(out, shards.get(i).data());
                }
            }
        } else if (v instanceof List<?> l) {
            out.writeByte(LIST);
            out.writeInt(l.size());
            for (Object o : l) {
                writeValue(out, o);
            }
        } else {
            throw new IOException("a " + v.getClass().getName() + " cannot be sent between the judge and the"
                    + " sandbox");
        }
    }

    static Object readValue(DataInputStream in, int depth) throws IOException {
        if (depth > MAX_DEPTH) {
            throw new ProtocolException("values nested deeper than " + MAX_DEPTH);
        }
        byte tag = in.readByte();
        switch (tag) {
            case NULL:
                return null;
            case INT:
                return in.readInt();
            case FLOAT:
                return in.readFloat();
            case STRING:
                return readString(in);
            case NDARRAY:
                return readArray(in);
            case MESH:
                return readMesh(in);
            case SHARDED: {
                Mesh mesh = readMesh(in);
                PartitionSpec spec = readSpec(in);
                int[] shape = readShape(in);
                int n = readCount(in, Mesh.MAX_DEVICES);
                List<NDArray> blocks = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    int same = in.readInt();
                    if (same >= i || same < -1) {
                        throw new ProtocolException("shard " + i + " refers to shard " + same);
                    }
                    blocks.add(same < 0 ? readArray(in) : blocks.get(same));
                }
                try {
                    return ShardedArray.fromDeviceBlocks(NamedSharding.of(mesh, spec), shape, blocks);
                } catch (RuntimeException e) {
                    throw new ProtocolException("a sharded array that does not hold: " + e.getMessage());
                }
            }
            case LIST: {
                int n = readCount(in, MAX_LIST);
                charge(in, 4L * n);
                List<Object> l = new ArrayList<>(Math.min(n, 1024));
                for (int i = 0; i < n; i++) {
                    l.add(readValue(in, depth + 1));
                }
                return l;
            }
            default:
                throw new ProtocolException("unknown value tag " + tag);
        }
    }

    private static int[] bitsOf(NDArray a) {
        if (!a.dtype().isFloating()) {
            return a.toIntArray();
        }
        float[] f = a.toFloatArray();
        int[] b = new int[f.length];
        for (int i = 0; i < f.length; i++) {
            b[i] = Float.floatToRawIntBits(f[i]);
        }
        return b;
    }

    private static void writeArray(DataOutputStream out, NDArray a) throws IOException {
        out.writeByte(a.dtype().ordinal());
        writeInts(out, a.shape());
        ByteBuffer buf = ByteBuffer.allocate(Math.multiplyExact(a.size(), 4)).order(ByteOrder.BIG_ENDIAN);
        if (!a.dtype().isFloating()) {
            buf.asIntBuffer().put(a.toIntArray()); // int32, or bool as 0 and 1
        } else { // float32, or bfloat16 as its exact float32 values (4 bytes: one format for both floats)
            buf.asFloatBuffer().put(a.toFloatArray());
        }
        out.write(buf.array());
    }

    private static NDArray readArray(DataInputStream in) throws IOException {
        DType dtype = readDType(in);
        int[] shape = readShape(in);
        long n = 1;
        for (int s : shape) {
            n *= s;
            if (n * 4 > MAX_FRAME) {
                throw new ProtocolException("an array of shape " + java.util.Arrays.toString(shape)
                        + " is larger than a message can be");
            }
        }
        byte[] raw = new byte[(int) n * 4];
        in.readFully(raw);
        ByteBuffer buf = ByteBuffer.wrap(raw).order(ByteOrder.BIG_ENDIAN);
        try {
            if (!dtype.isFloating()) {
                int[] v = new int[(int) n];
                buf.asIntBuffer().get(v);
                NDArray ints = NDArray.fromInts(v, shape);
                return dtype == DType.BOOL ? ints.astype(DType.BOOL) : ints;
            }
            float[] v = new float[(int) n];
            buf.asFloatBuffer().get(v);
            NDArray floats = NDArray.fromFloats(v, shape);
            return dtype == DType.BFLOAT16 ? floats.astype(DType.BFLOAT16) : floats;
        } catch (RuntimeException e) {
            throw new ProtocolException("an array that does not hold: " + e.getMessage());
        }
    }

    private static void writeMesh(DataOutputStream out, Mesh m) throws IOException {
        List<Device> devices = m.devices();
        writeString(out, devices.isEmpty() ? "cpu" : devices.get(0).platform());
        out.writeInt(m.axisNames().size());
        for (int a = 0; a < m.axisNames().size(); a++) {
            writeString(out, m.axisNames().get(a));
            out.writeInt(m.axisSizes().get(a));
        }
        out.writeInt(devices.size());
        for (Device dev : devices) {
            out.writeInt(dev.id());
        }
        for (dev.shardlings.sharding.AxisType t : m.axisTypes()) {
            out.writeByte(t.ordinal());
        }
    }

    private static Mesh readMesh(DataInputStream in) throws IOException {
        String platform = readString(in);
        int axes = readCount(in, MAX_RANK);
        String[] names = new String[axes];
        int[] sizes = new int[axes];
        long total = 1;
        for (int a = 0; a < axes; a++) {
            names[a] = readString(in);
            sizes[a] = in.readInt();
            if (sizes[a] < 1 || sizes[a] > Mesh.MAX_DEVICES) {
                throw new ProtocolException("mesh axis size " + sizes[a]);
            }
            total *= sizes[a];
            if (total > Mesh.MAX_DEVICES) {
                throw new ProtocolException("a mesh of more than " + Mesh.MAX_DEVICES + " devices");
            }
        }
        int n = readCount(in, Mesh.MAX_DEVICES);
        int[] ids = new int[n];
        boolean identity = true;
        for (int i = 0; i < n; i++) {
            ids[i] = in.readInt();
            identity &= ids[i] == i;
        }
        dev.shardlings.sharding.AxisType[] types = new dev.shardlings.sharding.AxisType[axes];
        dev.shardlings.sharding.AxisType[] all = dev.shardlings.sharding.AxisType.values();
        for (int a = 0; a < axes; a++) {
            int t = in.readUnsignedByte();
            if (t >= all.length) {
                throw new ProtocolException("axis type " + t);
            }
            types[a] = all[t];
        }
        String key = platform + java.util.Arrays.toString(names) + java.util.Arrays.toString(sizes)
                + java.util.Arrays.toString(ids) + java.util.Arrays.toString(types);
        if (in instanceof In b && b.meshes.containsKey(key)) {
            return b.meshes.get(key);
        }
        charge(in, (long) DEVICE_COST * n);
        Mesh mesh = buildMesh(platform, names, sizes, ids, identity, n, total);
        try {
            mesh = mesh.withAxisTypes(types);
        } catch (RuntimeException e) {
            throw new ProtocolException("a mesh that does not hold: " + e.getMessage());
        }
        if (in instanceof In b) {
            b.meshes.put(key, mesh);
        }
        return mesh;
    }

    private static Mesh buildMesh(String platform, String[] names, int[] sizes, int[] ids, boolean identity, int n,
                                  long total) throws ProtocolException {
        try {
            if ("cpu".equals(platform)) {
                return Mesh.ofDeviceIds(ids, sizes, names);
            }
            if (!identity || n != total) {
                throw new ProtocolException("a " + platform + " mesh must number its devices in order");
            }
            return Mesh.makeMesh(platform, sizes, names);
        } catch (RuntimeException e) {
            throw new ProtocolException("a mesh that does not hold: " + e.getMessage());
        }
    }

    private static void writeSpec(DataOutputStream out, PartitionSpec p) throws IOException {
        out.writeInt(p.entries().size());
        for (List<String> e : p.entries()) {
            writeStrings(out, e);
        }
    }

    private static PartitionSpec readSpec(DataInputStream in) throws IOException {
        int n = readCount(in, MAX_RANK);
        Object[] entries = new Object[n];
        for (int i = 0; i < n; i++) {
            entries[i] = readStrings(in, MAX_RANK);
        }
        try {
            return PartitionSpec.P(entries);
        } catch (RuntimeException e) {
            throw new ProtocolException("a PartitionSpec that does not hold: " + e.getMessage());
        }
    }

    // ----------------------------------------------------------------------------------------------- trace

    static void writeTrace(DataOutputStream out, Trace t) throws IOException {
        out.writeInt(t.shardMaps().size());
        for (ShardMapTrace s : t.shardMaps()) {
            writeString(out, s.functionName());
            out.writeByte(s.origin().ordinal());
            writeMesh(out, s.mesh());
            out.writeInt(s.inSpecs().size());
            for (PartitionSpec p : s.inSpecs()) {
                writeSpec(out, p);
            }
            out.writeInt(s.outSpecs().size());
            for (PartitionSpec p : s.outSpecs()) {
                writeSpec(out, p);
            }
            out.writeInt(s.devices().size());
            for (DeviceTrace d : s.devices()) {
                out.writeInt(d.deviceId());
                writeIntList(out, d.coords());
                writeEvents(out, d.events());
                out.writeLong(d.largestAllocation());
                out.writeLong(d.allocatedBytes());
                out.writeLong(d.argumentBytes());
                out.writeLong(d.peakResidualBytes());
                out.writeLong(d.pullbackFlops());
                out.writeLong(d.recomputedFlops());
                out.writeInt(d.capturedArrays());
            }
        }
        writeEvents(out, t.hostEvents());
        out.writeLong(t.hostLargestAllocation());
        writeIntList(out, t.resultPrograms());
    }

    static Trace readTrace(DataInputStream in) throws IOException {
        int n = readCount(in, MAX_LIST);
        charge(in, 4L * n);
        List<ShardMapTrace> maps = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String name = readString(in);
            int o = in.readUnsignedByte();
            if (o >= dev.shardlings.events.Origin.values().length) {
                throw new ProtocolException("trace origin " + o);
            }
            dev.shardlings.events.Origin origin = dev.shardlings.events.Origin.values()[o];
            Mesh mesh = readMesh(in);
            List<PartitionSpec> ins = new ArrayList<>();
            for (int k = readCount(in, 4096); k > 0; k--) {
                ins.add(readSpec(in));
            }
            List<PartitionSpec> outs = new ArrayList<>();
            for (int k = readCount(in, 4096); k > 0; k--) {
                outs.add(readSpec(in));
            }
            List<DeviceTrace> devs = new ArrayList<>();
            for (int k = readCount(in, Mesh.MAX_DEVICES); k > 0; k--) {
                devs.add(new DeviceTrace(in.readInt(), readIntList(in, MAX_RANK), readEvents(in), in.readLong(),
                        in.readLong(), in.readLong(), in.readLong(), in.readLong(), in.readLong(), in.readInt()));
            }
            maps.add(new ShardMapTrace(name, mesh, ins, outs, devs, origin));
        }
        List<TraceEvent> host = readEvents(in);
        long largest = in.readLong();
        List<Integer> results = readIntList(in, MAX_RESULTS);
        try {
            return new Trace(maps, host, largest, results);
        } catch (IllegalArgumentException e) {
            throw new ProtocolException("trace: " + e.getMessage());
        }
    }

    private static void writeEvents(DataOutputStream out, List<TraceEvent> events) throws IOException {
        out.writeInt(events.size());
        for (TraceEvent e : events) {
            if (e instanceof TraceEvent.CollectiveEvent c) {
                out.writeByte(EV_COLLECTIVE);
                out.writeByte(c.kind().ordinal());
                writeStrings(out, c.axes());
                out.writeInt(c.groupSize());
                out.writeByte(c.dtype().ordinal());
                writeIntList(out, c.inputShape());
                writeIntList(out, c.outputShape());
                out.writeLong(c.bytesSent());
                out.writeLong(c.bytesReceived());
                writeParams(out, c.params());
                out.writeLong(c.id());
                out.writeLong(c.input());
            } else if (e instanceof TraceEvent.MatmulEvent m) {
                out.writeByte(EV_MATMUL);
                out.writeInt(m.m());
                out.writeInt(m.k());
                out.writeInt(m.n());
                out.writeByte(m.dtype().ordinal());
                out.writeLong(m.flops());
                out.writeLong(m.id());
                writeLongList(out, m.inputs());
                out.writeByte(m.operandDtype().ordinal());
                out.writeByte(m.rhsOperandDtype().ordinal());
            } else if (e instanceof TraceEvent.LocalOpEvent l) {
                out.writeByte(EV_LOCAL);
                out.writeByte(LocalOp.ALL.indexOf(l.op()));
                out.writeByte(l.dtype().ordinal());
                writeIntList(out, l.shape());
                out.writeLong(l.flops());
                out.writeLong(l.bytes());
                out.writeLong(l.id());
                writeLongList(out, l.inputs());
            }
        }
    }

    private static List<TraceEvent> readEvents(DataInputStream in) throws IOException {
        int n = readCount(in, MAX_LIST);
        charge(in, 4L * n);
        List<TraceEvent> events = new ArrayList<>(Math.min(n, 1024));
        for (int i = 0; i < n; i++) {
            byte tag = in.readByte();
            switch (tag) {
                case EV_COLLECTIVE: {
                    int k = in.readUnsignedByte();
                    if (k >= Collective.values().length) {
                        throw new ProtocolException("unknown collective " + k);
                    }
                    Collective kind = Collective.values()[k];
                    List<String> axes = readStrings(in, MAX_RANK);
                    int group = in.readInt();
                    DType dtype = readDType(in);
                    List<Integer> inShape = readIntList(in, MAX_RANK);
                    List<Integer> outShape = readIntList(in, MAX_RANK);
                    long sent = in.readLong();
                    long received = in.readLong();
                    CollectiveParams params = readParams(in);
                    events.add(new TraceEvent.CollectiveEvent(kind, axes, group, dtype, inShape, outShape, sent,
                            received, params, in.readLong(), in.readLong()));
                    break;
                }
                case EV_MATMUL:
                    events.add(new TraceEvent.MatmulEvent(in.readInt(), in.readInt(), in.readInt(), readDType(in),
                            in.readLong(), in.readLong(), readLongList(in), readDType(in), readDType(in)));
                    break;
                case EV_LOCAL:
                    events.add(new TraceEvent.LocalOpEvent(readLocalOp(in), readDType(in), readIntList(in, MAX_RANK),
                            in.readLong(), in.readLong(), in.readLong(), readLongList(in)));
                    break;
                default:
                    throw new ProtocolException("unknown trace event tag " + tag);
            }
        }
        return events;
    }

    // --------------------------------------------------------------------------------------------- scalars

    private static int readCount(DataInputStream in, int max) throws IOException {
        int n = in.readInt();
        if (n < 0 || n > max) {
            throw new ProtocolException("count " + n + " outside [0, " + max + "]");
        }
        return n;
    }

    private static final int PARAMS_NONE = 0;
    private static final int PARAMS_ALL_GATHER = 1;
    private static final int PARAMS_REDUCE_SCATTER = 2;
    private static final int PARAMS_ALL_TO_ALL = 3;
    private static final int PARAMS_PERMUTE = 4;

    /** A collective's parameters: a tag, then its fields. */
    private static void writeParams(DataOutputStream out, CollectiveParams p) throws IOException {
        if (p instanceof CollectiveParams.None) {
            out.writeByte(PARAMS_NONE);
        } else if (p instanceof CollectiveParams.AllGather g) {
            out.writeByte(PARAMS_ALL_GATHER);
            out.writeInt(g.axis());
            out.writeBoolean(g.tiled());
            out.writeBoolean(g.invariant());
        } else if (p instanceof CollectiveParams.ReduceScatter r) {
            out.writeByte(PARAMS_REDUCE_SCATTER);
            out.writeInt(r.scatterDimension());
            out.writeBoolean(r.tiled());
        } else if (p instanceof CollectiveParams.AllToAll a) {
            out.writeByte(PARAMS_ALL_TO_ALL);
            out.writeInt(a.splitAxis());
            out.writeInt(a.concatAxis());
            out.writeBoolean(a.tiled());
        } else {
            CollectiveParams.Permute perm = (CollectiveParams.Permute) p;
            out.writeByte(PARAMS_PERMUTE);
            out.writeInt(perm.pairs().size());
            for (List<Integer> pair : perm.pairs()) {
                writeIntList(out, pair);
            }
        }
    }

    private static CollectiveParams readParams(DataInputStream in) throws IOException {
        int tag = in.readUnsignedByte();
        switch (tag) {
            case PARAMS_NONE:
                return new CollectiveParams.None();
            case PARAMS_ALL_GATHER:
                return new CollectiveParams.AllGather(in.readInt(), in.readBoolean(), in.readBoolean());
            case PARAMS_REDUCE_SCATTER:
                return new CollectiveParams.ReduceScatter(in.readInt(), in.readBoolean());
            case PARAMS_ALL_TO_ALL:
                return new CollectiveParams.AllToAll(in.readInt(), in.readInt(), in.readBoolean());
            case PARAMS_PERMUTE: {
                List<List<Integer>> perm = new ArrayList<>();
                for (int p = readCount(in, Mesh.MAX_DEVICES); p > 0; p--) {
                    perm.add(readIntList(in, 2));
                }
                return new CollectiveParams.Permute(perm);
            }
            default:
                throw new ProtocolException("unknown collective parameters " + tag);
        }
    }

    /** A dtype, written as its ordinal byte (arrays and trace events alike). */
    /** A local operation by its index in {@link LocalOp#ALL}, which both ends of the wire share. */
    private static LocalOp readLocalOp(DataInputStream in) throws IOException {
        int k = in.readUnsignedByte();
        if (k >= LocalOp.ALL.size()) {
            throw new ProtocolException("unknown local operation " + k);
        }
        return LocalOp.ALL.get(k);
    }

    private static DType readDType(DataInputStream in) throws IOException {
        int d = in.readUnsignedByte();
        if (d >= DType.values().length) {
            throw new ProtocolException("unknown dtype " + d);
        }
        return DType.values()[d];
    }

    static void writeString(DataOutputStream out, String s) throws IOException {
        byte[] b = (s == null ? "" : s).getBytes(StandardCharsets.UTF_8);
        if (b.length > MAX_STRING) {
            b = java.util.Arrays.copyOf(b, MAX_STRING);
        }
        out.writeInt(b.length);
        out.write(b);
    }

    static String readString(DataInputStream in) throws IOException {
        int n = readCount(in, MAX_STRING);
        byte[] b = new byte[n];
        in.readFully(b);
        return new String(b, StandardCharsets.UTF_8);
    }

    private static void writeStrings(DataOutputStream out, List<String> l) throws IOException {
        out.writeInt(l.size());
        for (String s : l) {
            writeString(out, s);
        }
    }

    private static List<String> readStrings(DataInputStream in, int max) throws IOException {
        int n = readCount(in, max);
        List<String> l = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            l.add(readString(in));
        }
        return l;
    }

    private static void writeInts(DataOutputStream out, int[] v) throws IOException {
        out.writeInt(v.length);
        for (int x : v) {
            out.writeInt(x);
        }
    }

    private static int[] readShape(DataInputStream in) throws IOException {
        int n = readCount(in, MAX_RANK);
        int[] v = new int[n];
        for (int i = 0; i < n; i++) {
            v[i] = in.readInt();
            if (v[i] < 0) {
                throw new ProtocolException("negative dimension " + v[i]);
            }
        }
        return v;
    }

    private static void writeIntList(DataOutputStream out, List<Integer> v) throws IOException {
        out.writeInt(v.size());
        for (int x : v) {
            out.writeInt(x);
        }
    }

    private static List<Integer> readIntList(DataInputStream in, int max) throws IOException {
        int n = readCount(in, max);
        List<Integer> v = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            v.add(in.readInt());
        }
        return v;
    }

    private static void writeLongList(DataOutputStream out, List<Long> v) throws IOException {
        out.writeInt(v.size());
        for (long x : v) {
            out.writeLong(x);
        }
    }

    private static List<Long> readLongList(DataInputStream in) throws IOException {
        int n = readCount(in, 4096);
        List<Long> v = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            v.add(in.readLong());
        }
        return v;
    }
}
