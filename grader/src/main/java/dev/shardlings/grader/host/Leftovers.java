package dev.shardlings.grader.host;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Removes what a part left on disk: the sandbox's own folders emptied, and the sandbox user's files swept from the
 * folders every user may write to. The judge may run as root while the tree it deletes was made by course code, so
 * nothing here follows a link or looks a path up twice: every folder is opened relative to the one above it with no
 * link followed ({@link SecureDirectoryStream}, {@code openat} with {@code O_NOFOLLOW}), and every entry is deleted
 * relative to that open folder, so a folder swapped for a link between two steps is deleted as the link.
 */
final class Leftovers {

    private Leftovers() {
    }

    /** The folders every user may write to on a usual Linux machine, swept for the sandbox user's files. */
    static final List<Path> SHARED = List.of(Path.of("/tmp"), Path.of("/var/tmp"), Path.of("/dev/shm"),
            Path.of("/run/lock"));

    /**
     * Deletes everything in {@code dir}, keeping {@code dir} itself and the folders on the way to {@code spare}
     * (itself kept whole: in the sandbox's mount namespace a folder is mounted there).
     *
     * @return how many entries were deleted (a folder counts as one)
     */
    static int empty(Path dir, Optional<Path> spare) throws IOException {
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            return 0;
        }
        Path rel = spare.filter(s -> s.startsWith(dir) && !s.equals(dir)).map(dir::relativize).orElse(null);
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            if (!(ds instanceof SecureDirectoryStream<Path> sds)) {
                return emptyPlain(dir, spare);
            }
            return emptyIn(sds, rel);
        }
    }

    private static int emptyIn(SecureDirectoryStream<Path> dir, Path spare) throws IOException {
        int n = 0;
        for (Path entry : names(dir)) {
            // Only a real folder is spared: a link or file planted where the launcher mounts is deleted like any.
            if (spare != null && entry.equals(spare.getName(0)) && isDirectory(dir, entry)) {
                if (spare.getNameCount() > 1) {
                    try (SecureDirectoryStream<Path> sub = dir.newDirectoryStream(entry, LinkOption.NOFOLLOW_LINKS)) {
                        n += emptyIn(sub, spare.subpath(1, spare.getNameCount()));
                    }
                }
                continue;
            }
            n += delete(dir, entry);
        }
        return n;
    }

    /**
     * Deletes, below each of {@code roots}, every entry owned by {@code user}: descending only into folders every
     * user may write to (the only places another user's files can be made in), never into {@code except}.
     *
     * @return the paths deleted
     */
    static List<Path> sweep(String user, List<Path> roots, List<Path> except) throws IOException {
        List<Path> deleted = new ArrayList<>();
        for (Path root : roots) {
            if (!Files.isDirectory(root, LinkOption.NOFOLLOW_LINKS)) {
                continue;
            }
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(root)) {
                if (ds instanceof SecureDirectoryStream<Path> sds) {
                    sweepIn(sds, root, user, except, deleted, 0);
                }
            } catch (java.nio.file.AccessDeniedException e) {
                // not ours to look into
            }
        }
        return deleted;
    }

    private static void sweepIn(SecureDirectoryStream<Path> dir, Path where, String user, List<Path> except,
                                List<Path> deleted, int depth) throws IOException {
        for (Path entry : names(dir)) {
            Path full = where.resolve(entry);
            if (except.contains(full)) {
                continue;
            }
            PosixFileAttributes a;
            try {
                a = dir.getFileAttributeView(entry, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                        .readAttributes();
            } catch (NoSuchFileException e) {
                continue;
            }
            if (a.owner().getName().equals(user)) {
                delete(dir, entry);
                deleted.add(full);
            } else if (a.isDirectory() && depth < 8 && a.permissions().contains(PosixFilePermission.OTHERS_WRITE)) {
                try (SecureDirectoryStream<Path> sub = dir.newDirectoryStream(entry, LinkOption.NOFOLLOW_LINKS)) {
                    sweepIn(sub, full, user, except, deleted, depth + 1);
                } catch (java.nio.file.AccessDeniedException | NoSuchFileException e) {
                    // gone, or closed to us
                }
            }
        }
    }

    /** Deletes {@code entry} of {@code dir}: a folder with everything in it, anything else as itself (a link too). */
    private static int delete(SecureDirectoryStream<Path> dir, Path entry) throws IOException {
        if (isDirectory(dir, entry)) {
            try (SecureDirectoryStream<Path> sub = open(dir, entry)) {
                for (Path e : names(sub)) {
                    delete(sub, e);
                }
            }
            try {
                dir.deleteDirectory(entry);
            } catch (NoSuchFileException e) {
                return 0;
            }
            return 1;
        }
        try {
            dir.deleteFile(entry);
        } catch (NoSuchFileException e) {
            return 0;
        }
        return 1;
    }

    private static SecureDirectoryStream<Path> open(SecureDirectoryStream<Path> dir, Path entry) throws IOException {
        try {
            return dir.newDirectoryStream(entry, LinkOption.NOFOLLOW_LINKS);
        } catch (java.nio.file.AccessDeniedException e) {
            // A folder course code closed to its owner: opened again first (the judge is its owner, or root).
            dir.getFileAttributeView(entry, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                    .setPermissions(java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
            return dir.newDirectoryStream(entry, LinkOption.NOFOLLOW_LINKS);
        }
    }

    private static boolean isDirectory(SecureDirectoryStream<Path> dir, Path entry) throws IOException {
        try {
            return dir.getFileAttributeView(entry, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                    .readAttributes().isDirectory();
        } catch (NoSuchFileException e) {
            return false;
        }
    }

    /** The entries' names, read at once (deleting while iterating is left undefined by the API). */
    private static List<Path> names(SecureDirectoryStream<Path> dir) {
        List<Path> out = new ArrayList<>();
        for (Path p : dir) {
            out.add(p.getFileName());
        }
        return out;
    }

    /** Where no secure stream exists (not Linux): a plain walk, for the sandbox's own folders only. */
    private static int emptyPlain(Path dir, Optional<Path> spare) throws IOException {
        int n = 0;
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            for (Path p : ds) {
                if (spare.isPresent() && spare.get().startsWith(p)) {
                    continue;
                }
                Folders.deleteRecursively(p);
                n++;
            }
        }
        return n;
    }
}
