package dev.shardlings.grader;

import picocli.CommandLine.Option;

/** The options of a grade run that shape the sandbox, shared by {@link IsolatedGrading} and {@link SubmissionGrading}. */
public final class SandboxOptions {

    @Option(names = "--only", defaultValue = "", description = "a glob of test class names, e.g. 'Part12a*'")
    String only = "";

    @Option(names = "--part-limit", defaultValue = "120", description = "seconds one part may take in all")
    int partLimitSeconds = 120;

    @Option(names = "--heap", defaultValue = "2g", description = "maximum heap of the sandbox JVM")
    String heap = "2g";

    @Option(names = "--no-sandbox-user", description = "never run the sandbox as the unprivileged user "
            + Sandbox.SANDBOX_USER + ", even as root")
    boolean noSandboxUser;

    /** These options as arguments of the other command. */
    java.util.List<String> asArguments() {
        java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of("--part-limit=" + partLimitSeconds,
                "--heap=" + heap));
        if (noSandboxUser) {
            args.add("--no-sandbox-user");
        }
        if (!only.isBlank()) {
            args.add("--only=" + only);
        }
        return args;
    }
}
