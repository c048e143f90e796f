package dev.shardlings.grader.host;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The sandbox's barriers at the level of the operating system: no network, no writes outside the sandbox's own
 * folders, no {@code /proc/self/mem} or {@code ptrace}, other users' processes hidden. They are put up by a small
 * launcher ({@code sandbox_launcher.py}, run with the machine's {@code python3} between the judge and the sandbox
 * JVM, then replaced by the JVM through {@code execv}) from whatever the machine allows: network and mount
 * namespaces, Landlock, a seccomp filter, the unprivileged sandbox user. Which of them a machine gives is found once
 * per judge JVM by a probe ({@link #probe}): the same launcher, then a small program that tries what course code
 * would (TCP to the judge's own listeners on loopback and on the machine's addresses, a UDP socket, {@code
 * /proc/self/mem}, a file in {@code /tmp}); the listeners say whether anything reached them. What held is written into
 * results.json ({@link Held#barriers()}); where nothing holds, the grade runs all the same and says so.
 *
 * <p>Why a launcher in Python: the barriers must be in place before the JVM's first instruction and be inherited by
 * every process it starts, which takes {@code unshare}, {@code prctl} and the Landlock system calls; JDK 17 has no
 * stable way to make them (the foreign-function API is final only from JDK 22), and a native helper would need a C
 * compiler on every grading machine. {@code python3} is on Gradescope's images, GitHub's runners and Linux desktops
 * (setup.sh installs it where missing); without it the sandbox runs as before, as the sandbox user where there is one,
 * and {@code barriers} says {@code no_network: false}.
 */
public final class OsBarriers {

    /** A layer the launcher can be told to leave out (the grader's tests check each of the others alone). */
    public enum Layer {
        /** Network and mount namespaces (and what needs them: the private {@code /tmp}, hidepid). */
        NAMESPACES("namespaces"),
        /** Landlock: writes only to the sandbox's folders; no TCP; no signals out. */
        LANDLOCK("landlock"),
        /** The seccomp filter: no sockets, io_uring, ptrace or process_vm_readv/writev. */
        SECCOMP("seccomp");

        private final String option;

        Layer(String option) {
            this.option = option;
        }
    }

    /** What the launcher says it put up (its line on standard error, before the JVM starts). */
    public record Layers(boolean networkNamespace, boolean privateTmpMount, boolean processesHidden, int landlockAbi,
                         boolean seccomp) {

        /** None: no launcher ran. */
        public static final Layers NONE = new Layers(false, false, false, 0, false);

        /** The line's prefix. */
        static final String PREFIX = "shardlings-launcher: ";

        /**
         * The report in {@code text} (the lines the launcher and the JVM printed before the boot's marker), or
         * empty when there is none.
         */
        static Optional<Layers> find(String text) {
            for (String line : text.split("\n")) {
                if (line.startsWith(PREFIX) && !line.startsWith(PREFIX + "note:") && !line.startsWith(PREFIX
                        + "error:")) {
                    Map<String, String> f = fields(line.substring(PREFIX.length()));
                    try {
                        return Optional.of(new Layers(Boolean.parseBoolean(f.get("network_namespace")),
                                Boolean.parseBoolean(f.get("private_tmp_mount")),
                                Boolean.parseBoolean(f.get("processes_hidden")),
                                Integer.parseInt(f.getOrDefault("landlock_abi", "0")),
                                Boolean.parseBoolean(f.get("seccomp"))));
                    } catch (NumberFormatException e) {
                        return Optional.empty();
                    }
                }
            }
            return Optional.empty();
        }

        /** What both reports have (a start that got fewer barriers than the probe lowers what the run reports). */
        Layers and(Layers o) {
            return new Layers(networkNamespace && o.networkNamespace, privateTmpMount && o.privateTmpMount,
                    processesHidden && o.processesHidden, Math.min(landlockAbi, o.landlockAbi), seccomp && o.seccomp);
        }

        /** Writes are refused outside the sandbox's own folders (Landlock's file-system rules, ABI 1 and later). */
        boolean writesConfined() {
            return landlockAbi >= 1;
        }
    }

    /**
     * What held on this machine, from the launcher's report and the probe's attempts.
     *
     * @param launcher        the launcher ran (false: the sandbox starts without it)
     * @param layers          what the launcher put up
     * @param noNetwork       no connection reached the judge's listeners and the probe could open no socket at all
     *                        (no TCP connection, no UDP socket, no Unix socket)
     * @param procMemRefused  opening {@code /proc/self/mem} for writing was refused
     * @param tmpPrivate      a file written to {@code /tmp} was refused, or landed in the sandbox's private folder
     * @param noIpc           System V shared memory and the user's keyring were refused (state that would outlive the
     *                        sandbox and reach the next one of the same user)
     * @param user            the sandbox runs as the unprivileged sandbox user
     * @param why             what was missing, in words, for the console ("" when everything held)
     */
    public record Held(boolean launcher, Layers layers, boolean noNetwork, boolean procMemRefused, boolean tmpPrivate,
                       boolean noIpc, boolean user, String why) {

        /** Nothing at the OS level (no launcher could run), for {@code why}. */
        static Held none(boolean user, String why) {
            return new Held(false, Layers.NONE, false, false, false, false, user, why);
        }

        /**
         * What is left when a start's launcher reports {@code got}: a layer it lacks is gone, and with it what only
         * that layer gave (no network needs the seccomp filter's refusal of every socket).
         */
        Held weakenedTo(Layers got) {
            Layers l = layers.and(got);
            if (l.equals(layers)) {
                return this;
            }
            boolean net = noNetwork && l.seccomp();
            boolean mem = procMemRefused && l.writesConfined();
            boolean tmp = tmpPrivate && (l.writesConfined() || l.privateTmpMount());
            return new Held(launcher, l, net, mem, tmp, noIpc && l.seccomp(), user, (why.isEmpty() ? "" : why + "; ")
                    + "a sandbox start got fewer barriers than the probe");
        }

        /**
         * The barriers for results.json's {@code extra_data.barriers}: each named for what it keeps from course
         * code, true where it held on this machine.
         */
        public Map<String, Boolean> barriers() {
            Map<String, Boolean> b = new LinkedHashMap<>();
            b.put("no_network", noNetwork);
            b.put("network_namespace", layers.networkNamespace());
            b.put("seccomp_no_sockets_no_ptrace", layers.seccomp());
            b.put("landlock_writes_only_to_own_folders", layers.writesConfined());
            b.put("landlock_no_tcp", layers.landlockAbi() >= 4);
            b.put("proc_self_mem_not_writable", procMemRefused);
            b.put("tmp_private", tmpPrivate);
            // Files outside the sandbox's own folders (which are emptied after every part): refused by Landlock, or,
            // as the sandbox user, who can write only to the folders everyone may write to, swept from those; and
            // no System V IPC object or key, which no folder holds.
            b.put("nothing_left_behind", (layers.writesConfined() || user) && noIpc);
            b.put("no_ipc_or_keyrings", noIpc);
            b.put("other_processes_hidden", layers.processesHidden());
            b.put("no_signals_out_of_the_sandbox", layers.landlockAbi() >= 6 || user);
            return b;
        }
    }

    private static final String LAUNCHER = resource("sandbox_launcher.py");
    private static final String PROBE = resource("sandbox_probe.py");

    private final Path python;

    private OsBarriers(Path python) {
        this.python = python;
    }

    /**
     * The launcher of this machine, or empty where none can run: not Linux, or no {@code python3} that the sandbox's
     * user can run (as the sandbox user, one whose files every user may read: a Python in root's home is not).
     */
    static Optional<OsBarriers> find(boolean forOtherUser) {
        if (!System.getProperty("os.name", "").startsWith("Linux") || !Files.isDirectory(Path.of("/proc/self"))) {
            return Optional.empty();
        }
        List<Path> candidates = new ArrayList<>(List.of(Path.of("/usr/bin/python3"), Path.of("/usr/local/bin/python3"),
                Path.of("/bin/python3")));
        String path = System.getenv("PATH");
        if (path != null) {
            for (String d : path.split(java.io.File.pathSeparator)) {
                if (!d.isEmpty()) {
                    candidates.add(Path.of(d, "python3"));
                }
            }
        }
        for (Path c : candidates) {
            try {
                Path real = c.toRealPath();
                if (Files.isRegularFile(real) && Files.isExecutable(real) && ownedByRoot(real)
                        && (!forOtherUser || everyoneMayRun(real))) {
                    return Optional.of(new OsBarriers(real));
                }
            } catch (IOException e) {
                // not there
            }
        }
        return Optional.empty();
    }

    /**
     * The Python and its library owned by root and writable by no one else: course code, whatever user it runs as,
     * cannot change the next sandbox's launcher by changing the Python that runs it (a pyenv or conda Python in the
     * grading user's home is refused for that reason).
     */
    private static boolean ownedByRoot(Path file) {
        try {
            Path lib = file.getParent().getParent().resolve("lib");
            for (Path p : Files.isDirectory(lib) ? List.of(file, file.getParent(), lib) : List.of(file, file.getParent())) {
                Set<PosixFilePermission> perms = Files.getPosixFilePermissions(p);
                if (!Integer.valueOf(0).equals(Files.getAttribute(p, "unix:uid"))
                        || perms.contains(PosixFilePermission.GROUP_WRITE)
                        || perms.contains(PosixFilePermission.OTHERS_WRITE)) {
                    return false;
                }
            }
            return true;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** The file and every folder above it open to every user (r-x): the sandbox user can start it. */
    private static boolean everyoneMayRun(Path file) {
        if (!ownedByRoot(file)) {
            return false;
        }
        try {
            for (Path p = file; p != null; p = p.getParent()) {
                Set<PosixFilePermission> perms = Files.getPosixFilePermissions(p);
                if (!perms.contains(PosixFilePermission.OTHERS_EXECUTE)
                        || p.equals(file) && !perms.contains(PosixFilePermission.OTHERS_READ)) {
                    return false;
                }
            }
            // Its library too: a Python built into a private prefix (pyenv under /root) starts and cannot import.
            Path lib = file.getParent().getParent().resolve("lib");
            return !Files.isDirectory(lib) || Files.getPosixFilePermissions(lib).contains(
                    PosixFilePermission.OTHERS_EXECUTE);
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        }
    }

    /** The launcher run by {@code python} (the grader's tests give it one that fails). */
    static OsBarriers at(Path python) {
        return new OsBarriers(python);
    }

    /** The folders of one sandbox the launcher is told about. */
    record Folders(Path sandbox, Path home, Path privateTmp) {

        /** The private folders mounted on /tmp, /var/tmp and /dev/shm (where a mount namespace allows). */
        List<Path> privateDirs() {
            return List.of(privateTmp.resolve("tmp"), privateTmp.resolve("var-tmp"), privateTmp.resolve("shm"));
        }

        /** The sandbox's TMPDIR and java.io.tmpdir. */
        Path tmp() {
            return privateTmp.resolve("tmp");
        }
    }

    /**
     * The command that puts up the barriers and then runs {@code command}: {@code python3 -I -S -c LAUNCHER
     * options -- command}.
     */
    List<String> wrap(Optional<String> user, Folders folders, Set<Layer> without, List<String> command) {
        List<String> cmd = new ArrayList<>(List.of(python.toString(), "-I", "-S", "-c", LAUNCHER));
        user.ifPresent(u -> cmd.addAll(List.of("--user", u)));
        cmd.addAll(List.of("--write", folders.home().toString()));
        for (Path d : folders.privateDirs()) {
            cmd.addAll(List.of("--write", d.toString()));
        }
        cmd.addAll(List.of("--private-tmp", folders.privateTmp().toString(), "--keep", folders.sandbox().toString()));
        for (Layer l : without) {
            cmd.addAll(List.of("--without", l.option));
        }
        cmd.add("--");
        cmd.addAll(command);
        return cmd;
    }

    /**
     * The probe program's command: it tries TCP to each of {@code targets} (HOST:PORT), a UDP socket,
     * {@code /proc/self/mem} and {@code /tmp/tmpName}, and prints one line of what each got.
     */
    List<String> probeCommand(String tmpName, List<String> targets) {
        List<String> cmd = new ArrayList<>(List.of(python.toString(), "-I", "-S", "-c", PROBE, tmpName));
        cmd.addAll(targets);
        return cmd;
    }

    /** The probe's result, per machine and set-up: the machine does not change during a judge's life. */
    private static final Map<List<Object>, Held> PROBED = Collections.synchronizedMap(new LinkedHashMap<>());

    /**
     * What holds on this machine for a sandbox set up like this one: the launcher is run with the sandbox's own
     * options, and instead of the JVM the probe program tries what course code would. Done once per judge JVM and
     * set-up (the result is kept).
     *
     * @throws IOException if the launcher cannot be started at all
     */
    Held probe(Optional<String> user, Folders folders, Set<Layer> without, Map<String, String> env) throws IOException {
        List<Object> key = List.of(python, user.isPresent(), EnumSet.copyOf(without.isEmpty() ? EnumSet.noneOf(
                Layer.class) : without));
        Held known = PROBED.get(key);
        if (known != null) {
            return known;
        }
        Held h = probeNow(user, folders, without, env);
        PROBED.put(key, h);
        return h;
    }

    private Held probeNow(Optional<String> user, Folders folders, Set<Layer> without, Map<String, String> env)
            throws IOException {
        List<ServerSocket> listeners = listeners();
        String tmpName = "shardlings-probe-" + Long.toHexString(new SecureRandom().nextLong());
        try {
            List<String> targets = new ArrayList<>();
            for (ServerSocket s : listeners) {
                InetAddress a = s.getInetAddress();
                targets.add((a instanceof Inet4Address ? a.getHostAddress() : "[" + a.getHostAddress() + "]") + ":"
                        + s.getLocalPort());
            }
            // Its report goes to a file of the judge's, read once it has ended or been killed: a probe that hangs
            // costs at most its limit, never the grade.
            Path report = Files.createTempFile("shardlings-probe-", ".txt");
            String err;
            boolean ended;
            try {
                ProcessBuilder pb = new ProcessBuilder(wrap(user, folders, without, probeCommand(tmpName, targets)))
                        .directory(folders.home().toFile()).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                        .redirectError(report.toFile());
                pb.environment().clear();
                pb.environment().putAll(env);
                Process p = pb.start();
                ended = p.waitFor(60, TimeUnit.SECONDS);
                if (!ended) {
                    p.destroyForcibly();
                    p.waitFor(5, TimeUnit.SECONDS);
                }
                err = readCapped(report);
            } finally {
                Files.deleteIfExists(report);
            }
            int reached = 0;
            for (ServerSocket s : listeners) {
                reached += acceptedConnections(s);
            }
            Optional<Layers> layers = Layers.find(err);
            Map<String, String> tried = err.lines().filter(l -> l.startsWith("shardlings-probe: ")).findFirst()
                    .map(l -> fields(l.substring("shardlings-probe: ".length()))).orElse(Map.of());
            if (layers.isEmpty() || tried.isEmpty()) {
                // Not the student's doing (no course code has run): the sandbox starts without the launcher.
                return Held.none(user.isPresent(), "the launcher failed: " + err.strip().lines()
                        .reduce((a, b) -> b).orElse(ended ? "no output" : "no answer in 60 s"));
            }
            Layers l = layers.get();
            boolean connected = tried.entrySet().stream().anyMatch(e -> e.getKey().startsWith("connect:")
                    && e.getValue().equals("connected"));
            // No socket at all: a network namespace alone leaves the machine's Unix sockets (a DNS cache's, D-Bus),
            // and Landlock alone leaves UDP, so DNS; both are reported as layers, neither as no network.
            boolean sockets = !refused(tried, "udp_socket") || !refused(tried, "unix_socket")
                    || !refused(tried, "socketpair");
            boolean noNetwork = reached == 0 && !connected && !sockets;
            boolean procMem = refused(tried, "proc_self_mem");
            // System V IPC and keyrings outlive the sandbox and are shared by every process of its user.
            boolean noIpc = refused(tried, "sysv_shm") && refused(tried, "keyring");
            Path leaked = Path.of("/tmp", tmpName);
            boolean tmpPrivate = !Files.exists(leaked, LinkOption.NOFOLLOW_LINKS);
            List<String> missing = new ArrayList<>();
            if (!noNetwork) {
                missing.add(reached > 0 ? reached + " connection(s) reached the judge's listeners"
                        : "no seccomp filter: sockets can be opened");
            }
            if (!l.writesConfined() && user.isEmpty()) {
                missing.add("no Landlock and no sandbox user: course code may write wherever the grading user may");
            }
            if (!procMem) {
                missing.add("no Landlock: /proc/self/mem is writable");
            }
            if (!noIpc) {
                missing.add("no seccomp filter: System V IPC and keyrings outlive the sandbox");
            }
            return new Held(true, l, noNetwork, procMem, tmpPrivate, noIpc, user.isPresent(),
                    String.join("; ", missing));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while probing the sandbox's barriers", e);
        } finally {
            for (ServerSocket s : listeners) {
                s.close();
            }
            Files.deleteIfExists(Path.of("/tmp", tmpName));
            for (Path d : folders.privateDirs()) {
                Files.deleteIfExists(d.resolve(tmpName));
            }
        }
    }

    /**
     * Listeners on loopback and on each address of this machine's interfaces that are up (at most four in all): what
     * course code with a socket would reach first.
     */
    static List<ServerSocket> listeners() throws IOException {
        List<InetAddress> addresses = new ArrayList<>(List.of(InetAddress.getByName("127.0.0.1")));
        try {
            for (NetworkInterface n : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                if (n.isUp() && !n.isLoopback()) {
                    for (InetAddress a : Collections.list(n.getInetAddresses())) {
                        if (!a.isLinkLocalAddress() && addresses.size() < 4) {
                            addresses.add(a);
                        }
                    }
                }
            }
        } catch (SocketException e) {
            // loopback alone
        }
        List<ServerSocket> out = new ArrayList<>();
        for (InetAddress a : addresses) {
            try {
                ServerSocket s = new ServerSocket();
                s.bind(new InetSocketAddress(a, 0));
                out.add(s);
            } catch (IOException e) {
                // an address that cannot be bound (a tentative IPv6 one): the others still tell
            }
        }
        return out;
    }

    /** How many connections reached {@code s} (each is in its queue, accepted or not). */
    static int acceptedConnections(ServerSocket s) throws IOException {
        s.setSoTimeout(50);
        int n = 0;
        while (true) {
            try (Socket c = s.accept()) {
                n++;
            } catch (SocketTimeoutException e) {
                return n;
            }
        }
    }

    /** The first 64 KB of a file, as text. */
    private static String readCapped(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            return new String(in.readNBytes(64 * 1024), StandardCharsets.UTF_8);
        }
    }

    /** Whether the probe's attempt {@code what} was refused (an attempt it does not name was not refused). */
    private static boolean refused(Map<String, String> tried, String what) {
        return tried.getOrDefault(what, "").startsWith("refused");
    }

    /** {@code key=value} words of a report line. */
    static Map<String, String> fields(String line) {
        Map<String, String> f = new LinkedHashMap<>();
        for (String w : line.strip().split(" +")) {
            int eq = w.lastIndexOf('=');
            if (eq > 0) {
                f.put(w.substring(0, eq), w.substring(eq + 1));
            }
        }
        return f;
    }

    private static String resource(String name) {
        try (InputStream in = OsBarriers.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("the grader's resource " + name + " is missing: rebuild the grader");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
