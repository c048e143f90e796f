package dev.shardlings.grader.tools;

import dev.shardlings.grader.host.Folders;

import org.apache.commons.compress.archivers.zip.ZipArchiveEntry;
import org.apache.commons.compress.archivers.zip.ZipArchiveOutputStream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

/**
 * Builds the Gradescope autograder zip: at its root {@code setup.sh} and {@code run_autograder} (executable), the
 * sandbox user's script, and the course as the student release has it (no solutions, no build output, no history;
 * see {@link StudentRelease}). Gradescope unpacks it into /autograder/source, runs setup.sh once to build the image
 * and run_autograder for each submission.
 *
 * <pre>
 * mvn -q install -DskipTests && mvn -q -pl grader exec:java@gradescope-zip   # grader/target/gradescope/autograder.zip
 * </pre>
 */
@Command(name = "gradescope-zip", mixinStandardHelpOptions = true,
        description = "Builds the Gradescope autograder zip from the course, without its solutions.")
public final class GradescopeZip implements Callable<Integer> {

    /** The scripts at the zip's root, from {@code grader/gradescope/}. */
    static final List<String> SCRIPTS = List.of("setup.sh", "run_autograder", "create-sandbox-user.sh");

    @Option(names = "--course", defaultValue = ".", description = "the course checkout (default: here)")
    Path course;

    @Option(names = "--out", required = true, description = "the zip to write")
    Path out;

    public static void main(String[] args) {
        System.exit(new CommandLine(new GradescopeZip()).execute(args));
    }

    @Override
    public Integer call() throws IOException {
        Path from = course.toAbsolutePath().normalize();
        Path staging = Files.createTempDirectory("shardlings-gradescope-");
        try {
            Path release = staging.resolve("source");
            StudentRelease.write(from, release);
            List<String> problems = StudentRelease.check(from, release);
            if (!problems.isEmpty()) {
                System.err.println("Not zipped: the course would carry\n  " + String.join("\n  ", problems));
                return 1;
            }
            write(from.resolve("grader/gradescope"), release, out.toAbsolutePath());
        } finally {
            Folders.deleteRecursively(staging);
        }
        System.out.println("Wrote " + out.toAbsolutePath().normalize() + ": upload it as the autograder of a"
                + " Gradescope programming assignment (Ubuntu base image).");
        return 0;
    }

    /** Zips the scripts (mode 755) and the release (directories 755, files 644) into {@code zip}. */
    static void write(Path scripts, Path release, Path zip) throws IOException {
        Files.createDirectories(zip.getParent());
        try (ZipArchiveOutputStream z = new ZipArchiveOutputStream(zip.toFile())) {
            for (String s : SCRIPTS) {
                add(z, scripts.resolve(s), s, 0755);
            }
            try (Stream<Path> files = Files.walk(release)) {
                for (Path f : files.sorted().toList()) {
                    String name = release.relativize(f).toString().replace(f.getFileSystem().getSeparator(), "/");
                    if (name.isEmpty() || SCRIPTS.contains(name)) {
                        continue;
                    }
                    if (Files.isDirectory(f)) {
                        ZipArchiveEntry e = new ZipArchiveEntry(name + "/");
                        e.setUnixMode(040755);
                        z.putArchiveEntry(e);
                        z.closeArchiveEntry();
                    } else {
                        add(z, f, name, Files.isExecutable(f) ? 0755 : 0644);
                    }
                }
            }
        }
    }

    private static void add(ZipArchiveOutputStream z, Path file, String name, int mode) throws IOException {
        ZipArchiveEntry e = new ZipArchiveEntry(name);
        e.setUnixMode(0100000 | mode);
        e.setSize(Files.size(file));
        z.putArchiveEntry(e);
        Files.copy(file, z);
        z.closeArchiveEntry();
    }
}
