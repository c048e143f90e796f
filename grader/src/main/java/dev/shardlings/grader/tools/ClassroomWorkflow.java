package dev.shardlings.grader.tools;

import dev.shardlings.grader.parts.Part;

import dev.shardlings.grader.grade.Course;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The GitHub Classroom workflow of a student repository ({@code .github/workflows/classroom.yml}), written from
 * {@link Part}: one grade of the whole course ({@code mvn -B test -Pgrade}, the students' own command), then one
 * autograding step per part whose command passes exactly when results.json says the part passed, worth the part's
 * points. So Classroom's points equal the grader's. The student release writes the file
 * ({@link StudentRelease}), from the parts as they are then: no copy is committed.
 *
 * <pre>
 * java -cp grader/target/classes:framework/target/classes dev.shardlings.grader.tools.ClassroomWorkflow classroom.yml
 * </pre>
 */
public final class ClassroomWorkflow {

    /** Checks one part in results.json: exit 0 when it passed, 1 otherwise (python3 is on GitHub's runners). */
    public static final String CHECK = "python3 -c 'import json,sys; t=[t for t in json.load(open(\"grader/target/"
            + "grade/results.json\"))[\"tests\"] if t[\"number\"]==sys.argv[1]]; sys.exit(0 if t and"
            + " t[0][\"status\"]==\"passed\" else 1)'";

    private ClassroomWorkflow() {
    }

    /** Writes the workflow to the file named by {@code args[0]}. */
    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            System.err.println("usage: ClassroomWorkflow <classroom.yml>");
            System.exit(2);
        }
        Files.writeString(Path.of(args[0]), yaml());
    }

    /** A step id GitHub accepts for a part: {@code part-1-2a}. */
    static String id(Part p) {
        return "part-" + p.number().replace('.', '-');
    }

    /** The workflow. */
    public static String yaml() {
        StringBuilder sb = new StringBuilder();
        sb.append("# GitHub Classroom autograding for Shardlings. Written by"
                + " dev.shardlings.grader.tools.ClassroomWorkflow from the\n# grader's parts; do not edit by hand. One grade of the course, then one step per"
                + " part worth its points.\n");
        sb.append("name: Autograding\n");
        sb.append("on: [push, workflow_dispatch, repository_dispatch]\n");
        sb.append("permissions:\n  checks: write\n  actions: read\n  contents: read\n");
        sb.append("jobs:\n  grade:\n    runs-on: ubuntu-latest\n    if: github.actor != 'github-classroom[bot]'\n");
        sb.append("    steps:\n");
        sb.append("      - uses: actions/checkout@v4\n");
        sb.append("      - uses: actions/setup-java@v4\n        with:\n          distribution: temurin\n"
                + "          java-version: '17'\n          cache: maven\n");
        sb.append("      - name: Grade the course (mvn test -Pgrade)\n        run: mvn -B test -Pgrade\n");
        StringBuilder runners = new StringBuilder();
        StringBuilder env = new StringBuilder();
        for (Part p : Course.all()) {
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
            env.append("          ").append(id.toUpperCase(java.util.Locale.ROOT).replace('-', '_'))
                    .append("_RESULTS: \"${{ steps.").append(id).append(".outputs.result }}\"\n");
        }
        sb.append("      - name: Report the points\n        uses: classroom-resources/autograding-grading-reporter@v1\n")
                .append("        env:\n").append(env)
                .append("        with:\n          runners: ").append(runners).append('\n');
        return sb.toString();
    }
}
