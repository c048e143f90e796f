package dev.shardlings.grader.selftest;

import dev.shardlings.grader.sandbox.Wire;
import dev.shardlings.events.Trace;

import java.io.BufferedInputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Random;

/**
 * A stand-in for the sandbox JVM in {@link ChannelFuzzTest}: it answers each request as the request's first
 * argument says — correctly, or with the wrong id, twice, with random bytes, a cut-short or oversized frame, a
 * frame of the right id and a random body, nothing at all, or by exiting. Test code, trusted; it plays the
 * student who controls the sandbox process.
 */
public final class FakeSandbox {

    private static final java.util.List<byte[]> HOARD = new java.util.ArrayList<>();

    private FakeSandbox() {
    }

    /** Holds {@code megabytes} MB, every page written. */
    private static void hoard(int megabytes) {
        for (int i = 0; i < megabytes; i++) {
            byte[] b = new byte[1 << 20];
            java.util.Arrays.fill(b, (byte) 1);
            HOARD.add(b);
        }
    }

    public static void main(String[] args) throws Exception {
        long bootMillis = Long.getLong("fake.bootMillis", -1);
        // memory held and written during the boot, before the marker: on a loaded machine the call's limit then
        // starts only once it is all there
        hoard(Integer.getInteger("fake.hoardMb", 0));
        if (bootMillis >= 0) { // a slow boot, then the real sandbox's marker
            Thread.sleep(bootMillis);
            System.err.println(dev.shardlings.grader.sandboxboot.SandboxBoot.READY);
            System.err.flush();
        }
        BufferedInputStream in = new BufferedInputStream(System.in);
        OutputStream out = new FileOutputStream(FileDescriptor.out);
        while (true) {
            byte[] frame = Wire.readFrame(in);
            if (frame == null) {
                return;
            }
            Wire.Request r = Wire.decodeRequest(frame);
            String script = (String) r.args().get(0);
            Random random = new Random((Integer) r.args().get(1));
            byte[] noise = new byte[random.nextInt(200)];
            random.nextBytes(noise);
            switch (script) {
                case "valid" -> Wire.writeFrame(out, reply(r.id()));
                case "wrong-id" -> Wire.writeFrame(out, reply(r.id() ^ (1L + random.nextInt(1000))));
                case "duplicate" -> {
                    Wire.writeFrame(out, reply(r.id()));
                    Wire.writeFrame(out, reply(r.id()));
                }
                case "random-bytes" -> out.write(noise);
                case "random-body" -> {
                    byte[] body = ByteBuffer.allocate(8 + noise.length).putLong(r.id()).put(noise).array();
                    Wire.writeFrame(out, body);
                }
                case "cut-short" -> {
                    out.write(ByteBuffer.allocate(8).putInt(Wire.MAGIC).putInt(1000).array());
                    out.write(noise);
                    out.flush();
                    Runtime.getRuntime().halt(0);
                }
                case "oversized" -> out.write(ByteBuffer.allocate(8).putInt(Wire.MAGIC).putInt(Integer.MAX_VALUE)
                        .array());
                case "amplified" -> {
                    // A small message that asks for a lot: many shardMaps, each on a mesh of 4096 devices.
                    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
                    java.io.DataOutputStream d = new java.io.DataOutputStream(bytes);
                    d.writeLong(r.id());
                    d.writeBoolean(false);
                    d.writeByte(0); // value: null
                    int maps = 2000;
                    d.writeInt(maps);
                    for (int m = 0; m < maps; m++) {
                        writeString(d, "f");
                        d.writeByte(0); // origin: a shardMap
                        writeString(d, "cpu");
                        d.writeInt(12);
                        for (int a = 0; a < 12; a++) {
                            writeString(d, "a" + a + "_" + m); // a different mesh each time: no reuse
                            d.writeInt(2);
                        }
                        d.writeInt(4096);
                        for (int i = 0; i < 4096; i++) {
                            d.writeInt(i);
                        }
                        for (int a = 0; a < 12; a++) {
                            d.writeByte(0); // axis type
                        }
                        d.writeInt(0);
                        d.writeInt(0);
                        d.writeInt(0);
                    }
                    d.writeInt(0);
                    d.writeLong(0);
                    d.writeInt(0);
                    d.writeBoolean(false);
                    Wire.writeFrame(out, bytes.toByteArray());
                }
                case "silent" -> {
                }
                case "exit" -> Runtime.getRuntime().halt(7);
                default -> throw new IllegalArgumentException(script);
            }
            out.flush();
        }
    }

    private static void writeString(java.io.DataOutputStream d, String s) throws java.io.IOException {
        byte[] b = s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        d.writeInt(b.length);
        d.write(b);
    }

    /** A well-formed reply: the integer 42, an empty trace. */
    static byte[] reply(long id) throws java.io.IOException {
        return Wire.encode(new Wire.Reply(id, 42, null, new Trace(List.of(), List.of(), 0), List.of(), false));
    }
}
