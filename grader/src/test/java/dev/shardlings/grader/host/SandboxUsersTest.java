package dev.shardlings.grader.host;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two grades on one machine never share a sandbox user: a second JVM gets another user, or waits until the first
 * gives its user back; the sandboxes of one JVM share its user (they take turns, and waiting for itself would
 * never end).
 */
class SandboxUsersTest {

    private static final Set<String> ONE = Set.of(SandboxUsers.SANDBOX_USER);
    private static final Set<String> TWO = Set.of(SandboxUsers.SANDBOX_USER, SandboxUsers.SANDBOX_USER + "-2");

    /** Another JVM that leases a user from {@code locks} among {@code users}, prints it, and holds it until stdin ends. */
    public static void main(String[] args) throws Exception {
        Set<String> users = Set.of(args[1].split(","));
        try (SandboxUsers.Lease l = SandboxUsers.lease(Path.of(args[0]), users::contains)) {
            System.out.println(l.user());
            System.out.flush();
            while (System.in.read() >= 0) {
                // hold the lease until the parent closes our input
            }
        }
    }

    private static Process otherJvm(Path locks, Set<String> users) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), SandboxUsersTest.class.getName(), locks.toString(),
                String.join(",", users)));
        return new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    }

    private static String firstLine(Process p) throws Exception {
        return new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)).readLine();
    }

    @Test
    void anotherJvmGetsAnotherUser(@TempDir Path locks) throws Exception {
        try (SandboxUsers.Lease mine = SandboxUsers.lease(locks, TWO::contains)) {
            Process other = otherJvm(locks, TWO);
            try {
                assertNotEquals(mine.user(), firstLine(other));
            } finally {
                other.getOutputStream().close();
                assertTrue(other.waitFor(30, TimeUnit.SECONDS));
            }
        }
    }

    @Test
    void aJvmWaitsForTheOnlyUserUntilAnotherGivesItBack(@TempDir Path locks) throws Exception {
        Process other = otherJvm(locks, ONE);
        ExecutorService waiter = Executors.newSingleThreadExecutor();
        try {
            assertEquals(SandboxUsers.SANDBOX_USER, firstLine(other));
            Future<SandboxUsers.Lease> mine = waiter.submit(() -> SandboxUsers.lease(locks, ONE::contains));
            assertThrows(TimeoutException.class, () -> mine.get(1, TimeUnit.SECONDS), "the user is leased");
            other.getOutputStream().close();
            assertTrue(other.waitFor(30, TimeUnit.SECONDS));
            try (SandboxUsers.Lease got = mine.get(30, TimeUnit.SECONDS)) {
                assertEquals(SandboxUsers.SANDBOX_USER, got.user());
            }
        } finally {
            waiter.shutdownNow();
            other.destroyForcibly();
        }
    }

    @Test
    void theSandboxesOfOneJvmShareItsUserUntilTheLastCloses(@TempDir Path locks) throws Exception {
        SandboxUsers.Lease a = SandboxUsers.lease(locks, ONE::contains);
        SandboxUsers.Lease b = SandboxUsers.lease(locks, ONE::contains);
        assertEquals(a.user(), b.user(), "no wait for itself");
        a.close();
        a.close(); // twice is once
        Process other = otherJvm(locks, ONE);
        try {
            Thread.sleep(1500);
            assertTrue(other.isAlive() && other.getInputStream().available() == 0, "still held by b");
            b.close();
            assertEquals(SandboxUsers.SANDBOX_USER, firstLine(other), "given back when the last closes");
        } finally {
            other.getOutputStream().close();
            other.waitFor(30, TimeUnit.SECONDS);
            other.destroyForcibly();
        }
    }

    @Test
    void noUserIsAClearError(@TempDir Path locks) {
        java.io.IOException e = assertThrows(java.io.IOException.class, () -> SandboxUsers.lease(locks, u -> false));
        assertTrue(e.getMessage().contains("create-sandbox-user.sh"), e.getMessage());
    }
}
