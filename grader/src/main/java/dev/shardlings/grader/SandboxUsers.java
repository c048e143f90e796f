package dev.shardlings.grader;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * The unprivileged users sandboxes run as, one sandbox per user at a time. A sandbox ends a part by killing every
 * process of its user (so a double-forked process cannot escape), so two graders sharing one user would kill each
 * other's sandboxes: a batch grade, or a grade beside a CI run, failed parts with "left processes running" for
 * processes that were not theirs. Each sandbox therefore leases a user for its lifetime with an exclusive lock,
 * held across JVMs by the file system; a grader that finds every user leased waits for one.
 *
 * <p>The pool is {@value Sandbox#SANDBOX_USER} and {@value Sandbox#SANDBOX_USER}-2 … -{@value #POOL}, those of them
 * that exist ({@code grader/gradescope/create-sandbox-user.sh} makes them). The locks live in a folder only root
 * can open, so student code, running as one of the users, can neither take nor break a lease.
 */
final class SandboxUsers {

    /** How many users the pool can have. */
    static final int POOL = 8;
    /** How often a grader that waits for a user looks again, in milliseconds. */
    private static final long POLL_MILLIS = 200;

    private SandboxUsers() {
    }

    /** A user held for one sandbox; {@link #close} gives it back. */
    static final class Lease implements AutoCloseable {
        private final String user;
        private final FileChannel channel;
        private final FileLock lock;

        private Lease(String user, FileChannel channel, FileLock lock) {
            this.user = user;
            this.channel = channel;
            this.lock = lock;
        }

        /** The user's name. */
        String user() {
            return user;
        }

        @Override
        public void close() {
            try {
                lock.release();
                channel.close();
            } catch (IOException e) {
                // Closing the channel or ending the JVM frees the lock all the same.
            }
        }
    }

    /** The names of the pool, in the order they are tried. */
    static List<String> names() {
        List<String> names = new ArrayList<>();
        names.add(Sandbox.SANDBOX_USER);
        for (int i = 2; i <= POOL; i++) {
            names.add(Sandbox.SANDBOX_USER + "-" + i);
        }
        return names;
    }

    /**
     * Leases the first free user of those that {@code exists}, waiting while all are leased.
     *
     * @param locks  the folder of the lock files (created, mode 700, when missing)
     * @param exists which users exist on this machine
     * @throws IOException          if no user exists or a lock file cannot be opened
     * @throws InterruptedException if interrupted while waiting
     */
    static Lease lease(Path locks, Predicate<String> exists) throws IOException, InterruptedException {
        List<String> pool = names().stream().filter(exists).toList();
        if (pool.isEmpty()) {
            throw new IOException("no sandbox user exists (run grader/gradescope/create-sandbox-user.sh as root)");
        }
        if (!Files.isDirectory(locks)) {
            Files.createDirectories(locks);
            try {
                Files.setPosixFilePermissions(locks, PosixFilePermissions.fromString("rwx------"));
            } catch (UnsupportedOperationException e) {
                // not a POSIX file system: the users' own permissions are all there is
            }
        }
        boolean told = false;
        while (true) {
            for (String u : pool) {
                Lease l = tryLease(locks.resolve(u + ".lock"), u);
                if (l != null) {
                    return l;
                }
            }
            if (!told) {
                System.err.println("Every sandbox user (" + String.join(", ", pool) + ") is in use by another"
                        + " grade on this machine; waiting for one. Make more with"
                        + " grader/gradescope/create-sandbox-user.sh.");
                told = true;
            }
            Thread.sleep(POLL_MILLIS);
        }
    }

    private static Lease tryLease(Path file, String user) throws IOException {
        FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        try {
            FileLock lock = ch.tryLock();
            if (lock != null) {
                return new Lease(user, ch, lock);
            }
        } catch (OverlappingFileLockException e) {
            // held by another sandbox of this JVM
        }
        ch.close();
        return null;
    }
}
