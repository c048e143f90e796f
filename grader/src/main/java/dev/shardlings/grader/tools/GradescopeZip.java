package dev.shardlings.grader.tools;

import dev.shardlings.grader.grade.Assignments;
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
 * Builds the Gradescope autograder zips, one per assignment ({@link Assignments}: each chapter, the whole course,
 * and those of the course's {@code assignments.json}), as {@code autograder-<assignment>.zip}: at its root
 * {@code setup.sh} and {@code run_autograder} (executable), the sandbox user's script, the file {@code ASSIGNMENT}
 * that names what run_autograder grades, and the course as the student release has it (no solutions, no build
 * output, no history; see {@link StudentRelease}). Gradescope unpacks a zip into /autograder/source, runs setup.sh
 * once to build the image and run_autograder for each submission, which grades and scores that assignment's parts
 * only.
 *
 * <pre>
 * mvn -q install -DskipTests && mvn -q -pl grader exec:java@gradescope-zip   # grader/target/gradescope/*.zip
 * </pre>
 */
@Command(name = "gradescope-zip", mixinStandardHelpOptions = true,
        description = "Builds the Gradescope autograder zips, one per assignment, from the course without its"
                + " solutions.")
public final class GradescopeZip implements Callable<Integer> {

    /** The scripts at the zip's root, from {@code grader/gradescope/}. */
    static final List<String> SCRIPTS = List.of("setup.sh", "run_autograder", "create-sandbox-user.sh");

    /** The file at the zip's root that names the assignment run_autograder grades. */
    static final String ASSIGNMENT_FILE = "ASSIGNMENT";

    @Option(names = "--course", defaultValue = ".", description = "the course checkout (default: here)")
    Path course;

    @Option(names = "--out", required = true, description = "the folder to write autograder-<assignment>.zip into")
    Path out;

    @Option(names = "--assignment", description = "write this assignment's zip only (default: every assignment)")
    String assignment;

    public static void main(String[] args) {
        System.exit(new CommandLine(new GradescopeZip()).execute(args));
    }

    /** The zip of an assignment, in {@code folder}. */
    public static Path zipOf(Path folder, String assignment) {
        return folder.resolve("autograder-" + assignment + ".zip");
    }

    @Override
    public Integer call() throws IOException {
        Path from = course.toAbsolutePath().normalize();
        List<Assignments.Assignment> chosen;
        try {
            Assignments all = Assignments.of(from);
            chosen = assignment == null || assignment.isBlank() || assignment.startsWith("${") ? all.all()
                    : List.of(all.named(assignment));
        } catch (IllegalArgumentException e) {
            System.err.println("Not zipped: " + e.getMessage() + ".");
            return 2;
        }
        Path staging = Files.createTempDirectory("shardlings-gradescope-");
        try {
            Path release = staging.resolve("source");
            StudentRelease.write(from, release);
            List<String> problems = StudentRelease.check(from, release);
            if (!problems.isEmpty()) {
                System.err.println("Not zipped: the course would carry\n  " + String.join("\n  ", problems));
                return 1;
            }
            for (Assignments.Assignment a : chosen) {
                Path zip = zipOf(out.toAbsolutePath().normalize(), a.name());
                write(from.resolve("grader/gradescope"), release, zip, a.name());
                System.out.println("Wrote " + zip + " (" + a.name() + ": " + a.parts().size() + " parts, "
                        + a.points() + " points)");
            }
        } finally {
            Folders.deleteRecursively(staging);
        }
        System.out.println("Upload each as the autograder of its own Gradescope programming assignment (Ubuntu"
                + " base image), with the points shown.");
        return 0;
    }

    /**
     * Zips the scripts (mode 755), the assignment's name and the release (directories 755, files 644) into
     * {@code zip}.
     */
    static void write(Path scripts, Path release, Path zip, String assignment) throws IOException {
        Files.createDirectories(zip.getParent());
        try (ZipArchiveOutputStream z = new ZipArchiveOutputStream(zip.toFile())) {
            for (String s : SCRIPTS) {
                add(z, scripts.resolve(s), s, 0755);
            }
            byte[] label = (assignment + "\n").getBytes(java.nio.charset.StandardCharsets.UTF_8);
            ZipArchiveEntry a = new ZipArchiveEntry(ASSIGNMENT_FILE);
            a.setUnixMode(0100644);
            a.setSize(label.length);
            z.putArchiveEntry(a);
            z.write(label);
            z.closeArchiveEntry();
            try (Stream<Path> files = Files.walk(release)) {
                for (Path f : files.sorted().toList()) {
                    String name = release.relativize(f).toString().replace(f.getFileSystem().getSeparator(), "/");
                    if (name.isEmpty() || SCRIPTS.contains(name) || name.equals(ASSIGNMENT_FILE)) {
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
