package dev.shardlings.grader.host;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a part left is removed without following anything course code planted: links to the judge's files are
 * deleted as links, folders closed to their owner are opened and emptied, the launcher's mount point is spared, and
 * the sweep takes only the sandbox user's entries.
 */
class LeftoversTest {

    @Test
    void emptyingDeletesLinksAsLinksAndSparesTheMountPoint(@TempDir Path dir) throws Exception {
        Path precious = dir.resolve("precious");
        Files.createDirectories(precious);
        Files.writeString(precious.resolve("answer.txt"), "keep me");
        Path tmp = dir.resolve("tmp");
        Files.createDirectories(tmp.resolve("a/b"));
        Files.writeString(tmp.resolve("a/b/left.txt"), "x");
        Files.createSymbolicLink(tmp.resolve("link-to-folder"), precious);
        Files.createSymbolicLink(tmp.resolve("a/link-to-file"), precious.resolve("answer.txt"));
        Path closed = tmp.resolve("closed");
        Files.createDirectories(closed.resolve("inner"));
        Files.writeString(closed.resolve("inner/f"), "x");
        Files.setPosixFilePermissions(closed.resolve("inner"), PosixFilePermissions.fromString("---------"));
        Files.setPosixFilePermissions(closed, PosixFilePermissions.fromString("---------"));
        Path spare = tmp.resolve("sandbox-dir/inside");
        Files.createDirectories(spare);
        Files.writeString(tmp.resolve("sandbox-dir/beside.txt"), "x");

        int deleted = Leftovers.empty(tmp, Optional.of(spare));

        assertTrue(deleted >= 4, "deleted " + deleted);
        assertEquals("keep me", Files.readString(precious.resolve("answer.txt")), "a link's target is untouched");
        try (var s = Files.list(tmp)) {
            assertEquals(List.of(tmp.resolve("sandbox-dir")), s.toList(), "only the way to the mount point is left");
        }
        assertTrue(Files.isDirectory(spare), "the mount point itself is kept");
        assertFalse(Files.exists(tmp.resolve("sandbox-dir/beside.txt")), "what is beside it is not");
        assertTrue(Files.isDirectory(tmp), "the folder itself stays");
    }

    @Test
    void theSweepTakesOnlyTheUsersEntriesAndEntersOnlyFoldersEveryoneMayWrite(@TempDir Path dir) throws Exception {
        String me = Files.getOwner(dir).getName();
        Path shared = dir.resolve("shared");
        Files.createDirectories(shared.resolve("open/deeper"));
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
        Files.setPosixFilePermissions(shared.resolve("open"), PosixFilePermissions.fromString("rwxrwxrwx"));
        Files.writeString(shared.resolve("mine.txt"), "x");
        Path except = shared.resolve("sandbox-folder");
        Files.createDirectories(except);

        List<Path> deleted = Leftovers.sweep(me, List.of(shared), List.of(except));

        // Everything here is the test user's own: all of it but the excepted folder goes.
        assertTrue(deleted.contains(shared.resolve("mine.txt")), deleted.toString());
        assertTrue(deleted.contains(shared.resolve("open")), deleted.toString());
        assertTrue(Files.isDirectory(except, LinkOption.NOFOLLOW_LINKS), "the sandbox's own folder is spared");
        assertEquals(List.of(), Leftovers.sweep("no-such-user-" + System.nanoTime(), List.of(shared), List.of()),
                "another user's entries are never taken");
    }
}
