package dev.shardlings.grader.host;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The launcher's mounts, as a root judge makes them (found by a review): they stay in the sandbox's own mount
 * namespace on a host whose {@code /} is shared (systemd's default: every mount would otherwise appear in the judge's
 * namespace, stacking a hidepid {@code /proc} over the machine's and putting the student's folder on {@code /tmp}),
 * and the way to the sandbox's folder inside its private {@code /tmp} is made without following a link that an
 * earlier start of the same sandbox planted there. Landlock is left out, since the private {@code /tmp} is mounted
 * only where Landlock cannot refuse writes.
 */
class LauncherMountsTest {

    private OsBarriers os;

    @BeforeEach
    void needsRootAndTheLauncher() {
        assumeTrue(OsProbes.isRoot() && OsProbes.onPath("unshare"), "mounts are made by a root judge");
        Optional<OsBarriers> found = OsBarriers.find(false);
        assumeTrue(found.isPresent(), "no python3 for the launcher");
        os = found.get();
    }

    @Test
    void mountsStayInTheSandboxsNamespaceWhenTheHostsRootIsShared(@TempDir Path dir) throws Exception {
        OsBarriers.Folders folders = folders(dir.resolve("sb"));
        // A namespace of the test's own whose / is shared, as on a systemd host: what the launcher mounts in its
        // own namespace must not propagate back here.
        List<String> cmd = new ArrayList<>(List.of("unshare", "-m", "--propagation", "unchanged", "bash", "-c",
                "mount --make-rshared / && before=$(wc -l < /proc/self/mountinfo) && \"$@\" && echo \"mounts $before"
                        + " $(wc -l < /proc/self/mountinfo)\"", "bash"));
        cmd.addAll(os.wrap(Optional.empty(), folders, Set.of(OsBarriers.Layer.LANDLOCK), List.of("/bin/true")));
        Result r = run(cmd);
        assertEquals(0, r.exit, r.text);
        Map<String, String> layers = OsBarriers.fields(line(r.text, "shardlings-launcher: "));
        assertEquals("true", layers.get("private_tmp_mount"), "the launcher did mount /tmp: " + r.text);
        assertEquals("true", layers.get("processes_hidden"), "and a /proc of its own: " + r.text);
        String[] counts = line(r.text, "mounts ").split(" ");
        assertEquals(counts[0], counts[1], "no mount of the sandbox's appeared outside it: " + r.text);
    }

    @Test
    void aLinkPlantedOnTheWayToTheSandboxsFolderIsNotFollowed(@TempDir Path dir) throws Exception {
        // Somewhere outside /tmp (inside it, the link would resolve in the private /tmp, where it loops).
        Path victim = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "launcher-victim-");
        // The sandbox's folder two levels below /tmp, so that the way to it in the private /tmp has a folder the
        // launcher makes, which an earlier start replaced with a link to somewhere else.
        Path sandbox = dir.resolve("nested/sb");
        OsBarriers.Folders folders = folders(sandbox);
        Path tmpRoot = Path.of("/tmp");
        Path firstStep = folders.tmp().resolve(tmpRoot.relativize(dir.toRealPath()).getName(0));
        Files.createSymbolicLink(firstStep, victim);
        Result r = run(os.wrap(Optional.empty(), folders, Set.of(OsBarriers.Layer.LANDLOCK), List.of("/bin/true")));
        assertTrue(r.exit != 0 && r.text.contains("the private /tmp could not be made"), "the start is refused: "
                + r.text);
        try (var s = Files.list(victim)) {
            assertEquals(List.of(), s.toList(), "nothing was made through the link");
        } finally {
            Folders.deleteRecursively(victim);
        }
    }

    private static OsBarriers.Folders folders(Path sandbox) throws Exception {
        OsBarriers.Folders f = new OsBarriers.Folders(sandbox, sandbox.resolve("home"), sandbox.resolve("private"));
        Files.createDirectories(f.home());
        for (Path d : f.privateDirs()) {
            Files.createDirectories(d);
            Files.setPosixFilePermissions(d, PosixFilePermissions.fromString("rwx------"));
        }
        return f;
    }

    private static String line(String text, String prefix) {
        return text.lines().filter(l -> l.startsWith(prefix) && !l.startsWith(prefix + "note")).findFirst()
                .map(l -> l.substring(prefix.length())).orElseThrow(() -> new AssertionError("no " + prefix + text));
    }

    private record Result(int exit, String text) {
    }

    private static Result run(List<String> cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        return new Result(p.exitValue(), text);
    }
}
