package dev.shardlings.grader.host;

import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * The permissions of the sandbox's folders: its class path copy made read-only for everyone, and any folder the
 * sandbox (or a submission) wrote deleted whatever permissions it left.
 */
public final class Folders {

    private Folders() {
    }

    /** Folders r-x, files r-- for everyone: readable by the sandbox's user, writable by no one but root. */
    static void readOnly(Path dir) throws IOException {
        if (!POSIX) {
            return;
        }
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(Files.isDirectory(p) ? "r-xr-xr-x"
                        : "r--r--r--"));
            }
        }
    }

    /** Opens a tree made {@link #readOnly} for its owner again (folders rwxr-xr-x, files rw-r--r--). */
    static void writable(Path dir) throws IOException {
        if (!POSIX) {
            return;
        }
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.toList()) {
                Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(Files.isDirectory(p) ? "rwxr-xr-x"
                        : "rw-r--r--"));
            }
        }
    }

    private static final boolean POSIX = FileSystems.getDefault().supportedFileAttributeViews()
            .contains("posix");

    /**
     * Deletes {@code dir} and everything in it, whatever permissions the sandbox left on its files (folders are
     * opened for their owner first).
     */
    public static void deleteRecursively(Path dir) throws IOException {
        if (dir == null || !Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        Files.walkFileTree(dir, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path f, BasicFileAttributes a) throws IOException {
                Files.deleteIfExists(f);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path f, IOException e) throws IOException {
                if (POSIX && Files.isDirectory(f, LinkOption.NOFOLLOW_LINKS)) {
                    Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rwx------"));
                    deleteRecursively(f);
                    return FileVisitResult.CONTINUE;
                }
                throw e;
            }

            @Override
            public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes a) throws IOException {
                if (POSIX) {
                    Files.setPosixFilePermissions(d, PosixFilePermissions.fromString("rwx------"));
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                Files.deleteIfExists(d);
                return FileVisitResult.CONTINUE;
            }
        });
    }
}
