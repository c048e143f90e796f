package dev.shardlings.grader.selftest;

import dev.shardlings.grader.host.Sandbox;
import dev.shardlings.grader.host.SandboxSeam;
import dev.shardlings.grader.sandbox.Wire;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The judge's end of the channel against a sandbox that answers anything: random bytes, well-formed replies with
 * the wrong id, replies twice, frames cut short or too long, silence, death. Whatever comes, a call returns the
 * reply to its own request or fails with a {@link Sandbox.SandboxFailure} within its limit; the judge never
 * crashes, never hangs and never takes an answer it did not ask for. Decoding random bytes never throws anything
 * but {@link Wire.ProtocolException}.
 */
class ChannelFuzzTest {

    /**
     * The limit of a call whose only way to end is the time-out: a sandbox that stays silent, or writes bytes that
     * never make a whole frame. Short, so that the property is quick; nothing right is cut off by it.
     */
    private static final Duration SILENCE_LIMIT = Duration.ofMillis(500);
    /**
     * The limit of every other call. Generous: the reply may come from a fake sandbox JVM started for this call (the
     * one before died or was killed), which takes a few seconds on a machine loaded ten times over; a valid reply
     * given 500 ms failed there. The cases that end without a reply (death, a broken or wrong frame) must still end
     * by themselves: for them a time-out fails the property.
     */
    private static final Duration REPLY_LIMIT = Duration.ofSeconds(60);
    /** How long a part may take in all: above every call's limit, so that a call ends at its own. */
    private static final Duration PART_BUDGET = Duration.ofSeconds(120);
    private static Sandbox sandbox;
    private static Path course;

    @BeforeContainer
    static void start() throws IOException {
        course = Files.createTempDirectory("fake-course-");
        Files.createDirectories(course.resolve("dev/shardlings/course"));
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        sandbox = SandboxSeam.withCommand(new Sandbox.Config(course, "64m", PART_BUDGET, false),
                List.of(java, "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
                        FakeSandbox.class.getName()));
    }

    @AfterContainer
    static void stop() throws IOException {
        sandbox.close();
        Files.walk(course).sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }

    @Property(tries = 30, seed = "1601")
    void aCallGetsItsOwnReplyOrFailsCleanly(@ForAll("scripts") String script, @ForAll("seeds") int seed) {
        sandbox.beginPart();
        try {
            Wire.Request r = request(script, seed);
            boolean onlyTimesOut = script.equals("silent") || script.equals("random-bytes");
            Duration limit = onlyTimesOut ? SILENCE_LIMIT : REPLY_LIMIT;
            long t0 = System.nanoTime();
            try {
                Wire.Reply reply = sandbox.call(r, limit);
                assertEquals(r.id(), reply.id(), "only the reply to this request is taken");
                assertEquals(42, reply.value());
                assertTrue(script.equals("valid") || script.equals("duplicate"), script + " was accepted");
                if (script.equals("duplicate")) {
                    // The second copy arrives unasked, before or after the next request is sent: either way the
                    // next call fails on it (unasked, or a reply to a request that was never sent).
                    sleep(300);
                    Sandbox.SandboxFailure f = assertThrows(Sandbox.SandboxFailure.class,
                            () -> sandbox.call(request("valid", seed), REPLY_LIMIT));
                    assertEquals(Sandbox.FailureKind.PROTOCOL, f.kind(), f.getMessage());
                }
            } catch (Sandbox.SandboxFailure f) {
                assertTrue(!script.equals("valid"), "a valid reply failed: " + f.getMessage());
                if (onlyTimesOut) {
                    assertTrue(f.kind() == Sandbox.FailureKind.PROTOCOL || f.kind() == Sandbox.FailureKind.CALL_TIMEOUT,
                            script + ": " + f.kind());
                } else {
                    // These end without the time-out: a frame that is wrong, or a process that died.
                    assertTrue(f.kind() == Sandbox.FailureKind.PROTOCOL || f.kind() == Sandbox.FailureKind.EXITED,
                            script + ": " + f.kind() + " " + f.getMessage());
                }
                if (script.equals("silent")) {
                    assertEquals(Sandbox.FailureKind.CALL_TIMEOUT, f.kind());
                }
            } catch (RuntimeException e) {
                fail(script + " made the judge throw " + e, e);
            }
            double seconds = (System.nanoTime() - t0) / 1e9;
            // A bound on hanging, not on speed: it holds on a machine loaded ten times over.
            assertTrue(seconds < limit.toSeconds() + 60.0, script + " took " + seconds + " s");
        } finally {
            sandbox.endPart();
        }
    }

    @net.jqwik.api.Example
    void aReplyThatWouldBuildTooMuchIsRefusedBeforeItIsBuilt() {
        sandbox.beginPart();
        try {
            Sandbox.SandboxFailure f = assertThrows(Sandbox.SandboxFailure.class,
                    () -> sandbox.call(request("amplified", 1), REPLY_LIMIT));
            assertEquals(Sandbox.FailureKind.PROTOCOL, f.kind());
            assertTrue(f.getMessage().contains("units of objects"), f.getMessage());
        } finally {
            sandbox.endPart();
        }
    }

