package dev.shardlings.grader.host;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
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
 * The launcher as a judge without root runs it (an instructor's own account, a GitHub runner without sudo): it makes
 * its namespaces inside a user namespace that maps the user to itself, where the kernel allows one, and Landlock and
 * the seccomp filter need no privilege at all. Run here as the sandbox user, through setpriv, so the path that needs no
 * root is the one taken.
 */
class LauncherUnprivilegedTest {

    @Test
    void withoutRootTheNetworkIsStillCut(@TempDir Path dir) throws Exception {
        assumeTrue(OsProbes.isRoot() && OsProbes.userExists(SandboxUsers.SANDBOX_USER) && OsProbes.onPath("setpriv"),
                "needs root to start the launcher as another, unprivileged user (GradingIntegrityTest creates it)");
        Optional<OsBarriers> os = OsBarriers.find(true);
        assumeTrue(os.isPresent(), "no python3 the sandbox user can run");
        UserPrincipal u = dir.getFileSystem().getUserPrincipalLookupService()
                .lookupPrincipalByName(SandboxUsers.SANDBOX_USER);
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        OsBarriers.Folders folders = new OsBarriers.Folders(dir, dir.resolve("home"), dir.resolve("private"));
        Files.createDirectories(folders.home());
        Files.setOwner(folders.home(), u);
        for (Path d : folders.privateDirs()) {
            Files.createDirectories(d);
            Files.setOwner(d, u);
        }
        boolean userNamespaces = run(List.of("setpriv", "--reuid=" + SandboxUsers.SANDBOX_USER, "--regid="
                + SandboxUsers.SANDBOX_USER, "--clear-groups", "unshare", "--user", "--net", "--map-current-user",
                "true")).exit == 0;
        try (ServerSocket listener = new ServerSocket(0, 50, java.net.InetAddress.getByName("127.0.0.1"))) {
            List<String> cmd = new ArrayList<>(List.of("setpriv", "--reuid=" + SandboxUsers.SANDBOX_USER,
                    "--regid=" + SandboxUsers.SANDBOX_USER, "--clear-groups", "--"));
            cmd.addAll(os.get().wrap(Optional.empty(), folders, Set.of(), os.get().probeCommand("unprivileged-probe",
                    List.of("127.0.0.1:" + listener.getLocalPort()))));
            Result r = run(cmd);
            assertEquals(0, r.exit, r.err);
            Map<String, String> layers = OsBarriers.fields(line(r.err, "shardlings-launcher: "));
            Map<String, String> tried = OsBarriers.fields(line(r.err, "shardlings-probe: "));
            assertEquals(String.valueOf(userNamespaces), layers.get("network_namespace"),
                    "a network namespace exactly where the kernel lets this user make one: " + r.err);
            assertEquals("false", layers.get("processes_hidden"), "hidepid needs root: " + r.err);
            assertEquals("true", layers.get("seccomp"), r.err);
            assertTrue(tried.get("connect:127.0.0.1:" + listener.getLocalPort()).startsWith("refused"), r.err);
            assertEquals(0, OsBarriers.acceptedConnections(listener), "nothing reached the listener");
        }
    }

    /** A launcher that cannot run (here: a "python" that only fails) is found out by the probe and not used. */
    @Test
    void aLauncherThatFailsItsProbeIsNotUsed(@TempDir Path dir) throws Exception {
        OsBarriers.Folders folders = new OsBarriers.Folders(dir, dir.resolve("home"), dir.resolve("private"));
        Files.createDirectories(folders.home());
        for (Path d : folders.privateDirs()) {
            Files.createDirectories(d);
        }
        OsBarriers.Held h = OsBarriers.at(Path.of("/bin/false")).probe(Optional.empty(), folders,
                Set.of(OsBarriers.Layer.SECCOMP), Map.of("PATH", "/usr/bin:/bin"));
        assertEquals(false, h.launcher());
        assertEquals(false, h.noNetwork());
        assertTrue(h.why().startsWith("the launcher failed"), h.why());
    }

    private static String line(String text, String prefix) {
        return text.lines().filter(l -> l.startsWith(prefix) && !l.startsWith(prefix + "note")).findFirst()
                .map(l -> l.substring(prefix.length())).orElseThrow(() -> new AssertionError("no " + prefix + text));
    }

    private record Result(int exit, String err) {
    }

    private static Result run(List<String> cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        return new Result(p.exitValue(), err);
    }
}
