package dev.shardlings.grader.selftest;

import dev.shardlings.grader.grade.BatchGrading;
import dev.shardlings.grader.grade.Results;
import dev.shardlings.grader.grade.SubmissionGrading;
import dev.shardlings.grader.host.SandboxSeam;
import dev.shardlings.grader.hostile.OsAttacks;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The attacks on the machine ({@link OsAttacks}: the network, files left behind, the sandbox JVM's memory from inside
 * and from a child) graded through grade-submission, Gradescope's run_autograder (also inside a simulated Gradescope
 * container: root without CAP_SYS_ADMIN and Docker's seccomp profile, so no namespace), and batch grading. The test
 * opens real listeners — TCP and UDP, on loopback and on every address of the machine — and checks that none saw a
 * connection or a datagram, that no file the submission wrote is left, that the parts the attacks do not fail keep
 * full marks, and that results.json's {@code barriers} says what held.
 *
 * <p>Needs Linux and a {@code python3} everyone may run (the sandbox's launcher): on a machine without them the grade
 * runs without these barriers and says so, which {@code OsBarriersTest} checks; this test is then skipped with that
 * reason.
 */
class OsIntegrityTest {

    private static final Path COURSE = Path.of("..").toAbsolutePath().normalize();
    private static final Path SOLUTIONS = COURSE.resolve("solutions/src/main/java/dev/shardlings/course");
    private static final Path EXERCISES = Path.of("exercises/src/main/java/dev/shardlings/course");
    private static final String ONLY = "{Part11a*,Part11b*,Part12a*,Part12b*}";

    private final List<ServerSocket> tcp = new ArrayList<>();
    private final List<DatagramSocket> udp = new ArrayList<>();
    private final AtomicInteger reached = new AtomicInteger();
    private final List<String> reachedFrom = Collections.synchronizedList(new ArrayList<>());
    private String fileName;
    /** A Unix datagram socket a Python of the test's listens on, reachable by the sandbox user; what it got. */
    private Path unixDir;
    private Process unixListener;

    @BeforeAll
    static void needs() throws Exception {
        assumeTrue(Files.isDirectory(SOLUTIONS), "the attacks are built from solutions/, which a student release"
                + " does not have");
        assumeTrue(System.getProperty("os.name").startsWith("Linux") && Files.isExecutable(Path.of("/usr/bin/python3")),
                "the OS-level barriers need Linux and /usr/bin/python3 (OsBarriersTest checks the report without them)");
        if (isRoot() && !SandboxSeam.sandboxUserAvailable()) {
            Process p = new ProcessBuilder("bash", COURSE.resolve("grader/gradescope/create-sandbox-user.sh")
                    .toString()).inheritIO().start();
            assertEquals(0, p.waitFor(), "create-sandbox-user.sh");
        }
    }

    /** Listeners on loopback and on each address of the machine's interfaces that are up, counting what arrives. */
    @BeforeEach
    void listen() throws IOException {
        fileName = "shardlings-left-behind-" + UUID.randomUUID();
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
            Thread t = new Thread(() -> {
                while (!s.isClosed()) {
                    try (Socket c = s.accept()) {
                        reached.incrementAndGet();
                        reachedFrom.add("TCP " + s.getLocalSocketAddress() + " from " + c.getRemoteSocketAddress());
                    } catch (IOException e) {
                        // closed
                    }
                }
            }, "tcp-listener");
            t.setDaemon(true);
            t.start();
            DatagramSocket d = new DatagramSocket(new InetSocketAddress(a, 0));
            udp.add(d);
            Thread u = new Thread(() -> {
                byte[] buf = new byte[64];
                while (!d.isClosed()) {
                    try {
                        DatagramPacket p = new DatagramPacket(buf, buf.length);
                        d.receive(p);
                        reached.incrementAndGet();
                        reachedFrom.add("UDP " + d.getLocalSocketAddress() + " from " + p.getSocketAddress());
                    } catch (IOException e) {
                        // closed
                    }
                }
            }, "udp-listener");
            u.setDaemon(true);
            u.start();
        }
        assertTrue(addresses.size() >= 2, "a machine with an address besides loopback: " + addresses);
        unixDir = Files.createTempDirectory("shardlings-unix-");
        Files.setPosixFilePermissions(unixDir, java.nio.file.attribute.PosixFilePermissions.fromString("rwxrwxrwx"));
        unixListener = new ProcessBuilder("/usr/bin/python3", "-c", String.join("\n",
                "import os, socket, sys",
                "s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)",
                "s.bind(sys.argv[1])",
                "os.chmod(sys.argv[1], 0o666)",
                "print('ready', flush=True)",
                "while True:",
                "    d = s.recv(64)",
                "    print('GOT', d, flush=True)"), unixSocket().toString()).redirectErrorStream(true)
                .redirectOutput(unixLog().toFile()).start();
        for (int i = 0; i < 600 && !Files.readString(unixLog()).startsWith("ready"); i++) {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                throw new IOException(e);
            }
        }
        assertEquals("ready\n", Files.readString(unixLog()), "the Unix socket listener started");
    }

    private Path unixSocket() {
        return unixDir.resolve("listener.sock");
    }

    /** What the Unix socket's listener printed: "ready", then a line per datagram. */
    private Path unixLog() {
        return unixDir.resolve("listener.log");
    }

    @AfterEach
    void close() throws IOException {
        unixListener.destroyForcibly();
        dev.shardlings.grader.host.Folders.deleteRecursively(unixDir);
        for (ServerSocket s : tcp) {
            s.close();
        }
        for (DatagramSocket d : udp) {
            d.close();
        }
        for (Path d : OsAttacks.SHARED_FOLDERS) {
            Files.deleteIfExists(d.resolve(fileName));
        }
    }

    private List<String> tcpTargets() {
        return tcp.stream().map(s -> s.getInetAddress().getHostAddress() + ":" + s.getLocalPort()).toList();
    }

    private List<String> udpTargets() {
        return udp.stream().map(s -> s.getLocalAddress().getHostAddress() + ":" + s.getLocalPort()).toList();
    }

    private void writeAttacks(Path dir) throws IOException {
        OsAttacks.write(SOLUTIONS, dir, tcpTargets(), udpTargets(), unixSocket(), fileName);
    }

    @Test
    void gradeSubmissionKeepsCourseCodeOffTheNetworkAndLeavesNothing(@TempDir Path dir) throws Exception {
        Path results = dir.resolve("out/results.json");
        writeAttacks(dir.resolve("submission").resolve(EXERCISES));
        int status = new CommandLine(new SubmissionGrading()).execute("--course=" + COURSE,
                "--test-classes=" + testClasses(), "--submission=" + dir.resolve("submission"), "--results=" + results,
                "--work=" + dir.resolve("graded"), "--only=" + ONLY, "--heap=512m", "--quiet");
        assertEquals(0, status);
        check(Results.read(results), true);
    }

    @Test
    void runAutograderAsRootKeepsCourseCodeOffTheNetwork(@TempDir Path dir) throws Exception {
        writeAttacks(dir.resolve("submission"));
        check(runAutograder(dir, List.of()), true);
    }

    /**
     * Gradescope's container: root, but no CAP_SYS_ADMIN or CAP_NET_ADMIN and Docker's seccomp profile, so neither a
     * namespace nor a firewall rule can be made (and, as in Docker before 23, no Landlock). The seccomp filter alone
     * keeps the network out, and the sandbox user's files in /tmp are swept.
     */
    @Test
    void runAutograderInAGradescopeLikeContainer(@TempDir Path dir) throws Exception {
        assumeTrue(isRoot(), "the container is simulated by dropping root's capabilities");
        assumeTrue(Files.isExecutable(Path.of("/usr/sbin/capsh")) || Files.isExecutable(Path.of("/sbin/capsh")),
                "capsh (libcap2-bin) drops the capabilities Docker does not give");
        Path sim = Path.of(OsIntegrityTest.class.getResource("container_like.py").toURI());
        writeAttacks(dir.resolve("submission"));
        Results r = runAutograder(dir, List.of("/usr/bin/python3", sim.toString()));
        Map<String, Boolean> b = barriers(r);
        assertEquals(false, b.get("network_namespace"), "no namespace in the container: " + b);
        assertEquals(true, b.get("seccomp_no_sockets_no_ptrace"), b.toString());
        assertEquals(false, b.get("landlock_writes_only_to_own_folders"), b.toString());
        assertEquals(false, b.get("tmp_private"), "the container's /tmp is written, then swept: " + b);
        check(r, true);
    }

    @Test
    void batchGradingKeepsEveryStudentOffTheNetwork(@TempDir Path dir) throws Exception {
        Path subs = dir.resolve("export");
        writeAttacks(subs.resolve("mallory"));
        Path out = dir.resolve("grades");
        assertEquals(0, new CommandLine(new BatchGrading()).execute("--course=" + COURSE, "--test-classes="
                + testClasses(), "--submissions=" + subs, "--out=" + out, "--jobs=1", "--only=" + ONLY,
                "--heap=512m"));
        check(Results.read(out.resolve("mallory/results.json")), true);
    }

    private Results runAutograder(Path root, List<String> wrapper) throws Exception {
        List<String> cmd = new ArrayList<>(wrapper);
        cmd.addAll(List.of("bash", COURSE.resolve("grader/gradescope/run_autograder").toString()));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(root.resolve("stdout").toFile());
        Map<String, String> env = pb.environment();
        env.put("AUTOGRADER_ROOT", root.toString());
        env.put("SHARDLINGS_COURSE", COURSE.toString());
        env.put("SHARDLINGS_CLASSPATH", System.getProperty("java.class.path"));
        env.put("GRADE_ONLY", ONLY);
        env.put("SHARDLINGS_GRADE_ARGS", "--heap=512m");
        Process p = pb.start();
        assertTrue(p.waitFor(600, TimeUnit.SECONDS), "run_autograder finishes");
        assertEquals(0, p.exitValue(), Files.readString(root.resolve("stdout")));
        return Results.read(root.resolve("results/results.json"));
    }

    /** What every grade must show, whichever command graded it. */
    private void check(Results r, boolean launcher) throws Exception {
        Map<String, Results.TestResult> t = r.tests().stream()
                .collect(Collectors.toMap(Results.TestResult::number, Function.identity()));
        Map<String, Boolean> b = barriers(r);
        Results.TestResult children = t.get(OsAttacks.PTRACE_PART);
        // First what happened, whatever results.json says.
        Thread.sleep(500); // a datagram in flight
        List<String> seen = List.copyOf(reachedFrom);
        assertEquals(0, reached.get(), reached.get() + " connection(s) or datagram(s) reached the listeners: "
                + seen.subList(0, Math.min(8, seen.size())));
        // The Unix datagram, sent through a socketpair: nothing arrived. (Its listener prints only what it got.)
        assertEquals("ready\n", Files.readString(unixLog()), "nothing reached the Unix socket: " + children.output());
        for (Path d : OsAttacks.SHARED_FOLDERS) {
            assertFalse(Files.exists(d.resolve(fileName), LinkOption.NOFOLLOW_LINKS), "left behind in " + d);
        }
        // No System V segment of the attack's is left in the machine's IPC namespace.
        String shm = Files.readString(Path.of("/proc/sysvipc/shm"));
        assertFalse(shm.lines().skip(1).anyMatch(l -> l.strip().startsWith(String.valueOf(OsAttacks.SHM_KEY) + " ")),
                "the attack's shared memory segment is not left: " + shm);
        assertTrue(children.output().contains(OsAttacks.IPC_REFUSED), children.output());
        assertTrue(children.output().contains(OsAttacks.KEYRING_REFUSED), children.output());
        assertTrue(t.get(OsAttacks.NETWORK_PART).passed(), "the network attack's part keeps its values and marks: "
                + t.get(OsAttacks.NETWORK_PART).output());
        assertTrue(t.get(OsAttacks.FILES_PART).passed(), t.get(OsAttacks.FILES_PART).output());
        // Then that results.json says so.
        assertEquals(Boolean.TRUE, b.get("no_network"), "results.json says the network was cut: " + b);
        assertEquals(Boolean.TRUE, b.get("nothing_left_behind"), b.toString());
        assertEquals(Boolean.TRUE, b.get("no_ipc_or_keyrings"), b.toString());
        assertTrue(children.output().contains(OsAttacks.UNIX_DATAGRAM_REFUSED), children.output());
        if (launcher && b.get("proc_self_mem_not_writable")) {
            assertReason(t, OsAttacks.PROC_MEM_PART, "/proc/self/mem refused");
        } else {
            assertTrue(t.get(OsAttacks.PROC_MEM_PART).passed(), "results.json says /proc/self/mem was writable");
        }
        assertFalse(children.output().contains(OsAttacks.PTRACE_ATTACHED) && b.get("seccomp_no_sockets_no_ptrace"),
                "results.json says ptrace is refused: " + children.output());
        if (b.get("seccomp_no_sockets_no_ptrace")) {
            assertTrue(children.output().contains(OsAttacks.PTRACE_REFUSED), children.output());
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Boolean> barriers(Results r) {
        Map<String, Boolean> b = (Map<String, Boolean>) r.extraData().get("barriers");
        assertTrue(b != null, "results.json has extra_data.barriers");
        return b;
    }

    private static void assertReason(Map<String, Results.TestResult> t, String part, String text) {
        Results.TestResult r = t.get(part);
        assertFalse(r.passed(), part + " must fail: " + r.output());
        assertTrue(r.reason().contains(text) || r.output().contains(text), part + ": " + r.reason() + "\n"
                + r.output());
    }

    private static Path testClasses() throws URISyntaxException {
        return Path.of(OsIntegrityTest.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    }

    private static boolean isRoot() {
        try {
            return Integer.valueOf(0).equals(Files.getAttribute(Path.of("/proc/self"), "unix:uid"));
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }
}
