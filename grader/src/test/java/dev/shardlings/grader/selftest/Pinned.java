package dev.shardlings.grader.selftest;

import dev.shardlings.grader.judge.GradingFailure;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

/**
 * Keeps what the self-tests' wrong implementations were told, when {@code -Dpin.dir} names a folder: one file per
 * rejection ({@code Class.testMethod.n.txt}: kind, reason, report). {@code .ci/pin-behaviour} compares two such
 * folders, so a refactoring shows that no report changed. Without the property it does nothing.
 */
final class Pinned {

    private static final Map<String, AtomicInteger> SEEN = new ConcurrentHashMap<>();

    private Pinned() {
    }

    static GradingFailure record(GradingFailure f) {
        String dir = System.getProperty("pin.dir", "");
        if (dir.isEmpty()) {
            return f;
        }
        // The outermost frame of a self-test class is the @Test method itself.
        List<StackWalker.StackFrame> frames = StackWalker.getInstance().walk(s -> s
                .filter(fr -> fr.getClassName().startsWith(Pinned.class.getPackageName() + ".")
                        && !fr.getClassName().equals(Pinned.class.getName()))
                .collect(Collectors.toList()));
        StackWalker.StackFrame test = frames.get(frames.size() - 1);
        String cls = test.getClassName().substring(test.getClassName().lastIndexOf('.') + 1);
        String key = cls + "." + test.getMethodName();
        int n = SEEN.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
        try {
            Path folder = Files.createDirectories(Path.of(dir));
            Files.writeString(folder.resolve(key + "." + n + ".txt"),
                    f.kind() + "\n" + f.reason() + "\n" + f.getMessage() + "\n", StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return f;
    }
}
