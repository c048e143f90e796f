package dev.shardlings.grader.tools;

import dev.shardlings.grader.grade.Assignments;
import dev.shardlings.grader.parts.Part;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The GitHub Classroom workflow of a student repository, for one assignment ({@link Assignments}), written from
 * its parts: the student's repository is checked out into {@code submission/} and the grader into
 * {@code grader-of-record/}, the grader is built, the sandbox users are made, and grade-submission grades the
 * course files of {@code submission/} as root with student code run as the sandbox user (docs/grading-integrity.md);
 * then one autograding step per part of the assignment, worth its points, passes exactly when results.json says
 * the part passed. So Classroom's points equal the grader's for that assignment.
 *
 * <p>Where the grader comes from: with a {@link GraderSource} (the instructor's repository at a tag or commit, and
 * the SHA-256 of its files) the workflow fetches that copy, refuses to grade when its checksum differs, and takes
 * nothing but the course files from the student, so edits to the student's own {@code grader/}, poms or framework
 * change nothing. Without one it grades with the student's own copy of the grader. Either way the workflow file
 * itself lives in the student's repository, where a student can edit it: the grade of record is the batch grade of
 * the Classroom export (docs/classroom.md).
 *
 * <pre>
 * java -cp grader/target/classes:framework/target/classes dev.shardlings.grader.tools.ClassroomWorkflow classroom.yml
 * </pre>
 */
public final class ClassroomWorkflow {

    /** Where the grade step writes results.json, relative to the workspace. */
    public static final String RESULTS = "results/results.json";

    /** Checks one part in results.json: exit 0 when it passed, 1 otherwise (python3 is on GitHub's runners). */
    public static final String CHECK = "python3 -c 'import json,sys; t=[t for t in json.load(open(\"" + RESULTS
            + "\"))[\"tests\"] if t[\"number\"]==sys.argv[1]]; sys.exit(0 if t and"
            + " t[0][\"status\"]==\"passed\" else 1)'";

    /** What the grader checksum covers: every file of the course but git's and GitHub's own folders. */
    static final List<String> UNCHECKED = List.of(".git", ".github");

