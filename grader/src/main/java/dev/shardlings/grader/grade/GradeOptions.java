package dev.shardlings.grader.grade;

import dev.shardlings.grader.host.SandboxUsers;
import dev.shardlings.grader.parts.Part;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.List;

/**
 * The options every grade run takes (a picocli mixin of {@link IsolatedGrading}, {@link SubmissionGrading} and
 * {@link BatchGrading}): where the graded test classes are, which parts run (an assignment, narrowed by part
 * numbers or test class globs), and how the sandbox is shaped. Each
 * command passes them on to the one it starts with {@link #asArguments()}.
 */
public final class GradeOptions {

    @Option(names = "--test-classes", required = true, description = "the grader's compiled test classes")
    Path testClasses;

    @Option(names = "--only", defaultValue = "", description = "a glob of test class names, e.g. 'Part12a*'")
    String only = "";

    @Option(names = "--assignment", defaultValue = "", description = "grade this assignment only (results.json"
            + " holds and scores its parts): chapter-0, problem-1 … problem-4, chapter-5, chapter-6, chapter-7, course"
            + " (default), or one of " + Assignments.FILE + " at the course root")
    String assignment = "";

    @Option(names = "--assignments", defaultValue = "", description = "the instructor's assignments file (default, or empty: "
            + Assignments.FILE + " at the course root, where there is one)")
    void assignmentsFile(String file) {
        // Empty (Maven's -Dassignments left unset) means the default, as for the other options.
        assignmentsFile = unset(file) ? null : Path.of(file);
    }

    Path assignmentsFile;

    @Option(names = "--parts", defaultValue = "", description = "grade only these parts: numbers or globs,"
            + " comma-separated, e.g. '1.2a,2.*'")
    String parts = "";

    @Option(names = "--part-limit", defaultValue = "120", description = "seconds one part may take in all")
    int partLimitSeconds = 120;

    @Option(names = "--heap", defaultValue = "2g", description = "maximum heap of the sandbox JVM")
    String heap = "2g";

    @Option(names = "--no-sandbox-user", arity = "0..1", description = "never run the sandbox as the unprivileged user "
            + SandboxUsers.SANDBOX_USER + ", even as root")
    boolean noSandboxUser;

    /** Takes {@code courseRoot/assignments.json} as the assignments file unless one was given. */
    void assignmentsFrom(Path courseRoot) {
        Path file = courseRoot.resolve(Assignments.FILE);
        if (assignmentsFile == null && Files.isRegularFile(file)) {
            assignmentsFile = file.toAbsolutePath().normalize();
        }
    }

    /**
     * The assignment graded: the one named by --assignment, the whole course when none is.
     *
     * @throws IllegalArgumentException with a message for the instructor: the file is not valid, or names no such
     *                                  assignment
     */
    Assignments.Assignment assignment() throws IOException {
        Assignments all = assignmentsFile == null ? Assignments.defaults()
                : Assignments.parse(Files.readString(assignmentsFile), assignmentsFile.toString());
        return all.named(unset(assignment) ? "" : assignment);
    }

    /**
     * The parts to grade, in course order: the assignment's, narrowed by --parts and --only (a glob of
     * {@link Part#selectionName()}, as Surefire's -Dtest: {@code 'Part12a*'}, or several comma-separated).
     *
     * @throws IllegalArgumentException as {@link #assignment()}, or naming a --parts pattern that matches no part
     */
    List<Part> selectedParts() throws IOException {
        List<Part> chosen = assignment().parts();
        if (!unset(parts)) {
            List<Part> named = Assignments.select(List.of(parts.split(",")), "--parts");
            chosen = chosen.stream().filter(named::contains).toList();
        }
        if (!unset(only)) {
            PathMatcher glob = FileSystems.getDefault().getPathMatcher("glob:" + (only.contains(",")
                    && !only.contains("{") ? "{" + only.replace(" ", "") + "}" : only));
            chosen = chosen.stream().filter(p -> glob.matches(Path.of(p.selectionName()))).toList();
        }
        return chosen;
    }

    /** The selection, in words: "-Dtest='Part12a*'", "--parts=1.*", "--assignment=problem-1". */
    String selection() {
        List<String> s = new ArrayList<>();
        if (!unset(assignment)) {
            s.add("-Dassignment=" + assignment);
        }
        if (!unset(parts)) {
            s.add("-Dparts='" + parts + "'");
        }
        if (!unset(only)) {
            s.add("-Dtest='" + only + "'");
        }
        return String.join(" ", s);
    }

    /** Blank, or a Maven property nobody set ({@code ${test}} reaches us literally). */
    private static boolean unset(String option) {
        return option.isBlank() || option.startsWith("${");
    }

    /** These options as arguments of the command this one starts. */
    List<String> asArguments() {
        List<String> args = new ArrayList<>(List.of("--test-classes=" + testClasses.toAbsolutePath().normalize(),
                "--part-limit=" + partLimitSeconds, "--heap=" + heap));
        if (noSandboxUser) {
            args.add("--no-sandbox-user");
        }
        if (!unset(only)) {
            args.add("--only=" + only);
        }
        if (!unset(assignment)) {
            args.add("--assignment=" + assignment);
        }
        if (assignmentsFile != null) {
            args.add("--assignments=" + assignmentsFile.toAbsolutePath().normalize());
        }
        if (!unset(parts)) {
            args.add("--parts=" + parts);
        }
        return args;
    }
}