    /**
     * A JVM that takes long to boot (a loaded CI runner) costs the student nothing: the call's limit and the part's
     * budget start when the boot's marker arrives. Here the boot takes 4 s, the call may take 2 s, the part 3 s.
     */
    @net.jqwik.api.Example
    void theSandboxsBootCountsNeitherForTheCallNorForThePart() throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        try (Sandbox slow = SandboxSeam.withBootingCommand(new Sandbox.Config(course, "64m", Duration.ofSeconds(3),
                false), List.of(java, "-Dfake.bootMillis=4000", "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-cp",
                System.getProperty("java.class.path"), FakeSandbox.class.getName()))) {
            slow.beginPart();
            try {
                Wire.Reply reply = slow.call(request("valid", 7), Duration.ofSeconds(2));
                assertEquals(42, reply.value());
            } finally {
                slow.endPart();
            }
        }
    }

    /**
     * A call that times out with the sandbox's memory near its heap limit says so (the CI machine's slow fresh
     * pages turned an allocation without end into a time-out); a silent sandbox far below its limit does not. The
     * fake holds its 48 MB during its boot, so that on a loaded machine the call's 3 s start only once they are
     * there (held during the call, they were not always there in time beside the busy loops).
     */
    @net.jqwik.api.Example
    void aTimeOutNearTheHeapLimitNamesTheMemory() throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> fake = List.of(java, "-Xmx256m", "-Dfake.bootMillis=0", "-Dfake.hoardMb=48",
                "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"), FakeSandbox.class.getName());
        for (String heap : List.of("48m", "2g")) {
            try (Sandbox s = SandboxSeam.withBootingCommand(new Sandbox.Config(course, heap, PART_BUDGET, false),
                    fake)) {
                s.beginPart();
                try {
                    Sandbox.SandboxFailure f = assertThrows(Sandbox.SandboxFailure.class,
                            () -> s.call(request("silent", 1), Duration.ofSeconds(3)));
                    assertEquals(Sandbox.FailureKind.CALL_TIMEOUT, f.kind(), f.getMessage());
                    assertEquals(heap.equals("48m"), f.getMessage().contains("near the heap's limit of " + heap),
                            f.getMessage());
                } finally {
                    s.endPart();
                }
            }
        }
    }

    @Property(tries = 500, seed = "1602")
    void decodingRandomBytesOnlyEverFailsWithAProtocolException(@ForAll("bytes") byte[] bytes) {
        for (int shift = 0; shift < 2; shift++) {
            byte[] b = bytes.clone();
            if (shift == 1 && b.length > 9) {
                b[8] = 0; // a reply that returned (not threw), so the value decoder runs on the rest
            }
            try {
                Wire.decodeReply(b);
            } catch (Wire.ProtocolException e) {
                // expected for almost all inputs
            }
            try {
                Wire.decodeRequest(b);
            } catch (Wire.ProtocolException e) {
                // expected
            }
        }
    }

    @Property(tries = 200, seed = "1603")
    void framesOfRandomBytesNeverHangOrAllocateWithoutBound(@ForAll("bytes") byte[] bytes) {
        try {
            Wire.readFrame(new java.io.ByteArrayInputStream(bytes));
        } catch (Wire.ProtocolException e) {
            // expected
        } catch (IOException e) {
            fail("only ProtocolException: " + e);
        }
    }

    @Provide
    Arbitrary<String> scripts() {
        return Arbitraries.of("valid", "wrong-id", "duplicate", "random-bytes", "random-body", "cut-short",
                "oversized", "amplified", "silent", "exit");
    }

    @Provide
    Arbitrary<Integer> seeds() {
        return Arbitraries.integers().between(0, 1_000_000);
    }

    @Provide
    Arbitrary<byte[]> bytes() {
        // Random bytes, and random bytes after a plausible start (a long id, a small tag, small counts).
        Arbitrary<byte[]> raw = Arbitraries.bytes().array(byte[].class).ofMaxSize(300);
        Arbitrary<byte[]> plausible = Arbitraries.integers().between(0, 1_000_000).map(seed -> {
            Random r = new Random(seed);
            ByteBuffer b = ByteBuffer.allocate(64 + r.nextInt(200));
            b.putLong(r.nextLong()).put((byte) r.nextInt(2)).put((byte) r.nextInt(8));
            while (b.remaining() >= 4) {
                b.putInt(r.nextInt(4) == 0 ? r.nextInt() : r.nextInt(5));
            }
            return b.array();
        });
        return Arbitraries.oneOf(raw, plausible);
    }

    private static Wire.Request request(String script, int seed) {
        return new Wire.Request(new Random(seed).nextLong() ^ System.nanoTime(), "Fake", "script", List.of(),
                List.of(script, seed));
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
