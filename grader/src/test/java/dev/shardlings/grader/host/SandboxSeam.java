package dev.shardlings.grader.host;

import java.io.IOException;
import java.util.List;

/**
 * What the grader's self-tests reach of {@link Sandbox} beyond what the judge uses, kept out of its public API:
 * a fake sandbox process, the copied class path, whether the unprivileged user is there.
 */
public final class SandboxSeam {

    private SandboxSeam() {
    }

    /**
     * A sandbox whose other end of the pipe is {@code command} instead of the sandbox JVM (a process that writes
     * whatever bytes the test wants), for the tests of the channel.
     */
    public static Sandbox withCommand(Sandbox.Config config, List<String> command) throws IOException {
        return Sandbox.withCommand(config, command);
    }

    /** Like {@link #withCommand}, for a command that prints the boot's marker line on standard error when ready. */
    public static Sandbox withBootingCommand(Sandbox.Config config, List<String> command) throws IOException {
        return Sandbox.withBootingCommand(config, command);
    }

    /** The folders the sandbox may load: framework, sandbox package, boot class, course classes (last). */
    public static List<String> classPath(Sandbox sandbox) {
        return sandbox.classPath();
    }

    /** True when this JVM runs as root and the sandbox user and {@code setpriv} are there. */
    public static boolean sandboxUserAvailable() {
        return Sandbox.sandboxUserAvailable();
    }
}
