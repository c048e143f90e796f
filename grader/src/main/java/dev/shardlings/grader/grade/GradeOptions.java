package dev.shardlings.grader.grade;

import dev.shardlings.grader.host.SandboxUsers;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The options every grade run takes (a picocli mixin of {@link IsolatedGrading}, {@link SubmissionGrading} and
 * {@link BatchGrading}): where the graded test classes are, which of them run, and how the sandbox is shaped. Each
 * command passes them on to the one it starts with {@link #asArguments()}.
 */
public final class GradeOptions {

    @Option(names = "--test-classes", required = true, description = "the grader's compiled test classes")
    Path testClasses;

    @Option(names = "--only", defaultValue = "", description = "a glob of test class names, e.g. 'Part12a*'")
    String only = "";

    @Option(names = "--part-limit", defaultValue = "120", description = "seconds one part may take in all")
    int partLimitSeconds = 120;

    @Option(names = "--heap", defaultValue = "2g", description = "maximum heap of the sandbox JVM")
    String heap = "2g";

    @Option(names = "--no-sandbox-user", arity = "0..1", description = "never run the sandbox as the unprivileged user "
            + SandboxUsers.SANDBOX_USER + ", even as root")
    boolean noSandboxUser;

    /** These options as arguments of the command this one starts. */
    List<String> asArguments() {
        List<String> args = new ArrayList<>(List.of("--test-classes=" + testClasses.toAbsolutePath().normalize(),
                "--part-limit=" + partLimitSeconds, "--heap=" + heap));
        if (noSandboxUser) {
            args.add("--no-sandbox-user");
        }
        if (!only.isBlank()) {
            args.add("--only=" + only);
        }
        return args;
    }
}
