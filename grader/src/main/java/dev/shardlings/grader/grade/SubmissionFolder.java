package dev.shardlings.grader.grade;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * A folder of a submission, read without ever following a symbolic link: the submission is resolved to its real
 * path once, and every folder and file under it is reached from the folder above it, refusing links. Where the
 * platform has {@link SecureDirectoryStream} (Linux, macOS), each step opens the entry relative to the folder
 * already open, with no-follow ({@code openat} and {@code O_NOFOLLOW}), so a link swapped in after a check is
 * refused as well; elsewhere (Windows) each step checks the entry's own attributes first.
 */
final class SubmissionFolder implements Closeable {

    /** What an entry of a folder is, links not followed. */
    enum Kind { MISSING, FILE, FOLDER, LINK, OTHER }

    /** The whole submission is refused; the message says why, in words for the student. */
    static final class Refused extends Exception {
        Refused(String message) {
            super(message);
        }
    }

    private final Path path;
    private final DirectoryStream<Path> stream;
    private final SecureDirectoryStream<Path> secure;

    private SubmissionFolder(Path path, DirectoryStream<Path> stream) {
        this.path = path;
        this.stream = stream;
        this.secure = stream instanceof SecureDirectoryStream<Path> s ? s : null;
    }

    /**
     * The folder the course files are taken from: {@code <submission>/exercises/src/main/java/dev/shardlings/course}
     * when the submission is a copy of the course, else the submission itself.
     *
     * @param submission the submission as it was named (made absolute here)
     * @return the folder, or null when there is no folder at {@code submission} (nothing is taken)
     * @throws Refused when the submission, or a folder on the way to the course files, is a symbolic link
     */
    static SubmissionFolder courseFolder(Path submission) throws Refused, IOException {
        Path given = submission.toAbsolutePath().normalize();
        BasicFileAttributes a;
        try {
            a = Files.readAttributes(given, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return null;
        }
        Path name = given.getFileName();
        if (a.isSymbolicLink()) {
            throw new Refused("the submission " + (name == null ? "" : SubmissionGrading.printable(name.toString())
                    + " ") + "is a symbolic link; upload the files themselves");
        }
        if (!a.isDirectory()) {
            return null;
        }
        // Resolved once: the folders above the submission are the grader's (e.g. /autograder), not the student's.
        Path real = given.toRealPath();
        SubmissionFolder root = new SubmissionFolder(real, Files.newDirectoryStream(real));
        if (root.secure != null && a.fileKey() != null) {
            Object opened = root.secure.getFileAttributeView(BasicFileAttributeView.class).readAttributes().fileKey();
            if (!a.fileKey().equals(opened)) {
                root.close();
                throw new Refused("the submission changed while it was read (a folder was replaced); upload the"
                        + " files themselves");
            }
        }
        SubmissionFolder at = root;
        StringBuilder way = new StringBuilder();
        try {
            for (Path step : SubmissionGrading.EXERCISES) {
                String s = step.toString();
                way.append(way.length() == 0 ? "" : "/").append(s);
                Kind k = at.kind(s);
                if (k == Kind.LINK) {
                    throw new Refused("the submission's folder " + way + " is a symbolic link; upload the files"
                            + " themselves");
                }
                if (k != Kind.FOLDER) {
                    if (at != root) {
                        at.close();
                    }
                    return root; // not a copy of the course: the files are at the top
                }
                SubmissionFolder next = at.folder(s);
                if (at != root) {
                    at.close();
                }
                at = next;
            }
        } catch (Refused | IOException | RuntimeException e) {
            if (at != root) {
                at.close();
            }
            root.close();
            throw e;
        }
        root.close();
        return at;
    }

    /** The path, for messages (never read through). */
    Path path() {
        return path;
    }

    /** What the entry {@code name} is, not following a link. */
    Kind kind(String name) throws IOException {
        BasicFileAttributes a;
        try {
            a = secure != null
                    ? secure.getFileAttributeView(Path.of(name), BasicFileAttributeView.class,
                    LinkOption.NOFOLLOW_LINKS).readAttributes()
                    : Files.readAttributes(path.resolve(name), BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return Kind.MISSING;
        }
        return a.isSymbolicLink() ? Kind.LINK : a.isDirectory() ? Kind.FOLDER : a.isRegularFile() ? Kind.FILE
                : Kind.OTHER;
    }

    /** The names in this folder (once per folder). */
    List<String> names() throws IOException {
        List<String> names = new ArrayList<>();
        if (secure != null) {
            for (Path p : secure) {
                names.add(p.getFileName().toString());
            }
        } else {
            try (Stream<Path> s = Files.list(path)) {
                s.forEach(p -> names.add(p.getFileName().toString()));
            }
        }
        return names;
    }

    /**
     * The first {@code max} bytes of the regular file {@code name} and one more when there are more, opened with
     * no-follow (a link is refused by the open itself where the platform allows).
     */
    byte[] read(String name, int max) throws IOException {
        if (secure != null) {
            try (SeekableByteChannel ch = secure.newByteChannel(Path.of(name), Set.of(StandardOpenOption.READ,
                    LinkOption.NOFOLLOW_LINKS)); InputStream in = Channels.newInputStream(ch)) {
                return in.readNBytes(max + 1);
            }
        }
        try (InputStream in = Files.newInputStream(path.resolve(name), StandardOpenOption.READ,
                LinkOption.NOFOLLOW_LINKS)) {
            return in.readNBytes(max + 1);
        }
    }

    private SubmissionFolder folder(String name) throws IOException {
        if (secure != null) {
            return new SubmissionFolder(path.resolve(name), secure.newDirectoryStream(Path.of(name),
                    LinkOption.NOFOLLOW_LINKS));
        }
        return new SubmissionFolder(path.resolve(name), null);
    }

    @Override
    public void close() throws IOException {
        if (stream != null) {
            stream.close();
        }
    }
}
