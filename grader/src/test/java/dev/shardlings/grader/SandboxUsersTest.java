package dev.shardlings.grader;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Two sandboxes never share a user: each leases one, a second grade gets another, and when all are leased it waits
 * until one is given back (a shared user let one grade kill another's sandbox as "left processes running").
 */
class SandboxUsersTest {

    @Test
    void concurrentLeasesGetDifferentUsers(@TempDir Path locks) throws Exception {
        Set<String> exist = Set.of(Sandbox.SANDBOX_USER, Sandbox.SANDBOX_USER + "-2");
        try (SandboxUsers.Lease a = SandboxUsers.lease(locks, exist::contains);
             SandboxUsers.Lease b = SandboxUsers.lease(locks, exist::contains)) {
            assertNotEquals(a.user(), b.user());
        }
    }

    @Test
    void aGraderWaitsForTheOnlyUserUntilItIsGivenBack(@TempDir Path locks) throws Exception {
        Set<String> exist = Set.of(Sandbox.SANDBOX_USER);
        ExecutorService other = Executors.newSingleThreadExecutor();
        try {
            SandboxUsers.Lease first = SandboxUsers.lease(locks, exist::contains);
            Future<SandboxUsers.Lease> second = other.submit(() -> SandboxUsers.lease(locks, exist::contains));
            assertThrows(TimeoutException.class, () -> second.get(1, TimeUnit.SECONDS), "all users are leased");
            first.close();
            try (SandboxUsers.Lease got = second.get(30, TimeUnit.SECONDS)) {
                assertEquals(Sandbox.SANDBOX_USER, got.user());
            }
        } finally {
            other.shutdownNow();
        }
    }

    @Test
    void noUserIsAClearError(@TempDir Path locks) {
        java.io.IOException e = assertThrows(java.io.IOException.class, () -> SandboxUsers.lease(locks, u -> false));
        assertEquals(true, e.getMessage().contains("create-sandbox-user.sh"), e.getMessage());
    }
}
