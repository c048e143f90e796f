package dev.shardlings.grader.host;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The processes one sandbox started, found and killed: the sandbox JVM's descendants, and those that left its tree
 * but still belong to it (see {@link #marked()}). A part ends by killing all of them, so nothing a submission
 * started outlives the part.
 *
 * <p>Not thread-safe: the sandbox calls it under its own lock.
 */
final class ProcessTree {

    /** The environment variable that marks every process the sandbox starts (unless it clears its environment). */
    static final String MARKER = "SHARDLINGS_SANDBOX_RUN";
    private static final SecureRandom RANDOM = new SecureRandom();

    private final String marker = Long.toHexString(RANDOM.nextLong());
    private final Optional<String> user;
    private final boolean setsid;
    /** Every sandbox JVM started: with setsid each leads a session of its own. */
    private final Set<ProcessHandle> seen = new LinkedHashSet<>();

    /**
     * @param user   the sandbox's own user, if it has one (all of that user's processes are the sandbox's)
     * @param setsid whether the sandbox JVM starts in a session of its own
     */
    ProcessTree(Optional<String> user, boolean setsid) {
        this.user = user;
        this.setsid = setsid;
    }

    /** The value of {@value #MARKER} in the environment of this sandbox's processes. */
    String marker() {
        return marker;
    }

    /** Records a sandbox JVM just started. */
    void started(ProcessHandle jvm) {
        seen.add(jvm);
    }

    /** The sandbox's processes still alive besides the JVM {@code root}, each as its pid and command. */
    List<String> othersAlive(ProcessHandle root) {
        Set<ProcessHandle> alive = new LinkedHashSet<>(treeOf(root));
        alive.addAll(marked());
        List<String> others = new ArrayList<>();
        for (ProcessHandle h : alive) {
            if (h.isAlive() && !h.equals(root)) {
                others.add(describe(h));
            }
        }
        return others;
    }

    /** Kills the sandbox JVM {@code root} (when {@code self}) and every process it started, found three ways. */
    void kill(ProcessHandle root, boolean self) {
        if (self && user.isPresent()) {
            killAllOfTheUser();
        }
        for (int round = 0; round < 20; round++) {
            Set<ProcessHandle> victims = new LinkedHashSet<>(treeOf(root));
            victims.addAll(marked());
            if (!self) {
                victims.remove(root);
            }
            victims.removeIf(h -> !h.isAlive() || h.pid() == ProcessHandle.current().pid());
            if (victims.isEmpty()) {
                return;
            }
            victims.forEach(ProcessHandle::destroyForcibly);
            for (ProcessHandle h : victims) {
                try {
                    h.onExit().get(2, TimeUnit.SECONDS);
                } catch (Exception e) {
                    // killed or not, the next round looks again
                }
            }
        }
    }

    /**
     * As the sandbox's user, signals every process of that user at once ({@code kill -KILL -1}): no process of it can
     * outrun the kill by starting another in between, as it could a pid-by-pid walk.
     */
    private void killAllOfTheUser() {
        try {
            Process k = new ProcessBuilder("setpriv", "--reuid=" + user.get(), "--regid=" + user.get(),
                    "--clear-groups", "--", "kill", "-KILL", "-1").redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            k.waitFor(5, TimeUnit.SECONDS);
        } catch (IOException e) {
            // the walk below still runs
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** {@code root} and its descendants, as far as the OS still links them to it. */
    private static Set<ProcessHandle> treeOf(ProcessHandle root) {
        Set<ProcessHandle> all = new LinkedHashSet<>();
        all.add(root);
        root.descendants().forEach(all::add);
        return all;
    }

    /**
     * Processes that left the tree (a double fork re-parents a process to init) but still belong to this sandbox:
     * on Linux, those whose environment carries this sandbox's marker, those in a session the sandbox JVM led, and,
     * when the sandbox has a user of its own, every process of that user.
     */
    private List<ProcessHandle> marked() {
        List<ProcessHandle> out = new ArrayList<>();
        Path proc = Path.of("/proc");
        if (!Files.isDirectory(proc)) {
            return out;
        }
        Set<Long> sessions = new LinkedHashSet<>();
        for (ProcessHandle h : seen) {
            sessions.add(h.pid()); // with setsid the sandbox JVM leads its own session: its pid is the session id
        }
        String needle = MARKER + "=" + marker;
        Optional<Integer> uid = user.flatMap(OsProbes::uidOf);
        try (Stream<Path> entries = Files.list(proc)) {
            for (Path p : entries.toList()) {
                String name = p.getFileName().toString();
                if (!name.chars().allMatch(Character::isDigit)) {
                    continue;
                }
                long pid = Long.parseLong(name);
                if (pid == ProcessHandle.current().pid()) {
                    continue;
                }
                boolean ours = false;
                try {
                    String stat = Files.readString(p.resolve("stat"));
                    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    ours = setsid && sessions.contains(Long.parseLong(f[3]));
                    if (!ours && uid.isPresent()) {
                        ours = Files.getAttribute(p, "unix:uid").equals(uid.get());
                    }
                    if (!ours) {
                        byte[] env = Files.readAllBytes(p.resolve("environ"));
                        ours = new String(env, StandardCharsets.ISO_8859_1).contains(needle);
                    }
                } catch (IOException | RuntimeException e) {
                    // gone, or not ours to read
                }
                if (ours) {
                    ProcessHandle.of(pid).ifPresent(out::add);
                }
            }
        } catch (IOException e) {
            // no /proc listing: the tree walk is all there is
        }
        return out;
    }

    private static String describe(ProcessHandle h) {
        return "pid " + h.pid() + h.info().command().map(c -> " (" + Path.of(c).getFileName() + ")").orElse("");
    }

    /** Kills every process that still belongs to the sandbox though it left the tree (see {@link #marked()}). */
    void killMarked() {
        for (int round = 0; round < 5; round++) {
            List<ProcessHandle> m = marked();
            if (m.isEmpty()) {
                return;
            }
            m.forEach(ProcessHandle::destroyForcibly);
            m.forEach(h -> {
                try {
                    h.onExit().get(2, TimeUnit.SECONDS);
                } catch (Exception e) {
                    // looked at again next round
                }
            });
        }
    }
}