    /**
     * The instructor's copy of the grader a workflow grades with.
     *
     * @param repository {@code owner/name} on GitHub, e.g. the template repository of the release
     * @param ref        a tag or commit of it, e.g. {@code grader-2026}
     * @param sha256     the checksum of its files ({@link #checksum(Path)}), hex
     */
    public record GraderSource(String repository, String ref, String sha256) {
        private static final Pattern REPO = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9_.-]+");
        private static final Pattern REF = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_./-]*");

        public GraderSource {
            if (!REPO.matcher(repository).matches() || !REF.matcher(ref).matches() || ref.contains("..")) {
                throw new IllegalArgumentException("the grader must be OWNER/REPOSITORY@TAG-OR-COMMIT, e.g."
                        + " my-org/shardlings-template@grader-2026; got " + repository + "@" + ref);
            }
        }

        /** {@code owner/name@ref}, e.g. {@code my-org/shardlings-template@grader-2026}. */
        public static GraderSource parse(String spec, String sha256) {
            int at = spec.indexOf('@');
            if (at < 0) {
                throw new IllegalArgumentException("the grader must be OWNER/REPOSITORY@TAG-OR-COMMIT, e.g."
                        + " my-org/shardlings-template@grader-2026; got " + spec);
            }
            return new GraderSource(spec.substring(0, at), spec.substring(at + 1), sha256);
        }
    }

    private ClassroomWorkflow() {
    }

    /** Writes the whole course's workflow, grading with the student's own copy, to the file {@code args[0]}. */
    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            System.err.println("usage: ClassroomWorkflow <classroom.yml>");
            System.exit(2);
        }
        Files.writeString(Path.of(args[0]), yaml(Assignments.defaults().named(Assignments.COURSE), Optional.empty()));
    }

    /**
     * The checksum of a course's files as the workflow computes it: {@code find . -type f} (but {@code .git} and
     * {@code .github}), sorted by byte order, through {@code sha256sum}, and that listing through {@code sha256sum}.
     */
    public static String checksum(Path course) throws IOException {
        try (Stream<Path> files = Files.walk(course)) {
            List<String> names = files.filter(Files::isRegularFile)
                    .map(f -> "./" + course.relativize(f).toString().replace(f.getFileSystem().getSeparator(), "/"))
                    .filter(n -> UNCHECKED.stream().noneMatch(u -> n.startsWith("./" + u + "/")))
                    .sorted((a, b) -> java.util.Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8),
                            b.getBytes(StandardCharsets.UTF_8)))
                    .toList();
            StringBuilder listing = new StringBuilder();
            for (String n : names) {
                listing.append(sha256(Files.readAllBytes(course.resolve(n.substring(2))))).append("  ").append(n)
                        .append('\n');
            }
            return sha256(listing.toString().getBytes(StandardCharsets.UTF_8));
        }
    }

    private static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    /** A step id GitHub accepts for a part: {@code part-1-2a}. */
    static String id(Part p) {
        return "part-" + p.number().replace('.', '-');
    }

    /** The workflow of the whole course, grading with the student's own copy of the grader. */
    public static String yaml() {
        return yaml(Assignments.defaults().named(Assignments.COURSE), Optional.empty());
    }

    /** The workflow of an assignment, grading with {@code grader} (the student's own copy when empty). */
    public static String yaml(Assignments.Assignment assignment, Optional<GraderSource> grader) {
        String course = grader.isPresent() ? "grader-of-record" : "submission";
        StringBuilder sb = new StringBuilder();
        sb.append("# GitHub Classroom autograding for Shardlings, assignment ").append(assignment.name()).append(" (")
                .append(assignment.points()).append(" points). Written by\n# dev.shardlings.grader.tools."
                + "ClassroomWorkflow from the grader's parts; do not edit by hand. One grade, then one step per part"
                + "\n# worth its points. The grade of record is the instructor's batch grade of the export.\n");
        sb.append("name: Autograding\n");
        sb.append("on: [push, workflow_dispatch, repository_dispatch]\n");
        sb.append("permissions:\n  checks: write\n  actions: read\n  contents: read\n");
        sb.append("jobs:\n  grade:\n    runs-on: ubuntu-latest\n    if: github.actor != 'github-classroom[bot]'\n");
        sb.append("    steps:\n");
        sb.append("      - uses: actions/checkout@v4\n        with:\n          path: submission\n");
        if (grader.isPresent()) {
            GraderSource g = grader.get();
            sb.append("      - name: Fetch the instructor's grader (").append(g.repository()).append('@')
                    .append(g.ref()).append(")\n        uses: actions/checkout@v4\n        with:\n")
                    .append("          repository: ").append(g.repository()).append('\n')
                    .append("          ref: '").append(g.ref()).append("'\n") // quoted: a tag like 2026e1 is a YAML float
                    .append("          path: grader-of-record\n");
            sb.append("      - name: Verify the grader's checksum\n        working-directory: grader-of-record\n")
                    .append("        run: |\n")
                    .append("          sum=$(find . -type f -not -path './.git/*' -not -path './.github/*' -print0"
                            + " | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1)\n")
                    .append("          if [ \"$sum\" != \"").append(g.sha256()).append("\" ]; then echo \"the grader"
                            + " at ").append(g.repository()).append('@').append(g.ref()).append(" is not the one"
                            + " this workflow was written for ($sum)\" >&2; exit 1; fi\n");
        }
        // With the instructor's grader, no Maven cache: the cache belongs to the student's repository, and a
        // workflow the student pushed once could leave a tampered library in it that the checksum never sees.
        sb.append("      - uses: actions/setup-java@v4\n        with:\n          distribution: temurin\n"
                + "          java-version: '17'\n");
        if (grader.isEmpty()) {
            sb.append("          cache: maven\n          cache-dependency-path: ").append(course).append("/**/pom.xml\n");
        }
        String repo = grader.isPresent() ? " -Dmaven.repo.local=\"$RUNNER_TEMP/m2\"" : "";
        sb.append("      - name: Build the grader\n        working-directory: ").append(course).append('\n')
                .append("        run: |\n")
                .append("          mvn -B -q install -DskipTests -Djacoco.skip=true").append(repo).append('\n')
                .append("          mvn -B -q -pl grader dependency:build-classpath -Dmdep.includeScope=test"
                        + " -Dmdep.outputFile=\"$RUNNER_TEMP/classpath.txt\"").append(repo).append('\n');
        // The runner's user has sudo without a password: the judge runs as root, student code as the sandbox user,
        // who can read neither the grader nor the results (docs/grading-integrity.md, "Running as root").
        sb.append("      - name: Grade ").append(assignment.name())
                .append(" (as root; student code as the sandbox user)\n")
                .append("        run: |\n")
                .append("          sudo bash ").append(course).append("/grader/gradescope/create-sandbox-user.sh\n")
                .append("          chmod -R go-rwx ").append(course)
                .append(grader.isPresent() ? " \"$RUNNER_TEMP/m2\"" : " ~/.m2").append('\n')
                .append("          mkdir -p results\n")
                .append("          sudo \"$JAVA_HOME/bin/java\" -XX:TieredStopAtLevel=1 -cp \"$PWD/").append(course)
                .append("/grader/target/test-classes:$PWD/").append(course).append("/grader/target/classes:$(cat"
                        + " \"$RUNNER_TEMP/classpath.txt\")\" dev.shardlings.grader.grade.SubmissionGrading"
                        + " --course=").append(course).append(" --test-classes=").append(course)
                .append("/grader/target/test-classes --submission=submission --results=").append(RESULTS)
                .append(" --assignment=").append(assignment.name()).append('\n')
                .append("          sudo chmod a+r ").append(RESULTS).append('\n');
        StringBuilder runners = new StringBuilder();
        StringBuilder env = new StringBuilder();
        for (Part p : assignment.parts()) {
            String id = id(p);
            sb.append("      - name: ").append(p.number()).append(' ').append(p.title()).append('\n')
                    .append("        id: ").append(id).append('\n')
                    .append("        uses: classroom-resources/autograding-command-grader@v1\n")
                    .append("        with:\n")
                    .append("          test-name: \"").append(p.number()).append(' ').append(p.title()).append("\"\n")
                    .append("          command: \"").append(CHECK.replace("\\", "\\\\").replace("\"", "\\\""))
                    .append(' ').append(p.number()).append("\"\n")
                    .append("          timeout: 1\n")
                    .append("          max-score: ").append(p.points()).append('\n');
            runners.append(runners.length() > 0 ? "," : "").append(id);
            env.append("          ").append(id.toUpperCase(Locale.ROOT).replace('-', '_'))
                    .append("_RESULTS: \"${{ steps.").append(id).append(".outputs.result }}\"\n");
        }
        sb.append("      - name: Report the points\n        uses: classroom-resources/autograding-grading-reporter@v1\n")
                .append("        env:\n").append(env)
                .append("        with:\n          runners: ").append(runners).append('\n');
        return sb.toString();
    }
}
