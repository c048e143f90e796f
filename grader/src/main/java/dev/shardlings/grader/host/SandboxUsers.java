package dev.shardlings.grader.host;

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
 * <p>The sandboxes of one JVM share its lease: they take turns (a judge grades one part at a time, and a sandbox
 * whose process was killed starts a new one), and a JVM that held one user and waited for a second would wait for
 * itself. The lease is given back when the last of them closes.
 *
 * <p>The pool is {@value #SANDBOX_USER} and {@value #SANDBOX_USER}-2 … -{@value #POOL}, those of them
 * that exist ({@code grader/gradescope/create-sandbox-user.sh} makes them). The locks live in a folder only root
 * can open, so student code, running as one of the users, can neither take nor break a lease.
 */
public final class SandboxUsers {

    /** The unprivileged user the sandbox runs as when the judge is root (created by grader/gradescope/setup.sh). */
    public static final String SANDBOX_USER = "shardlings-sandbox";
    /** How many users the pool can have. */
    static final int POOL = 8;
    /** How often a grader that waits for a user looks again, in milliseconds. */
    private static final long POLL_MILLIS = 200;

    private SandboxUsers() {
    }

    /** The lock this JVM holds on a user, and how many of its sandboxes use it (guarded by the class). */
    private static final class Held {
        final Path locks;
        final String user;
        final FileChannel channel;
        final FileLock lock;
        int users;

        Held(Path locks, String user, FileChannel channel, FileLock lock) {
            this.locks = locks;
            this.user = user;
            this.channel = channel;
            this.lock = lock;
        }
    }

    /** This JVM's lease, by folder of lock files (one folder in practice; tests use their own). Guarded by the class. */
    private static final java.util.Map<Path, Held> HELD = new java.util.HashMap<>();

    /** A sandbox's share of its JVM's user; {@link #close} gives it back (once; closing twice does nothing). */
    static final class Lease implements AutoCloseable {
        private final Held of;
        private boolean closed;

        private Lease(Held of) {
            this.of = of;
        }

        /** The user's name. */
        String user() {
            return of.user;
        }

        @Override
        public void close() {
            synchronized (SandboxUsers.class) {
                if (closed) {
                    return;
                }
                closed = true;
                if (--of.users > 0) {
                    return;
                }
                HELD.remove(of.locks);
                try {
                    of.lock.release();
                    of.channel.close();
                } catch (IOException e) {
                    // Closing the channel or ending the JVM frees the lock all the same.
                }
            }
        }
    }

    /** The names of the pool, in the order they are tried. */
    static List<String> names() {
        List<String> names = new ArrayList<>();
        names.add(SANDBOX_USER);
        for (int i = 2; i <= POOL; i++) {
            names.add(SANDBOX_USER + "-" + i);
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
        locks = locks.toAbsolutePath().normalize();
        synchronized (SandboxUsers.class) {
            Held held = HELD.get(locks);
            if (held != null) {
                held.users++;
                return new Lease(held);
            }
        }
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
            synchronized (SandboxUsers.class) {
                Held held = HELD.get(locks);
                if (held != null) { // another thread of this JVM got one meanwhile
                    held.users++;
                    return new Lease(held);
                }
                for (String u : pool) {
                    Held h = tryLock(locks, u);
                    if (h != null) {
                        HELD.put(locks, h);
                        h.users = 1;
                        return new Lease(h);
                    }
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

    private static Held tryLock(Path locks, String user) throws IOException {
        FileChannel ch = FileChannel.open(locks.resolve(user + ".lock"), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE);
        try {
            FileLock lock = ch.tryLock();
            if (lock != null) {
                return new Held(locks, user, ch, lock);
            }
        } catch (OverlappingFileLockException e) {
            // cannot happen while this JVM holds at most one lease; treated as taken
        }
        ch.close();
        return null;
    }
}
