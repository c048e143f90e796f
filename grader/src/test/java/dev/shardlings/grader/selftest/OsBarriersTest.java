package dev.shardlings.grader.selftest;

import dev.shardlings.array.NDArray;
import dev.shardlings.grader.grade.SubmissionGrading;
import dev.shardlings.grader.host.OsBarriers;
import dev.shardlings.grader.host.OsBarriers.Layer;
import dev.shardlings.grader.host.Sandbox;
import dev.shardlings.grader.host.SandboxSeam;
import dev.shardlings.grader.sandbox.Wire;
import dev.shardlings.sharding.Mesh;
import dev.shardlings.spmd.ShardedArray;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.shardlings.sharding.PartitionSpec.P;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Each OS-level layer alone and in every combination ({@link Sandbox.Config#without()}): course code in a real
 * sandbox tries TCP and UDP to this test's listeners (on loopback and on the machine's address), {@code
 * /proc/self/mem}, a file in {@code /tmp} and one in its own temporary folder; what results.json's barriers would say
 * must agree with what happened — no listener reached where {@code no_network} (nor where a network namespace or
 * the filter is up), {@code /proc/self/mem} refused exactly when {@code proc_self_mem_not_writable}, no file left when {@code nothing_left_behind}, the own folder
 * emptied before the next part always. On a machine that has every layer (this one and CI's), each combination's
 * barriers are also pinned: a layer that stops working fails the test by name. Without a launcher (not Linux, no
 * python3) the report says so and the grade runs.
 */
class OsBarriersTest {

    private static final Path STUBS = Path.of("..", "exercises", "src", "main", "java", "dev", "shardlings", "course")
            .toAbsolutePath().normalize();

    @BeforeAll
    static void sandboxUserWhenRoot() throws Exception {
        if (isRoot() && !SandboxSeam.sandboxUserAvailable()) {
            Process p = new ProcessBuilder("bash", Path.of("..").toAbsolutePath().normalize()
                    .resolve("grader/gradescope/create-sandbox-user.sh").toString()).inheritIO().start();
            assertEquals(0, p.waitFor(), "create-sandbox-user.sh");
        }
    }

    @Test
    void everyCombinationOfLayersReportsWhatHeld(@TempDir Path dir) throws Exception {
        String name = "shardlings-layer-" + UUID.randomUUID();
        try (Listeners l = new Listeners()) {
            Path classes = compile(dir, l, name);
            Map<Set<Layer>, Map<String, Boolean>> seen = new LinkedHashMap<>();
            for (Set<Layer> without : subsets()) {
                l.reset();
                Map<String, Boolean> b;
                String met;
                String second;
                try (Sandbox s = new Sandbox(new Sandbox.Config(classes, "256m", Duration.ofSeconds(120), true,
                        without))) {
                    s.beginPart();
                    met = thrown(s.call(request(1, "perShardMean"), Duration.ofSeconds(60)));
                    s.endPart();
                    s.beginPart();
                    second = thrown(s.call(request(2, "perShardMeanGlobal"), Duration.ofSeconds(60)));
                    s.endPart();
                    b = s.barriers();
                }
                Thread.sleep(200); // a datagram in flight
                String what = "without " + without + ": " + met + "\n" + b;
                assertFalse(b.get("no_network") && l.reached.get() > 0, "no_network, yet " + l.reached.get()
                        + " reached the listeners: " + what);
                if (!without.contains(Layer.NAMESPACES) || !without.contains(Layer.SECCOMP)) {
                    assertEquals(0, l.reached.get(), "a network namespace or the filter: nothing reaches " + what);
                }
                assertEquals(b.get("proc_self_mem_not_writable"), met.contains("mem=refused"), what);
                assertTrue(second.contains("own-tmp=gone"), "the own temporary folder is emptied after a part: "
                        + second);
                if (b.get("nothing_left_behind")) {
                    assertFalse(Files.exists(Path.of("/tmp", name), LinkOption.NOFOLLOW_LINKS), what);
                }
                Files.deleteIfExists(Path.of("/tmp", name));
                seen.put(without, b);
            }
            Map<String, Boolean> all = seen.get(Set.of());
            if (all.get("network_namespace") && all.get("seccomp_no_sockets_no_ptrace") && all.get("landlock_no_tcp")) {
                // This machine has every layer: pin what each combination gives.
                for (Map.Entry<Set<Layer>, Map<String, Boolean>> e : seen.entrySet()) {
                    Set<Layer> w = e.getKey();
                    Map<String, Boolean> b = e.getValue();
                    String what = "without " + w + ": " + b;
                    assertEquals(!w.contains(Layer.NAMESPACES), b.get("network_namespace"), what);
                    assertEquals(!w.contains(Layer.SECCOMP), b.get("seccomp_no_sockets_no_ptrace"), what);
                    assertEquals(!w.contains(Layer.LANDLOCK), b.get("landlock_writes_only_to_own_folders"), what);
                    // No socket at all needs the filter: a namespace alone leaves the machine's Unix sockets (a DNS
                    // cache's), Landlock alone refuses TCP only, so UDP (and with it DNS) still leaves.
                    assertEquals(!w.contains(Layer.SECCOMP), b.get("no_network"), what);
                    assertEquals(!w.contains(Layer.SECCOMP), b.get("no_ipc_or_keyrings"), what);
                    assertEquals(!w.contains(Layer.LANDLOCK), b.get("proc_self_mem_not_writable"), what);
                    assertEquals(!w.contains(Layer.LANDLOCK) || !w.contains(Layer.NAMESPACES), b.get("tmp_private"),
                            what);
                }
            }
        }
    }

    /** A sandbox that starts no launcher (a stand-in command) says no OS-level barrier held, and why. */
    @Test
    void withoutALauncherTheBarriersSayFalse(@TempDir Path dir) throws Exception {
        Path classes = dir.resolve("classes/dev/shardlings/course");
        Files.createDirectories(classes);
        try (Sandbox s = SandboxSeam.withCommand(new Sandbox.Config(dir.resolve("classes"), "64m",
                Duration.ofSeconds(5), false), List.of("true"))) {
            Map<String, Boolean> b = s.barriers();
            for (String k : List.of("no_network", "network_namespace", "seccomp_no_sockets_no_ptrace",
                    "landlock_writes_only_to_own_folders", "proc_self_mem_not_writable", "tmp_private")) {
                assertEquals(false, b.get(k), k + ": " + b);
            }
            OsBarriers.Held h = s.osBarriers();
            assertFalse(h.why().isEmpty(), "says why");
        }
    }

    private static List<Set<Layer>> subsets() {
        List<Set<Layer>> out = new ArrayList<>();
        Layer[] all = Layer.values();
        for (int m = 0; m < 1 << all.length; m++) {
            Set<Layer> s = EnumSet.noneOf(Layer.class);
            for (int i = 0; i < all.length; i++) {
                if ((m & 1 << i) != 0) {
                    s.add(all[i]);
                }
            }
            out.add(Set.copyOf(s));
        }
        return out;
    }

    private static Path compile(Path dir, Listeners l, String name) throws IOException {
        Path src = dir.resolve("src/dev/shardlings/course");
        Files.createDirectories(src);
        StringBuilder tcp = new StringBuilder();
        for (String t : l.tcpTargets()) {
            tcp.append(" try (java.net.Socket s = new java.net.Socket()) { s.connect(new java.net.InetSocketAddress(\"")
                    .append(t.substring(0, t.lastIndexOf(':'))).append("\", ").append(t.substring(t.lastIndexOf(':') + 1))
                    .append("), 1000); r.append(\"tcp=connected \"); } catch (Exception e) { r.append(\"tcp=\" +"
                            + " e.getMessage().replace(' ', '_') + \" \"); }");
        }
        StringBuilder udp = new StringBuilder();
        for (String t : l.udpTargets()) {
            udp.append(" try (java.net.DatagramSocket s = new java.net.DatagramSocket()) { byte[] b = {1};"
                    + " s.send(new java.net.DatagramPacket(b, 1, new java.net.InetSocketAddress(\"")
                    .append(t.substring(0, t.lastIndexOf(':'))).append("\", ").append(t.substring(t.lastIndexOf(':') + 1))
                    .append("))); r.append(\"udp=sent \"); } catch (Exception e) { r.append(\"udp=\" +"
                            + " String.valueOf(e.getMessage()).replace(' ', '_') + \" \"); }");
        }
        Files.writeString(src.resolve("Problem1.java"), """
                package dev.shardlings.course;

                import dev.shardlings.spmd.ShardedArray;

                public final class Problem1 {
                    public static ShardedArray perShardMean(ShardedArray a) {
                        StringBuilder r = new StringBuilder();
                        %s
                        %s
                        try (java.io.RandomAccessFile f = new java.io.RandomAccessFile("/proc/self/mem", "rw")) {
                            r.append("mem=writable ");
                        } catch (java.io.IOException e) { r.append("mem=refused "); }
                        try { java.nio.file.Files.writeString(java.nio.file.Path.of("/tmp", "%s"), "x");
                            r.append("tmp=written "); } catch (Exception e) { r.append("tmp=refused "); }
                        try { java.nio.file.Files.writeString(java.nio.file.Path.of(System.getProperty("java.io.tmpdir"),
                            "%s"), "x"); r.append("own=written "); } catch (Exception e) { r.append("own=" + e + " "); }
                        throw new IllegalStateException("met: " + r);
                    }

                    public static ShardedArray perShardMeanGlobal(ShardedArray a) {
                        boolean there = java.nio.file.Files.exists(java.nio.file.Path.of(
                                System.getProperty("java.io.tmpdir"), "%s"));
                        throw new IllegalStateException(there ? "own-tmp=still-there" : "own-tmp=gone");
                    }
                }
                """.formatted(tcp, udp, name, name, name));
        for (String f : dev.shardlings.grader.sandbox.CourseClasses.FILES) {
            if (!Files.exists(src.resolve(f))) {
                Files.copy(STUBS.resolve(f), src.resolve(f));
            }
        }
        Path classes = dir.resolve("classes");
        assertEquals(Map.of(), SubmissionGrading.compile(dir.resolve("src"), classes, STUBS, ""));
        return classes;
    }

    private static Wire.Request request(long id, String method) {
        Mesh mesh = Mesh.makeMesh(new int[]{1, 1}, "X", "Y");
        ShardedArray a = ShardedArray.devicePut(NDArray.arange(4, dev.shardlings.array.DType.FLOAT32).reshape(2, 2),
                mesh, P("X", "Y"));
        return new Wire.Request(id, "Problem1", method, List.of("ShardedArray"), List.of(a));
    }

    private static String thrown(Wire.Reply r) {
        assertNotNull(r.thrown(), "the course method reports by throwing");
        return r.thrown().message();
    }

    /** TCP and UDP listeners on loopback and on each IPv4 address of the machine, counting what arrives. */
    static final class Listeners implements AutoCloseable {
        final AtomicInteger reached = new AtomicInteger();
        private final List<ServerSocket> tcp = new ArrayList<>();
        private final List<DatagramSocket> udp = new ArrayList<>();

        Listeners() throws IOException {
            List<InetAddress> addresses = new ArrayList<>(List.of(InetAddress.getByName("127.0.0.1")));
            for (NetworkInterface n : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                if (n.isUp() && !n.isLoopback()) {
                    for (InetAddress a : Collections.list(n.getInetAddresses())) {
                        if (a instanceof Inet4Address && !a.isLinkLocalAddress()) {
                            addresses.add(a);
                        }
                    }
                }
            }
            for (InetAddress a : addresses) {
                ServerSocket s = new ServerSocket();
                s.bind(new InetSocketAddress(a, 0));
                tcp.add(s);
                daemon(() -> {
                    while (!s.isClosed()) {
                        try (Socket c = s.accept()) {
                            reached.incrementAndGet();
                        } catch (IOException e) {
                            // closed
                        }
                    }
                });
                DatagramSocket d = new DatagramSocket(new InetSocketAddress(a, 0));
                udp.add(d);
                daemon(() -> {
                    while (!d.isClosed()) {
                        try {
                            d.receive(new DatagramPacket(new byte[16], 16));
                            reached.incrementAndGet();
                        } catch (IOException e) {
                            // closed
                        }
                    }
                });
            }
        }

        private static void daemon(Runnable r) {
            Thread t = new Thread(r, "listener");
            t.setDaemon(true);
            t.start();
        }

        void reset() {
            reached.set(0);
        }

        List<String> tcpTargets() {
            return tcp.stream().map(s -> s.getInetAddress().getHostAddress() + ":" + s.getLocalPort()).toList();
        }

        List<String> udpTargets() {
            return udp.stream().map(s -> s.getLocalAddress().getHostAddress() + ":" + s.getLocalPort()).toList();
        }

        @Override
        public void close() throws IOException {
            for (ServerSocket s : tcp) {
                s.close();
            }
            for (DatagramSocket d : udp) {
                d.close();
            }
        }
    }

    private static boolean isRoot() {
        try {
            return Integer.valueOf(0).equals(Files.getAttribute(Path.of("/proc/self"), "unix:uid"));
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }
}
