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
    /**
     * What an entry is. {@code HARD_LINK}: a regular file with more than one name, i.e. a hard link (to a solution
     * file, say, by a student with an account on the grading machine), which reads like any file.
     */
    enum Kind { MISSING, FILE, HARD_LINK, FOLDER, LINK, OTHER }

    /** The whole submission is refused; the message says why, in words for the student. */
    static final class Refused extends Exception {
        private static final long serialVersionUID = 1L;

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
     * The submission's own folder, opened for reading without following links. Where the course files sit in it is
     * {@link CourseSearch}'s to find.
     *
     * @param submission the submission as it was named (made absolute here)
     * @return the folder, or null when there is no folder at {@code submission} (nothing is taken)
     * @throws Refused when the submission is a symbolic link, or was replaced while it was opened
     */
    static SubmissionFolder open(Path submission) throws Refused, IOException {
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
        return root;
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
        if (a.isRegularFile() && links(name) > 1) {
            return Kind.HARD_LINK;
        }
        return a.isSymbolicLink() ? Kind.LINK : a.isDirectory() ? Kind.FOLDER : a.isRegularFile() ? Kind.FILE
                : Kind.OTHER;
    }

    /** How many names the file {@code name} has (1 where the platform cannot say). */
    private int links(String name) {
        try {
            return (Integer) Files.getAttribute(path.resolve(name), "unix:nlink", LinkOption.NOFOLLOW_LINKS);
        } catch (IOException | RuntimeException e) {
            return 1;
        }
    }

    /**
     * The names in this folder (once per folder), at most {@code max + 1} of them: a folder of a million entries
     * is not read to its end.
     */
    List<String> names(int max) throws IOException {
        List<String> names = new ArrayList<>();
        if (secure != null) {
            for (Path p : secure) {
                names.add(p.getFileName().toString());
                if (names.size() > max) {
                    break;
                }
            }
        } else {
            try (Stream<Path> s = Files.list(path)) {
                s.limit(max + 1L).forEach(p -> names.add(p.getFileName().toString()));
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

    /** The sub-folder {@code name}, opened relative to this one with no-follow where the platform allows. */
    SubmissionFolder folder(String name) throws IOException {
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
